// What the simulator replays: jobs as resource needs, times and an association, made from SWF jobs.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "sim/swf_reader.h"

namespace fairway::sim {

// Resources a job holds, or a pool holds free: cores and GPUs, counted over the whole cluster.
struct Need {
    std::int64_t cores = 0;
    std::int64_t gpus = 0;

    bool fits_in(const Need& free) const noexcept { return cores <= free.cores && gpus <= free.gpus; }
    Need& operator+=(const Need& other) noexcept;
    Need& operator-=(const Need& other) noexcept;
    bool operator==(const Need&) const = default;
};
Need operator+(Need a, const Need& b) noexcept;
Need operator-(Need a, const Need& b) noexcept;

struct SimJob {
    std::int64_t id = 0;
    std::int64_t submit = 0;  // Unix epoch seconds
    std::int64_t run = 0;     // seconds it runs once started (already cut at `limit`)
    std::int64_t limit = 0;   // requested time limit, seconds: what the scheduler plans with
    Need need;
    std::size_t association = 0;  // node index of its user association in the simulated tree
};

// How SWF processors become resources.
enum class ProcsAre { cores, gpus };

struct TraceShape {
    std::int64_t time_origin = 0;  // epoch seconds of SWF time 0 (the header's UnixStartTime)
    ProcsAre procs_are = ProcsAre::cores;
    Need capacity;  // the whole cluster: larger jobs are skipped, as Slurm rejects them
};

enum class SkipReason { no_processors, unknown_run_time, larger_than_cluster, never_started };
inline constexpr std::size_t kSkipReasons = 4;
const char* skip_reason_name(SkipReason reason);

// An SWF job as the simulator replays it:
//   processors = allocated, else requested (neither known: skipped);
//   run        = the SWF run time (unknown: skipped), cut at the time limit (the job is killed there);
//   limit      = the requested time, else the run time (a perfect estimate);
//   submit     = time_origin + SWF submit time.
std::variant<SimJob, SkipReason> replayed_job(const SwfJob& swf, const TraceShape& shape, std::size_t association);

// One run of a job as a site's accounting recorded it (epoch seconds).
struct AccountedRun {
    std::int64_t id = 0;
    std::int64_t submit = 0;
    std::int64_t start = 0;    // 0: never started (cancelled while pending, or still pending)
    std::int64_t end = 0;      // 0: still running
    std::int64_t elapsed = 0;  // seconds it ran (Slurm's Elapsed: suspended time excluded)
    std::int64_t limit = 0;    // its time limit in seconds; 0: none
    Need need;                 // allocated cores and GPUs
};

// An accounted run as the simulator replays it:
//   never started (no start time, or no cores and no GPUs allocated): skipped, it used nothing;
//   still running: skipped (its run time is unknown); larger than the cluster: skipped;
//   run   = elapsed, cut at the limit;
//   limit = the time limit, else the run time (a perfect estimate).
std::variant<SimJob, SkipReason> accounted_job(const AccountedRun& run, const Need& capacity, std::size_t association);

// The SWF processor count a job uses (allocated, else requested), or -1 when neither is known.
std::int64_t swf_processors(const SwfJob& swf);

}  // namespace fairway::sim
