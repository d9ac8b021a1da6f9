#include "quota/standing.h"

#include <gtest/gtest.h>

#include "quota/mirror.h"

using namespace fairway::quota;

namespace {

BridgeConfig biology_with_two_namespaces() {
    BridgeConfig config;
    config.groups = {{"biology", {"biology"}, {"bio-alice", "bio-bob", "bio-shared"}, 8},
                     {"physics", {"physics"}, {"phys"}, 4}};
    config.usage.associations = {{"bio-alice", "biology/alice"}, {"bio-bob", "biology/bob"}};
    return config;
}

const DesiredObject* find(const std::vector<DesiredObject>& objects, const std::string& kind,
                          const std::string& collection_part) {
    for (const auto& o : objects)
        if (o.kind == kind && o.path().find(collection_part) != std::string::npos) return &o;
    return nullptr;
}

}  // namespace

TEST(Standing, TheWeightIsSlurmsClassicFactorInQuarterStepsOfItsExponent) {
    EXPECT_EQ(standing_weight_milli({0, 0.5}, 1), 1000) << "no usage: full weight";
    EXPECT_EQ(standing_weight_milli({0.5, 0.5}, 1), 500) << "usage equal to the shares: F = 1/2";
    EXPECT_EQ(standing_weight_milli({1.0, 0.5}, 1), 250) << "twice the shares: F = 1/4";
    EXPECT_EQ(standing_weight_milli({0.25, 0.5}, 1), 707) << "half the shares: F = 2^-1/2";
    EXPECT_EQ(standing_weight_milli({1.0, 0.5}, 2), 500) << "FairShareDampeningFactor divides the exponent";
    // 2^-0.55 = 0.683 and 2^-0.45 = 0.732 both round to the quarter 2^-0.5: a decaying usage does not
    // rewrite the weight until it crosses the middle between two steps.
    EXPECT_EQ(standing_weight_milli({0.275, 0.5}, 1), 707);
    EXPECT_EQ(standing_weight_milli({0.225, 0.5}, 1), 707);
    EXPECT_EQ(standing_weight_milli({0.15, 0.5}, 1), 841) << "an exponent of 0.3 rounds to the quarter 0.25";
}

TEST(Standing, AHeavyOrShareLessAssociationKeepsAWeightAboveZero) {
    EXPECT_EQ(standing_weight_milli({50.0, 0.5}, 1), 1) << "2^-10 is the floor: Kueue reads 0 as never";
    EXPECT_EQ(standing_weight_milli({0.1, 0.0}, 1), 1) << "no shares: the floor";
    EXPECT_EQ(weight_quantity(841), "841m");
}

TEST(Standing, EachNamespaceHasItsAssociationsWeightAndEachGroupItsAccounts) {
    const std::map<std::string, AssociationStanding> figures = {{"biology", {0.5, 0.5}},
                                                                {"biology/alice", {1.0, 0.25}},
                                                                {"biology/bob", {0.0, 0.25}},
                                                                {"physics", {0.25, 0.5}}};
    PublishedStanding standing = published_standing(biology_with_two_namespaces(), figures, 1);
    EXPECT_EQ(standing.by_group.at("biology"), 500);
    EXPECT_EQ(standing.by_group.at("physics"), 707);
    EXPECT_EQ(standing.by_namespace.at("bio-alice"), 63) << "2^-4";
    EXPECT_EQ(standing.by_namespace.at("bio-bob"), 1000);
    EXPECT_EQ(standing.by_namespace.at("bio-shared"), 500) << "an unmapped namespace stands as its group's account";
    EXPECT_EQ(standing.by_namespace.at("phys"), 707);
    EXPECT_EQ(published_standing(biology_with_two_namespaces(), {}, 1).by_namespace.at("bio-alice"), 1000)
        << "an association Slurm does not list has no usage";
}

TEST(Standing, KueueLocalQueuesCarryTheWeightUnderAdmissionFairSharing) {
    BridgeConfig config = biology_with_two_namespaces();
    PublishedStanding standing;
    standing.by_namespace = {{"bio-alice", 63}, {"bio-bob", 1000}};
    auto objects = desired_objects(config, {{"gpu", 8, 1}}, {}, {}, {}, standing);
    EXPECT_EQ(find(objects, "LocalQueue", "/bio-alice/")->body["spec"]["fairSharing"]["weight"], "63m");
    EXPECT_EQ(find(objects, "LocalQueue", "/bio-bob/")->body["spec"]["fairSharing"]["weight"], "1000m");
    EXPECT_EQ(find(objects, "LocalQueue", "/bio-shared/")->body["spec"]["fairSharing"]["weight"], "1000m")
        << "no entry: full weight";
    EXPECT_EQ(find(objects, "ClusterQueue", "fairway-biology")->body["spec"]["admissionScope"]["admissionMode"],
              "UsageBasedAdmissionFairSharing");
    config.kubernetes.standing_weights = false;
    objects = desired_objects(config, {{"gpu", 8, 1}}, {}, {}, {}, standing);
    EXPECT_FALSE(find(objects, "LocalQueue", "/bio-alice/")->body["spec"].contains("fairSharing"));
    EXPECT_FALSE(find(objects, "ClusterQueue", "fairway-biology")->body["spec"].contains("admissionScope"));
}

TEST(Standing, VolcanoQueuesCarryTheGroupsWeight) {
    BridgeConfig config = biology_with_two_namespaces();
    config.kubernetes.backend = Backend::volcano;
    PublishedStanding standing;
    standing.by_group = {{"biology", 250}};
    auto objects = desired_objects(config, {{"gpu", 8, 1}}, {}, {}, {}, standing);
    EXPECT_EQ(find(objects, "Queue", "fairway-biology")->body["spec"]["weight"], 250);
    EXPECT_EQ(find(objects, "Queue", "fairway-physics")->body["spec"]["weight"], kFullWeightMilli);
    config.kubernetes.standing_weights = false;
    objects = desired_objects(config, {{"gpu", 8, 1}}, {}, {}, {}, standing);
    EXPECT_EQ(find(objects, "Queue", "fairway-biology")->body["spec"]["weight"], 1);
}
