// When a pass may skip its walk over the pending jobs (walk_memo.h): only when nothing it cannot
// see job by job changed since the last walk, and never for long.
#include "fairshare/walk_memo.h"

#include <gtest/gtest.h>

#include <vector>

namespace fairway::fairshare {
namespace {

constexpr std::chrono::seconds kLongestSkip{300};

LastWalk settled_walk() {
    return LastWalk{WalkStamp{.job_update = 100, .seen_at = 105, .job_count = 10, .fingerprint = 42}, 7, true};
}

bool repeats(const std::optional<LastWalk>& last, const WalkStamp& seen, std::int64_t now = 110,
             std::uint64_t association_inputs = 7, bool same_fair_share = true) {
    return walk_would_repeat(last, seen, association_inputs, same_fair_share, now, kLongestSkip);
}

TEST(WalkMemo, RepeatsWhenNothingChanged) {
    EXPECT_TRUE(jobs_unchanged(settled_walk(), settled_walk().stamp, 110, kLongestSkip));
    EXPECT_TRUE(repeats(settled_walk(), settled_walk().stamp));
}

TEST(WalkMemo, WalksWithoutAnEarlierSettledWalk) {
    EXPECT_FALSE(repeats(std::nullopt, settled_walk().stamp));
    EXPECT_FALSE(jobs_unchanged(std::nullopt, settled_walk().stamp, 110, kLongestSkip));
    LastWalk growing = settled_walk();
    growing.ages_settled = false;
    EXPECT_FALSE(repeats(growing, growing.stamp));
    EXPECT_FALSE(jobs_unchanged(growing, growing.stamp, 110, kLongestSkip));
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
