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
    EXPECT_EQ(t[Side::slurm], c.want_s) << c.name;
    EXPECT_EQ(t[Side::kubernetes], c.want_k) << c.name;
    if (c.slurm.used + c.kube.used <= c.quota) {
        EXPECT_LE(t[Side::slurm] + t[Side::kubernetes], c.quota) << c.name;
    }
    EXPECT_GE(t[Side::slurm], c.slurm.used) << c.name;
    EXPECT_GE(t[Side::kubernetes], c.kube.used) << c.name;
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
    if (d.write[Side::slurm]) {
        split.wrote(Side::slurm, *d.write[Side::slurm], now);
        c.limit_s = *d.write[Side::slurm];
    }
    if (d.write[Side::kubernetes]) {
        split.wrote(Side::kubernetes, *d.write[Side::kubernetes], now);
        c.limit_k = *d.write[Side::kubernetes];
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
    EXPECT_EQ(d.write[Side::slurm], 4);
    EXPECT_EQ(d.write[Side::kubernetes], 4);
}

TEST(QuotaSplit, DemandIsServedWithinTwoPeriodsDecreaseFirst) {
    QuotaSplit split(8, kTiming, 0);
    Cluster c{4, 4};
    cycle(split, c, 10);  // settled: 4 + 4, idle
    c.pending_k = 8;      // Kubernetes wants everything
    auto first = cycle(split, c, 20);
    EXPECT_EQ(first.write[Side::slurm], 0) << "slurm is decreased first";
    EXPECT_FALSE(first.write[Side::kubernetes]) << "no room until the decrease is read back";
    auto second = cycle(split, c, 30);
    EXPECT_EQ(second.write[Side::kubernetes], 8);
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
    EXPECT_EQ(split.state().sides[Side::slurm].highest, 6);
    EXPECT_EQ(split.bound(Side::slurm), 6);
    split.observe(Side::kubernetes, {12, 4, 0, 4});
    auto d = split.decide(12);
    EXPECT_EQ(d.hold, Hold::write_in_doubt);
    EXPECT_FALSE(d.write[Side::kubernetes]) << "kubernetes may not take room slurm may still hold";
    split.observe(Side::slurm, {21, 4, 0, 0});  // write_timeout passed: the write is lost
    EXPECT_EQ(split.bound(Side::slurm), 4);
    EXPECT_FALSE(split.state().sides[Side::slurm].in_doubt);
}

TEST(QuotaSplit, ReadBackConfirmsAWrite) {
    QuotaSplit split(8, kTiming, 0);
    split.observe(Side::slurm, {10, 4, 0, 0});
    split.wrote(Side::slurm, 2, 10);
    split.observe(Side::slurm, {11, 2, 0, 0});
    EXPECT_FALSE(split.state().sides[Side::slurm].in_doubt);
    EXPECT_EQ(split.bound(Side::slurm), 2);
}

TEST(QuotaSplit, OvercommittedGroupOnlyComesDown) {
    QuotaSplit split(4, kTiming, 0);
    Cluster c{4, 4, 3, 3, 2, 2};  // e.g. the quota was lowered by a reload
    auto d = cycle(split, c, 10);
    EXPECT_EQ(d.write[Side::slurm], 3);
    EXPECT_EQ(d.write[Side::kubernetes], 3);
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
    EXPECT_EQ(d.write[Side::kubernetes], 5) << "8 minus slurm's use of 3, not minus its limit of 2";
}

// ---- writes that land late, and limits not yet in force

SideReading kube_at(Instant at, long limit, long used, long pending, std::string version, bool in_force = true) {
    return {.read_at = at,
            .limit = limit,
            .used = used,
            .pending = pending,
            .in_force = in_force,
            .version = std::move(version)};
}

