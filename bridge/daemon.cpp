#include "daemon.h"

#include <iostream>
#include <thread>

#include "k8s/kube_api.h"
#include "log.h"

namespace fairway::bridge {
namespace {

const char* queue_collection(quota::Backend backend) {
    return backend == quota::Backend::kueue ? "/apis/kueue.x-k8s.io/v1beta1/clusterqueues"
                                            : "/apis/scheduling.volcano.sh/v1beta1/queues";
}

void sleep_for(std::chrono::milliseconds wait) { std::this_thread::sleep_for(wait); }

}  // namespace

std::unique_ptr<HttpClient> connect_kubernetes(const quota::BridgeConfig& config) {
    KubeCredentials credentials = config.kubernetes.kubeconfig.empty() ? in_cluster_credentials()
                                                                       : load_kubeconfig(config.kubernetes.kubeconfig);
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

int run_daemon(const DaemonOptions& options, quota::BridgeConfig config) {
    (void)options;
    return list_queues(config);
}

}  // namespace fairway::bridge
