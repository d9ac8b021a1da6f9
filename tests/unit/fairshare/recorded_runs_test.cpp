#include "fairshare/recorded_runs.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

RecordedRun run(std::uint32_t job, std::int64_t submit, std::int64_t start, std::optional<std::int64_t> end = {}) {
    return {{job, submit}, at(start), end ? std::optional<TimePoint>(at(*end)) : std::nullopt, std::nullopt};
}

constexpr std::int64_t kNow = 2000;
const TimePoint kSince = at(0);

TEST(RecordedRuns, ARecordWithAnEndIsChargedToIt) {
    const auto span = span_to_charge(run(7, 100, 1000, 1008), nullptr, kSince, at(kNow), at(kNow), at(0));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->from, at(1000));
    EXPECT_EQ(span->to, at(1008));
}

TEST(RecordedRuns, NothingIsChargedBeforeTheHorizonOrForARunThatNeverStarted) {
    const auto span = span_to_charge(run(7, 100, 1000, 1008), nullptr, at(1005), at(kNow), at(kNow), at(0));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->from, at(1005));
    EXPECT_EQ(span->to, at(1008));
    EXPECT_FALSE(span_to_charge({{7, 100}, std::nullopt, std::nullopt, std::nullopt}, nullptr, kSince, at(kNow),
                                at(kNow), at(0)));
    EXPECT_FALSE(span_to_charge(run(7, 100, kNow), nullptr, kSince, at(kNow), at(kNow), at(0)));
    const auto ended_before_horizon =
        span_to_charge(run(7, 100, 1000, 1008), nullptr, at(1500), at(kNow), at(kNow), at(0));
    ASSERT_TRUE(ended_before_horizon);
    EXPECT_TRUE(ended_before_horizon->empty());
}

// The record's end is still queued for slurmdbd, but slurmctld holds the job and knows it ended:
// a 5-second job is charged 5 seconds, not up to the rebuild.
TEST(RecordedRuns, AnOpenRecordOfAJobSlurmctldSawEndIsChargedToItsRealEnd) {
    const LiveRun ended{at(1005)};
    const auto span = span_to_charge(run(7, 100, 1000), &ended, kSince, at(900), at(kNow), at(0));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->from, at(1000));
    EXPECT_EQ(span->to, at(1005));
}

// slurmctld's record of a job it holds, as the plugin and fairway-report read it.
TEST(RecordedRuns, SlurmctldsRecordOfAJobRunsOnOrEndedAtItsEndTime) {
    EXPECT_FALSE(held_run(true, 1000, 0).ended);
    EXPECT_FALSE(held_run(true, 1000, 3000).ended);  // a running job's end time is its limit's
    EXPECT_EQ(held_run(false, 1000, 1005).ended, at(1005));
    EXPECT_EQ(held_run(false, 1000, 0).ended, at(1000));  // cancelled with no end time set
    EXPECT_FALSE(held_run(false, 0, 0).ended);            // never started
}

TEST(RecordedRuns, AnOpenRecordOfAJobSlurmctldRunsIsChargedToNow) {
    const LiveRun running{};
    const auto span = span_to_charge(run(7, 100, 1000), &running, kSince, at(900), at(kNow), at(0));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->to, at(kNow));
}

TEST(RecordedRuns, AnOpenRecordNobodyHoldsIsChargedOnlyAsFarAsAccountingIsComplete) {
    // Something was queued for slurmdbd since 1500: an end before 1500 would be in the record.
    const auto span = span_to_charge(run(7, 100, 1000), nullptr, kSince, at(1500), at(kNow), at(0));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->to, at(1500));
    EXPECT_TRUE(rebuild_is_provisional(at(1500), at(kNow)));
    // Started after the queue was last empty: nothing yet.
    const auto later = span_to_charge(run(8, 100, 1600), nullptr, kSince, at(1500), at(kNow), at(0));
    ASSERT_TRUE(later);
    EXPECT_TRUE(later->empty());
}

TEST(RecordedRuns, WithNothingQueuedAnOpenRecordIsFinalUpToNow) {
    const auto span = span_to_charge(run(7, 100, 1000), nullptr, kSince, at(kNow), at(kNow), at(0));
    ASSERT_TRUE(span);
    EXPECT_EQ(span->to, at(kNow));
    EXPECT_FALSE(rebuild_is_provisional(at(kNow), at(kNow)));
}

// slurmctld lost its job state and was restarted at 1200: a job that started before and that it
// does not hold was aborted when its node registered, however long its record stays open; one
// that started after is bounded by the queue alone; one slurmctld holds is not bounded by it.
TEST(RecordedRuns, AnOpenRecordSlurmctldForgotIsChargedUpToSlurmctldsStart) {
    const auto forgotten = span_to_charge(run(7, 100, 1000), nullptr, kSince, at(kNow), at(kNow), at(1200));
    ASSERT_TRUE(forgotten);
    EXPECT_EQ(forgotten->from, at(1000));
    EXPECT_EQ(forgotten->to, at(1200));
    const auto queued = span_to_charge(run(7, 100, 1000), nullptr, kSince, at(1100), at(kNow), at(1200));
    ASSERT_TRUE(queued);
    EXPECT_EQ(queued->to, at(1100)) << "what is still queued bounds it first";
    const auto started_after = span_to_charge(run(8, 300, 1300), nullptr, kSince, at(1500), at(kNow), at(1200));
    ASSERT_TRUE(started_after);
    EXPECT_EQ(started_after->to, at(1500));
    const LiveRun running{std::nullopt};
    const auto held = span_to_charge(run(7, 100, 1000), &running, kSince, at(kNow), at(kNow), at(1200));
    ASSERT_TRUE(held);
    EXPECT_EQ(held->to, at(kNow));
}

