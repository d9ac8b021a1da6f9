#include "sim/workload.h"

#include <algorithm>

namespace fairway::sim {

Need& Need::operator+=(const Need& other) noexcept {
    cores += other.cores;
    gpus += other.gpus;
    return *this;
}

Need& Need::operator-=(const Need& other) noexcept {
    cores -= other.cores;
    gpus -= other.gpus;
    return *this;
}

Need operator+(Need a, const Need& b) noexcept { return a += b; }
Need operator-(Need a, const Need& b) noexcept { return a -= b; }

const char* skip_reason_name(SkipReason reason) {
    switch (reason) {
    case SkipReason::no_processors: return "no_processor_count";
    case SkipReason::unknown_run_time: return "unknown_run_time";
    case SkipReason::larger_than_cluster: return "larger_than_cluster";
    case SkipReason::never_started: return "never_started";
    }
    return "unknown";
}

std::int64_t swf_processors(const SwfJob& swf) {
    if (swf.allocated_procs > 0) return swf.allocated_procs;
    if (swf.requested_procs > 0) return swf.requested_procs;
    return kSwfUnknown;
}

std::variant<SimJob, SkipReason> replayed_job(const SwfJob& swf, const TraceShape& shape, std::size_t association) {
    std::int64_t procs = swf_processors(swf);
    if (procs <= 0) return SkipReason::no_processors;
    if (swf.run_time < 0) return SkipReason::unknown_run_time;
    SimJob job;
    job.id = swf.job_id;
    job.submit = shape.time_origin + swf.submit;
    job.limit = swf.requested_time > 0 ? swf.requested_time : swf.run_time;
    job.run = std::min(swf.run_time, job.limit);
    job.need = shape.procs_are == ProcsAre::gpus ? Need{0, procs} : Need{procs, 0};
    job.association = association;
    if (!job.need.fits_in(shape.capacity)) return SkipReason::larger_than_cluster;
    return job;
}

std::variant<SimJob, SkipReason> accounted_job(const AccountedRun& run, const Need& capacity, std::size_t association) {
    // Slurm gives a job cancelled while pending a start time (its end) but no allocation.
    if (run.start <= 0 || (run.need.cores <= 0 && run.need.gpus <= 0)) return SkipReason::never_started;
    if (run.end <= 0 || run.elapsed < 0) return SkipReason::unknown_run_time;
    SimJob job;
    job.id = run.id;
    job.submit = run.submit;
    job.limit = run.limit > 0 ? run.limit : run.elapsed;
    job.run = std::min(run.elapsed, job.limit);
    job.need = run.need;
    job.association = association;
    if (!job.need.fits_in(capacity)) return SkipReason::larger_than_cluster;
    return job;
}

}  // namespace fairway::sim
