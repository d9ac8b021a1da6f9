// Exhaustive exploration of the shared-quota protocol: every interleaving of bridge reads and
// decisions, writes landing late or being lost, jobs starting and ending, new demand, clock
// ticks and a bridge crash, from every safe start for a small quota. The safety property
// "L_s + L_k <= Q and used_s + used_k <= Q" must hold in every reachable state.
// Two deliberately broken bridges show the exploration finds violations when they exist.
// With two flavors, Kubernetes' quota is per flavor (as Kueue enforces it): the bridge steps each
// Kubernetes write with step_flavor_quotas from the per-flavor quotas and use it read, reads
// Kubernetes' holdable GPUs, also rewrites the split while the limit is settled, and the scheduler
// may admit on any flavor with room. Three more broken bridges must be caught: one splitting by
// capacity alone, one re-splitting from its read of use without stepping from the current quotas,
// and one that steps but counts Kubernetes as holding max(limit, used) only.
// With versioned Kubernetes writes (as the ClusterQueue's resourceVersion makes them), a write is
// conditional on the version the bridge read and may land at any time later, however late, while
// the object is still at that version; and Kubernetes enforces its limit only once its controller
// has observed it (Kueue's observedGeneration), admitting by the old limit until then. Two more broken
// bridges must be caught: one that takes such a write as lost after write_timeout, and one that
// counts a decrease as soon as the apiserver shows it.
// Two bridges, one fenced (it lost the lease, or crashed): the fenced one writes no more, but its
// last Kubernetes write, conditional on the version it read, may land at any time, however late.
// The new term's fence (a write on the version it first read, after which it raises nothing until
// the version has moved) must keep it from landing on a state the new term counted on; a bridge
// without the fence must be caught.
// Outside changes, with versioned writes: the configured quota lowered and raised again, or an
// admin raising one side's limit by hand to the whole quota, at any moment, writes in flight or
// not. Neither can keep "L_s + L_k <= Q" true at the instant it happens, so the property becomes:
// the limits' sum never rises while it is above the (current) quota, and never above it once it
// is within, except where a write decided on a read taken before the change lands (the bridge
// could not have known); use never exceeds the most the limits ever allowed (use admitted under
// the old limits runs on). Two more broken bridges must be caught: one that keeps the old quota,
// and one that takes its own belief over a read showing a limit raised outside it.
#include "quota/mirror.h"
#include "quota/quota_split.h"

#include <gtest/gtest.h>

#include <deque>
#include <initializer_list>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

using namespace fairway::quota;

namespace {

using PerFlavor = std::array<long, 2>;

struct InFlight {
    int side;
    long value;
    Instant issued_at;
    PerFlavor per_flavor{};  // a Kubernetes write with two flavors: the split it carries
    long on_version = -1;    // versioned: the Kubernetes version it is conditional on
    bool fence = false;      // a term's fence: moves the version, changes no limit
    int era = 0;             // outside changes before the oldest read it was decided on
    auto operator<=>(const InFlight&) const = default;
};

struct World {
    std::array<long, 2> limit{}, used{}, pending{};      // limit[1], used[1]: over all flavors
    PerFlavor flavor_limit{}, flavor_used{};             // with two flavors: Kubernetes' quota and use per flavor
    PerFlavor read_flavor_limit{}, read_flavor_use{};    // the bridge's last read of them
    std::vector<InFlight> network;                       // writes issued but not yet landed or lost
    long k_version = 0, k_observed = 0, k_enforced = 0;  // versioned: object version, controller's, its limit
    Instant now = 0;
    int demand_left = 0, crashes_left = 0;
    long quota = 0;                 // the configured quota now
    long ceiling = 0, peak = 0;     // what the limits' sum may reach now, and ever (see safe())
    int outside_left = 0, era = 0;  // outside changes still to come, and made so far
    std::array<int, 2> read_era{};  // the era of the bridge's last read of each side
    SplitState bridge;
    auto operator<=>(const World&) const = default;
};

enum class Mutant {
    none,
    forgets_writes,
    no_startup_wait,
    splits_by_capacity,
    resplits_from_stale_use,
    ignores_holdable,
    trusts_write_timeout,
    ignores_enforcement,
    no_term_fence,
    keeps_old_quota,
    trusts_belief_over_read
};

struct Explorer {
    explicit Explorer(long q) : quota(q) {}
    long quota;
    SplitTiming timing{2, 2};
    Instant horizon = 4;
    Mutant mutant = Mutant::none;
    bool two_flavors = false;
    bool versioned = false;
    bool predecessor = false;            // versioned: a fenced predecessor's write may be in flight
    bool quota_change = false;           // the quota goes to quota - 1 and back
    bool admin_raise = false;            // an admin raises one side's limit to the quota
    std::map<World, const World*> seen;  // every reached state and the state it came from
    std::deque<const World*> frontier;   // breadth first: the first violation has a shortest trace
    const World* current = nullptr;
    std::string violation;

