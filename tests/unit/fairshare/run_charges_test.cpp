// The one rule that turns a job's run into usage (fairshare/run_charges.h), checked the way the
// plugin, its rebuild and fairway-report use it: every second of a run is charged once and weighs
// the same whether it was charged pass by pass, across a restart, by a rebuild or whole.
#include "fairshare/run_charges.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <vector>

#include "common/error.h"
#include "fairshare/usage_book.h"

namespace fairway::fairshare {
namespace {

TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

struct JobRun {
    AssocId association;
    std::int64_t start;
    std::int64_t end;
    double rate;  // billing per second
};

// Runs that cross the 600-second window's edge, outlive the 100-second half-life, start inside a
// bucket and end on a bucket boundary, start together and overlap.
const std::vector<JobRun> kRuns = {
    {1, 1003, 1500, 2.0}, {1, 1100, 1900, 1.0}, {2, 1650, 2000, 3.0}, {2, 1200, 1206, 8.0},
    {3, 1000, 2000, 0.5}, {3, 1997, 2000, 5.0}, {1, 1890, 1890, 4.0},
};
constexpr std::int64_t kEnd = 2000;  // all runs ended by then

const std::vector<LedgerConfig> kConfigs = {
    {Seconds{600}, Seconds{100}, Seconds{6}},      // short window and half-life, as the cluster test
    {Seconds{600}, Seconds{0}, Seconds{7}},        // a pure window, buckets that do not divide it
    {kInfiniteWindow, Seconds{100}, Seconds{0}},   // multifactor's decay
    {Seconds{600}, Seconds{100000}, Seconds{60}},  // a half-life far longer than the runs
    {Seconds{86400}, Seconds{3600}, Seconds{0}},   // runs far shorter than the half-life
};

// The plugin: a pass every `period` (or at the times given) charges each run from where it was
// charged until, as JobChargeTracker does, and advances the book.
class Passes {
public:
    explicit Passes(const LedgerConfig& config) : book_(config) {}

    void pass(std::int64_t now) {
        for (std::size_t i = 0; i < kRuns.size(); ++i) {
            const JobRun& run = kRuns[i];
            if (run.start > now) continue;
            const auto known = charged_until_.find(i);
            const ChargeSpan span = uncharged_span(
                at(run.start), at(std::min(run.end, now)),
                known != charged_until_.end() ? std::optional(known->second) : resume_from_, TimePoint{});
            charged_until_[i] = span.to;
            book_.charge_span({run.association, {}}, {run.rate, 0, {}}, span.from, span.to);
        }
        book_.advance(at(now));
    }

    // slurmctld restarts: the book comes back from its bytes, and runs are charged from its clock.
    void restart() {
        book_ = UsageBook::deserialize(book_.serialize());
        charged_until_.clear();
        resume_from_ = book_.clock();
    }

    // The book is rebuilt from accounting at `now`: every run read whole (as the report reads it),
    // then the passes go on from `now`.
    void rebuild(std::int64_t now) {
        book_ = whole(book_.config(), now);
        charged_until_.clear();
        resume_from_ = at(now);
    }

    // Every run up to `now` charged whole, from the look-back horizon on.
    static UsageBook whole(const LedgerConfig& config, std::int64_t now) {
        UsageBook book = UsageBook::starting_at(config, at(now));
        const TimePoint horizon = usage_horizon(config, at(now));
        for (const JobRun& run : kRuns) {
            if (run.start >= now) continue;
            const ChargeSpan span = uncharged_span(at(run.start), at(std::min(run.end, now)), std::nullopt, horizon);
            book.charge_span({run.association, {}}, {run.rate, 0, {}}, span.from, span.to);
        }
        book.advance(at(now));
        return book;
    }

    const UsageBook& book() const { return book_; }

private:
    UsageBook book_;
    std::map<std::size_t, TimePoint> charged_until_;
    std::optional<TimePoint> resume_from_;
};

void expect_same_usage(const UsageBook& ours, const UsageBook& expected, std::int64_t now, const char* how) {
    for (AssocId id : {1u, 2u, 3u}) {
        const double want = expected.fair_share_usage().usage(id, at(now));
        const double got = ours.fair_share_usage().usage(id, at(now));
        EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, want))
            << how << ": association " << id << " at " << now << " (window " << ours.config().window.count()
            << ", half-life " << ours.config().half_life.count() << ")";
    }
}

