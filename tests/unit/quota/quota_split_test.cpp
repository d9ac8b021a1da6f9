#include "quota/quota_split.h"

#include <gtest/gtest.h>

using namespace fairway::quota;

namespace {

// ---- split_targets: table-driven

struct TargetCase {
    const char* name;
    long quota;
    SideReading slurm, kube;  // only used/pending matter
    long want_s, want_k;
};

class SplitTargets : public ::testing::TestWithParam<TargetCase> {};

TEST_P(SplitTargets, SplitsUseThenDemandThenIdle) {
    const auto& c = GetParam();
    auto t = split_targets(c.quota, {c.slurm, c.kube});
    EXPECT_EQ(t[0], c.want_s) << c.name;
    EXPECT_EQ(t[1], c.want_k) << c.name;
    if (c.slurm.used + c.kube.used <= c.quota) {
        EXPECT_LE(t[0] + t[1], c.quota) << c.name;
    }
    EXPECT_GE(t[0], c.slurm.used) << c.name;
    EXPECT_GE(t[1], c.kube.used) << c.name;
}

SideReading use(long used, long pending) { return {0, 0, used, pending}; }

INSTANTIATE_TEST_SUITE_P(
    Table, SplitTargets,
    ::testing::Values(TargetCase{"all idle: even split, odd GPU to slurm", 9, use(0, 0), use(0, 0), 5, 4},
                      TargetCase{"use is kept, idle split", 8, use(2, 0), use(2, 0), 4, 4},
                      TargetCase{"demand on one side takes the free GPUs", 8, use(2, 0), use(0, 6), 2, 6},
                      TargetCase{"demand met, rest idle split", 8, use(0, 2), use(0, 2), 4, 4},
                      TargetCase{"contended demand split by its ratio", 10, use(0, 30), use(0, 10), 7, 3},
                      TargetCase{"full: no headroom", 8, use(5, 9), use(3, 9), 5, 3},
                      TargetCase{"overcommitted: never below use", 8, use(6, 0), use(4, 0), 6, 4},
                      TargetCase{"zero quota", 0, use(0, 3), use(0, 3), 0, 0}));

// ---- the protocol over time, with a fake clock

constexpr SplitTiming kTiming{30, 10};

struct Cluster {  // both schedulers as the bridge sees them
    long limit_s, limit_k, used_s = 0, used_k = 0, pending_s = 0, pending_k = 0;
};

void read_both(QuotaSplit& split, const Cluster& c, Instant now) {
    split.observe(Side::slurm, {now, c.limit_s, c.used_s, c.pending_s});
    split.observe(Side::kubernetes, {now, c.limit_k, c.used_k, c.pending_k});
}

// One reconcile period in which every write lands at once.
SplitDecision cycle(QuotaSplit& split, Cluster& c, Instant now) {
    const bool was_within_quota = c.limit_s + c.limit_k <= split.state().quota;
    read_both(split, c, now);
    auto d = split.decide(now);
    if (d.write[0]) {
        split.wrote(Side::slurm, *d.write[0], now);
        c.limit_s = *d.write[0];
    }
    if (d.write[1]) {
        split.wrote(Side::kubernetes, *d.write[1], now);
        c.limit_k = *d.write[1];
    }
    if (was_within_quota) {
        EXPECT_LE(c.limit_s + c.limit_k, split.state().quota) << "at t=" << now;
    }
    return d;
}

TEST(QuotaSplit, NothingIsRaisedUntilWritesOfAPreviousRunHaveTimedOut) {
    QuotaSplit split(8, kTiming, 100);
    Cluster c{0, 0};
    auto d = cycle(split, c, 100);
    EXPECT_FALSE(d.writes_anything());
    EXPECT_EQ(d.hold, Hold::starting);
    d = cycle(split, c, 110);
    EXPECT_EQ(d.write[0], 4);
    EXPECT_EQ(d.write[1], 4);
}

TEST(QuotaSplit, DemandIsServedWithinTwoPeriodsDecreaseFirst) {
    QuotaSplit split(8, kTiming, 0);
    Cluster c{4, 4};
    cycle(split, c, 10);  // settled: 4 + 4, idle
    c.pending_k = 8;      // Kubernetes wants everything
    auto first = cycle(split, c, 20);
    EXPECT_EQ(first.write[0], 0) << "slurm is decreased first";
    EXPECT_FALSE(first.write[1]) << "no room until the decrease is read back";
    auto second = cycle(split, c, 30);
    EXPECT_EQ(second.write[1], 8);
    EXPECT_EQ(c.limit_k, 8);
}

TEST(QuotaSplit, SteadyStateWritesNothing) {
    QuotaSplit split(8, kTiming, 0);
    Cluster c{4, 4, 1, 2, 0, 0};
    cycle(split, c, 10);
    for (Instant t = 20; t < 100; t += 10) EXPECT_FALSE(cycle(split, c, t).writes_anything()) << t;
}

TEST(QuotaSplit, NeverDecreasesBelowUse) {
    QuotaSplit split(8, kTiming, 0);
    Cluster c{6, 2, 5, 0, 0, 6};
    cycle(split, c, 10);
    auto d = cycle(split, c, 20);
    EXPECT_GE(c.limit_s, 5);
    EXPECT_EQ(c.limit_k, 3);
    (void)d;
}

TEST(QuotaSplit, StaleSideBlocksEveryWrite) {
    QuotaSplit split(8, kTiming, 0);
    split.observe(Side::slurm, {0, 2, 0, 4});
    split.observe(Side::kubernetes, {0, 2, 0, 0});
    auto d = split.decide(40);  // both readings are 40 s old, stale_after is 30
    EXPECT_FALSE(d.writes_anything());
    EXPECT_EQ(d.hold, Hold::stale);
    split.observe(Side::slurm, {41, 2, 0, 4});  // only one side came back
    d = split.decide(41);
    EXPECT_FALSE(d.writes_anything());
    EXPECT_EQ(d.hold, Hold::stale);
}

TEST(QuotaSplit, AWriteNotReadBackKeepsBothValuesPossible) {
    QuotaSplit split(8, kTiming, 0);
    Cluster c{4, 4};
    cycle(split, c, 10);
    split.wrote(Side::slurm, 6, 11);  // e.g. timed out: may or may not land
    split.observe(Side::slurm, {12, 4, 0, 0});
    EXPECT_EQ(split.state().sides[0].highest, 6);
    EXPECT_EQ(split.bound(Side::slurm), 6);
    split.observe(Side::kubernetes, {12, 4, 0, 4});
    auto d = split.decide(12);
    EXPECT_EQ(d.hold, Hold::write_in_doubt);
    EXPECT_FALSE(d.write[1]) << "kubernetes may not take room slurm may still hold";
    split.observe(Side::slurm, {21, 4, 0, 0});  // write_timeout passed: the write is lost
    EXPECT_EQ(split.bound(Side::slurm), 4);
    EXPECT_FALSE(split.state().sides[0].in_doubt);
}

TEST(QuotaSplit, ReadBackConfirmsAWrite) {
    QuotaSplit split(8, kTiming, 0);
    split.observe(Side::slurm, {10, 4, 0, 0});
    split.wrote(Side::slurm, 2, 10);
    split.observe(Side::slurm, {11, 2, 0, 0});
    EXPECT_FALSE(split.state().sides[0].in_doubt);
    EXPECT_EQ(split.bound(Side::slurm), 2);
}

TEST(QuotaSplit, OvercommittedGroupOnlyComesDown) {
    QuotaSplit split(4, kTiming, 0);
    Cluster c{4, 4, 3, 3, 2, 2};  // e.g. the quota was lowered by a reload
    auto d = cycle(split, c, 10);
    EXPECT_EQ(d.write[0], 3);
    EXPECT_EQ(d.write[1], 3);
    c.pending_s = 4;  // more demand changes nothing while use exceeds the quota
    d = cycle(split, c, 20);
    EXPECT_FALSE(d.writes_anything());
}

TEST(QuotaSplit, UseAboveALoweredLimitIsLeftRoomFor) {
    // A job started between the read and the decrease landing: use now exceeds the limit.
    QuotaSplit split(8, kTiming, 0);
    split.observe(Side::slurm, {10, 2, 3, 0});
    split.observe(Side::kubernetes, {10, 4, 0, 9});
    auto d = split.decide(10);
    EXPECT_EQ(d.write[1], 5) << "8 minus slurm's use of 3, not minus its limit of 2";
}

}  // namespace

