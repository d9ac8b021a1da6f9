#include <gtest/gtest.h>

#include "common/error.h"
#include "quota/bridge_config.h"

using fairway::InputError;
using fairway::quota::parse_bridge_config;

namespace {

const std::string kGroups = "groups: [{name: physics, accounts: [physics], gpus: 8}]\n";

TEST(LeaderElectionConfig, DefaultsAreOnWithTheDocumentedLease) {
    auto le = parse_bridge_config(kGroups, "bridge.yaml").leader_election;
    EXPECT_TRUE(le.enabled);
    EXPECT_EQ(le.lease_namespace, "fairway-system");
    EXPECT_EQ(le.lease_name, "fairway-bridge");
    EXPECT_EQ(le.identity, "");
    EXPECT_EQ(le.lease_duration_seconds, 15);
    EXPECT_EQ(le.renew_deadline_seconds, 10);
    EXPECT_EQ(le.retry_period_seconds, 2);
}

TEST(LeaderElectionConfig, AnOwnerHasALeaseOfItsOwnUnlessOneIsNamed) {
    auto config = parse_bridge_config("kubernetes: {owner: site-b}\n" + kGroups, "bridge.yaml");
    EXPECT_EQ(config.kubernetes.owner, "site-b");
    EXPECT_EQ(config.leader_election.lease_name, "fairway-bridge-site-b") << "bridges of two owners never contend";
    auto named =
        parse_bridge_config("kubernetes: {owner: site-b}\nleader_election: {name: shared}\n" + kGroups, "bridge.yaml");
    EXPECT_EQ(named.leader_election.lease_name, "shared");
    EXPECT_EQ(parse_bridge_config(kGroups, "bridge.yaml").kubernetes.owner, "default");
}

TEST(LeaderElectionConfig, EveryKeyIsRead) {
    auto le = parse_bridge_config(
                  "reconcile: {period_seconds: 1, stale_after_seconds: 3, write_timeout_seconds: 1}\n"
                  "leader_election: {enabled: true, namespace: ops, name: bridge-a, identity: host-a,\n"
                  "  lease_duration_seconds: 4, renew_deadline_seconds: 3, retry_period_seconds: 1}\n" +
                      kGroups,
                  "bridge.yaml")
                  .leader_election;
    EXPECT_EQ(le.lease_namespace, "ops");
    EXPECT_EQ(le.lease_name, "bridge-a");
    EXPECT_EQ(le.identity, "host-a");
    EXPECT_EQ(le.lease_duration_seconds, 4);
    EXPECT_EQ(le.renew_deadline_seconds, 3);
    EXPECT_EQ(le.retry_period_seconds, 1);
}

TEST(LeaderElectionConfig, DurationsThatCannotBeFencedAreRejected) {
    EXPECT_THROW(parse_bridge_config(
                     "leader_election: {lease_duration_seconds: 10, renew_deadline_seconds: 10}\n" + kGroups, "b.yaml"),
                 InputError);
    // The default renew deadline leaves no room for an 8-second write plus a 2-second retry.
    EXPECT_THROW(parse_bridge_config("reconcile: {period_seconds: 10, write_timeout_seconds: 8}\n" + kGroups, "b.yaml"),
                 InputError);
    EXPECT_NO_THROW(
        parse_bridge_config("reconcile: {period_seconds: 10, write_timeout_seconds: 8}\n"
                            "leader_election: {enabled: false}\n" +
                                kGroups,
                            "b.yaml"));
}

TEST(LeaderElectionConfig, TyposAndBadFlagsAreErrors) {
    EXPECT_THROW(parse_bridge_config("leader_election: {lease_name: x}\n" + kGroups, "b.yaml"), InputError);
    EXPECT_THROW(parse_bridge_config("leader_election: {enabled: yes}\n" + kGroups, "b.yaml"), InputError);
}

}  // namespace
