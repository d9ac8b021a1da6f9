#include "quota/quota_split.h"

#include <algorithm>

namespace fairway::quota {
namespace {

Side other(Side side) { return side == Side::slurm ? Side::kubernetes : Side::slurm; }

// Splits `free` GPUs by demand; each side gets at most what it asked for.
PerSide<long> share_by_demand(long free, long demand_s, long demand_k) {
    if (demand_s + demand_k <= free) return {{demand_s, demand_k}};
    long to_slurm = static_cast<long>(static_cast<long long>(free) * demand_s / (demand_s + demand_k));
    return {{to_slurm, free - to_slurm}};
}

}  // namespace

const char* side_name(Side side) { return side == Side::slurm ? "slurm" : "kubernetes"; }

const char* hold_name(Hold hold) {
    switch (hold) {
    case Hold::none: return "none";
    case Hold::stale: return "stale";
    case Hold::starting: return "starting";
    case Hold::write_in_doubt: return "write-in-doubt";
    case Hold::not_in_force: return "not-in-force";
    default: return "overcommitted";
    }
}

PerSide<long> split_targets(long quota, const PerSide<SideReading>& readings) {
    const long used_s = std::max(0L, readings[Side::slurm].used),
               used_k = std::max(0L, readings[Side::kubernetes].used);
    const long free = quota - used_s - used_k;
    if (free <= 0) return {{used_s, used_k}};  // nothing to hand out; never below use
    auto given = share_by_demand(free, std::max(0L, readings[Side::slurm].pending),
                                 std::max(0L, readings[Side::kubernetes].pending));
    // Idle GPUs are split evenly so either side's next demand needs only the other's decrease.
    long idle = free - given[Side::slurm] - given[Side::kubernetes];
    return {{used_s + given[Side::slurm] + (idle + 1) / 2, used_k + given[Side::kubernetes] + idle / 2}};
}

QuotaSplit::QuotaSplit(long quota, SplitTiming timing, Instant now) : timing_(timing) {
    state_.quota = quota;
    state_.started_at = now;
    // A previous incarnation may have written either side just before we started.
    for (Side side : kBothSides) state_.sides[side].written_at = now;
}

void QuotaSplit::observe(Side side, const SideReading& reading) {
    SideState& s = state_.sides[side];
    const bool had_reading = s.last.has_value();
    s.last = reading;
    if (side == Side::kubernetes) note_version(reading.version);
    if (s.in_doubt && write_resolved(s, reading)) {
        s.in_doubt.reset();
        s.written_on.clear();
    }
    // Every value the enforcer may hold now or come to hold without another write of ours.
    const long coming = reading.stored >= 0 ? reading.stored : reading.limit;
    long lowest = std::min(reading.limit, coming), highest = std::max(reading.limit, coming);
    if (!reading.in_force && had_reading) {  // the enforcer may still hold any earlier value
        lowest = std::min(lowest, s.lowest);
        highest = std::max(highest, s.highest);
    }
    if (s.in_doubt) {
        lowest = std::min(lowest, *s.in_doubt);
        highest = std::max(highest, *s.in_doubt);
    }
    s.lowest = lowest;
    s.highest = highest;
}

// Whether our write in doubt has landed or never can: the read shows its value, or the object has
// moved past the version the write was conditional on. Unconditional writes (Slurm) rest on the
// assumption that a write not read back write_timeout after it ended never lands.
bool QuotaSplit::write_resolved(const SideState& s, const SideReading& reading) const {
    if (reading.limit == *s.in_doubt || reading.stored == *s.in_doubt) return true;
    if (!s.written_on.empty()) return reading.version != s.written_on;
    return reading.read_at >= s.written_at + timing_.write_timeout;
}

// Only Kubernetes writes are conditional on a version. Without an object (no version) no write
// conditional on one can land; once the version differs from the term's first, none of an earlier
// term can, since a resourceVersion never comes back.
void QuotaSplit::note_version(const std::string& version) {
    TermFence& fence = state_.fence;
    if (fence.closed) return;
    if (version.empty()) fence.closed = true;
    else if (fence.first_version.empty()) fence.first_version = version;
    else if (version != fence.first_version) fence.closed = true;
}

void QuotaSplit::wrote(Side side, long value, Instant now, std::string on_version) {
    SideState& s = state_.sides[side];
    s.in_doubt = value;
    s.written_at = now;
    s.written_on = std::move(on_version);
    s.lowest = std::min(s.lowest, value);
    s.highest = std::max(s.highest, value);
}

long QuotaSplit::bound(Side side) const {
    const SideState& s = state_.sides[side];
    if (!s.last) return state_.quota;  // unknown: assume it may hold everything
    if (s.last->holdable >= 0) return std::max(s.last->holdable + s.highest - s.last->limit, s.last->used);
    return std::max(s.highest, s.last->used);
}

bool QuotaSplit::explains(Side side, const SideReading& reading) const {
    const SideState& s = state_.sides[side];
    auto possible = [&](long limit) { return limit >= s.lowest && limit <= s.highest; };
    return !s.last || (possible(reading.limit) && (reading.stored < 0 || possible(reading.stored)));
}

bool QuotaSplit::settled(Side side, Instant now) const {
    const SideState& s = state_.sides[side];
    return fresh(side, now) && !s.in_doubt && now >= s.written_at + timing_.write_timeout;
}

bool QuotaSplit::fresh(Side side, Instant now) const {
    const auto& last = state_.sides[side].last;
    return last && now - last->read_at <= timing_.stale_after;
}

// A previous incarnation's write may land up to write_timeout after we started; only readings
// taken after that are the whole truth.
bool QuotaSplit::settled_after_start(Side side) const {
    const auto& last = state_.sides[side].last;
    return last && last->read_at >= state_.started_at + timing_.write_timeout;
}

// Whether our write in doubt on `side` may still land: no raise, or one within the room the other
// side leaves now.
bool QuotaSplit::still_fits(Side side) const {
    const SideState& s = state_.sides[side];
    return *s.in_doubt <= s.last->limit || *s.in_doubt <= state_.quota - bound(other(side));
}

// Why `side` may not be raised now, if it may not.
Hold QuotaSplit::raise_hold(Side side) const {
    for (Side each : kBothSides)
        if (!settled_after_start(each)) return Hold::starting;
    if (!state_.fence.closed) return Hold::starting;  // a predecessor's write may still land
    // The room comes from the other side's decrease, counted only once its enforcer has taken it.
    if (!state_.sides[other(side)].last->in_force) return Hold::not_in_force;
    const auto& s = *state_.sides[Side::slurm].last;
    const auto& k = *state_.sides[Side::kubernetes].last;
    if (s.used + k.used > state_.quota) return Hold::overcommitted;
    return Hold::none;
}

SplitDecision QuotaSplit::decide(Instant now) const {
    SplitDecision decision;
    for (Side side : kBothSides) decision.target[side] = state_.sides[side].highest;
    for (Side side : kBothSides)
        if (!fresh(side, now)) {
            decision.hold = Hold::stale;  // no split can be computed from stale data: write nothing
            return decision;
        }
    const TermFence& fence = state_.fence;
    // A fence at most once per write_timeout, again while unanswered: one lands or the object moves.
    const bool may_fence = !fence.written_at || now >= *fence.written_at + timing_.write_timeout;
    if (!fence.closed && may_fence) decision.fence_on = fence.first_version;
    decision.target =
        split_targets(state_.quota, {{*state_.sides[Side::slurm].last, *state_.sides[Side::kubernetes].last}});
    for (Side side : kBothSides) {
        const SideState& s = state_.sides[side];
        const long wanted = decision.target[side];
        if (now < s.written_at + timing_.write_timeout) {
            // One write per side per write_timeout: a read that matches our value may have seen an
            // older write of the same value, and ours, still in flight, must not overtake a newer one.
            if (wanted != s.highest)
                decision.hold = now < state_.started_at + timing_.write_timeout ? Hold::starting : Hold::write_in_doubt;
        } else if (s.in_doubt) {
            decision.hold = Hold::write_in_doubt;
            // Unanswered on the version it was made on: the same write again, on the same version,
            // so that one of the two lands or the object moves on (either ends the doubt). A raise
            // that no longer fits (the quota was lowered, or the other side raised outside us) is
            // not repeated: the object is moved off that version, so it can never land.
            if (!s.written_on.empty() && s.last->version == s.written_on) {
                if (still_fits(side)) decision.write[side] = *s.in_doubt;
                else if (may_fence) decision.fence_on = s.written_on;
            }
        } else if (!s.last->in_force && wanted == s.last->limit) {
            decision.hold = Hold::not_in_force;  // already written; its enforcer has yet to take it
        } else if (wanted < s.highest) {
            decision.write[side] = wanted;
        } else if (wanted > s.highest) {
            if (const Hold raising = raise_hold(side); raising != Hold::none) {
                decision.hold = raising;
                continue;
            }
            // Room left by everything the other side may hold, including an unconfirmed decrease.
            long allowed = std::min(wanted, state_.quota - bound(other(side)));
            if (allowed > s.highest) decision.write[side] = allowed;
        }
    }
    return decision;
}

}  // namespace fairway::quota
