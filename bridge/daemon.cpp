#include "bridge/daemon.h"

#include <unistd.h>
#include <csignal>
#include <ctime>
#include <iostream>
#include <thread>
#include <utility>

extern "C" {
#include <slurm/slurm.h>
}

#include "bridge/k8s/kube_api.h"
#include "bridge/k8s/queue_watcher.h"
#include "bridge/leader_lease.h"
#include "bridge/log.h"
#include "bridge/metrics_server.h"
#include "bridge/reconciler.h"
#include "bridge/usage_spool.h"
#include "common/error.h"

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
    return config.kubernetes.kubeconfig.empty() ? in_cluster_credentials()
                                                : load_kubeconfig(config.kubernetes.kubeconfig);
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
        std::cerr << "fairway-bridge: cannot list queues at " << http->server()
                  << queue_collection(config.kubernetes.backend) << ": " << result.response.summary() << "\n";
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
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void log_cycle(const CycleReport& report, std::chrono::milliseconds took) {
    for (const auto& [name, g] : report.groups) {
        auto limit_used = [&](quota::Side side) {
            const auto& r = g.reading[side];
            return r ? std::to_string(r->limit) + "/" + std::to_string(r->used) : std::string("unread");
        };
        std::string slurm = limit_used(quota::Side::slurm), kube = limit_used(quota::Side::kubernetes);
        log_event(LogLevel::debug, "group",
                  {{"group", name},
                   {"quota", std::to_string(g.quota)},
                   {"slurm_limit_used", slurm},
                   {"kube_limit_used", kube},
                   {"hold", quota::hold_name(g.decision.hold)}});
    }
    log_event(LogLevel::info, "cycle",
              {{"writes", std::to_string(report.writes)},
               {"failed_writes", std::to_string(report.failed_writes)},
               {"slurm_ok", report.slurm_ok ? "true" : "false"},
               {"kube_ok", report.kube_ok ? "true" : "false"},
               {"ms", std::to_string(took.count())}});
}

