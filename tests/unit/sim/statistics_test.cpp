// Share windows (delivered against entitled, Jain's index) and recovery after a burst, by hand.
#include <gtest/gtest.h>

#include "fairshare/fair_share.h"
#include "sim/statistics.h"
#include "tests/unit/sim/sim_fixtures.h"

using namespace fairway::sim;
using namespace fairway::sim::testing;
namespace fs = fairway::fairshare;

namespace {

StatisticsConfig windows_of(std::int64_t window, std::int64_t step, std::vector<std::size_t> tracked = {}) {
    StatisticsConfig config;
    config.share_window = window;
    config.share_step = step;
    config.tracked_entities = std::move(tracked);
    return config;
}

}  // namespace

// Entity 0 runs 2 billing units from 0 to 20; entity 1 waits from 0 and runs 1 unit from 10 to 20.
// Windows of 20 s every 10 s: the first ends at 20. Entity 0 delivered 40 of 50, entity 1 10 of 50;
// both active, equal shares: entitled 1/2 each.
TEST(ShareWindows, DeliveredAgainstEntitledOverSlidingWindows) {
    ShareWindows windows({1, 1}, windows_of(20, 10, {0, 1}));
    windows.submitted(0, 0);
    windows.submitted(1, 0);
    windows.started(0, 0, 2);
    windows.started(1, 10, 1);
    windows.ended(0, 20, 2);
    windows.ended(1, 20, 1);
    windows.close(40);
    // Window (0, 20]: 0.8 / 0.2. Window (10, 30]: entity 0 delivered 20 of 30, entity 1 10 of 30.
    // Window (20, 40]: nothing ran: left out.
    ASSERT_EQ(windows.tracked()[0].size(), 2U);
    EXPECT_EQ(windows.tracked()[0][0].end, 20);
    EXPECT_DOUBLE_EQ(windows.tracked()[0][0].delivered, 0.8);
    EXPECT_DOUBLE_EQ(windows.tracked()[0][0].entitled, 0.5);
    EXPECT_DOUBLE_EQ(windows.tracked()[1][0].delivered, 0.2);
    EXPECT_DOUBLE_EQ(windows.tracked()[0][1].delivered, 2.0 / 3);
    // Jain: x = 1.6 and 0.4: (2.0)^2 / (2 * (2.56 + 0.16)) = 4 / 5.44.
    ASSERT_EQ(windows.jain().size(), 2U);
    EXPECT_DOUBLE_EQ(windows.jain()[0].second, 4 / 5.44);
    EXPECT_EQ(windows.entities()[0].active_windows, 2U);
    EXPECT_DOUBLE_EQ(windows.entities()[1].mean_delivered(), (0.2 + 1.0 / 3) / 2);
}

// An entity with nothing pending or running in a window is entitled to nothing in it.
TEST(ShareWindows, IdleEntitiesAreNotEntitled) {
    ShareWindows windows({1, 3}, windows_of(10, 10, {0, 1}));
    windows.submitted(0, 0);
    windows.started(0, 0, 1);
    windows.ended(0, 10, 1);
    windows.submitted(1, 11);  // in the second window only
    windows.started(1, 11, 1);
    windows.ended(1, 20, 1);
    windows.close(20);
    ASSERT_EQ(windows.tracked()[1].size(), 2U);
    EXPECT_DOUBLE_EQ(windows.tracked()[0][0].entitled, 1.0);
    EXPECT_DOUBLE_EQ(windows.tracked()[1][0].entitled, 0.0);
    EXPECT_DOUBLE_EQ(windows.tracked()[1][1].entitled, 1.0);
    EXPECT_DOUBLE_EQ(windows.mean_jain(), 1.0);
}

// Classic factors: a user with all the usage is at 2^(-1/0.5) = 0.25, one with none at 1.
TEST(RecoveryTracker, TimesFromTheBurstEndToTheFactorComingBack) {
    Population population = population_of(2);
    RecoveryTracker tracker(population, 0.5);
    fs::FairShareOptions classic{fs::FairShareAlgorithm::classic, 1, false};
    std::size_t heavy = *population.association("g1", "u1");
    auto factors_with = [&](double heavy_usage, double light_usage) {
        fs::AssociationTree tree = population.tree();
        tree.set_own_usage(heavy, heavy_usage);
        tree.set_own_usage(*population.association("g2", "u2"), light_usage);
        return fs::compute_fair_share(tree, classic);
    };
    tracker.started(heavy);
    tracker.factors(100, factors_with(10, 0));  // penalized: a stretch begins
    tracker.ended(heavy, 150);                  // the burst ends
    tracker.factors(200, factors_with(10, 0));
    tracker.factors(400, factors_with(1, 1));  // back at 0.5: recovered 250 s after the burst
    tracker.started(heavy);
    tracker.factors(500, factors_with(10, 0));  // a second stretch ...
    tracker.factors(600, factors_with(1, 1));   // ... over while it runs: untimed
    tracker.factors(700, factors_with(10, 0));  // a third, never over
    tracker.finish();
    const RecoveryFigures& figures = tracker.users()[population.user_slot(heavy)];
    EXPECT_EQ(figures.stretches, 3U);
    EXPECT_EQ(figures.recovered, 1U);
    EXPECT_EQ(figures.untimed, 1U);
    EXPECT_EQ(figures.unrecovered, 1U);
    EXPECT_DOUBLE_EQ(figures.mean_seconds(), 250);
    EXPECT_DOUBLE_EQ(figures.seconds_max, 250);
    EXPECT_EQ(tracker.users()[population.user_slot(*population.association("g2", "u2"))].stretches, 0U);
    EXPECT_EQ(tracker.overall().stretches, 3U);
    EXPECT_EQ(tracker.overall().unrecovered, 1U);
    EXPECT_DOUBLE_EQ(tracker.overall().seconds.quantile(0.5), 250);
}
