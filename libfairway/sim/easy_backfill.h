// One scheduling pass: Slurm's main scheduler followed by EASY backfill, as a pure function.
//
// The queue is taken in priority order. Jobs start while they fit in the free resources; the first
// that does not (the queue head) gets a reservation at its shadow time: the earliest time at which
// the running jobs' expected ends (start + time limit) free enough for it. Later jobs, up to
// `backfill_depth` of them, start now when they fit and either end by the shadow time or use only
// the spare resources (what is free at the shadow time beyond the head's need), so no backfilled
// job delays the head's reservation. Only the head holds a reservation (EASY; Slurm's backfill
// reserves for more jobs).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "sim/workload.h"

namespace fairway::sim {

struct RunningSlot {
    Need need;
    std::int64_t expected_end = 0;  // start + time limit
};

struct Candidate {
    Need need;
    std::int64_t limit = 0;  // time limit, seconds
};

struct Reservation {
    std::size_t head = 0;  // queue index of the job it is for
    std::int64_t shadow_time = 0;
    Need spare;  // free at shadow_time beyond the head's need
};

struct PassPlan {
    std::vector<std::size_t> started;  // queue indexes that start now, in start order
    std::vector<bool> backfilled;      // per started job: started by backfill
    std::optional<Reservation> reservation;
};

// The earliest time at which `need` fits, given free resources now and running jobs that release
// theirs at their expected ends; `now` when it fits already; nullopt when it never fits.
// Also returns the resources free at that time beyond `need`.
std::optional<std::pair<std::int64_t, Need>> earliest_fit(Need free, std::vector<RunningSlot> running, const Need& need,
                                                          std::int64_t now);

// `running` lists the running jobs; it is called only when a job has to wait (most passes either
// start everything or have nothing free, and need no list).
PassPlan plan_easy_pass(Need free, const std::function<std::vector<RunningSlot>()>& running,
                        std::span<const Candidate> queue, std::int64_t now, std::size_t backfill_depth);

}  // namespace fairway::sim
