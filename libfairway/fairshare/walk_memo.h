// When a calculation pass may leave the job priorities alone: what the last walk over the pending
// jobs depended on, and the rule that says a new walk would write the same numbers.
//
// A walk reads a dozen scattered cache lines of every pending job; with 10,000 jobs it is most of
// a pass. When no job, partition, QOS, association, setting or fair-share factor changed since the
// last walk, and every age factor had already reached PriorityMaxAge, the walk would compute what
// is already stored. The adapter then skips it. Nothing of the jobs is remembered between passes
// (no pointer outlives the job lock): a skip only ever postpones a recomputation, and a walk is
// still made at least every `longest_skip`.
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
    bool ages_settled = false;            // every walked job's age factor was at its maximum (or weightless)
};

// True when no job changed since the last walk, as far as `seen` (read at `now`) tells, and the
// last walk is recent enough to be trusted. A pass checks this before it charges usage: the jobs
// that may accrue usage are then the last walk's.
bool jobs_unchanged(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now,
                    std::chrono::seconds longest_skip);

// True when walking the jobs now would write what the last walk wrote: jobs_unchanged(), the same
// association and QOS inputs, and `same_fair_share` (the fair-share factors equal those it used).
bool walk_would_repeat(const std::optional<LastWalk>& last, const WalkStamp& seen, std::uint64_t association_inputs,
                       bool same_fair_share, std::int64_t now, std::chrono::seconds longest_skip);

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