namespace {
// A ClusterQueue rewritten for its flavors alone carries the limit the bridge last read: that is
// safe only when no decrease of ours may still land (the rewrite would undo it) and none is due.
TEST(QuotaSplit, ALimitIsSettledOnlyWithoutAWriteInFlight) {
    QuotaSplit split(8, kTiming, 0);
    Cluster c{4, 4};
    EXPECT_FALSE(split.settled(Side::kubernetes, 0)) << "nothing read yet";
    cycle(split, c, 10);
    EXPECT_TRUE(split.settled(Side::kubernetes, 10));
    split.wrote(Side::kubernetes, 2, 11);
    split.observe(Side::kubernetes, {12, 4, 0, 0});  // the decrease is not seen yet
    EXPECT_FALSE(split.settled(Side::kubernetes, 12)) << "rewriting 4 now could undo the decrease";
    split.observe(Side::kubernetes, {21, 2, 0, 0});
    EXPECT_FALSE(split.settled(Side::kubernetes, 20)) << "written less than write_timeout ago";
    EXPECT_TRUE(split.settled(Side::kubernetes, 21));
    EXPECT_FALSE(split.settled(Side::kubernetes, 21 + kTiming.stale_after + 1)) << "stale";
}
}  // namespace

namespace {
// Flavor A holds 4 under a quota of 2, flavor B has 2 free: Kubernetes may come to hold 6 although
// its limit is 4 and its use 4, and Slurm's raise must leave room for that.
TEST(QuotaSplit, UseAboveOneFlavorsQuotaIsLeftRoomFor) {
    QuotaSplit split(8, kTiming, 0);
    split.observe(Side::slurm, {20, 0, 0, 8});
    split.observe(Side::kubernetes, {20, 4, 4, 0, 6});
    EXPECT_EQ(split.bound(Side::kubernetes), 6);
    auto d = split.decide(20);
    ASSERT_TRUE(d.write[0]);
    EXPECT_EQ(*d.write[0], 2);
}
}  // namespace
