// Runs each fuzz input on a thread with a 1 MiB stack, what slurmctld gives the RPC threads that
// call job_submit (libFuzzer's own main thread has 8 MiB, so it would hide a recursion that
// overflows slurmctld's). ASan's redzones make frames larger than in the plugins: an overflow here
// is at least a recursion worth bounding.
#pragma once

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace fairway::fuzz {

inline constexpr std::size_t kStackBytes = 1024 * 1024;

template <typename Body>
void on_small_stack(Body body) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, kStackBytes);
    auto run = [](void* argument) -> void* {
        (*static_cast<Body*>(argument))();
        return nullptr;
    };
    pthread_t thread;
    if (pthread_create(&thread, &attributes, run, &body) != 0) {
        std::perror("pthread_create");
        std::abort();
    }
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attributes);
}

// An invariant the code under test promises; a violation is a finding like a crash.
inline void require(bool holds, const char* what) {
    if (holds) return;
    std::fprintf(stderr, "fuzz: invariant broken: %s\n", what);
    std::abort();
}

}  // namespace fairway::fuzz