    // Every limit either side may enforce now: Kubernetes may still enforce an older one.
    long limits_sum(const World& w) const {
        return w.limit[0] + (versioned ? std::max(w.limit[1], w.k_enforced) : w.limit[1]);
    }

    // Without outside changes the ceiling stays at the quota, and this is L_s + L_k <= Q and
    // used_s + used_k <= Q. After one, the ceiling follows the sum down to the quota and no further
    // (visit()), so a sum above it is a rise while above the quota, or a rise above it.
    bool safe(const World& w) const { return limits_sum(w) <= w.ceiling && w.used[0] + w.used[1] <= w.peak; }

    static std::string describe(const World& w) {
        std::ostringstream out;
        out << "t=" << w.now << " quota " << w.quota << " ceiling " << w.ceiling << " limits " << w.limit[0] << "+"
            << w.limit[1] << " used " << w.used[0] << "+" << w.used[1] << " pending " << w.pending[0] << "+"
            << w.pending[1] << " flavors " << w.flavor_limit[0] << "/" << w.flavor_used[0] << "," << w.flavor_limit[1]
            << "/" << w.flavor_used[1] << " in flight";
        for (const auto& f : w.network)
            out << " [" << side_name(Side(f.side)) << "=" << f.value << "@" << f.issued_at << "]";
        for (int side = 0; side < 2; ++side) {
            const auto& b = w.bridge.sides[Side(side)];
            out << " | " << side_name(Side(side)) << " believed [" << b.lowest << "," << b.highest << "]";
            if (b.in_doubt) out << " doubt=" << *b.in_doubt;
            if (b.last) out << " read@" << b.last->read_at;
        }
        out << " started@" << w.bridge.started_at;
        return out.str();
    }

    void visit(World w) {
        if (!violation.empty()) return;
        w.ceiling = std::max(w.quota, std::min(w.ceiling, limits_sum(w)));
        auto [it, added] = seen.emplace(std::move(w), current);
        if (!added) return;
        if (!safe(w)) {
            std::string trace;
            for (const World* at = &it->first; at; at = seen.at(*at)) trace = describe(*at) + "\n" + trace;
            violation = trace;
        }
        frontier.push_back(&it->first);
    }

    void bridge_steps(const World& w) {
        QuotaSplit split(timing, w.bridge);
        for (int side = 0; side < 2; ++side) {  // a successful read of one side
            World next = w;
            QuotaSplit s = split;
            SideReading r = reading(w, side);
            if (mutant == Mutant::trusts_belief_over_read && !s.explains(Side(side), r))
                r.limit = std::min(r.limit, w.bridge.sides[Side(side)].highest);
            s.observe(Side(side), r);
            next.bridge = s.state();
            next.read_era[side] = w.era;
            if (side == 1) next.read_flavor_limit = w.flavor_limit, next.read_flavor_use = w.flavor_used;
            visit(next);
        }
        SplitDecision d = split.decide(w.now);
        World next = w;
        if (d.fence_on) {
            split.fenced(w.now);
            next.network.push_back({1, 0, w.now, {}, std::stol(*d.fence_on), true});
        }
        if (!d.writes_anything()) {
            if (d.fence_on) {
                next.bridge = split.state();
                visit(next);
            } else if (two_flavors) {
                resplit_step(w, split);
            }
            return;
        }
        for (int side = 0; side < 2; ++side)
            if (d.write[Side(side)]) {
                const long on_version = versioned && side == 1 ? read_version(split) : -1;
                const std::string version = on_version >= 0 && mutant != Mutant::trusts_write_timeout
                                                ? std::to_string(on_version)
                                                : std::string();
                if (mutant != Mutant::forgets_writes) split.wrote(Side(side), *d.write[Side(side)], w.now, version);
                next.network.push_back({side, *d.write[Side(side)], w.now, flavor_split(*d.write[Side(side)], w),
                                        on_version, false, std::min(w.read_era[0], w.read_era[1])});
            }
        next.bridge = split.state();
        visit(next);
    }

    SideReading reading(const World& w, int side) const {
        SideReading r{w.now, w.limit[side], w.used[side], w.pending[side], side == 1 ? holdable(w) : -1};
        if (versioned && side == 1) {
            r.in_force = w.k_observed == w.k_version || mutant == Mutant::ignores_enforcement;
            r.version = std::to_string(w.k_version);
        }
        return r;
    }

