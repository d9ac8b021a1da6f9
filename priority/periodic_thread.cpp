#include "priority/periodic_thread.h"

#include <pthread.h>

namespace fairway::priority {

void PeriodicThread::start(std::string name, std::function<void()> pass, std::function<Seconds()> period) {
    pass_ = std::move(pass);
    period_ = std::move(period);
    stopping_ = false;
    worker_ = std::thread([this, name = std::move(name)] { loop(name); });
}

void PeriodicThread::stop() {
    if (!worker_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
}

void PeriodicThread::loop(const std::string& name) {
    // Linux limits thread names to 15 characters.
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
    auto next = std::chrono::steady_clock::now();
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
        }
        pass_();
        // Fixed-rate schedule, like multifactor's; after a long pass, start again right away.
        next = std::max(next + period_(), std::chrono::steady_clock::now());
    }
}

}  // namespace fairway::priority
