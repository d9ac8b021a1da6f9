#include "quota/leader_lease.h"

#include <gtest/gtest.h>

using namespace fairway::quota;

namespace {

const LeaseTiming kTiming{15, 10, 5};
const long long kT = 1'800'000'000'000LL;  // a wall-clock instant, Unix milliseconds
const long long kSecond = 1000;

LeaseRecord held_by(const std::string& holder, long long renewed, long duration = 15) {
    return {holder, renewed, duration};
}

TEST(DecideLease, CreatesWhenTheObjectIsAbsent) { EXPECT_EQ(decide_lease(std::nullopt, "a", kT), LeaseAction::create); }

TEST(DecideLease, RenewsItsOwnLeaseEvenWhenExpired) {
    EXPECT_EQ(decide_lease(held_by("a", kT), "a", kT + kSecond), LeaseAction::renew);
    // Nobody took it meanwhile (their update is conditional too), so renewing stays exclusive.
    EXPECT_EQ(decide_lease(held_by("a", kT), "a", kT + 100 * kSecond), LeaseAction::renew);
}

TEST(DecideLease, TakesAReleasedLeaseAtOnce) {
    EXPECT_EQ(decide_lease(held_by("", kT), "b", kT), LeaseAction::take_over);
}

TEST(DecideLease, StandsByWhileAnotherHolderIsLive) {
    EXPECT_EQ(decide_lease(held_by("a", kT), "b", kT), LeaseAction::standby);
    EXPECT_EQ(decide_lease(held_by("a", kT), "b", kT + 14 * kSecond), LeaseAction::standby);
}

TEST(DecideLease, ExpiryIsExclusiveToTheMillisecond) {
    EXPECT_EQ(lease_expiry(held_by("a", kT)), kT + 15 * kSecond);
    EXPECT_EQ(decide_lease(held_by("a", kT), "b", kT + 15 * kSecond), LeaseAction::standby);
    EXPECT_EQ(decide_lease(held_by("a", kT), "b", kT + 15 * kSecond + 1), LeaseAction::take_over);
}

TEST(DecideLease, UsesTheHoldersDurationNotOurs) {
    EXPECT_EQ(decide_lease(held_by("a", kT, 60), "b", kT + 30 * kSecond), LeaseAction::standby);
    EXPECT_EQ(decide_lease(held_by("a", kT, 60), "b", kT + 61 * kSecond), LeaseAction::take_over);
}

TEST(DecideLease, ARenewalTimeInOurFutureIsLive) {
    // The holder's clock runs ahead of ours: we wait longer, never shorter.
    EXPECT_EQ(decide_lease(held_by("a", kT + 5 * kSecond), "b", kT + 19 * kSecond), LeaseAction::standby);
}

TEST(WriteAllowed, NeverWithoutALease) { EXPECT_FALSE(write_allowed(std::nullopt, 100.0, kTiming)); }

TEST(WriteAllowed, OnlyWritesThatEndBeforeTheRenewDeadline) {
    const double sent = 100.0;
    EXPECT_TRUE(write_allowed(sent, sent, kTiming));
    EXPECT_TRUE(write_allowed(sent, sent + 5.0, kTiming));     // ends exactly at the deadline
    EXPECT_FALSE(write_allowed(sent, sent + 5.001, kTiming));  // could land after it
    EXPECT_FALSE(write_allowed(sent, sent + 10.0, kTiming));
}

TEST(WriteAllowed, RefusesWhenTheClockReadsBeforeTheRenewal) { EXPECT_FALSE(write_allowed(100.0, 99.0, kTiming)); }

// A fake clock runs both bridges through the holder's crash right after a renewal: the
// follower's first write comes after the holder's last possible write ended, for every skew
// below the margin lease_duration - renew_deadline (5 s here).
TEST(LeaseSafety, FollowerWritesOnlyAfterTheHoldersLastWriteEnded) {
    for (long long skew = -4900; skew <= 4900; skew += 100) {  // follower's wall clock minus holder's, ms
        const long long renewed = kT;                          // holder's renewTime = its renewal instant
        double last_write_end = 0;
        for (double t = 0; write_allowed(0.0, t, kTiming); t += 0.001) last_write_end = t + kTiming.write_timeout;
        long long follower = renewed;  // in the holder's time
        while (decide_lease(held_by("a", renewed), "b", follower + skew) == LeaseAction::standby) follower += 1;
        EXPECT_GT(static_cast<double>(follower - renewed) / 1000.0, last_write_end) << "skew " << skew << " ms";
    }
}

TEST(LeaseTimingProblem, RequiresRoomForAWriteAndAMarginForSkew) {
    EXPECT_EQ(lease_timing_problem({15, 10, 5}, 2), "");
    EXPECT_EQ(lease_timing_problem({4, 3, 1}, 1), "");
    EXPECT_NE(lease_timing_problem({15, 7, 5}, 2), "");   // a renewal could come too late for a write
    EXPECT_NE(lease_timing_problem({10, 10, 5}, 2), "");  // no margin for skew
}

}  // namespace

namespace {

TEST(LeaseTime, KeepsTheFractionToTheMillisecond) {
    EXPECT_EQ(parse_lease_time("2027-01-15T08:00:00.123456Z"), 1'800'000'000'000LL + 123);
    EXPECT_EQ(parse_lease_time("2027-01-15T08:00:00Z"), 1'800'000'000'000LL);
    EXPECT_EQ(parse_lease_time("2027-01-15T08:00:00.9Z"), 1'800'000'000'900LL);
    EXPECT_EQ(parse_lease_time(""), std::nullopt);
    EXPECT_EQ(parse_lease_time("yesterday"), std::nullopt);
}

TEST(LeaseTime, FormatsAMicroTimeThatReadsBack) {
    EXPECT_EQ(format_lease_time(1'800'000'000'007LL), "2027-01-15T08:00:00.007000Z");
    for (long long ms : {0LL, 1'800'000'000'000LL, 1'800'000'000'999LL})
        EXPECT_EQ(parse_lease_time(format_lease_time(ms)), ms);
}

}  // namespace