    static long read_version(const QuotaSplit& split) {
        const auto& last = split.state().sides[Side::kubernetes].last;
        return last ? std::stol(last->version) : 0;
    }

    long holdable(const World& w) const {
        if (!two_flavors || mutant == Mutant::ignores_holdable) return -1;
        return std::max(w.flavor_limit[0], w.flavor_used[0]) + std::max(w.flavor_limit[1], w.flavor_used[1]);
    }

    PerFlavor flavor_split(long limit, const World& w) const {
        if (!two_flavors) return {};
        const std::vector<long> current{w.read_flavor_limit[0], w.read_flavor_limit[1]};
        const std::vector<long> use{w.read_flavor_use[0], w.read_flavor_use[1]};
        std::vector<long> quotas;
        if (mutant == Mutant::splits_by_capacity) quotas = split_over_flavors(limit, {0, 0}, {1, 1});
        else if (mutant == Mutant::resplits_from_stale_use) quotas = split_over_flavors(limit, use, {1, 1});
        else quotas = step_flavor_quotas(limit, current, use, {1, 1});
        return {quotas[0], quotas[1]};
    }

    // The reconciler rewrites a ClusterQueue whose split no longer fits the use it read, at its
    // settled limit, and records that as a write of the limit.
    void resplit_step(const World& w, QuotaSplit split) {
        if (!split.settled(Side::kubernetes, w.now)) return;
        const long limit = split.state().sides[Side::kubernetes].highest;
        if (flavor_split(limit, w) == w.read_flavor_limit) return;
        World next = w;
        split.wrote(Side::kubernetes, limit, w.now);
        next.network.push_back({1, limit, w.now, flavor_split(limit, w)});
        next.bridge = split.state();
        visit(next);
    }

    void network_steps(const World& w) {
        for (std::size_t i = 0; i < w.network.size(); ++i) {
            World landed = w, lost = w;
            const InFlight& write = w.network[i];
            lost.network.erase(lost.network.begin() + i);
            visit(lost);
            if (write.on_version >= 0) {  // conditional: lands only on its version, bumping it
                if (write.on_version != w.k_version) continue;
                if (write.fence || write.value != w.limit[1]) ++landed.k_version;
            }
            if (write.fence) {
                landed.network.erase(landed.network.begin() + i);
                visit(landed);
                continue;
            }
            landed.limit[w.network[i].side] = w.network[i].value;
            if (two_flavors && w.network[i].side == 1) landed.flavor_limit = w.network[i].per_flavor;
            landed.network.erase(landed.network.begin() + i);
            if (write.era < w.era) allow_current_sum(landed);  // decided before an outside change
            visit(landed);
        }
    }

    void allow_current_sum(World& w) const {
        w.ceiling = std::max(w.ceiling, limits_sum(w));
        w.peak = std::max(w.peak, w.ceiling);
    }

    // The configured quota changes (the bridge is reconfigured at once), or an admin raises a limit.
    void outside_steps(const World& w) {
        if (w.outside_left == 0) return;
        World changed = w;
        --changed.outside_left;
        ++changed.era;
        if (quota_change) {
            World next = changed;
            next.quota = w.quota == quota ? quota - 1 : quota;
            if (mutant != Mutant::keeps_old_quota) next.bridge.quota = next.quota;
            visit(next);
        }
        for (int side = 0; admin_raise && side < 2; ++side) {
            if (w.limit[side] >= quota) continue;
            World next = changed;
            next.limit[side] = quota;
            if (side == 1) ++next.k_version;  // an edit: the object moves, Kueue's controller takes it later
            allow_current_sum(next);
            visit(next);
        }
    }

    // Kubernetes' controller takes the current limit into force (and reports the version it took).
    void controller_steps(const World& w) {
        if (!versioned || w.k_observed == w.k_version) return;
        World next = w;
        next.k_enforced = w.limit[1];
        next.k_observed = w.k_version;
        visit(next);
    }

    // Kueue admits on a flavor with room in that flavor's quota; use ends on any flavor.
    void kubernetes_flavor_steps(const World& w) {
        for (int f = 0; f < 2; ++f) {
            if (w.pending[1] > 0 && w.flavor_used[f] < w.flavor_limit[f]) {
                World next = w;
                ++next.flavor_used[f];
                ++next.used[1];
                --next.pending[1];
                visit(next);
            }
            if (w.flavor_used[f] > 0) {
                World next = w;
                --next.flavor_used[f];
                --next.used[1];
                visit(next);
            }
        }
        if (w.demand_left > 0) {
            World next = w;
            ++next.pending[1];
            --next.demand_left;
            visit(next);
        }
    }