TEST(QuotaSplit, AConditionalWriteStaysInDoubtPastItsTimeoutWhileTheVersionStands) {
    // Kubernetes is raised 4 -> 8 on resourceVersion "7"; the apiserver has not answered when the
    // client gives up. Reads after write_timeout still show 4 at "7": the write may yet commit.
    QuotaSplit split(12, kTiming, 0);
    split.observe(Side::slurm, {10, 4, 4, 0});
    split.observe(Side::kubernetes, kube_at(10, 4, 0, 8, "7"));
    split.wrote(Side::kubernetes, 8, 11, "7");
    split.observe(Side::kubernetes, kube_at(40, 4, 0, 8, "7"));
    EXPECT_EQ(split.state().sides[Side::kubernetes].highest, 8) << "a late commit is still possible";
    EXPECT_EQ(split.bound(Side::kubernetes), 8);
    split.observe(Side::slurm, {40, 4, 4, 8});
    auto d = split.decide(40);
    EXPECT_FALSE(d.write[Side::slurm]) << "slurm may not take the room of a raise that may still land";
    EXPECT_EQ(d.write[Side::kubernetes], 8) << "the same write again, on the same version";
    EXPECT_EQ(d.hold, Hold::write_in_doubt);
    // The object moved on (another write, a status update): ours can never land now.
    split.observe(Side::kubernetes, kube_at(41, 4, 0, 8, "9"));
    EXPECT_FALSE(split.state().sides[Side::kubernetes].in_doubt);
    EXPECT_EQ(split.bound(Side::kubernetes), 4);
}

TEST(QuotaSplit, ARaiseInDoubtThatNoLongerFitsIsFencedOffNotRepeated) {
    // Kubernetes is raised 4 -> 8 on resourceVersion "7", unanswered; then the quota is lowered
    // from 12 to 8 while Slurm holds 4: the raise would now break the quota if it landed.
    QuotaSplit split(12, kTiming, 0);
    split.observe(Side::slurm, {10, 4, 4, 0});
    split.observe(Side::kubernetes, kube_at(10, 4, 0, 8, "7"));
    split.wrote(Side::kubernetes, 8, 11, "7");
    split.set_quota(8);
    split.observe(Side::slurm, {40, 4, 4, 0});
    split.observe(Side::kubernetes, kube_at(40, 4, 0, 8, "7"));
    auto d = split.decide(40);
    EXPECT_FALSE(d.write[Side::kubernetes]) << "the raise no longer fits: not repeated";
    EXPECT_EQ(d.fence_on, "7") << "the queue is moved off the version the raise is conditional on";
    split.fenced(40);
    split.observe(Side::kubernetes, kube_at(45, 4, 0, 8, "7"));
    EXPECT_FALSE(split.decide(45).fence_on) << "one fence write per write_timeout";
    EXPECT_EQ(split.decide(50).fence_on, "7") << "unanswered on the same version: again";
    split.observe(Side::kubernetes, kube_at(51, 4, 0, 8, "9"));  // the mark landed
    EXPECT_FALSE(split.state().sides[Side::kubernetes].in_doubt) << "the raise can never land now";
}

TEST(QuotaSplit, ANewTermRaisesNothingUntilTheQueueHasMovedPastTheVersionItFirstRead) {
    // A predecessor raised Kubernetes 0 -> 6 on resourceVersion "5" and died before it landed. This
    // term reads 0 at "5" long after its start-up wait: the raise may still commit.
    QuotaSplit split(6, kTiming, 0);
    split.observe(Side::slurm, {40, 0, 0, 6});
    split.observe(Side::kubernetes, kube_at(40, 0, 0, 0, "5"));
    auto d = split.decide(40);
    EXPECT_FALSE(d.write[Side::slurm]) << "Slurm would take room the predecessor's raise may still use";
    EXPECT_EQ(d.hold, Hold::starting);
    EXPECT_EQ(d.fence_on, "5") << "a write on the first version read, to move the queue past it";
    split.fenced(41);
    split.observe(Side::kubernetes, kube_at(45, 0, 0, 0, "5"));
    EXPECT_FALSE(split.decide(45).fence_on) << "one fence write per write_timeout";
    EXPECT_EQ(split.decide(51).fence_on, "5") << "unanswered on the same version: again";
    split.observe(Side::kubernetes, kube_at(52, 0, 0, 0, "6"));  // our mark landed
    split.observe(Side::slurm, {52, 0, 0, 6});
    d = split.decide(52);
    EXPECT_FALSE(d.fence_on);
    EXPECT_EQ(d.write[Side::slurm], 6) << "no write conditional on \"5\" can land any more";
}

TEST(QuotaSplit, ANewTermNeedsNoFenceWithoutAVersionedObject) {
    QuotaSplit split(6, kTiming, 0);
    split.observe(Side::slurm, {40, 0, 0, 6});
    split.observe(Side::kubernetes, kube_at(40, 0, 0, 0, ""));  // no queue yet
    auto d = split.decide(40);
    EXPECT_FALSE(d.fence_on);
    EXPECT_EQ(d.write[Side::slurm], 6);
}

