#include "fairshare/walk_memo.h"

#include <cstring>

namespace fairway::fairshare {

bool jobs_unchanged(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now,
                    std::chrono::seconds longest_skip)
{
    if (!last)
        return false;
    const WalkStamp& before = last->stamp;
    // slurmctld stamps a job change with the second it happened in: a change stamped in the second
    // the last walk read the stamp could be followed, unseen, by another with the same stamp.
    if (before.job_update >= before.seen_at)
        return false;
    if (seen.job_update != before.job_update || seen.job_count != before.job_count ||
        seen.fingerprint != before.fingerprint)
        return false;
    // A clock stepped back could repeat a stamp; and every job is visited now and then regardless.
    return now >= before.seen_at && now >= last->full_walk_at && now - last->full_walk_at < longest_skip.count();
}

WalkPlan plan_walk(const std::optional<LastWalk>& last, const WalkStamp& seen, std::uint64_t association_inputs,
                   bool same_fair_share, std::int64_t now, std::chrono::seconds longest_skip)
{
    if (!same_fair_share || !jobs_unchanged(last, seen, now, longest_skip) ||
        association_inputs != last->association_inputs)
        return WalkPlan::all_jobs;
    return last->ages_settled ? WalkPlan::none : WalkPlan::due_jobs;
}

std::int64_t job_update_mark(std::int64_t current, std::int64_t end, bool backfill_may_have_ended_in_end)
{
    return (current < end && !backfill_may_have_ended_in_end) ? end - 1 : end;
}

Fingerprint& Fingerprint::add_bits(std::uint64_t bits)
{
    hash_ = (hash_ ^ bits) * 0x9e3779b97f4a7c15ULL;
    hash_ ^= hash_ >> 29;
    return *this;
}

Fingerprint& Fingerprint::add(double value)
{
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return add_bits(bits);
}

}  // namespace fairway::fairshare
