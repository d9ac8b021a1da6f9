#include "quota/quota_split.h"

#include <algorithm>

namespace fairway::quota {
namespace {

std::size_t at(Side side) { return static_cast<std::size_t>(side); }
Side other(Side side) { return side == Side::slurm ? Side::kubernetes : Side::slurm; }

// Splits `free` GPUs by demand; each side gets at most what it asked for.
std::array<long, 2> share_by_demand(long free, long demand_s, long demand_k) {
    if (demand_s + demand_k <= free) return {demand_s, demand_k};
    long to_slurm = static_cast<long>(static_cast<long long>(free) * demand_s / (demand_s + demand_k));
    return {to_slurm, free - to_slurm};
}

}  // namespace

const char* side_name(Side side) { return side == Side::slurm ? "slurm" : "kubernetes"; }

const char* hold_name(Hold hold) {
    switch (hold) {
    case Hold::none: return "none";
    case Hold::stale: return "stale";
    case Hold::starting: return "starting";
    case Hold::write_in_doubt: return "write-in-doubt";
    default: return "overcommitted";
    }
}

std::array<long, 2> split_targets(long quota, const std::array<SideReading, 2>& readings) {
    const long used_s = std::max(0L, readings[0].used), used_k = std::max(0L, readings[1].used);
    const long free = quota - used_s - used_k;
    if (free <= 0) return {used_s, used_k};  // nothing to hand out; never below use
    auto given = share_by_demand(free, std::max(0L, readings[0].pending), std::max(0L, readings[1].pending));
    // Idle GPUs are split evenly so either side's next demand needs only the other's decrease.
    long idle = free - given[0] - given[1];
    return {used_s + given[0] + (idle + 1) / 2, used_k + given[1] + idle / 2};
}

QuotaSplit::QuotaSplit(long quota, SplitTiming timing, Instant now) : timing_(timing) {
    state_.quota = quota;
    state_.started_at = now;
    // A previous incarnation may have written either side just before we started.
    for (auto& side : state_.sides) side.written_at = now;
}

void QuotaSplit::observe(Side side, const SideReading& reading) {
    SideState& s = state_.sides[at(side)];
    s.last = reading;
    // Until it is read back or has timed out, a write may still land: keep both values possible.
    bool still_in_doubt =
        s.in_doubt && reading.limit != *s.in_doubt && reading.read_at < s.written_at + timing_.write_timeout;
    if (still_in_doubt) {
        s.lowest = std::min(reading.limit, *s.in_doubt);
        s.highest = std::max(reading.limit, *s.in_doubt);
        return;
    }
    s.in_doubt.reset();
    s.lowest = s.highest = reading.limit;
}

void QuotaSplit::wrote(Side side, long value, Instant now) {
    SideState& s = state_.sides[at(side)];
    s.in_doubt = value;
    s.written_at = now;
    s.lowest = std::min(s.lowest, value);
    s.highest = std::max(s.highest, value);
}

long QuotaSplit::bound(Side side) const {
    const SideState& s = state_.sides[at(side)];
    if (!s.last) return state_.quota;  // unknown: assume it may hold everything
    if (s.last->holdable >= 0) return std::max(s.last->holdable + s.highest - s.last->limit, s.last->used);
    return std::max(s.highest, s.last->used);
}

bool QuotaSplit::settled(Side side, Instant now) const {
    const SideState& s = state_.sides[at(side)];
    return fresh(side, now) && !s.in_doubt && now >= s.written_at + timing_.write_timeout;
}

bool QuotaSplit::fresh(Side side, Instant now) const {
    const auto& last = state_.sides[at(side)].last;
    return last && now - last->read_at <= timing_.stale_after;
}

// A previous incarnation's write may land up to write_timeout after we started; only readings
// taken after that are the whole truth.
bool QuotaSplit::settled_after_start(Side side) const {
    const auto& last = state_.sides[at(side)].last;
    return last && last->read_at >= state_.started_at + timing_.write_timeout;
}

Hold QuotaSplit::raise_hold(Instant now) const {
    (void)now;
    for (Side side : kBothSides)
        if (!settled_after_start(side)) return Hold::starting;
    const auto& s = *state_.sides[0].last;
    const auto& k = *state_.sides[1].last;
    if (s.used + k.used > state_.quota) return Hold::overcommitted;
    return Hold::none;
}

SplitDecision QuotaSplit::decide(Instant now) const {
    SplitDecision decision;
    for (Side side : kBothSides) decision.target[at(side)] = state_.sides[at(side)].highest;
    for (Side side : kBothSides)
        if (!fresh(side, now)) {
            decision.hold = Hold::stale;  // no split can be computed from stale data: write nothing
            return decision;
        }
    decision.target = split_targets(state_.quota, {*state_.sides[0].last, *state_.sides[1].last});
    const Hold raising = raise_hold(now);
    for (Side side : kBothSides) {
        const SideState& s = state_.sides[at(side)];
        const long wanted = decision.target[at(side)];
        if (now < s.written_at + timing_.write_timeout) {
            // One write per side per write_timeout: a read that matches our value may have seen an
            // older write of the same value, and ours, still in flight, must not overtake a newer one.
            if (wanted != s.highest)
                decision.hold = now < state_.started_at + timing_.write_timeout ? Hold::starting : Hold::write_in_doubt;
        } else if (s.in_doubt) {
            decision.hold = Hold::write_in_doubt;
        } else if (wanted < s.highest) {
            decision.write[at(side)] = wanted;
        } else if (wanted > s.highest) {
            if (raising != Hold::none) {
                decision.hold = raising;
                continue;
            }
            // Room left by everything the other side may hold, including an unconfirmed decrease.
            long allowed = std::min(wanted, state_.quota - bound(other(side)));
            if (allowed > s.highest) decision.write[at(side)] = allowed;
        }
    }
    return decision;
}

}  // namespace fairway::quota