    void scheduler_steps(const World& w) {
        for (int side = 0; side < 2; ++side) {
            if (side == 1 && two_flavors) {
                kubernetes_flavor_steps(w);
                continue;
            }
            const long enforced = versioned && side == 1 ? w.k_enforced : w.limit[side];
            if (w.pending[side] > 0 && w.used[side] < enforced) {
                World next = w;
                ++next.used[side];
                --next.pending[side];
                visit(next);
            }
            if (w.used[side] > 0) {
                World next = w;
                --next.used[side];
                visit(next);
            }
            if (w.demand_left > 0) {
                World next = w;
                ++next.pending[side];
                --next.demand_left;
                visit(next);
            }
        }
    }

    void clock_and_crash_steps(const World& w) {
        // The write-timeout assumption: a write lands or dies within write_timeout.
        bool overdue = false;
        // Conditional writes are exempt: they may land however late.
        for (const auto& write : w.network)
            overdue |= write.on_version < 0 && write.issued_at + timing.write_timeout <= w.now + 1;
        if (w.now < horizon && !overdue) {
            World next = w;
            ++next.now;
            visit(next);
        }
        if (w.crashes_left > 0) {
            World next = w;
            --next.crashes_left;
            Instant started = mutant == Mutant::no_startup_wait ? w.now - timing.write_timeout : w.now;
            next.bridge = new_term(started);
            visit(next);
        }
    }

    SplitState new_term(Instant now) const {
        SplitState state = QuotaSplit(quota, timing, now).state();
        if (mutant == Mutant::no_term_fence) state.fence.closed = true;
        return state;
    }

    // Every split of the quota between the limits, nothing running yet: use and demand arrive
    // through events, so every later mix of them is reached too. With `predecessor`, also every
    // Kubernetes write a fenced predecessor may have left in flight, conditional on the version
    // this bridge reads first: any value the predecessor could count safe, ls + value <= Q.
    void start_from_every_safe_split() {
        for (long ls = 0; ls <= quota; ++ls)
            for (long lk = 0; ls + lk <= quota; ++lk) {
                World w;
                w.limit = {ls, lk};
                w.k_enforced = lk;
                w.quota = w.ceiling = w.peak = quota;
                w.outside_left = quota_change ? 2 : admin_raise ? 1 : 0;
                if (two_flavors) w.flavor_limit = {lk - lk / 2, lk / 2};
                w.demand_left = demand_events;
                w.crashes_left = versioned ? 0 : 1;
                w.bridge = new_term(0);
                visit(w);
                for (long late = lk + 1; predecessor && ls + late <= quota;
                     ++late) {  // a raise: a late decrease is harmless
                    World with_late = w;
                    with_late.network.push_back({1, late, 0, {}, 0});
                    visit(with_late);
                }
            }
    }

    int demand_events = 2;

