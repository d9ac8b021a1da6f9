// When a calculation pass may leave the job priorities alone, or recompute only some: what the last
// walk over the pending jobs depended on, and the rules that say what a new walk would change.
//
// A walk reads a dozen scattered cache lines of every pending job; with 10,000 jobs it is most of
// a pass. A job's priority changes for three kinds of reasons, each seen without visiting the jobs:
// - the job itself changed (submitted, updated, released): the caller recomputes it right then, as
//   slurmctld asks for its priority, and files it in the age calendar;
// - something the job reads changed (partition, QOS, association, setting, fair-share factor):
//   fingerprints of those, taken every pass, tell; then every job is recomputed;
// - time went by: only the age factors moved, and the jobs whose integer priority that moved are
//   known in advance (age_calendar.h); when every age factor has reached PriorityMaxAge there are
//   none, and the walk is skipped.
// Charging needs one more fact: which jobs may accrue usage. They are the last walk's as long as
// no job started since, which slurmctld's start count tells (StartCounts).
// Nothing of the jobs is remembered between passes but their ids (no pointer outlives the job
// lock): a change that slips past these signals is only postponed, to the walk over all jobs made
// at least every `longest_skip`.
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace fairway::fairshare {

// slurmctld's count of job starts (sdiag's "Jobs started"), with two counts that only grow between
// resets of its statistics (at midnight, and by `sdiag --reset`): a reset that brought the start
// count back to the same number within one pass has nearly always left one of them lower.
struct StartCounts {
    std::uint32_t started = 0;
    std::uint32_t submitted = 0;
    std::uint32_t schedule_cycles = 0;
};

// True when `now` shows no job start since `before`, as far as the counts tell.
bool no_start_between(const StartCounts& before, const StartCounts& now);

// What a pass sees, under slurmctld's job lock, of the job-side inputs it cannot visit job by job.
struct WalkStamp {
    std::int64_t seen_at = 0;           // when it was read
    std::optional<StartCounts> starts;  // none: slurmctld shows no statistics (every pass looks at every job)
    std::uint64_t fingerprint = 0;      // partitions, cluster, settings (Fingerprint)
};

// What the last walk saw.
struct LastWalk {
    WalkStamp stamp;
    std::uint64_t association_inputs = 0;  // associations and QOS (Fingerprint)
    std::int64_t full_walk_at = 0;         // when a walk last visited every job
};

// True when no job started since the last walk, nothing in the job-side fingerprint changed, as far
// as `seen` (read at `now`) tells, and the last walk over all jobs is recent enough to be trusted. A
// pass checks this before it charges usage: the jobs that may accrue usage are then the last walk's.
bool no_job_started(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now,
                    std::chrono::seconds longest_skip);

enum class WalkPlan {
    all_jobs,  // something other than time changed, or nothing is remembered: recompute every job
    due_jobs,  // only time went by: recompute the jobs whose priority aging changes (AgeCalendar)
    none,      // only time went by and every age factor is settled: nothing would change
};

// What a pass must recompute: only time went by when no_job_started() holds, the association and
// QOS inputs are the same, and `same_fair_share` (the fair-share factors equal those it used).
// `ages_settled`: no job is filed in the age calendar.
WalkPlan plan_walk(const std::optional<LastWalk>& last, const WalkStamp& seen, std::uint64_t association_inputs,
                   bool same_fair_share, bool ages_settled, std::int64_t now, std::chrono::seconds longest_skip);

// A 64-bit digest of a sequence of values, to tell whether a set of inputs changed. Each value is
// folded in by a bijection of the digest (xor, then multiply by an odd constant and xor-shift), so
// two sequences that differ in exactly one value always differ in their digests.
class Fingerprint {
public:
    template <std::integral T>
    Fingerprint& add(T value) {
        return add_bits(static_cast<std::uint64_t>(value));
    }
    Fingerprint& add(double value);  // by bit pattern: -0.0 and 0.0 differ, which errs on the safe side
    Fingerprint& add(const void* pointer) { return add(reinterpret_cast<std::uintptr_t>(pointer)); }
    std::uint64_t value() const noexcept { return hash_; }

private:
    Fingerprint& add_bits(std::uint64_t bits);

    std::uint64_t hash_ = 14695981039346656037ULL;
};

}  // namespace fairway::fairshare
