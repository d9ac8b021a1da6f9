#include "daemon.h"

#include <csignal>
#include <unistd.h>
#include <ctime>
#include <iostream>
#include <thread>

extern "C" {
#include <slurm/slurm.h>
}

#include "common/error.h"
#include "k8s/kube_api.h"
#include "k8s/queue_watcher.h"
#include "log.h"
#include "metrics_server.h"
#include "reconciler.h"

namespace fairway::bridge {
namespace {

const char* queue_collection(quota::Backend backend) {
    return backend == quota::Backend::kueue ? "/apis/kueue.x-k8s.io/v1beta1/clusterqueues"
                                            : "/apis/scheduling.volcano.sh/v1beta1/queues";
}

void sleep_for(std::chrono::milliseconds wait) { std::this_thread::sleep_for(wait); }

}  // namespace

namespace {
KubeCredentials credentials_for(const quota::BridgeConfig& config) {
    return config.kubernetes.kubeconfig.empty() ? in_cluster_credentials() : load_kubeconfig(config.kubernetes.kubeconfig);
}
}  // namespace

std::unique_ptr<HttpClient> connect_kubernetes(const quota::BridgeConfig& config) {
    KubeCredentials credentials = credentials_for(config);
    if (credentials.insecure_skip_tls_verify)
        log_event(LogLevel::warn, "TLS verification disabled by the kubeconfig", {{"kubeconfig", credentials.origin}});
    auto timeout = std::chrono::seconds(config.reconcile.write_timeout_seconds);
    return std::make_unique<HttpClient>(std::move(credentials), timeout);
}

int list_queues(const quota::BridgeConfig& config) {
    auto http = connect_kubernetes(config);
    KubeApi api(*http, RetryPolicy{}, sleep_for);
    ApiResult result = api.list(queue_collection(config.kubernetes.backend));
    if (!result.ok()) {
        std::cerr << "fairway-bridge: cannot list queues at " << http->server() << queue_collection(config.kubernetes.backend)
                  << ": " << result.response.summary() << "\n";
        return 1;
    }
    const bool kueue = config.kubernetes.backend == quota::Backend::kueue;
    std::cout << (kueue ? "CLUSTERQUEUE\tCOHORT\tMANAGED-BY\n" : "QUEUE\tCAPABILITY\tMANAGED-BY\n");
    for (const auto& item : result.object["items"]) {
        const auto& meta = item["metadata"];
        std::string manager = meta.contains("labels") ? meta["labels"].value("app.kubernetes.io/managed-by", "-") : "-";
        std::string detail = kueue ? item["spec"].value("cohort", "-")
                                   : (item["spec"].contains("capability") ? item["spec"]["capability"].dump() : "-");
        std::cout << meta.value("name", "?") << "\t" << detail << "\t" << manager << "\n";
    }
    return 0;
}

namespace {

quota::Instant monotonic_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void log_cycle(const CycleReport& report, std::chrono::milliseconds took) {
    for (const auto& [name, g] : report.groups) {
        std::string slurm = g.reading[0] ? std::to_string(g.reading[0]->limit) + "/" + std::to_string(g.reading[0]->used) : "unread";
        std::string kube = g.reading[1] ? std::to_string(g.reading[1]->limit) + "/" + std::to_string(g.reading[1]->used) : "unread";
        log_event(LogLevel::debug, "group", {{"group", name}, {"quota", std::to_string(g.quota)}, {"slurm_limit_used", slurm},
                                             {"kube_limit_used", kube}, {"hold", quota::hold_name(g.decision.hold)}});
    }
    log_event(LogLevel::info, "cycle", {{"writes", std::to_string(report.writes)}, {"failed_writes", std::to_string(report.failed_writes)},
                                        {"slurm_ok", report.slurm_ok ? "true" : "false"}, {"kube_ok", report.kube_ok ? "true" : "false"},
                                        {"ms", std::to_string(took.count())}});
}

bool still_starting(const CycleReport& report) {
    for (const auto& [name, g] : report.groups)
        if (g.decision.hold == quota::Hold::starting) return true;
    return false;
}

// Waits up to `limit` for SIGTERM/SIGINT/SIGHUP (blocked, so no handler and no global state).
int wait_for_signal(const sigset_t& signals, std::chrono::seconds limit) {
    timespec timeout{static_cast<time_t>(limit.count()), 0};
    int signal = sigtimedwait(&signals, nullptr, &timeout);
    return signal < 0 ? 0 : signal;
}

void reload(const DaemonOptions& options, quota::BridgeConfig& config, Reconciler& reconciler) {
    try {
        auto fresh = quota::load_bridge_config(options.config_path);
        if (fresh.kubernetes.kubeconfig != config.kubernetes.kubeconfig)
            log_event(LogLevel::warn, "kubeconfig changes take effect at restart");
        config = fresh;
        reconciler.reconfigure(std::move(fresh), monotonic_now());
        log_event(LogLevel::info, "configuration reloaded", {{"groups", std::to_string(config.groups.size())}});
    } catch (const InputError& e) {
        log_event(LogLevel::error, "configuration rejected; keeping the previous one", {{"error", e.what()}});
    }
}

}  // namespace

int run_daemon(const DaemonOptions& options, quota::BridgeConfig config) {
    sigset_t signals;
    sigemptyset(&signals);
    for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&signals, s);  // USR1: a watched queue changed
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    slurm_init(nullptr);
    auto http = connect_kubernetes(config);
    KubeApi api(*http, RetryPolicy{}, sleep_for);
    SlurmClient slurm(config.slurm);
    Reconciler reconciler(config, api, slurm, options.dry_run, monotonic_now());
    std::unique_ptr<MetricsServer> metrics;
    std::unique_ptr<QueueWatcher> watcher;
    if (!options.once) {
        metrics = std::make_unique<MetricsServer>(config.metrics_listen);
        watcher = std::make_unique<QueueWatcher>(credentials_for(config), queue_collection(config.kubernetes.backend),
                                                 std::string(quota::kManagedByLabel) + "=" + quota::kManagedByValue,
                                                 [] { kill(getpid(), SIGUSR1); });
    }
    log_event(LogLevel::info, "started", {{"server", http->server()}, {"groups", std::to_string(config.groups.size())},
                                          {"dry_run", options.dry_run ? "true" : "false"},
                                          {"metrics_port", metrics ? std::to_string(metrics->port()) : "off"}});
    CycleTotals totals;
    for (;;) {
        auto began = std::chrono::steady_clock::now();
        CycleReport report = reconciler.cycle(monotonic_now());
        auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
        log_cycle(report, took);
        ++totals.cycles;
        totals.writes += report.writes;
        totals.failed_writes += report.failed_writes;
        totals.last_seconds = took.count() / 1000.0;
        totals.seconds_sum += totals.last_seconds;
        if (watcher) totals.watch_events = watcher->events();
        if (metrics) metrics->publish(render_metrics(report, totals, api.counters()), report.slurm_ok && report.kube_ok);
        std::chrono::seconds pause(config.reconcile.period_seconds);
        if (options.once) {
            // A fresh process writes no limit before a predecessor's writes have timed out.
            if (!still_starting(report) || options.dry_run) return report.slurm_ok && report.kube_ok && !report.failed_writes ? 0 : 1;
            pause = std::chrono::seconds(config.reconcile.write_timeout_seconds);
        }
        int signal = wait_for_signal(signals, pause);
        if (signal == SIGHUP) reload(options, config, reconciler);
        if (signal == SIGTERM || signal == SIGINT) {
            log_event(LogLevel::info, "stopping", {{"signal", signal == SIGTERM ? "SIGTERM" : "SIGINT"}});
            return 0;
        }
    }
}

}  // namespace fairway::bridge