// A runaway record (slurmctld forgot the job at a restart at 1200) is charged no further than its
// time limit lets it run, however often slurmctld restarts later (here at 1900); the limit bounds
// no held run, and a run without a limit is bounded by slurmctld's start alone.
TEST(RecordedRuns, AnOpenRecordIsNeverChargedPastItsTimeLimit) {
    RecordedRun limited = run(7, 100, 1000);
    limited.longest = longest_run(Seconds{120}, Seconds{60}, Seconds{30});
    const auto after_later_restart = span_to_charge(limited, nullptr, kSince, at(kNow), at(kNow), at(1900));
    ASSERT_TRUE(after_later_restart);
    EXPECT_EQ(after_later_restart->to, at(1210));
    const auto first_restart = span_to_charge(limited, nullptr, kSince, at(kNow), at(kNow), at(1200));
    ASSERT_TRUE(first_restart);
    EXPECT_EQ(first_restart->to, at(1200)) << "the restart that forgot it comes first";
    const LiveRun running{std::nullopt};
    const auto held = span_to_charge(limited, &running, kSince, at(kNow), at(kNow), at(1900));
    ASSERT_TRUE(held);
    EXPECT_EQ(held->to, at(kNow)) << "slurmctld holds it: it runs, whatever the record says";
    const auto unlimited = span_to_charge(run(7, 100, 1000), nullptr, kSince, at(kNow), at(kNow), at(1900));
    ASSERT_TRUE(unlimited);
    EXPECT_EQ(unlimited->to, at(1900));
}

// slurmctld forgot job 7 at a restart at 1200 and restarts again at 1900: the run is remembered
// as forgotten at 1200, the first time it is seen, and charged up to there however often
// slurmctld starts after, with no time limit to bound it.
TEST(RecordedRuns, ARunIsChargedUpToTheFirstSlurmctldStartSeenWithoutIt) {
    ForgottenRuns forgotten;
    const RecordedRun open = run(7, 100, 1000);
    EXPECT_TRUE(forgotten.note(open, nullptr, at(1200)));
    EXPECT_FALSE(forgotten.note(open, nullptr, at(1900))) << "remembered once, at the first start";
    EXPECT_EQ(forgotten.forgotten_at({7, 100}), at(1200));
    const auto later = span_to_charge(open, nullptr, kSince, at(kNow), at(kNow), at(1900), forgotten);
    ASSERT_TRUE(later);
    EXPECT_EQ(later->to, at(1200));
    EXPECT_EQ(span_to_charge(open, nullptr, kSince, at(kNow), at(kNow), at(1900))->to, at(1900))
        << "without the memory, each start charges more";
    const LiveRun running{std::nullopt};
    EXPECT_FALSE(forgotten.note(run(8, 100, 1000), &running, at(1900))) << "slurmctld holds it";
    EXPECT_FALSE(forgotten.note(run(9, 100, 1000, 1100), nullptr, at(1900))) << "accounting has its end";
    EXPECT_FALSE(forgotten.note(run(10, 100, 1950), nullptr, at(1900))) << "it started after slurmctld";
    EXPECT_EQ(forgotten.size(), 1u);
    EXPECT_EQ(span_to_charge(run(7, 500, 1000), nullptr, kSince, at(kNow), at(kNow), at(1900), forgotten)->to, at(1900))
        << "another run of the same id is its own";
}

TEST(RecordedRuns, ForgottenRunsSurviveTheirFileAndLeaveWithTheWindow) {
    ForgottenRuns forgotten;
    forgotten.note(run(7, 100, 1000), nullptr, at(1200));
    forgotten.note(run(3, 900, 1000), nullptr, at(1500));
    const ForgottenRuns read = ForgottenRuns::deserialize(forgotten.serialize());
    EXPECT_EQ(read, forgotten);
    std::string bytes = forgotten.serialize();
    bytes[bytes.size() / 2] ^= 1;
    EXPECT_THROW(ForgottenRuns::deserialize(bytes), InputError);
    EXPECT_THROW(ForgottenRuns::deserialize(bytes.substr(0, 10)), InputError);
    forgotten.drop_before(at(1300));
    EXPECT_FALSE(forgotten.forgotten_at({7, 100}));
    EXPECT_EQ(forgotten.forgotten_at({3, 900}), at(1500));
}

TEST(RecordedRuns, TheLongestRunIsTheTimeLimitOverTimeLimitAndKillWait) {
    EXPECT_EQ(longest_run(Seconds{3600}, Seconds{0}, Seconds{30}), Seconds{3630});
    EXPECT_EQ(longest_run(Seconds{3600}, Seconds{300}, Seconds{30}), Seconds{3930});
    EXPECT_FALSE(longest_run(std::nullopt, Seconds{0}, Seconds{30})) << "no time limit";
    EXPECT_FALSE(longest_run(Seconds{3600}, std::nullopt, Seconds{30})) << "OverTimeLimit=UNLIMITED";
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