TEST(RunCharges, TheLookBackIsTheWindowAndABucketOrFortyHalfLives) {
    EXPECT_EQ(usage_horizon({Seconds{3600}, Seconds{60}, Seconds{36}}, at(100000)), at(100000 - 3636));
    EXPECT_EQ(usage_horizon({Seconds{3600}, Seconds{60}, Seconds{0}}, at(100000)), at(100000 - 3636));
    EXPECT_EQ(usage_horizon({kInfiniteWindow, Seconds{100}, Seconds{0}}, at(100000)), at(100000 - 4000));
    EXPECT_EQ(usage_horizon({kInfiniteWindow, Seconds{0}, Seconds{0}}, at(100000)), at(0));
    EXPECT_EQ(usage_horizon({Seconds{3600}, Seconds{60}, Seconds{36}}, at(100)), at(0));
}

TEST(RunCharges, WhatIsOwedStartsWhereTheLastChargeEndedAndNeverBeforeTheHorizon) {
    const ChargeSpan fresh = uncharged_span(at(100), at(200), std::nullopt, at(0));
    EXPECT_EQ(fresh.from, at(100));
    EXPECT_EQ(fresh.to, at(200));
    EXPECT_EQ(fresh.length(), Seconds{100});
    const ChargeSpan rest = uncharged_span(at(100), at(200), at(150), at(0));
    EXPECT_EQ(rest.from, at(150));
    EXPECT_EQ(rest.to, at(200));
    EXPECT_EQ(uncharged_span(at(100), at(200), at(120), at(170)).from, at(170));
    EXPECT_TRUE(uncharged_span(at(100), at(200), at(200), at(0)).empty());  // charged already
    EXPECT_TRUE(uncharged_span(at(100), at(200), at(250), at(0)).empty());  // a pass after its end
    EXPECT_TRUE(uncharged_span(at(100), at(200), std::nullopt, at(300)).empty());
    EXPECT_EQ(uncharged_span(at(100), at(200), std::nullopt, at(300)).length(), Seconds{0});
    EXPECT_TRUE(uncharged_span(at(100), at(100), std::nullopt, at(0)).empty());
}

// Without decay or window the book holds exactly the billing-seconds run: none twice, none lost.
TEST(RunCharges, PassesChargeEverySecondOnce) {
    Passes passes({kInfiniteWindow, Seconds{0}, Seconds{0}});
    for (std::int64_t now = 990; now <= kEnd + 20; now += 7) passes.pass(now);
    passes.pass(kEnd + 20);  // the same pass time twice charges nothing more
    double want[4] = {};
    for (const JobRun& run : kRuns) want[run.association] += run.rate * static_cast<double>(run.end - run.start);
    for (AssocId id : {1u, 2u, 3u})
        EXPECT_DOUBLE_EQ(passes.book().fair_share_usage().usage(id, at(kEnd + 20)), want[id]) << id;
}

// Each second decays from its own time: a run's usage is the integral of rate x 2^(-age/H).
TEST(RunCharges, ARunWeighsTheIntegralOfItsDecayedSeconds) {
    const double h = 100;
    Passes passes({kInfiniteWindow, Seconds{100}, Seconds{0}});
    for (std::int64_t now = 1000; now <= kEnd; now += 5) passes.pass(now);
    const auto integral = [&](const JobRun& run, double now) {
        return run.rate * h / std::numbers::ln2 * (std::exp2(-(now - run.end) / h) - std::exp2(-(now - run.start) / h));
    };
    double want = 0;
    for (const JobRun& run : kRuns)
        if (run.association == 2) want += integral(run, kEnd);
    EXPECT_NEAR(passes.book().fair_share_usage().usage(2, at(kEnd)), want, 1e-9 * want);
}

