// /metrics (Prometheus text format 0.0.4) and /healthz on a small HTTP/1.0 listener of its own
// thread. The daemon loop publishes a rendered page after every cycle; the server only serves it.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "bridge/k8s/kube_api.h"
#include "bridge/reconciler.h"

namespace fairway::bridge {

// Counters the daemon keeps across cycles.
struct CycleTotals {
    long cycles = 0, writes = 0, failed_writes = 0, watch_events = 0;
    double seconds_sum = 0, last_seconds = 0;
};

std::string render_metrics(const CycleReport& last, const CycleTotals& totals, const ApiCounters& api);

class MetricsServer {
public:
    // `listen` is HOST:PORT (IPv4 literal or "localhost"); throws std::runtime_error when it cannot bind.
    explicit MetricsServer(const std::string& listen);
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    void publish(std::string metrics, bool healthy);
    int port() const { return port_; }

private:
    void serve();
    void answer(int client);

    int socket_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::string page_ = "# no cycle yet\n";
    bool healthy_ = false;
    std::thread thread_;
};

}  // namespace fairway::bridge
