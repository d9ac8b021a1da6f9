// Watches the group queues (ClusterQueues or Volcano Queues) so a change of usage or demand
// starts a reconcile cycle at once instead of at the next period: list for a resourceVersion,
// watch from it, relist on 410 Gone or a broken stream. Runs on its own thread with its own
// HTTP client; `on_change` must be safe to call from that thread.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "bridge/k8s/kubeconfig.h"

namespace fairway::bridge {

class QueueWatcher {
public:
    QueueWatcher(KubeCredentials credentials, std::string collection, std::string label_selector,
                 std::function<void()> on_change);
    ~QueueWatcher();
    QueueWatcher(const QueueWatcher&) = delete;
    QueueWatcher& operator=(const QueueWatcher&) = delete;

    long events() const { return events_; }
    long relists() const { return relists_; }

private:
    void run();
    void pause(std::chrono::milliseconds wait) const;

    KubeCredentials credentials_;
    std::string collection_, selector_;
    std::function<void()> on_change_;
    std::atomic<bool> stopping_{false};
    std::atomic<long> events_{0}, relists_{0};
    std::thread thread_;
};

}  // namespace fairway::bridge
