#include "fairshare/forecast.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

// root -> a (shares 1) -> user 11 ; root -> b (shares 1) -> user 21
AssociationTree two_teams() {
    return AssociationTree({{1, kNoParent, "root", "", Shares::of(1), 0},
                            {10, 1, "a", "", Shares::of(1), 0},
                            {11, 10, "a", "ua", Shares::of(1), 0},
                            {20, 1, "b", "", Shares::of(1), 0},
                            {21, 20, "b", "ub", Shares::of(1), 0}});
}

WindowedUsageLedger heavy_a_light_b(LedgerConfig config) {
    WindowedUsageLedger ledger(config);
    ledger.charge(11, 900, at(1003));  // bucket [1000, 1010): leaves the window at 1110
    ledger.charge(21, 100, at(1055));  // bucket [1050, 1060): leaves at 1160
    ledger.advance(at(1060));
    return ledger;
}

TEST(FairshareForecast, RecoveryIsTheSecondTheHeavyUsageLeavesTheWindow) {
    const auto ledger = heavy_a_light_b(LedgerConfig{Seconds{100}, Seconds{0}, Seconds{10}});
    for (auto algorithm : {FairShareAlgorithm::classic, FairShareAlgorithm::fair_tree}) {
        const FairShareOptions options{algorithm, 1};
        const RecoveryForecast forecast =
            forecast_recovery(ledger, two_teams(), options, {11, 0.9, Seconds{0}}, at(1060));
        EXPECT_LT(forecast.factor_now, 0.9);
        ASSERT_TRUE(forecast.reached.has_value());
        EXPECT_EQ(*forecast.reached, at(1110));
        EXPECT_GE(forecast.factor_at_reached, 0.9);
    }
}

TEST(FairshareForecast, WithDecayOnlyExpiryMovesRatiosAndIsFoundToTheSecond) {
    // Every usage decays at the same rate, so ratios (and factors) change only when a bucket leaves.
    const auto ledger = heavy_a_light_b(LedgerConfig{Seconds{100}, Seconds{20}, Seconds{10}});
    const FairShareOptions options{FairShareAlgorithm::classic, 1};
    const RecoveryForecast forecast = forecast_recovery(ledger, two_teams(), options, {11, 0.9, Seconds{0}}, at(1060));
    ASSERT_TRUE(forecast.reached.has_value());
    EXPECT_EQ(*forecast.reached, at(1110));
    const auto factor_at = [&](TimePoint t) {
        return compute_fair_share(two_teams().with_usage(ledger, t), options).job_factor(11);
    };
    EXPECT_NEAR(factor_at(at(1061)), factor_at(at(1109)), 1e-12);
    EXPECT_LT(factor_at(at(1109)), 0.9);
    EXPECT_GE(factor_at(at(1110)), 0.9);
}

TEST(FairshareForecast, AlreadyThereIsNow) {
    const auto ledger = heavy_a_light_b(LedgerConfig{Seconds{100}, Seconds{0}, Seconds{10}});
    const RecoveryForecast forecast = forecast_recovery(ledger, two_teams(), {}, {21, 0.5, Seconds{0}}, at(1060));
    ASSERT_TRUE(forecast.reached.has_value());
    EXPECT_EQ(*forecast.reached, at(1060));
}

TEST(FairshareForecast, PureDecayFreezesRatiosSoNothingRecovers) {
    // The multifactor-like case fairway exists for: with an infinite window, ratios never move.
    const auto ledger = heavy_a_light_b(LedgerConfig{kInfiniteWindow, Seconds{3600}, Seconds{0}});
    const RecoveryForecast forecast =
        forecast_recovery(ledger, two_teams(), {FairShareAlgorithm::classic, 1}, {11, 0.9, Seconds{0}}, at(1060));
    EXPECT_FALSE(forecast.reached.has_value());
}

TEST(FairshareForecast, RejectsUnknownAssociationAndBadTarget) {
    const auto ledger = heavy_a_light_b(LedgerConfig{Seconds{100}, Seconds{0}, Seconds{10}});
    struct Case {
        RecoveryQuery query;
        const char* key;
    };
    for (const Case& c : {Case{{99, 0.5, Seconds{0}}, "assoc"}, Case{{11, 1.5, Seconds{0}}, "target"},
                          Case{{11, -0.1, Seconds{0}}, "target"}}) {
        try {
            forecast_recovery(ledger, two_teams(), {}, c.query, at(1060));
            ADD_FAILURE() << c.key << " accepted";
        } catch (const InputError& error) {
            EXPECT_EQ(error.where().key, c.key);
        }
    }
}

}  // namespace
}  // namespace fairway::fairshare