TEST(QuotaSplit, AnUnconditionalWriteIsTakenAsLostAfterItsTimeout) {
    // The same timeline without a version (Slurm): the stated assumption, a write not read back
    // write_timeout after it ended never lands.
    QuotaSplit split(12, kTiming, 0);
    split.observe(Side::slurm, {10, 4, 0, 0});
    split.wrote(Side::slurm, 8, 11);
    split.observe(Side::slurm, {20, 4, 0, 0});
    EXPECT_TRUE(split.state().sides[Side::slurm].in_doubt) << "not yet write_timeout after the write ended";
    split.observe(Side::slurm, {21, 4, 0, 0});
    EXPECT_FALSE(split.state().sides[Side::slurm].in_doubt);
    EXPECT_EQ(split.bound(Side::slurm), 4);
}

TEST(QuotaSplit, AKubernetesDecreaseCountsOnlyOnceKueueHasTakenIt) {
    // Kubernetes is lowered 8 -> 0 for Slurm's demand. The apiserver shows 0 at once; Kueue's
    // controller has not yet observed that generation and may still admit up to 8.
    QuotaSplit split(8, kTiming, 0);
    split.observe(Side::slurm, {10, 0, 0, 8});
    split.observe(Side::kubernetes, kube_at(10, 8, 0, 0, "5"));
    auto d = split.decide(10);
    ASSERT_EQ(d.write[Side::kubernetes], 0);
    split.wrote(Side::kubernetes, 0, 10, "5");
    split.observe(Side::slurm, {20, 0, 0, 8});
    split.observe(Side::kubernetes, kube_at(20, 0, 0, 0, "6", /*in_force=*/false));
    EXPECT_EQ(split.bound(Side::kubernetes), 8) << "Kueue may still enforce 8";
    d = split.decide(20);
    EXPECT_FALSE(d.writes_anything()) << "no raise before the decrease is in force, and 0 is written already";
    EXPECT_EQ(d.hold, Hold::not_in_force);
    split.observe(Side::kubernetes, kube_at(21, 0, 0, 0, "7"));  // Active.observedGeneration caught up
    d = split.decide(21);
    EXPECT_EQ(d.write[Side::slurm], 8);
}

TEST(QuotaSplit, ASlurmLimitStoredInSlurmdbdCountsBeforeSlurmctldHasIt) {
    // A raise to 8 timed out at the client but slurmdbd committed it; slurmctld still enforces 4
    // and will take 8 when slurmdbd pushes it. Kubernetes must not get the room meanwhile.
    QuotaSplit split(12, kTiming, 0);
    split.observe(Side::slurm, {10, 4, 0, 0});
    split.wrote(Side::slurm, 8, 11);
    split.observe(Side::slurm, {30, 4, 0, 0, -1, true, 8});
    EXPECT_FALSE(split.state().sides[Side::slurm].in_doubt) << "slurmdbd has it: it landed";
    EXPECT_EQ(split.bound(Side::slurm), 8);
    split.observe(Side::kubernetes, kube_at(30, 4, 0, 8, "3"));
    EXPECT_FALSE(split.decide(30).write[Side::kubernetes]);
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
    ASSERT_TRUE(d.write[Side::slurm]);
    EXPECT_EQ(*d.write[Side::slurm], 2);
}
}  // namespace

namespace {

TEST(QuotaSplit, ALimitOutsideTheCountedRangeIsNotExplained) {
    QuotaSplit split(8, kTiming, 0);
    EXPECT_TRUE(split.explains(Side::kubernetes, {0, 6, 0, 0})) << "nothing read yet";
    split.observe(Side::kubernetes, {10, 4, 0, 0});
    split.wrote(Side::kubernetes, 2, 10);
    EXPECT_TRUE(split.explains(Side::kubernetes, {11, 2, 0, 0})) << "our write";
    EXPECT_TRUE(split.explains(Side::kubernetes, {11, 4, 0, 0})) << "before our write";
    EXPECT_FALSE(split.explains(Side::kubernetes, {11, 7, 0, 0})) << "an admin's raise";
    EXPECT_FALSE(split.explains(Side::kubernetes, {11, 1, 0, 0})) << "an admin's decrease";
    SideReading stored_raise{11, 4, 0, 0};
    stored_raise.stored = 9;  // sacctmgr's raise, in slurmdbd before slurmctld has it
    EXPECT_FALSE(split.explains(Side::kubernetes, stored_raise));
}

}  // namespace
