#include "fairshare/walk_memo.h"

#include <cstring>

namespace fairway::fairshare {

bool no_start_between(const StartCounts& before, const StartCounts& now) {
    return now.started == before.started && now.submitted >= before.submitted &&
           now.schedule_cycles >= before.schedule_cycles;
}

bool no_job_started(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now,
                    std::chrono::seconds longest_skip) {
    if (!last || !seen.starts || !last->stamp.starts || !no_start_between(*last->stamp.starts, *seen.starts) ||
        seen.fingerprint != last->stamp.fingerprint)
        return false;
    // A clock stepped back makes the ages unreliable; and every job is visited now and then regardless.
    return now >= last->stamp.seen_at && now >= last->full_walk_at && now - last->full_walk_at < longest_skip.count();
}

WalkPlan plan_walk(const std::optional<LastWalk>& last, const WalkStamp& seen, std::uint64_t association_inputs,
                   bool same_fair_share, bool ages_settled, std::int64_t now, std::chrono::seconds longest_skip) {
    if (!same_fair_share || !no_job_started(last, seen, now, longest_skip) ||
        association_inputs != last->association_inputs)
        return WalkPlan::all_jobs;
    return ages_settled ? WalkPlan::none : WalkPlan::due_jobs;
}

Fingerprint& Fingerprint::add_bits(std::uint64_t bits) {
    hash_ = (hash_ ^ bits) * 0x9e3779b97f4a7c15ULL;
    hash_ ^= hash_ >> 29;
    return *this;
}

Fingerprint& Fingerprint::add(double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return add_bits(bits);
}

}  // namespace fairway::fairshare
