// Exhaustive exploration of the shared-quota protocol: every interleaving of bridge reads and
// decisions, writes landing late or being lost, jobs starting and ending, new demand, clock
// ticks and a bridge crash, from every safe start for a small quota. The safety property
// "L_s + L_k <= Q and used_s + used_k <= Q" must hold in every reachable state.
// Two deliberately broken bridges show the exploration finds violations when they exist.
#include "quota/quota_split.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <sstream>
#include <vector>

using namespace fairway::quota;

namespace {

struct InFlight {
    int side;
    long value;
    Instant issued_at;
    auto operator<=>(const InFlight&) const = default;
};

struct World {
    std::array<long, 2> limit{}, used{}, pending{};
    std::vector<InFlight> network;  // writes issued but not yet landed or lost
    Instant now = 0;
    int demand_left = 0, crashes_left = 0;
    SplitState bridge;
    auto operator<=>(const World&) const = default;
};

enum class Mutant { none, forgets_writes, no_startup_wait };

struct Explorer {
    explicit Explorer(long q) : quota(q) {}
    long quota;
    SplitTiming timing{2, 2};
    Instant horizon = 4;
    Mutant mutant = Mutant::none;
    std::map<World, const World*> seen;  // every reached state and the state it came from
    std::deque<const World*> frontier;   // breadth first: the first violation has a shortest trace
    const World* current = nullptr;
    std::string violation;

    bool safe(const World& w) const {
        return w.limit[0] + w.limit[1] <= quota && w.used[0] + w.used[1] <= quota;
    }

    static std::string describe(const World& w) {
        std::ostringstream out;
        out << "t=" << w.now << " limits " << w.limit[0] << "+" << w.limit[1] << " used " << w.used[0] << "+"
            << w.used[1] << " pending " << w.pending[0] << "+" << w.pending[1] << " in flight";
        for (const auto& f : w.network) out << " [" << side_name(Side(f.side)) << "=" << f.value << "@" << f.issued_at << "]";
        for (int side = 0; side < 2; ++side) {
            const auto& b = w.bridge.sides[side];
            out << " | " << side_name(Side(side)) << " believed [" << b.lowest << "," << b.highest << "]";
            if (b.in_doubt) out << " doubt=" << *b.in_doubt;
            if (b.last) out << " read@" << b.last->read_at;
        }
        out << " started@" << w.bridge.started_at;
        return out.str();
    }

    void visit(const World& w) {
        if (!violation.empty()) return;
        auto [it, added] = seen.emplace(w, current);
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
            s.observe(Side(side), {w.now, w.limit[side], w.used[side], w.pending[side]});
            next.bridge = s.state();
            visit(next);
        }
        SplitDecision d = split.decide(w.now);
        if (!d.writes_anything()) return;
        World next = w;
        for (int side = 0; side < 2; ++side)
            if (d.write[side]) {
                if (mutant != Mutant::forgets_writes) split.wrote(Side(side), *d.write[side], w.now);
                next.network.push_back({side, *d.write[side], w.now});
            }
        next.bridge = split.state();
        visit(next);
    }

    void network_steps(const World& w) {
        for (std::size_t i = 0; i < w.network.size(); ++i) {
            World landed = w, lost = w;
            landed.limit[w.network[i].side] = w.network[i].value;
            landed.network.erase(landed.network.begin() + i);
            lost.network.erase(lost.network.begin() + i);
            visit(landed);
            visit(lost);
        }
    }

    void scheduler_steps(const World& w) {
        for (int side = 0; side < 2; ++side) {
            if (w.pending[side] > 0 && w.used[side] < w.limit[side]) {
                World next = w;
                ++next.used[side];
                --next.pending[side];
                visit(next);
            }
            if (w.used[side] > 0) { World next = w; --next.used[side]; visit(next); }
            if (w.demand_left > 0) { World next = w; ++next.pending[side]; --next.demand_left; visit(next); }
        }
    }

    void clock_and_crash_steps(const World& w) {
        // The write-timeout assumption: a write lands or dies within write_timeout.
        bool overdue = false;
        for (const auto& write : w.network) overdue |= write.issued_at + timing.write_timeout <= w.now + 1;
        if (w.now < horizon && !overdue) { World next = w; ++next.now; visit(next); }
        if (w.crashes_left > 0) {
            World next = w;
            --next.crashes_left;
            Instant started = mutant == Mutant::no_startup_wait ? w.now - timing.write_timeout : w.now;
            next.bridge = QuotaSplit(quota, timing, started).state();
            visit(next);
        }
    }

    // Every split of the quota between the limits, nothing running yet: use and demand arrive
    // through events, so every later mix of them is reached too.
    void start_from_every_safe_split() {
        for (long ls = 0; ls <= quota; ++ls)
            for (long lk = 0; ls + lk <= quota; ++lk) {
                World w;
                w.limit = {ls, lk};
                w.demand_left = demand_events;
                w.crashes_left = 1;
                w.bridge = QuotaSplit(quota, timing, 0).state();
                visit(w);
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
            clock_and_crash_steps(w);
        }
    }
};

TEST(QuotaSplitExploration, NoInterleavingBreaksTheQuota) {
    for (long quota : {1L, 2L}) {
        Explorer explorer{quota};
        explorer.run();
        EXPECT_EQ(explorer.violation, "") << "quota " << quota;
        std::cout << "[ quota " << quota << " ] " << explorer.seen.size() << " states explored\n";
        EXPECT_GT(explorer.seen.size(), 1000u);
    }
}

TEST(QuotaSplitExploration, FindsTheRaceWhenWritesAreNotTrackedUntilReadBack) {
    Explorer explorer{2};
    explorer.mutant = Mutant::forgets_writes;
    explorer.run();
    EXPECT_NE(explorer.violation, "");
}

TEST(QuotaSplitExploration, FindsTheRaceWhenARestartDoesNotWaitForOldWrites) {
    Explorer explorer{2};
    explorer.mutant = Mutant::no_startup_wait;
    explorer.run();
    EXPECT_NE(explorer.violation, "");
}

}  // namespace
