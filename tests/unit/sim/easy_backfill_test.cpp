// plan_easy_pass: the main scheduler's in-order starts, the head's reservation, and EASY backfill.
#include <gtest/gtest.h>

#include "sim/easy_backfill.h"

using namespace fairway::sim;

namespace {

auto running_of(std::vector<RunningSlot> slots) {
    return [slots] { return slots; };
}

}  // namespace

TEST(EasyBackfill, StartsInOrderWhileJobsFit) {
    std::vector<Candidate> queue{{{2, 0}, 100}, {{1, 0}, 100}, {{1, 0}, 100}};
    PassPlan plan = plan_easy_pass({4, 0}, running_of({}), queue, 0, 100);
    EXPECT_EQ(plan.started, (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(plan.backfilled, (std::vector<bool>{false, false, false}));
    EXPECT_FALSE(plan.reservation);
}

// 4 cores; one 2-core job runs until 100. The 4-core head waits for it (shadow 100, nothing spare).
TEST(EasyBackfill, ShortJobsFillTheHoleBeforeTheShadowTime) {
    std::vector<Candidate> queue{
        {{4, 0}, 10},   // head: needs all 4 cores
        {{2, 0}, 200},  // fits now but would hold 2 cores past 100: must wait
        {{2, 0}, 90},   // ends at 100 = shadow time: backfills
        {{1, 0}, 50},   // no core left
    };
    PassPlan plan = plan_easy_pass({2, 0}, running_of({{{2, 0}, 100}}), queue, 10, 100);
    EXPECT_EQ(plan.started, (std::vector<std::size_t>{2}));
    EXPECT_EQ(plan.backfilled, (std::vector<bool>{true}));
    ASSERT_TRUE(plan.reservation);
    EXPECT_EQ(plan.reservation->head, 0U);
    EXPECT_EQ(plan.reservation->shadow_time, 100);
    EXPECT_EQ(plan.reservation->spare, (Need{0, 0}));
}

// Spare resources at the shadow time may be used by jobs of any length.
TEST(EasyBackfill, LongJobsUseOnlyTheSpareResources) {
    // 8 cores: 4 free now; a 4-core job ends at 50. The head needs 6: shadow 50, spare 2.
    std::vector<Candidate> queue{{{6, 0}, 10}, {{3, 0}, 1000}, {{2, 0}, 1000}, {{1, 0}, 1000}};
    PassPlan plan = plan_easy_pass({4, 0}, running_of({{{4, 0}, 50}}), queue, 0, 100);
    EXPECT_EQ(plan.started, (std::vector<std::size_t>{2}));  // 3 > spare 2; 2 fits; then spare is 0
    ASSERT_TRUE(plan.reservation);
    EXPECT_EQ(plan.reservation->shadow_time, 50);
    EXPECT_EQ(plan.reservation->spare, (Need{0, 0}));
}

TEST(EasyBackfill, BackfillLooksAtMostDepthJobsBehindTheHead) {
    std::vector<Candidate> queue{{{4, 0}, 10}, {{3, 0}, 1000}, {{1, 0}, 5}};
    EXPECT_TRUE(plan_easy_pass({2, 0}, running_of({{{2, 0}, 100}}), queue, 0, 1).started.empty());
    EXPECT_EQ(plan_easy_pass({2, 0}, running_of({{{2, 0}, 100}}), queue, 0, 2).started, (std::vector<std::size_t>{2}));
}

TEST(EasyBackfill, JobsStartedInThePassCountForTheShadowTime) {
    // 4 free cores: job 0 (2 cores, limit 30) starts; the head (3 cores) then waits for it, not for
    // the running job that ends at 500.
    std::vector<Candidate> queue{{{2, 0}, 30}, {{3, 0}, 10}};
    PassPlan plan = plan_easy_pass({4, 0}, running_of({{{4, 0}, 500}}), queue, 0, 100);
    EXPECT_EQ(plan.started, (std::vector<std::size_t>{0}));
    ASSERT_TRUE(plan.reservation);
    EXPECT_EQ(plan.reservation->shadow_time, 30);
}

TEST(EasyBackfill, GpusAndCoresMustBothFit) {
    std::vector<Candidate> queue{{{1, 2}, 10}, {{1, 0}, 1000}, {{0, 1}, 1000}};
    // 2 cores and 1 GPU free; a job holding 1 GPU ends at 40: head's shadow 40, spare 1 core 0 GPU.
    PassPlan plan = plan_easy_pass({2, 1}, running_of({{{0, 1}, 40}}), queue, 0, 100);
    EXPECT_EQ(plan.started, (std::vector<std::size_t>{1}));
    ASSERT_TRUE(plan.reservation);
    EXPECT_EQ(plan.reservation->shadow_time, 40);
    EXPECT_EQ(plan.reservation->spare, (Need{0, 0}));
}

TEST(EarliestFit, ReleasesJobsEndingAtTheSameInstantTogether) {
    auto fit = earliest_fit({0, 0}, {{{1, 0}, 20}, {{1, 0}, 10}, {{1, 0}, 10}}, Need{1, 0}, 0);
    ASSERT_TRUE(fit);
    EXPECT_EQ(fit->first, 10);
    EXPECT_EQ(fit->second, (Need{1, 0}));  // both jobs ending at 10 free their core
    EXPECT_FALSE(earliest_fit({0, 0}, {{{1, 0}, 20}}, Need{2, 0}, 0));
    EXPECT_EQ(earliest_fit({3, 0}, {}, Need{2, 0}, 7)->first, 7);
}