fairshare::TimePoint wall_now() {
    return std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
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

// Exit status of --once when another bridge holds the lease: nothing was written.
constexpr int kExitNotLeader = 3;

// Dry runs write nothing, so they take no part in the election; they only say who leads.
void log_lease_holder(KubeApi& api, const quota::LeaderElectionSettings& settings) {
    LeaderLease lease(api, settings, 1);
    ApiResult read = api.get(lease.path());
    std::string holder = read.ok() ? read.object["spec"].value("holderIdentity", "") : "";
    log_event(LogLevel::info, "dry-run: leader election skipped",
              {{"holder", holder.empty() ? "-" : holder},
               {"lease", read.ok() || read.response.status == 404 ? "read" : read.response.summary()}});
}

// Every write of this process, on both sides, passes the lease's fence.
std::unique_ptr<LeaderLease> elect(const DaemonOptions& options, const quota::BridgeConfig& config, KubeApi& api,
                                   SlurmClient& slurm) {
    if (!config.leader_election.enabled) return nullptr;
    if (options.dry_run) {
        log_lease_holder(api, config.leader_election);
        return nullptr;
    }
    auto lease = std::make_unique<LeaderLease>(api, config.leader_election, config.reconcile.write_timeout_seconds);
    LeaderLease* fence = lease.get();
    // A cycle longer than the fence (a cold sync of many objects) renews mid-cycle instead of
    // withholding the rest of its writes; the renewal is as conditional as any other.
    auto gate = [fence] {
        if (fence->write_allowed()) return true;
        return fence->holds() && fence->acquire_or_renew() && fence->write_allowed();
    };
    api.set_write_gate(gate);
    slurm.set_write_gate(gate);
    return lease;
}

std::string leader_metric(bool leading) {
    return std::string(
               "# HELP fairway_bridge_leader 1 while this bridge holds the leader lease (and may write)\n"
               "# TYPE fairway_bridge_leader gauge\nfairway_bridge_leader ") +
           (leading ? "1" : "0") + "\n";
}

// Waits out `pause`, renewing the lease every retry period meanwhile; returns a signal or 0, and
// returns early when another bridge took the lease.
int wait_renewing(const sigset_t& signals, std::chrono::seconds pause, LeaderLease* lease, std::chrono::seconds retry) {
    while (pause.count() > 0) {
        auto slice = lease ? std::min(pause, retry) : pause;
        if (int signal = wait_for_signal(signals, slice)) return signal;
        pause -= slice;
        if (lease && pause.count() > 0 && !lease->acquire_or_renew() && !lease->holds()) return 0;
    }
    return 0;
}

int refuse_once(const quota::LeaderElectionSettings& settings, const LeaderLease& lease) {
    std::cerr << "fairway-bridge: not writing: the lease " << settings.lease_namespace << "/" << settings.lease_name
              << " is held by " << (lease.holder().empty() ? "nobody (it could not be read)" : lease.holder()) << "\n";
    return kExitNotLeader;
}

// Releasing the lease lets a successor start at once instead of after the lease duration.
int stop(int signal, LeaderLease* lease) {
    log_event(LogLevel::info, "stopping", {{"signal", signal == SIGTERM ? "SIGTERM" : "SIGINT"}});
    if (lease) lease->release();
    return 0;
}

// Metering writes the spool, so a dry run does not meter.
std::unique_ptr<UsageSpool> start_usage(const DaemonOptions& options, const quota::BridgeConfig& config) {
    if (config.usage.spool.empty() || options.dry_run) return nullptr;
    return std::make_unique<UsageSpool>(config, wall_now());
}

// A reloaded usage section: another spool or source is another sequence of records, read back
// anew; the other keys apply from the next record on. A spool that cannot be used keeps the old one.
void reload_usage(const DaemonOptions& options, const quota::BridgeConfig& config, std::unique_ptr<UsageSpool>& usage) {
    if (usage && usage->writes_as(config.usage)) return usage->reconfigure(config);
    try {
        usage = start_usage(options, config);
    } catch (const std::runtime_error& e) {
        log_event(LogLevel::error, "usage spool rejected; keeping the previous one", {{"error", e.what()}});
    }
}

// Warns when the spool forgets Kubernetes usage that priority/fairway's window still counts
// (quota::spool_keep_shortfall); slurmctld is asked at start and at each reload while metering.
void check_spool_keep(const quota::BridgeConfig& config, const UsageSpool* usage, SlurmClient& slurm) {
    if (!usage) return;
    const std::optional<fairshare::LedgerConfig> ledger = slurm.fairshare_ledger();
    if (!ledger) return;
    const std::string shortfall = quota::spool_keep_shortfall(Seconds(config.usage.keep_seconds), *ledger);
    if (!shortfall.empty()) log_event(LogLevel::warn, "usage records are kept too briefly", {{"reason", shortfall}});
}

void reload(const DaemonOptions& options, quota::BridgeConfig& config, Reconciler& reconciler,
            std::unique_ptr<UsageSpool>& usage, SlurmClient& slurm) {
    try {
        auto fresh = quota::load_bridge_config(options.config_path);
        if (fresh.kubernetes.kubeconfig != config.kubernetes.kubeconfig)
            log_event(LogLevel::warn, "kubeconfig changes take effect at restart");
        config = fresh;
        reconciler.reconfigure(std::move(fresh), monotonic_now());
        reload_usage(options, config, usage);
        check_spool_keep(config, usage.get(), slurm);
        log_event(LogLevel::info, "configuration reloaded",
                  {{"groups", std::to_string(config.groups.size())}, {"usage", usage ? config.usage.spool : "off"}});
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
    auto reconciler = std::make_unique<Reconciler>(config, api, slurm, options.dry_run, monotonic_now);
    std::unique_ptr<LeaderLease> lease = elect(options, config, api, slurm);
    const std::chrono::seconds retry(config.leader_election.retry_period_seconds);
    bool leading = lease == nullptr;
    long term = 0;
    std::unique_ptr<MetricsServer> metrics;
    std::unique_ptr<QueueWatcher> watcher;
    if (!options.once) {
        metrics = std::make_unique<MetricsServer>(config.metrics_listen);
        watcher = std::make_unique<QueueWatcher>(credentials_for(config), queue_collection(config.kubernetes.backend),
                                                 std::string(quota::kManagedByLabel) + "=" + quota::kManagedByValue,
                                                 [] { kill(getpid(), SIGUSR1); });
    }
    log_event(LogLevel::info, "started",
              {{"server", http->server()},
               {"groups", std::to_string(config.groups.size())},
               {"dry_run", options.dry_run ? "true" : "false"},
               {"metrics_port", metrics ? std::to_string(metrics->port()) : "off"},
               {"identity", lease ? lease->identity() : "-"}});
    std::unique_ptr<UsageSpool> usage = start_usage(options, config);
    check_spool_keep(config, usage.get(), slurm);
    CycleTotals totals;
    for (;;) {
        if (lease) {
            lease->acquire_or_renew();
            // Cycles go on while we hold the lease as far as we know, even when it cannot be renewed
            // (the apiserver is away): they read both sides, and the fence withholds every write.
            leading = lease->holds();
            // A new term starts like a fresh process: no protocol state from an earlier term.
            if (std::exchange(term, lease->term()) != lease->term())
                reconciler = std::make_unique<Reconciler>(config, api, slurm, options.dry_run, monotonic_now);
        }
        if (!leading) {
            if (options.once) return refuse_once(config.leader_election, *lease);
            if (metrics) metrics->publish(leader_metric(false), true);  // a standby is healthy
            int signal = wait_for_signal(signals, retry);
            if (signal == SIGHUP) reload(options, config, *reconciler, usage, slurm);
            if (signal == SIGTERM || signal == SIGINT) return stop(signal, nullptr);
            continue;
        }
        auto began = std::chrono::steady_clock::now();
        CycleReport report = reconciler->cycle(monotonic_now());
        auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
        log_cycle(report, took);
        if (usage) usage->cycle(api, wall_now());
        ++totals.cycles;
        totals.writes += report.writes;
        totals.failed_writes += report.failed_writes;
        totals.last_seconds = took.count() / 1000.0;
        totals.seconds_sum += totals.last_seconds;
        if (watcher) totals.watch_events = watcher->events();
        if (metrics)
            metrics->publish(render_metrics(report, totals, api.counters()) +
                                 leader_metric(lease == nullptr || lease->write_allowed()) +
                                 (usage ? usage->metrics() : std::string()),
                             report.slurm_ok && report.kube_ok);
        std::chrono::seconds pause(config.reconcile.period_seconds);
        if (options.once) {
            // A fresh process writes no limit before a predecessor's writes have timed out.
            if (!still_starting(report) || options.dry_run) {
                if (lease) lease->release();
                return report.slurm_ok && report.kube_ok && !report.failed_writes ? 0 : 1;
            }
            pause = std::chrono::seconds(config.reconcile.write_timeout_seconds);
        }
        int signal = wait_renewing(signals, pause, lease.get(), retry);
        if (signal == SIGHUP) reload(options, config, *reconciler, usage, slurm);
        if (signal == SIGTERM || signal == SIGINT) return stop(signal, lease.get());
    }
}

}  // namespace fairway::bridge
