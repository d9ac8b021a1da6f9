// A named thread that runs one function every period until stopped. Stopping wakes it at once
// and joins it; a running pass is allowed to finish.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/slurm_time.h"

namespace fairway::priority {

class PeriodicThread {
public:
    PeriodicThread() = default;
    ~PeriodicThread() { stop(); }
    PeriodicThread(const PeriodicThread&) = delete;
    PeriodicThread& operator=(const PeriodicThread&) = delete;

    // Starts `pass` now and then every `period()` seconds (re-read after each pass, so a
    // reconfigured period applies from the next wait). The name shows in /proc/<pid>/task/*/comm.
    void start(std::string name, std::function<void()> pass, std::function<Seconds()> period);
    void stop();
    bool running() const { return worker_.joinable(); }

private:
    void loop(const std::string& name);

    std::function<void()> pass_;
    std::function<Seconds()> period_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread worker_;
};

}  // namespace fairway::priority