    void run() {
        start_from_every_safe_split();
        while (!frontier.empty() && violation.empty()) {
            current = frontier.front();
            frontier.pop_front();
            const World& w = *current;
            bridge_steps(w);
            network_steps(w);
            scheduler_steps(w);
            controller_steps(w);
            outside_steps(w);
            clock_and_crash_steps(w);
        }
    }
};

// What a run explores besides the base case, and the demand events it takes.
struct Mode {
    const char* name;
    bool two_flavors = false, versioned = false, predecessor = false;
    int demand_events = 2;
    bool quota_change = false, admin_raise = false;
    Instant horizon = 4;
};
constexpr Mode kPlain{"plain"};
// Two flavors: as many demand events as the broken splits need to overrun (Kubernetes on one
// flavor, again on the other, then Slurm on the room).
constexpr Mode kTwoFlavors{"two flavors", true, false, false, 3};
constexpr Mode kVersioned{"versioned, lagging", false, true};
// One demand event is enough for the overrun a bridge without the term fence makes.
constexpr Mode kFencedPredecessor{"fenced predecessor", false, true, true, 1};
// One demand event and a horizon of 3 each: enough for the overruns of the broken bridges below
// (found by t = 2), and it keeps the state space (outside changes at any moment) small.
constexpr Mode kQuotaChange{"quota lowered and raised", false, true, false, 1, true, false, 3};
constexpr Mode kAdminRaise{"admin raise", false, true, false, 1, false, true, 3};

Explorer explored(long quota, const Mode& mode, Mutant mutant = Mutant::none) {
    Explorer explorer{quota};
    explorer.two_flavors = mode.two_flavors;
    explorer.versioned = mode.versioned;
    explorer.predecessor = mode.predecessor;
    explorer.demand_events = mode.demand_events;
    explorer.quota_change = mode.quota_change;
    explorer.admin_raise = mode.admin_raise;
    explorer.horizon = mode.horizon;
    explorer.mutant = mutant;
    explorer.run();
    return explorer;
}

void expect_safe(const Mode& mode, std::initializer_list<long> quotas) {
    for (long quota : quotas) {
        Explorer explorer = explored(quota, mode);
        EXPECT_EQ(explorer.violation, "") << mode.name << ", quota " << quota;
        std::cout << "[ quota " << quota << ", " << mode.name << " ] " << explorer.seen.size() << " states explored\n";
        EXPECT_GT(explorer.seen.size(), 1000u);
    }
}

// A deliberately broken bridge: the exploration must find a violation (and shows its shortest trace).
void expect_caught(const Mode& mode, Mutant mutant, const char* broken) {
    Explorer explorer = explored(2, mode, mutant);
    EXPECT_NE(explorer.violation, "") << broken;
    std::cout << "[ " << broken << " ] shortest violating trace:\n" << explorer.violation;
}

TEST(QuotaSplitExploration, NoInterleavingBreaksTheQuota) { expect_safe(kPlain, {1, 2}); }

TEST(QuotaSplitExploration, NoInterleavingBreaksTheQuotaWithTwoFlavors) { expect_safe(kTwoFlavors, {1, 2}); }

TEST(QuotaSplitExploration, NoInterleavingBreaksTheQuotaWithLateWritesAndEnforcementLag) {
    expect_safe(kVersioned, {1, 2});
}

// Quota 1 adds 600,000 states and nothing quota 2 does not cover.
TEST(QuotaSplitExploration, NoInterleavingBreaksTheQuotaWithAFencedPredecessorsLateWrite) {
    expect_safe(kFencedPredecessor, {2});
}

TEST(QuotaSplitExploration, NoInterleavingRaisesTheLimitsPastAChangedQuota) { expect_safe(kQuotaChange, {2}); }

TEST(QuotaSplitExploration, NoInterleavingRaisesTheLimitsOnTopOfAnAdminsRaise) { expect_safe(kAdminRaise, {2}); }

TEST(QuotaSplitExploration, FindsTheOverrunWhenALoweredQuotaIsNotTakenUp) {
    expect_caught(kQuotaChange, Mutant::keeps_old_quota, "keeps the old quota");
}

TEST(QuotaSplitExploration, FindsTheOverrunWhenARaiseOutsideTheBridgeIsNotBelieved) {
    expect_caught(kAdminRaise, Mutant::trusts_belief_over_read, "trusts its belief over the read");
}

TEST(QuotaSplitExploration, FindsTheOverrunWhenANewTermDoesNotFenceOffItsPredecessor) {
    expect_caught(kFencedPredecessor, Mutant::no_term_fence, "no term fence");
}

TEST(QuotaSplitExploration, FindsTheOverrunWhenAConditionalWriteIsTakenAsLostAfterItsTimeout) {
    expect_caught(kVersioned, Mutant::trusts_write_timeout, "trusts the write timeout");
}

TEST(QuotaSplitExploration, FindsTheOverrunWhenADecreaseCountsBeforeItIsInForce) {
    expect_caught(kVersioned, Mutant::ignores_enforcement, "ignores enforcement");
}

TEST(QuotaSplitExploration, FindsTheOverrunWhenTheSplitIgnoresWhereUseSits) {
    expect_caught(kTwoFlavors, Mutant::splits_by_capacity, "split by capacity");
}

TEST(QuotaSplitExploration, FindsTheOverrunWhenAReSplitMovesQuotaOnAStaleRead) {
    expect_caught(kTwoFlavors, Mutant::resplits_from_stale_use, "re-split from stale use");
}

TEST(QuotaSplitExploration, FindsTheOverrunWhenUseAboveAFlavorsQuotaIsNotCounted) {
    expect_caught(kTwoFlavors, Mutant::ignores_holdable, "ignores holdable");
}

TEST(QuotaSplitExploration, FindsTheRaceWhenWritesAreNotTrackedUntilReadBack) {
    expect_caught(kPlain, Mutant::forgets_writes, "forgets writes");
}

TEST(QuotaSplitExploration, FindsTheRaceWhenARestartDoesNotWaitForOldWrites) {
    expect_caught(kPlain, Mutant::no_startup_wait, "no start-up wait");
}

}  // namespace
