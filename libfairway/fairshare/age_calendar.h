// When aging alone moves job priorities: the time each job's integer priority next changes, and a
// calendar of those times, so that a calculation pass recomputes only the jobs that fall due.
//
// Between two passes in which nothing but time went by (walk_memo.h tells), the only input of a
// pending job's priority that moves is its age factor, which grows linearly from the accrue time
// until PriorityMaxAge. Its weighted sum therefore crosses its next whole number at a time known in
// advance, and until then the truncated priority that Slurm stores cannot change. With
// PriorityWeightAge=1000 and PriorityMaxAge=7-0 that is one step every ten minutes: a pass a minute
// then has about a tenth of the queue to recompute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fairshare/job_priority.h"

namespace fairway::fairshare {

// The earliest time at which compute_job_priority(config, cluster, job, t) could return another
// priority (for any of the job's partitions) than `computed`, its result at `now`, when only time
// changes; never later than the true time (it errs early by up to two seconds, allowing for the
// rounding of the sums, and more only where the age term's step per second is below that rounding).
// None when aging can no longer
// change it: age has no weight, the age factor has reached 1, or the sums reach their next whole
// number only after it has. A job with no accrue time yet is due at the next second: slurmctld
// starts its age without telling anyone.
std::optional<TimePoint> next_priority_change(const PriorityConfig& config, const JobFacts& job,
                                              const JobPriority& computed, TimePoint now);

// Job ids by the time their priority is next due for a recomputation (seconds since the epoch).
class AgeCalendar {
public:
    void add(std::uint32_t job_id, TimePoint due);
    // Removes and returns the ids due at `now` (due <= now), earliest first.
    std::vector<std::uint32_t> take_due(TimePoint now);
    void clear() { entries_.clear(); }
    std::size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }

    struct Entry {
        std::int64_t due;
        std::uint32_t job_id;
    };

private:
    std::vector<Entry> entries_;  // a binary min-heap on `due` while is_heap_
    bool is_heap_ = true;
};

}  // namespace fairway::fairshare
