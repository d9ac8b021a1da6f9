// The daemon's entry points: connect to both clusters and run reconcile cycles until SIGTERM.
#pragma once

#include <memory>
#include <string>

#include "bridge/k8s/http_client.h"
#include "quota/bridge_config.h"

namespace fairway::bridge {

struct DaemonOptions {
    std::string config_path;
    bool once = false;
    bool dry_run = false;
};

// An HTTP client for the configured API server (kubeconfig or in-cluster service account).
std::unique_ptr<HttpClient> connect_kubernetes(const quota::BridgeConfig& config);

// Prints the ClusterQueues (Kueue) or Queues (Volcano) with their GPU quota; 0 on success.
int list_queues(const quota::BridgeConfig& config);

// Runs reconcile cycles (one with options.once); returns the process exit status.
int run_daemon(const DaemonOptions& options, quota::BridgeConfig config);

}  // namespace fairway::bridge