// Passes at any period, at irregular times, and a single charge of each run at its end leave the
// same usage, inside the window and at its edge.
TEST(RunCharges, HowPassesCutARunChangesNothing) {
    std::mt19937 random(29);
    for (const LedgerConfig& config : kConfigs) {
        for (std::int64_t period : {1, 5, 7, 60, 333}) {
            Passes passes(config);
            for (std::int64_t now = 995; now < kEnd; now += period) passes.pass(now);
            passes.pass(kEnd);
            for (std::int64_t later : {kEnd, kEnd + 250, kEnd + 550, kEnd + 600, kEnd + 900})
                expect_same_usage(passes.book(), Passes::whole(config, kEnd), later, "periodic passes");
        }
        Passes irregular(config);
        for (std::int64_t now = 995; now < kEnd; now += 1 + random() % 40) irregular.pass(now);
        irregular.pass(kEnd);
        expect_same_usage(irregular.book(), Passes::whole(config, kEnd), kEnd + 300, "irregular passes");
    }
}

// A restart resumes from the saved clock; a rebuild reads every run whole up to its time and the
// passes go on from there. Either, once or several times, leaves what uninterrupted passes leave.
TEST(RunCharges, RestartsAndRebuildsNeitherLoseNorRepeatASecond) {
    for (const LedgerConfig& config : kConfigs) {
        Passes uninterrupted(config), restarted(config), rebuilt(config);
        for (std::int64_t now = 995; now <= kEnd + 100; now += 5) {
            uninterrupted.pass(now);
            restarted.pass(now);
            rebuilt.pass(now);
            if (now % 155 == 0) restarted.restart();
            if (now % 205 == 0) rebuilt.rebuild(now);
        }
        for (std::int64_t later : {kEnd + 100, kEnd + 450, kEnd + 700}) {
            expect_same_usage(restarted.book(), uninterrupted.book(), later, "restarted");
            expect_same_usage(rebuilt.book(), uninterrupted.book(), later, "rebuilt");
            expect_same_usage(rebuilt.book(), Passes::whole(config, kEnd + 100), later, "rebuilt vs whole");
        }
    }
}

// With a window, a second counts while its bucket is in the window: a run that crosses the edge
// keeps exactly its seconds in live buckets (no decay here, so the count is exact).
TEST(RunCharges, ARunAcrossTheWindowsEdgeKeepsTheSecondsStillInside) {
    const LedgerConfig config{Seconds{600}, Seconds{0}, Seconds{7}};
    Passes passes(config);
    for (std::int64_t now = 1000; now <= kEnd; now += 5) passes.pass(now);
    for (std::int64_t later : {kEnd, kEnd + 123, kEnd + 400}) {
        passes.pass(later);
        double want = 0;
        for (const JobRun& run : kRuns) {
            if (run.association != 3) continue;
            for (std::int64_t second = run.start; second < run.end; ++second)
                if ((second / 7 + 1) * 7 + 600 > later) want += run.rate;  // its bucket is live
        }
        EXPECT_NEAR(passes.book().fair_share_usage().usage(3, at(later)), want, 1e-9 * want) << later;
    }
}

TEST(RunCharges, ASpanOfSecondsAllOlderThanTheWindowIsDroppedAndBadRatesAreRefused) {
    WindowedUsageLedger ledger({Seconds{600}, Seconds{100}, Seconds{6}});
    ledger.advance(at(10000));
    EXPECT_FALSE(ledger.charge_span(1, 2.0, at(100), at(9900)));  // most of it older than the window
    EXPECT_FALSE(ledger.charge_span(2, 2.0, at(100), at(200)));   // all of it
    EXPECT_EQ(ledger.association_count(), 1u);
    EXPECT_TRUE(ledger.charge_span(3, 2.0, at(9900), at(9950)));
    EXPECT_THROW(ledger.charge_span(4, -1.0, at(9900), at(9950)), InputError);
    EXPECT_THROW(ledger.charge_span(4, std::nan(""), at(9900), at(9950)), InputError);
    EXPECT_THROW(ledger.charge_span(4, 1.0, at(-5), at(9950)), InputError);
    EXPECT_EQ(ledger.association_count(), 2u);
    // The span's seconds survive serialization like any charge.
    const WindowedUsageLedger copy = WindowedUsageLedger::deserialize(ledger.serialize());
    EXPECT_NEAR(copy.usage(3, at(10000)), ledger.usage(3, at(10000)), 1e-12 * ledger.usage(3, at(10000)));
}

}  // namespace
}  // namespace fairway::fairshare
