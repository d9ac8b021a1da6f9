// When a pass may skip its walk over the pending jobs, or narrow it to the jobs due by age
// (walk_memo.h): only when no job started and nothing all jobs read changed since the last walk,
// and never for long.
#include "fairshare/walk_memo.h"

#include <gtest/gtest.h>

#include <vector>

namespace fairway::fairshare {
namespace {

constexpr std::chrono::seconds kLongestSkip{300};
constexpr StartCounts kStarts{.started = 50, .submitted = 900, .schedule_cycles = 4000};

LastWalk last_walk() { return LastWalk{WalkStamp{.seen_at = 105, .starts = kStarts, .fingerprint = 42}, 7, 105}; }

WalkPlan plan(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now = 110,
              std::uint64_t association_inputs = 7, bool same_fair_share = true, bool ages_settled = true) {
    return plan_walk(last, seen, association_inputs, same_fair_share, ages_settled, now, kLongestSkip);
}

bool repeats(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now = 110,
             std::uint64_t association_inputs = 7, bool same_fair_share = true) {
    return plan(last, seen, now, association_inputs, same_fair_share) == WalkPlan::none;
}

WalkStamp seen_later(StartCounts starts = kStarts) {
    return WalkStamp{.seen_at = 110, .starts = starts, .fingerprint = 42};
}

TEST(WalkMemo, RepeatsWhenNothingChanged) {
    EXPECT_TRUE(no_job_started(last_walk(), seen_later(), 110, kLongestSkip));
    EXPECT_TRUE(repeats(last_walk(), seen_later()));
}

TEST(WalkMemo, WalksAllJobsWithoutAnEarlierWalk) {
    EXPECT_EQ(plan(std::nullopt, seen_later()), WalkPlan::all_jobs);
    EXPECT_FALSE(no_job_started(std::nullopt, seen_later(), 110, kLongestSkip));
}

// Ages that still grow change no job record: the jobs that may accrue usage are the last walk's,
// and the walk is narrowed to the jobs due, not skipped.
TEST(WalkMemo, GrowingAgesNarrowTheWalkToTheJobsDue) {
    EXPECT_EQ(plan(last_walk(), seen_later(), 110, 7, true, false), WalkPlan::due_jobs);
    EXPECT_EQ(plan(last_walk(), seen_later(), 110, 8, true, false), WalkPlan::all_jobs);
    EXPECT_EQ(plan(last_walk(), seen_later(), 110, 7, false, false), WalkPlan::all_jobs);
}

// Walks over the jobs due are remembered too, but only a walk over all jobs resets the clock that
// bounds how long a missed change can stay unseen.
TEST(WalkMemo, EveryJobIsVisitedWithinTheLongestSkipOfTheLastFullWalk) {
    LastWalk narrowed = last_walk();
    narrowed.stamp.seen_at = 350;
    narrowed.full_walk_at = 105;
    EXPECT_EQ(plan(narrowed, seen_later(), 360, 7, true, false), WalkPlan::due_jobs);
    EXPECT_EQ(plan(narrowed, seen_later(), 105 + 300, 7, true, false), WalkPlan::all_jobs);
    EXPECT_FALSE(no_job_started(narrowed, seen_later(), 105 + 300, kLongestSkip));
}

// A start makes a job accrue usage that the last walk's list does not hold.
TEST(WalkMemo, AStartIsSeenBeforeCharging) {
    StartCounts started = kStarts;
    ++started.started;
    EXPECT_FALSE(no_job_started(last_walk(), seen_later(started), 110, kLongestSkip));
    EXPECT_EQ(plan(last_walk(), seen_later(started)), WalkPlan::all_jobs);
}

// Submissions and ends move no start count; the jobs submitted were filed when slurmctld asked
// for their priority.
TEST(WalkMemo, SubmissionsAndSchedulingCyclesAloneChangeNothing) {
    StartCounts busier = kStarts;
    busier.submitted += 200;
    busier.schedule_cycles += 3;
    EXPECT_TRUE(no_job_started(last_walk(), seen_later(busier), 110, kLongestSkip));
}

// slurmctld resets its statistics at midnight and on `sdiag --reset`: a start count back at the
// same number is then told apart by the other counts, which fell.
TEST(WalkMemo, AResetOfSlurmctldsStatisticsIsNotTakenForNoStart) {
    StartCounts reset{.started = kStarts.started, .submitted = 3, .schedule_cycles = 20};
    EXPECT_FALSE(no_job_started(last_walk(), seen_later(reset), 110, kLongestSkip));
    reset = StartCounts{.started = kStarts.started, .submitted = 950, .schedule_cycles = 20};
    EXPECT_FALSE(no_job_started(last_walk(), seen_later(reset), 110, kLongestSkip));
}

// Without slurmctld's statistics no start can be ruled out.
TEST(WalkMemo, UnknownStartsMeanEveryJobIsLookedAt) {
    WalkStamp seen = seen_later();
    seen.starts.reset();
    EXPECT_FALSE(no_job_started(last_walk(), seen, 110, kLongestSkip));
    LastWalk last = last_walk();
    last.stamp.starts.reset();
    EXPECT_FALSE(no_job_started(last, seen_later(), 110, kLongestSkip));
}

TEST(WalkMemo, JobSideInputsAreSeenBeforeCharging) {
    WalkStamp seen = seen_later();
    seen.fingerprint = 43;
    EXPECT_FALSE(no_job_started(last_walk(), seen, 110, kLongestSkip));
    EXPECT_EQ(plan(last_walk(), seen), WalkPlan::all_jobs);
}

TEST(WalkMemo, AssociationAndFairShareChangesPreventTheRepeat) {
    EXPECT_TRUE(no_job_started(last_walk(), seen_later(), 110, kLongestSkip));
    EXPECT_FALSE(repeats(last_walk(), seen_later(), 110, 8));
    EXPECT_FALSE(repeats(last_walk(), seen_later(), 110, 7, false));
}

TEST(WalkMemo, WalksWhenTheClockSteppedBackOrTheLastWalkIsOld) {
    EXPECT_FALSE(repeats(last_walk(), seen_later(), 104));
    EXPECT_TRUE(repeats(last_walk(), seen_later(), 105 + 299));
    EXPECT_FALSE(repeats(last_walk(), seen_later(), 105 + 300));
}

TEST(Fingerprint, SeesEveryValueAndItsOrder) {
    const auto of = [](std::uint32_t a, double b, const void* c) { return Fingerprint().add(a).add(b).add(c).value(); };
    int x = 0, y = 0;
    EXPECT_EQ(of(1, 0.5, &x), of(1, 0.5, &x));
    EXPECT_NE(of(1, 0.5, &x), of(2, 0.5, &x));
    EXPECT_NE(of(1, 0.5, &x), of(1, 0.25, &x));
    EXPECT_NE(of(1, 0.5, &x), of(1, 0.5, &y));
    EXPECT_NE(Fingerprint().add(1).add(2).value(), Fingerprint().add(2).add(1).value());
    EXPECT_NE(Fingerprint().add(0).value(), Fingerprint().value());
}

// Each step is a bijection: whichever single value of a long sequence changes, the digest does.
TEST(Fingerprint, AnySingleChangedValueChangesTheDigest) {
    std::vector<std::uint64_t> values(200);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = i * 7919;
    const auto digest = [&] {
        Fingerprint fingerprint;
        for (std::uint64_t v : values) fingerprint.add(v);
        return fingerprint.value();
    };
    const std::uint64_t original = digest();
    for (std::size_t i = 0; i < values.size(); ++i) {
        for (std::uint64_t flip : {1ULL, 1ULL << 31, 1ULL << 63}) {
            values[i] ^= flip;
            EXPECT_NE(digest(), original) << "value " << i << " flipped by " << flip;
            values[i] ^= flip;
        }
    }
}

}  // namespace
}  // namespace fairway::fairshare
