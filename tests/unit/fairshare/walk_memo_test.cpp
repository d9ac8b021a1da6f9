// When a pass may skip its walk over the pending jobs, or narrow it to the jobs due by age
// (walk_memo.h): only when nothing it cannot see job by job changed since the last walk, and never
// for long; and the mark a walk leaves in last_job_update.
#include "fairshare/walk_memo.h"

#include <gtest/gtest.h>

#include <vector>

namespace fairway::fairshare {
namespace {

constexpr std::chrono::seconds kLongestSkip{300};

LastWalk settled_walk() {
    return LastWalk{WalkStamp{.job_update = 100, .seen_at = 105, .job_count = 10, .fingerprint = 42}, 7, true, 105};
}

WalkPlan plan(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now = 110,
              std::uint64_t association_inputs = 7, bool same_fair_share = true) {
    return plan_walk(last, seen, association_inputs, same_fair_share, now, kLongestSkip);
}

bool repeats(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now = 110,
             std::uint64_t association_inputs = 7, bool same_fair_share = true) {
    return plan(last, seen, now, association_inputs, same_fair_share) == WalkPlan::none;
}

TEST(WalkMemo, RepeatsWhenNothingChanged) {
    EXPECT_TRUE(jobs_unchanged(settled_walk(), settled_walk().stamp, 110, kLongestSkip));
    EXPECT_TRUE(repeats(settled_walk(), settled_walk().stamp));
}

TEST(WalkMemo, WalksAllJobsWithoutAnEarlierWalk) {
    EXPECT_EQ(plan(std::nullopt, settled_walk().stamp), WalkPlan::all_jobs);
    EXPECT_FALSE(jobs_unchanged(std::nullopt, settled_walk().stamp, 110, kLongestSkip));
}

// Ages that still grow change no job record: the jobs are unchanged (their charges can come from
// the last walk's list), and the walk is narrowed to the jobs due, not skipped.
TEST(WalkMemo, GrowingAgesNarrowTheWalkToTheJobsDue) {
    LastWalk growing = settled_walk();
    growing.ages_settled = false;
    EXPECT_TRUE(jobs_unchanged(growing, growing.stamp, 110, kLongestSkip));
    EXPECT_EQ(plan(growing, growing.stamp), WalkPlan::due_jobs);
    EXPECT_EQ(plan(growing, growing.stamp, 110, 8), WalkPlan::all_jobs);
    EXPECT_EQ(plan(growing, growing.stamp, 110, 7, false), WalkPlan::all_jobs);
}

// Walks over the jobs due are remembered too, but only a walk over all jobs resets the clock that
// bounds how long a missed change can stay unseen.
TEST(WalkMemo, EveryJobIsVisitedWithinTheLongestSkipOfTheLastFullWalk) {
    LastWalk narrowed = settled_walk();
    narrowed.ages_settled = false;
    narrowed.stamp.seen_at = 350;
    narrowed.stamp.job_update = 349;
    narrowed.full_walk_at = 105;
    EXPECT_EQ(plan(narrowed, narrowed.stamp, 360), WalkPlan::due_jobs);
    EXPECT_EQ(plan(narrowed, narrowed.stamp, 105 + 300), WalkPlan::all_jobs);
    EXPECT_FALSE(jobs_unchanged(narrowed, narrowed.stamp, 105 + 300, kLongestSkip));
}

TEST(WalkMemo, JobSideChangesAreSeenBeforeCharging) {
    const LastWalk last = settled_walk();
    WalkStamp seen = last.stamp;
    seen.job_update = 107;
    EXPECT_FALSE(jobs_unchanged(last, seen, 110, kLongestSkip));
    EXPECT_FALSE(repeats(last, seen));
    seen = last.stamp;
    seen.job_count = 11;
    EXPECT_FALSE(jobs_unchanged(last, seen, 110, kLongestSkip));
    seen = last.stamp;
    seen.fingerprint = 43;
    EXPECT_FALSE(jobs_unchanged(last, seen, 110, kLongestSkip));
}

TEST(WalkMemo, AssociationAndFairShareChangesPreventTheRepeat) {
    const LastWalk last = settled_walk();
    EXPECT_TRUE(jobs_unchanged(last, last.stamp, 110, kLongestSkip));
    EXPECT_FALSE(repeats(last, last.stamp, 110, 8));
    EXPECT_FALSE(repeats(last, last.stamp, 110, 7, false));
}

// A change stamped in the very second the walk read the stamp may hide a later one with the
// same stamp.
TEST(WalkMemo, WalksWhenTheStampWasOfTheSecondItWasReadIn) {
    LastWalk last = settled_walk();
    last.stamp.job_update = last.stamp.seen_at;
    EXPECT_FALSE(repeats(last, last.stamp));
}

TEST(WalkMemo, WalksWhenTheClockSteppedBackOrTheLastWalkIsOld) {
    const LastWalk last = settled_walk();
    EXPECT_FALSE(repeats(last, last.stamp, 104));
    EXPECT_TRUE(repeats(last, last.stamp, 105 + 299));
    EXPECT_FALSE(repeats(last, last.stamp, 105 + 300));
}

// A walk that changed priorities marks the second before the one it ended in, which no later
// change can be stamped with; unless that would hide a change from the schedulers.
TEST(WalkMemo, MarksTheSecondBeforeTheWalkEndedWhenThatIsStillNews) {
    EXPECT_EQ(job_update_mark(100, 200, false), 199);
    EXPECT_EQ(job_update_mark(199, 200, false), 199);
    // A change already stamped in this second: going back would hide it.
    EXPECT_EQ(job_update_mark(200, 200, false), 200);
    EXPECT_EQ(job_update_mark(205, 200, false), 200);
    // Backfill may have ended a cycle in this second: only this second wakes it.
    EXPECT_EQ(job_update_mark(100, 200, true), 200);
}

// The next pass can tell the walk's own mark from any later change only when it is not the
// second the walk ended (and read the stamp) in.
TEST(WalkMemo, TheWalksOwnMarkLetsTheNextPassNarrowItsWalk) {
    LastWalk last = settled_walk();
    last.ages_settled = false;
    last.stamp.seen_at = 200;
    last.stamp.job_update = job_update_mark(100, 200, false);
    EXPECT_EQ(plan(last, last.stamp, 260), WalkPlan::due_jobs);
    last.stamp.job_update = job_update_mark(100, 200, true);
    EXPECT_EQ(plan(last, last.stamp, 260), WalkPlan::all_jobs);
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
