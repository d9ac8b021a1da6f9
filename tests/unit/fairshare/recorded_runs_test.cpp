#include "fairshare/recorded_runs.h"

#include <gtest/gtest.h>

namespace fairway::fairshare {
namespace {

TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

RecordedRun run(std::uint32_t job, std::int64_t submit, std::int64_t start, std::optional<std::int64_t> end = {}) {
    return {{job, submit}, at(start), end ? std::optional<TimePoint>(at(*end)) : std::nullopt};
}

constexpr std::int64_t kNow = 2000;
const TimePoint kSince = at(0);

TEST(RecordedRuns, ARecordWithAnEndIsChargedToIt) {
    const auto span = span_to_charge(run(7, 100, 1000, 1008), nullptr, kSince, at(kNow), at(kNow));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->from, at(1000));
    EXPECT_EQ(span->to, at(1008));
}

TEST(RecordedRuns, NothingIsChargedBeforeTheHorizonOrForARunThatNeverStarted) {
    const auto span = span_to_charge(run(7, 100, 1000, 1008), nullptr, at(1005), at(kNow), at(kNow));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->from, at(1005));
    EXPECT_EQ(span->to, at(1008));
    EXPECT_FALSE(span_to_charge({{7, 100}, std::nullopt, std::nullopt}, nullptr, kSince, at(kNow), at(kNow)));
    EXPECT_FALSE(span_to_charge(run(7, 100, kNow), nullptr, kSince, at(kNow), at(kNow)));
    const auto ended_before_horizon = span_to_charge(run(7, 100, 1000, 1008), nullptr, at(1500), at(kNow), at(kNow));
    ASSERT_TRUE(ended_before_horizon);
    EXPECT_TRUE(ended_before_horizon->empty());
}

// The record's end is still queued for slurmdbd, but slurmctld holds the job and knows it ended:
// a 5-second job is charged 5 seconds, not up to the rebuild.
TEST(RecordedRuns, AnOpenRecordOfAJobSlurmctldSawEndIsChargedToItsRealEnd) {
    const LiveRun ended{at(1005)};
    const auto span = span_to_charge(run(7, 100, 1000), &ended, kSince, at(900), at(kNow));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->from, at(1000));
    EXPECT_EQ(span->to, at(1005));
}

TEST(RecordedRuns, AnOpenRecordOfAJobSlurmctldRunsIsChargedToNow) {
    const LiveRun running{};
    const auto span = span_to_charge(run(7, 100, 1000), &running, kSince, at(900), at(kNow));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->to, at(kNow));
}

TEST(RecordedRuns, AnOpenRecordNobodyHoldsIsChargedOnlyAsFarAsAccountingIsComplete) {
    // Something was queued for slurmdbd since 1500: an end before 1500 would be in the record.
    const auto span = span_to_charge(run(7, 100, 1000), nullptr, kSince, at(1500), at(kNow));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->to, at(1500));
    EXPECT_TRUE(rebuild_is_provisional(at(1500), at(kNow)));
    // Started after the queue was last empty: nothing yet.
    const auto later = span_to_charge(run(8, 100, 1600), nullptr, kSince, at(1500), at(kNow));
    ASSERT_TRUE(later);
    EXPECT_TRUE(later->empty());
}

TEST(RecordedRuns, WithNothingQueuedAnOpenRecordIsFinalUpToNow) {
    const auto span = span_to_charge(run(7, 100, 1000), nullptr, kSince, at(kNow), at(kNow));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->to, at(kNow));
    EXPECT_FALSE(rebuild_is_provisional(at(kNow), at(kNow)));
}

// slurmdbd came back, but the job's start is still queued: the rebuild did not see it, so the
// passes charge it from its start; a run the rebuild charged only from the rebuild on.
TEST(RecordedRuns, RunsTheRebuildDidNotSeeAreChargedFromTheirStart) {
    RebuildCoverage coverage(at(500), at(kNow));
    coverage.add({7, 100});
    EXPECT_EQ(coverage.charge_from({7, 100}, at(1000)), at(kNow));
    EXPECT_EQ(coverage.charge_from({7, 900}, at(1000)), at(1000));  // the id's other run
    EXPECT_EQ(coverage.charge_from({8, 100}, at(1000)), at(1000));
    EXPECT_EQ(coverage.charge_from({8, 100}, at(400)), at(500));  // not before the horizon
}

}  // namespace
}  // namespace fairway::fairshare
