#include "bridge/k8s/queue_watcher.h"

#include "bridge/k8s/kube_api.h"
#include "bridge/log.h"

namespace fairway::bridge {

QueueWatcher::QueueWatcher(KubeCredentials credentials, std::string collection, std::string label_selector,
                           std::function<void()> on_change)
    : credentials_(std::move(credentials)),
      collection_(std::move(collection)),
      selector_(std::move(label_selector)),
      on_change_(std::move(on_change)),
      thread_([this] { run(); }) {}

QueueWatcher::~QueueWatcher() {
    stopping_ = true;
    thread_.join();
}

void QueueWatcher::pause(std::chrono::milliseconds wait) const {
    for (auto slept = std::chrono::milliseconds(0); slept < wait && !stopping_; slept += std::chrono::milliseconds(100))
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

void QueueWatcher::run() {
    HttpClient http(credentials_, std::chrono::seconds(10));
    http.set_cancel([this] { return stopping_.load(); });
    KubeApi api(http, RetryPolicy{1, std::chrono::milliseconds(200), std::chrono::milliseconds(1000)},
                [this](std::chrono::milliseconds wait) { pause(wait); });
    std::string path = collection_ + "?labelSelector=" + url_encode(selector_);
    while (!stopping_) {
        ApiResult list = api.get(path + "&limit=1");
        if (!list.ok()) {
            pause(std::chrono::seconds(1));
            continue;
        }
        ++relists_;
        std::string version = list.object["metadata"].value("resourceVersion", "");
        bool watching = true;
        while (watching && !stopping_) {
            ApiResult result = api.watch(path, version, std::chrono::seconds(60), [&](const nlohmann::json& event) {
                version = event["object"]["metadata"].value("resourceVersion", version);
                if (event.value("type", "") != "BOOKMARK") {
                    ++events_;
                    on_change_();
                }
                return !stopping_.load();
            });
            // 410: our resourceVersion is too old; an error: the server went away. Either way relist.
            if (result.response.status == 410 || !result.response.ok()) {
                watching = false;
                if (result.response.status != 410) pause(std::chrono::seconds(1));
            }
        }
    }
}

}  // namespace fairway::bridge
