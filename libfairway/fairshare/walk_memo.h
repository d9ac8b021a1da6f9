// When a calculation pass may leave the job priorities alone, or recompute only some: what the last
// walk over the pending jobs depended on, and the rules that say what a new walk would change.
//
// A walk reads a dozen scattered cache lines of every pending job; with 10,000 jobs it is most of
// a pass. When no job, partition, QOS, association, setting or fair-share factor changed since the
// last walk, only time went by, and only the age factors moved: the jobs whose integer priority
// that moved are known in advance (age_calendar.h), and only they are recomputed; when every age
// factor has reached PriorityMaxAge there are none, and the walk is skipped. Nothing of the jobs is
// remembered between passes but their ids (no pointer outlives the job lock): a change that slips
// past the stamps is only postponed, to the walk over all jobs made at least every `longest_skip`.
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace fairway::fairshare {

// What a pass sees, under slurmctld's job lock, of the job-side inputs it cannot visit job by job.
struct WalkStamp {
    std::int64_t job_update = 0;   // slurmctld's last_job_update (a time in seconds)
    std::int64_t seen_at = 0;      // when job_update was read, under the same job lock
    std::size_t job_count = 0;     // records in slurmctld's job list
    std::uint64_t fingerprint = 0; // partitions, cluster, settings (Fingerprint)
};

// What the last walk saw, and whether its age factors could still grow.
struct LastWalk {
    WalkStamp stamp;                      // read at the end of the walk
    std::uint64_t association_inputs = 0; // associations and QOS (Fingerprint)
    bool ages_settled = false;            // no walked job's priority can change with age alone
    std::int64_t full_walk_at = 0;        // when a walk last visited every job
};

// True when no job changed since the last walk, as far as `seen` (read at `now`) tells, and the
// last walk over all jobs is recent enough to be trusted. A pass checks this before it charges
// usage: the jobs that may accrue usage are then the last walk's.
bool jobs_unchanged(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now,
                    std::chrono::seconds longest_skip);

enum class WalkPlan {
    all_jobs,   // something other than time changed, or nothing is remembered: recompute every job
    due_jobs,   // only time went by: recompute the jobs whose priority aging changes (AgeCalendar)
    none,       // only time went by and every age factor is settled: nothing would change
};

// What a pass must recompute: only time went by when jobs_unchanged() holds, the association and
// QOS inputs are the same, and `same_fair_share` (the fair-share factors equal those it used).
WalkPlan plan_walk(const std::optional<LastWalk>& last, const WalkStamp& seen, std::uint64_t association_inputs,
                   bool same_fair_share, std::int64_t now, std::chrono::seconds longest_skip);

// The value a walk that changed priorities stores in slurmctld's last_job_update, the stamp that
// tells the schedulers (backfill above all) to rebuild their queues. `current` is the stamp before,
// `end` the second the walk ended in, both read under the job write lock that the walk holds.
// slurmctld stamps every change with the second it happens in, so `end` could be written again by
// a change right after the walk: the next pass could not tell that change from the walk's own and
// would have to recompute every job. The second before cannot be written again once the walk ends,
// so it is the walk's mark whenever it is still news to the schedulers: unless `current` is already
// `end`, or backfill may have ended a cycle within `end` (it runs again only for a stamp at or after
// the second its last cycle ended in). Then `end`, as priority/multifactor writes.
std::int64_t job_update_mark(std::int64_t current, std::int64_t end, bool backfill_may_have_ended_in_end);

// A 64-bit digest of a sequence of values, to tell whether a set of inputs changed. Each value is
// folded in by a bijection of the digest (xor, then multiply by an odd constant and xor-shift), so
// two sequences that differ in exactly one value always differ in their digests.
class Fingerprint {
public:
    template <std::integral T>
    Fingerprint& add(T value) { return add_bits(static_cast<std::uint64_t>(value)); }
    Fingerprint& add(double value);   // by bit pattern: -0.0 and 0.0 differ, which errs on the safe side
    Fingerprint& add(const void* pointer) { return add(reinterpret_cast<std::uintptr_t>(pointer)); }
    std::uint64_t value() const noexcept { return hash_; }

private:
    Fingerprint& add_bits(std::uint64_t bits);

    std::uint64_t hash_ = 14695981039346656037ULL;
};

}  // namespace fairway::fairshare
