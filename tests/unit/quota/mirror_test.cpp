#include "quota/mirror.h"

#include <gtest/gtest.h>

#include <numeric>
#include <set>

using namespace fairway::quota;
using nlohmann::json;

namespace {

BridgeConfig two_groups(Backend backend) {
    BridgeConfig config;
    config.kubernetes.backend = backend;
    config.groups = {{"physics", {"physics"}, {"phys-a", "phys-b"}, 8}, {"biology", {"biology"}, {"bio"}, 4}};
    return config;
}

const DesiredObject* find(const std::vector<DesiredObject>& objects, const std::string& kind, const std::string& name) {
    for (const auto& o : objects)
        if (o.kind == kind && o.name == name) return &o;
    return nullptr;
}

TEST(Mirror, KueueObjectsForGpuPartitionsAndGroups) {
    auto objects =
        desired_objects(two_groups(Backend::kueue), {{"gpu", 12, 1}, {"debug", 4, 2}, {"cpu", 0, 1}}, {{"physics", 6}});
    EXPECT_TRUE(find(objects, "ResourceFlavor", "slurm-gpu"));
    EXPECT_TRUE(find(objects, "ResourceFlavor", "slurm-debug"));
    EXPECT_FALSE(find(objects, "ResourceFlavor", "slurm-cpu")) << "partitions without GPUs are not mirrored";
    EXPECT_TRUE(find(objects, "WorkloadPriorityClass", "slurm-tier-2"));
    const auto* cq = find(objects, "ClusterQueue", "fairway-physics");
    ASSERT_TRUE(cq);
    EXPECT_EQ(cq->body["metadata"]["labels"][kManagedByLabel], kManagedByValue);
    EXPECT_FALSE(cq->body["spec"].contains("cohort")) << "no cohort unless the configuration names one";
    EXPECT_FALSE(cq->body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0].contains("borrowingLimit"))
        << "Kueue rejects borrowingLimit without a cohort";
    EXPECT_EQ(read_queue(cq->body, Backend::kueue, "nvidia.com/gpu").limit, 6) << "nominal quotas add up to L_k";
    EXPECT_EQ(
        read_queue(find(objects, "ClusterQueue", "fairway-biology")->body, Backend::kueue, "nvidia.com/gpu").limit, 0);
    int local_queues = 0;
    for (const auto& o : objects)
        if (o.kind == "LocalQueue") {
            ++local_queues;
            EXPECT_NE(o.collection.find("/namespaces/"), std::string::npos);
        }
    EXPECT_EQ(local_queues, 3);
    for (const auto& o : objects) EXPECT_EQ(o.body["metadata"]["labels"][kManagedByLabel], kManagedByValue) << o.name;
}

TEST(Mirror, EveryObjectCarriesItsOwnersMark) {
    for (Backend backend : {Backend::kueue, Backend::volcano}) {
        BridgeConfig config = two_groups(backend);
        config.kubernetes.owner = "site-b";
        for (const auto& o : desired_objects(config, {{"gpu", 12, 1}}, {{"physics", 6}})) {
            EXPECT_EQ(o.body["metadata"]["labels"][kOwnerLabel], "site-b") << o.kind << " " << o.name;
            EXPECT_TRUE(owned_by(o.body, "site-b"));
            EXPECT_FALSE(owned_by(o.body, kDefaultOwner)) << "the default bridge leaves another owner's objects";
        }
    }
}

TEST(Mirror, OnlyTheDefaultOwnerAdoptsObjectsWithoutAnOwnersMark) {
    const json unmarked = {
        {"metadata", {{"name", "fairway-physics"}, {"labels", {{kManagedByLabel, kManagedByValue}}}}}};
    EXPECT_TRUE(owned_by(unmarked, kDefaultOwner));
    EXPECT_FALSE(owned_by(unmarked, "site-b"));
    EXPECT_TRUE(owned_by(json{{"metadata", {{"name", "x"}}}}, kDefaultOwner)) << "no labels at all";
    const json marked = {{"metadata", {{"labels", {{kOwnerLabel, "site-a"}}}}}};
    EXPECT_TRUE(owned_by(marked, "site-a"));
    EXPECT_FALSE(owned_by(marked, "site-b"));
    EXPECT_FALSE(owned_by(marked, kDefaultOwner));
    // The default bridge's own objects carry its mark too, once applied.
    EXPECT_TRUE(owned_by(json{{"metadata", {{"labels", {{kOwnerLabel, kDefaultOwner}}}}}}, kDefaultOwner));
}

TEST(Mirror, GresStringsCountGpusPerType) {
    EXPECT_EQ(gpus_by_type("gpu:a100:4(S:0-1)", "gpu"), (FlavorUse{{"a100", 4}}));
    EXPECT_EQ(gpus_by_type("gpu:a100:2(S:0,1),gpu:h100:2(S:1),mps:100", "gpu"), (FlavorUse{{"a100", 2}, {"h100", 2}}));
    EXPECT_EQ(gpus_by_type("gpu:4,gpu:a100:1", "gpu"), (FlavorUse{{kUntypedGpu, 4}, {"a100", 1}}));
    EXPECT_EQ(gpus_by_type("gpu:a100", "gpu"), (FlavorUse{{"a100", 1}}));
    EXPECT_EQ(gpus_by_type("gpu:a100:no_consume:2", "gpu"), (FlavorUse{{"a100", 2}}));
    EXPECT_TRUE(gpus_by_type("mps:100,gpus:a100:2", "gpu").empty());
    EXPECT_TRUE(gpus_by_type("", "gpu").empty());
    EXPECT_EQ(gpus_by_type("gpu:a100:99999999999999999999,gpu:h100:2", "gpu"), (FlavorUse{{"h100", 2}}))
        << "a count too long for a long counts nothing (and never throws)";
}

// Nodes 1-2 carry 4 a100 each, nodes 3-4 4 h100 each; partitions gpu and debug hold all four, a100
// and h100 two each: with flavors per GPU type every node's GPUs count once.
TEST(Mirror, FlavorsPerGpuTypeCountEachNodeOnceHoweverPartitionsOverlap) {
    BridgeConfig config = two_groups(Backend::kueue);
    config.kubernetes.flavors = FlavorBasis::gpu_types;
    config.gpu_types["h100"].node_labels = {{"nvidia.com/gpu.product", "H100"}};
    const std::vector<PartitionInfo> partitions = {{"gpu", 16, 1}, {"debug", 16, 2}, {"a100", 8, 1}, {"h100", 8, 1}};
    const FlavorUse types = {{"a100", 8}, {"h100", 8}};
    auto objects = desired_objects(config, partitions, {{"physics", 8}}, {}, types);
    std::set<std::string> flavors;
    for (const auto& o : objects)
        if (o.kind == "ResourceFlavor") flavors.insert(o.name);
    EXPECT_EQ(flavors, (std::set<std::string>{"gpu-a100", "gpu-h100"}));
    EXPECT_EQ(find(objects, "ResourceFlavor", "gpu-a100")->body["spec"]["nodeLabels"],
              (json{{"fairway.io/gpu-type", "a100"}}));
    EXPECT_EQ(find(objects, "ResourceFlavor", "gpu-h100")->body["spec"]["nodeLabels"],
              (json{{"nvidia.com/gpu.product", "H100"}}));
    EXPECT_TRUE(find(objects, "WorkloadPriorityClass", "slurm-tier-2")) << "priority tiers still come from partitions";
    auto queue = read_queue(find(objects, "ClusterQueue", "fairway-physics")->body, Backend::kueue, "nvidia.com/gpu");
    EXPECT_EQ(queue.flavors.nominal, (FlavorUse{{"gpu-a100", 4}, {"gpu-h100", 4}})) << "split by what the nodes carry";
    // By partition, the same limit lands on four flavors for the same 16 GPUs.
    config.kubernetes.flavors = FlavorBasis::partitions;
    auto by_partition = desired_objects(config, partitions, {{"physics", 8}}, {}, types);
    EXPECT_EQ(read_queue(find(by_partition, "ClusterQueue", "fairway-physics")->body, Backend::kueue, "nvidia.com/gpu")
                  .flavors.nominal.size(),
              4u);
}

TEST(Mirror, APartitionFlavorHoldingQuotaStaysWhenFlavorsTurnToGpuTypes) {
    BridgeConfig config = two_groups(Backend::kueue);
    config.kubernetes.flavors = FlavorBasis::gpu_types;
    QueueFlavors seen;
    seen.nominal = {{"slurm-gpu", 4}};
    seen.reserved = {{"slurm-gpu", 2}};
    auto objects = desired_objects(config, {{"gpu", 16, 1}}, {{"physics", 4}}, {{"physics", seen}}, {{"a100", 16}});
    auto queue = read_queue(find(objects, "ClusterQueue", "fairway-physics")->body, Backend::kueue, "nvidia.com/gpu");
    EXPECT_EQ(queue.flavors.nominal.at("slurm-gpu"), 4) << "the same limit moves no quota";
    EXPECT_EQ(queue.limit, 4);
    ASSERT_TRUE(find(objects, "ResourceFlavor", "slurm-gpu"));
    EXPECT_TRUE(find(objects, "ResourceFlavor", "gpu-a100"));
}

TEST(Mirror, AClusterQueueCoversAtMost64FlavorsAndStillAddsUpToItsLimit) {
    std::vector<PartitionInfo> partitions;
    for (int i = 0; i < 100; ++i) partitions.push_back({"p" + std::to_string(100 + i), i < 10 ? 8 : 4, 1});
    auto objects = desired_objects(two_groups(Backend::kueue), partitions, {{"physics", 50}});
    const auto* cq = find(objects, "ClusterQueue", "fairway-physics");
    ASSERT_TRUE(cq);
    const auto& flavors = cq->body["spec"]["resourceGroups"][0]["flavors"];
    EXPECT_EQ(flavors.size(), kMaxFlavorsPerQueue);
    EXPECT_EQ(flavors[0]["name"], "slurm-p100") << "the partitions with the most GPUs are kept";
    EXPECT_EQ(read_queue(cq->body, Backend::kueue, "nvidia.com/gpu").limit, 50);
    EXPECT_TRUE(find(objects, "ResourceFlavor", "slurm-p199"));
}

TEST(Mirror, VolcanoQueueCapabilityIsTheLimit) {
    auto objects = desired_objects(two_groups(Backend::volcano), {{"gpu", 16, 1}}, {{"physics", 5}, {"biology", 3}});
    ASSERT_EQ(objects.size(), 2u);
    EXPECT_EQ(read_queue(find(objects, "Queue", "fairway-physics")->body, Backend::volcano, "nvidia.com/gpu").limit, 5);
}

TEST(Mirror, InACohortAQueueNeitherBorrowsNorLends) {
    BridgeConfig config = two_groups(Backend::kueue);
    config.kubernetes.cohort = "lab";
    auto objects = desired_objects(config, {{"gpu", 12, 1}}, {{"physics", 6}});
    const auto* cq = find(objects, "ClusterQueue", "fairway-physics");
    ASSERT_TRUE(cq);
    EXPECT_EQ(cq->body["spec"]["cohort"], "lab");
    const auto& gpu = cq->body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0];
    EXPECT_EQ(gpu.value("borrowingLimit", json()), 0) << "borrowing from the cohort would let Kubernetes exceed L_k";
    EXPECT_EQ(gpu.value("lendingLimit", json()), 0) << "lending would let another queue use GPUs Slurm may be given";
}

TEST(Mirror, AQueueLeftInACohortIsNotUpToDate) {
    auto objects = desired_objects(two_groups(Backend::kueue), {{"gpu", 12, 1}}, {{"physics", 6}});
    const auto* cq = find(objects, "ClusterQueue", "fairway-physics");
    ASSERT_TRUE(cq);
    json observed = cq->body;
    EXPECT_TRUE(up_to_date(observed, *cq));
    observed["spec"]["cohort"] = "fairway";
    EXPECT_FALSE(up_to_date(observed, *cq)) << "a leftover cohort lends the group's idle quota";
}

// Q = 8, Kubernetes holds 4 GPUs on flavor A, and L_k drops to 4: a split by partition size
// ({2, 2}) would leave flavor B two free GPUs, and Kueue would admit 6 > L_k.
TEST(Mirror, TheLimitIsSplitWhereKubernetesUseSits) {
    auto objects = desired_objects(two_groups(Backend::kueue), {{"a", 16, 1}, {"b", 16, 1}}, {{"physics", 4}},
                                   {{"physics", {{{"slurm-a", 4}, {"slurm-b", 4}}, {{"slurm-a", 4}}}}});
    const auto* cq = find(objects, "ClusterQueue", "fairway-physics");
    ASSERT_TRUE(cq);
    const auto& flavors = cq->body["spec"]["resourceGroups"][0]["flavors"];
    ASSERT_EQ(flavors.size(), 2u);
    EXPECT_EQ(flavors[0]["resources"][0]["nominalQuota"], 4);
    EXPECT_EQ(flavors[1]["resources"][0]["nominalQuota"], 0) << "no room on B beyond L_k";
}

// Every current quota, use and limit on two and three flavors: a step adds up to the limit, moves
// every flavor one way only (never below its use when the current quotas covered it), and the same
// limit moves nothing.
TEST(Mirror, FlavorStepsMoveOneWayForEverySmallCase) {
    long cases = 0;
    for (std::size_t n : {2u, 3u}) {
        const std::vector<long> capacity = n == 2 ? std::vector<long>{4, 1} : std::vector<long>{2, 2, 4};
        std::vector<long> current(n, 0), used(n, 0);
        auto next = [](std::vector<long>& v) {  // odometer over 0..3
            for (auto& digit : v) {
                if (digit < 3) {
                    ++digit;
                    return true;
                }
                digit = 0;
            }
            return false;
        };
        do {
            do {
                const long before = std::accumulate(current.begin(), current.end(), 0L);
                bool covered = true;
                for (std::size_t i = 0; i < n; ++i) covered &= current[i] >= used[i];
                for (long limit = 0; limit <= 12; ++limit, ++cases) {
                    auto quotas = step_flavor_quotas(limit, current, used, capacity);
                    ASSERT_EQ(std::accumulate(quotas.begin(), quotas.end(), 0L), limit);
                    const long total_use = std::accumulate(used.begin(), used.end(), 0L);
                    for (std::size_t i = 0; i < n; ++i) {
                        if (limit >= before) {
                            EXPECT_GE(quotas[i], current[i]) << "a raise lowers no flavor";
                        }
                        if (limit <= before) {
                            EXPECT_LE(quotas[i], current[i]) << "a decrease raises no flavor";
                        }
                        if (covered && total_use <= limit) {
                            EXPECT_GE(quotas[i], used[i]) << "flavor " << i;
                        }
                    }
                }
            } while (next(used));
        } while (next(current));
    }
    EXPECT_GT(cases, 10000);
}

TEST(Mirror, AFlavorWithReservationsOutlivesItsPartition) {
    auto objects = desired_objects(two_groups(Backend::kueue), {{"a", 16, 1}}, {{"physics", 6}},
                                   {{"physics", {{{"slurm-a", 4}, {"slurm-gone", 4}}, {{"slurm-gone", 2}}}}});
    const auto* cq = find(objects, "ClusterQueue", "fairway-physics");
    ASSERT_TRUE(cq);
    const auto& flavors = cq->body["spec"]["resourceGroups"][0]["flavors"];
    ASSERT_EQ(flavors.size(), 2u);
    EXPECT_EQ(flavors[1]["name"], "slurm-gone");
    EXPECT_EQ(flavors[1]["resources"][0]["nominalQuota"], 2)
        << "a decrease takes its idle quota first; its use keeps its quota";
    EXPECT_EQ(flavors[0]["resources"][0]["nominalQuota"], 4);
    EXPECT_TRUE(find(objects, "ResourceFlavor", "slurm-gone")) << "the queue's flavor must keep existing";
}

// A partition name Kubernetes refuses gets a hashed flavor name, which cannot be turned back into
// the partition's: once Slurm no longer lists it, the flavor's node labels still name the partition
// its ResourceFlavor says it stands for, and its configured node labels still apply.
TEST(Mirror, AHashedFlavorOutlivingItsPartitionKeepsThePartitionsNodeLabels) {
    BridgeConfig config = two_groups(Backend::kueue);
    config.partitions["gpu_B200"].node_labels = {{"gpu.example/model", "b200"}};
    const std::string a100 = partition_flavor("gpu_A100"), b200 = partition_flavor("gpu_B200");
    QueueFlavors seen;
    seen.nominal = {{a100, 2}, {b200, 2}};
    seen.reserved = {{a100, 1}, {b200, 1}};
    seen.partitions = {{a100, "gpu_A100"}, {b200, "gpu_B200"}};
    auto objects = desired_objects(config, {{"a", 16, 1}}, {{"physics", 6}}, {{"physics", seen}});
    const auto* kept = find(objects, "ResourceFlavor", a100);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->body["spec"]["nodeLabels"], json({{config.kubernetes.partition_label, "gpu_A100"}}));
    EXPECT_EQ(kept->body["metadata"]["labels"][kPartitionLabel], "gpu_A100");
    const auto* configured = find(objects, "ResourceFlavor", b200);
    ASSERT_TRUE(configured);
    EXPECT_EQ(configured->body["spec"]["nodeLabels"], json({{"gpu.example/model", "b200"}}));
}

TEST(Mirror, AHashedGpuTypeFlavorOutlivingItsTypeKeepsTheTypesNodeLabel) {
    BridgeConfig config = two_groups(Backend::kueue);
    config.kubernetes.flavors = FlavorBasis::gpu_types;
    const std::string sxm = gpu_type_flavor("A100_SXM");
    ASSERT_NE(sxm, std::string(kGpuTypeFlavorPrefix) + "A100_SXM") << "the type's name must be hashed here";
    QueueFlavors seen;
    seen.nominal = {{sxm, 2}};
    seen.gpu_types = {{sxm, "A100_SXM"}};
    auto objects = desired_objects(config, {{"gpu", 8, 1}}, {{"physics", 6}}, {{"physics", seen}}, {{"h100", 8}});
    const auto* kept = find(objects, "ResourceFlavor", sxm);
    ASSERT_TRUE(kept) << "the flavor still holds quota";
    EXPECT_EQ(kept->body["spec"]["nodeLabels"], json({{config.kubernetes.gpu_type_label, "A100_SXM"}}));
    EXPECT_EQ(flavor_label(kept->body, kGpuTypeLabel), "A100_SXM");
}

TEST(Mirror, AFlavorNamesThePartitionItStandsFor) {
    auto objects = desired_objects(two_groups(Backend::kueue), {{"gpu_A100", 8, 1}}, {{"physics", 6}});
    const auto* flavor = find(objects, "ResourceFlavor", partition_flavor("gpu_A100"));
    ASSERT_TRUE(flavor);
    EXPECT_EQ(flavor_label(flavor->body, kPartitionLabel), "gpu_A100");
    EXPECT_EQ(flavor_label(json::object(), kPartitionLabel), "");
}

struct SplitCase {
    long limit;
    std::vector<long> used;
    std::vector<long> capacity;
    std::vector<long> want;
};
class FlavorSplit : public ::testing::TestWithParam<SplitCase> {};
TEST_P(FlavorSplit, AddsUpToTheLimit) {
    EXPECT_EQ(split_over_flavors(GetParam().limit, GetParam().used, GetParam().capacity), GetParam().want);
}
INSTANTIATE_TEST_SUITE_P(
    Table, FlavorSplit,
    ::testing::Values(SplitCase{4, {0, 0}, {16, 16}, {2, 2}}, SplitCase{5, {0, 0}, {16, 16}, {3, 2}},
                      SplitCase{7, {0, 0}, {12, 4}, {5, 2}}, SplitCase{0, {0}, {8}, {0}},
                      SplitCase{3, {0, 0}, {0, 0}, {3, 0}}, SplitCase{1, {0, 0, 0}, {1, 1, 1}, {1, 0, 0}},
                      SplitCase{4, {4, 0}, {16, 16}, {4, 0}}, SplitCase{6, {4, 0}, {16, 16}, {5, 1}},
                      SplitCase{5, {1, 2}, {0, 0}, {3, 2}},
                      // infeasible: use above the limit; shared by use, none above its use
                      SplitCase{3, {4, 2}, {16, 16}, {2, 1}}, SplitCase{0, {4, 2}, {16, 16}, {0, 0}}));

// Every use and limit on up to three flavors of up to 4 GPUs each: the quotas add up to the limit,
// never fall below a flavor's use when the limit covers all use, and never exceed it when it does not.
TEST(Mirror, FlavorSplitHoldsForEverySmallCase) {
    const std::vector<std::vector<long>> capacities = {{4}, {4, 4}, {4, 1}, {3, 0}, {2, 2, 4}};
    long cases = 0;
    for (const auto& capacity : capacities) {
        const std::size_t n = capacity.size();
        std::vector<long> used(n, 0);
        for (;;) {
            const long total_use = std::accumulate(used.begin(), used.end(), 0L);
            for (long limit = 0; limit <= 14; ++limit, ++cases) {
                auto quotas = split_over_flavors(limit, used, capacity);
                ASSERT_EQ(quotas.size(), n);
                EXPECT_EQ(std::accumulate(quotas.begin(), quotas.end(), 0L), limit);
                for (std::size_t i = 0; i < n; ++i) {
                    EXPECT_GE(quotas[i], 0);
                    if (total_use <= limit) EXPECT_GE(quotas[i], used[i]) << "flavor " << i << " limit " << limit;
                    else EXPECT_LE(quotas[i], used[i]) << "flavor " << i << " limit " << limit;
                }
            }
            std::size_t i = 0;
            while (i < n && used[i] == 4) used[i++] = 0;
            if (i == n) break;
            ++used[i];
        }
    }
    EXPECT_GT(cases, 1000);
}

TEST(Mirror, CoversComparesOnlyDesiredFieldsAndQuantitiesByValue) {
    json observed = {{"metadata", {{"name", "a"}, {"resourceVersion", "7"}}}, {"spec", {{"q", "8"}, {"list", {1, 2}}}}};
    EXPECT_TRUE(covers(observed, {{"spec", {{"q", 8}}}}));
    EXPECT_FALSE(covers(observed, {{"spec", {{"q", 7}}}}));
    EXPECT_FALSE(covers(observed, {{"spec", {{"list", {1}}}}}));
    EXPECT_FALSE(covers(observed, {{"spec", {{"missing", 1}}}}));
}

TEST(Mirror, QuantitiesParse) {
    EXPECT_EQ(parse_quantity(json(4)), 4);
    EXPECT_EQ(parse_quantity(json("64")), 64);
    EXPECT_EQ(parse_quantity(json("2k")), 2000);
    EXPECT_EQ(parse_quantity(json("1500m")), 1);
    EXPECT_EQ(parse_quantity(json("x")), -1);
    EXPECT_EQ(parse_quantity(json("4Q")), -1);
}

TEST(Mirror, ReadsKueueAndVolcanoUsage) {
    json cq = {
        {"spec",
         {{"resourceGroups",
           {{{"flavors", {{{"name", "f"}, {"resources", {{{"name", "nvidia.com/gpu"}, {"nominalQuota", 4}}}}}}}}}}}},
        {"status",
         {{"pendingWorkloads", 2},
          // Reserved (quota charged, AdmissionChecks pending) counts; admitted-only does not.
          {"flavorsReservation", {{{"name", "f"}, {"resources", {{{"name", "nvidia.com/gpu"}, {"total", "3"}}}}}}},
          {"flavorsUsage", {{{"name", "f"}, {"resources", {{{"name", "nvidia.com/gpu"}, {"total", "1"}}}}}}}}}};
    auto r = read_queue(cq, Backend::kueue, "nvidia.com/gpu");
    EXPECT_EQ(r.limit, 4);
    EXPECT_EQ(r.used, 3);
    EXPECT_EQ(r.flavors.reserved, (FlavorUse{{"f", 3}}));
    EXPECT_EQ(r.flavors.nominal, (FlavorUse{{"f", 4}}));
    EXPECT_EQ(r.holdable, 4);
    json q = {{"spec", {{"capability", {{"nvidia.com/gpu", 6}}}}},
              {"status", {{"allocated", {{"nvidia.com/gpu", "5"}}}, {"pending", 1}}}};
    r = read_queue(q, Backend::volcano, "nvidia.com/gpu");
    EXPECT_EQ(r.limit, 6);
    EXPECT_EQ(r.used, 5);
}

}  // namespace

namespace {
TEST(Mirror, TresCountFindsTheExactName) {
    EXPECT_EQ(tres_count("cpu=4,mem=1G,gres/gpu=2,gres/gpu:a100=2", "gres/gpu"), 2);
    EXPECT_EQ(tres_count("gres/gpu:a100=2", "gres/gpu"), 0);
    EXPECT_EQ(tres_count("", "gres/gpu"), 0);
    EXPECT_EQ(tres_count("cpu=64,gres/gpu=16", "gres/gpu"), 16);
}
}  // namespace

namespace {

TEST(Mirror, AClusterQueueLimitIsInForceOnceKueueHasObservedItsGeneration) {
    json cq = json::parse(R"({"metadata": {"generation": 3, "resourceVersion": "41"},
        "spec": {"resourceGroups": [{"flavors": [{"name": "a", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 2}]}]}]},
        "status": {"conditions": [{"type": "Active", "status": "True", "observedGeneration": 2}]}})");
    auto r = read_queue(cq, Backend::kueue, "nvidia.com/gpu");
    EXPECT_FALSE(r.in_force) << "Kueue's cache still holds generation 2";
    EXPECT_EQ(r.version, "41");
    cq["status"]["conditions"][0]["observedGeneration"] = 3;
    EXPECT_TRUE(read_queue(cq, Backend::kueue, "nvidia.com/gpu").in_force);
    cq["status"].erase("conditions");
    EXPECT_FALSE(read_queue(cq, Backend::kueue, "nvidia.com/gpu").in_force) << "no controller has reported";
}

TEST(Mirror, AVolcanoQueueWithoutAllocatedHasUnknownUse) {
    json q = json::parse(R"({"spec": {"capability": {"nvidia.com/gpu": 4}}})");
    EXPECT_FALSE(read_queue(q, Backend::volcano, "nvidia.com/gpu").use_known) << "missing is unknown, not zero";
    q["status"]["allocated"] = json::object();
    auto r = read_queue(q, Backend::volcano, "nvidia.com/gpu");
    EXPECT_TRUE(r.use_known);
    EXPECT_EQ(r.used, 0) << "reported, with no GPUs in it";
}

TEST(Mirror, AnEventNamesTheQueue) {
    json cq = json::parse(R"({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
        "metadata": {"name": "fairway-physics", "uid": "u-1", "resourceVersion": "7"}})");
    auto e = queue_event(cq, "fairway-system", "LimitRaisedOutsideBridge", "raised", "2026-12-07T00:00:00Z");
    EXPECT_EQ(e["metadata"]["namespace"], "fairway-system");
    EXPECT_EQ(e["metadata"]["generateName"], "fairway-physics.");
    EXPECT_EQ(e["involvedObject"]["kind"], "ClusterQueue");
    EXPECT_EQ(e["involvedObject"]["name"], "fairway-physics");
    EXPECT_EQ(e["involvedObject"]["uid"], "u-1");
    EXPECT_EQ(e["type"], "Warning");
    EXPECT_EQ(e["reason"], "LimitRaisedOutsideBridge");
}

}  // namespace

namespace {

json workload(const std::string& ns, const std::string& queue, long count, const std::string& gpus,
              const std::string& reserved = "") {
    json w = json::parse(R"({"metadata": {"name": "w"}, "spec": {"podSets": [{"name": "main", "template": {"spec":
        {"containers": [{"name": "c", "resources": {"requests": {}}}]}}}]}})");
    w["metadata"]["namespace"] = ns;
    w["spec"]["queueName"] = queue;
    w["spec"]["podSets"][0]["count"] = count;
    w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = gpus;
    if (!reserved.empty()) w["status"]["conditions"] = json::array({{{"type", "QuotaReserved"}, {"status", reserved}}});
    return w;
}

TEST(Mirror, KubernetesDemandIsCountedInGpusFromPendingWorkloads) {
    auto config = two_groups(Backend::kueue);
    config.kubernetes.local_queue = "fairway";
    json items = {workload("phys-a", "fairway", 2, "4"),           // an 8-GPU gang: 8, not 1
                  workload("phys-b", "fairway", 1, "1", "False"),  // waiting for quota
                  workload("phys-b", "fairway", 3, "2", "True"),   // holds its quota: use, not demand
                  workload("phys-a", "other", 1, "5"),             // another LocalQueue
                  workload("bio", "fairway", 1, "0")};
    auto demand = pending_gpus(config, items);
    EXPECT_EQ(demand["physics"], 9);
    EXPECT_EQ(demand["biology"], 0);
    items[0]["spec"]["active"] = false;
    EXPECT_EQ(pending_gpus(config, items)["physics"], 1) << "a deactivated Workload asks for nothing";
}

TEST(Mirror, APodRequestsItsContainersGpusOrItsLargestInitContainers) {
    json spec = json::parse(R"({"containers": [{"resources": {"requests": {"nvidia.com/gpu": "2"}}},
                                              {"resources": {"limits": {"nvidia.com/gpu": 1}}}],
                               "initContainers": [{"resources": {"requests": {"nvidia.com/gpu": "4"}}}]})");
    EXPECT_EQ(pod_gpus(spec, "nvidia.com/gpu"), 4);
    spec.erase("initContainers");
    EXPECT_EQ(pod_gpus(spec, "nvidia.com/gpu"), 3) << "a limit stands for an absent request";
}

TEST(Mirror, VolcanoDemandIsThePendingPodGroupsMinResources) {
    auto config = two_groups(Backend::volcano);
    json items = json::parse(R"([
        {"spec": {"queue": "fairway-physics", "minResources": {"nvidia.com/gpu": "8"}}, "status": {"phase": "Inqueue"}},
        {"spec": {"queue": "fairway-physics", "minResources": {"nvidia.com/gpu": "2"}}, "status": {"phase": "Running"}},
        {"spec": {"queue": "fairway-physics", "minResources": {"nvidia.com/gpu": "1"}}},
        {"spec": {"queue": "default", "minResources": {"nvidia.com/gpu": "4"}}}])");
    auto demand = pending_gpus(config, items);
    EXPECT_EQ(demand["physics"], 9);
    EXPECT_EQ(demand.count("biology"), 0u);
}

}  // namespace

namespace {

TEST(Mirror, ALocalQueueMovedToAnotherClusterQueueIsRecreated) {
    auto objects = desired_objects(two_groups(Backend::kueue), {{"gpu", 8, 1}}, {{"physics", 4}, {"biology", 2}});
    const DesiredObject* lq = nullptr;
    for (const auto& o : objects)
        if (o.kind == "LocalQueue" && o.collection.find("/namespaces/bio/") != std::string::npos) lq = &o;
    ASSERT_NE(lq, nullptr);
    EXPECT_FALSE(needs_recreation(json::parse(R"({"spec": {"clusterQueue": "fairway-biology"}})"), *lq));
    EXPECT_TRUE(needs_recreation(json::parse(R"({"spec": {"clusterQueue": "fairway-physics"}})"), *lq))
        << "spec.clusterQueue is immutable";
    EXPECT_FALSE(needs_recreation(json::object(), *lq)) << "absent: created";
    EXPECT_FALSE(needs_recreation(json::parse(R"({"spec": {"cohort": "x"}})"),
                                  *find(objects, "ClusterQueue", "fairway-physics")));
}

// What Kueue v0.14's CRD schema and webhook require of a ClusterQueue and ResourceFlavor.
void expect_kueue_accepts(const DesiredObject& object) {
    EXPECT_TRUE(is_dns1123_label(object.name)) << object.name;
    if (object.kind == "ResourceFlavor") {
        EXPECT_LE(object.body["spec"]["nodeLabels"].size(), 8u);
    }
    if (object.kind != "ClusterQueue") return;
    const json& spec = object.body["spec"];
    for (const auto& expression :
         spec.value("namespaceSelector", json::object()).value("matchExpressions", json::array()))
        if (expression["operator"] == "In") {
            EXPECT_FALSE(expression["values"].empty()) << object.name;
        }
    std::set<std::string> resources, flavors;
    for (const auto& group : spec.value("resourceGroups", json::array())) {
        EXPECT_FALSE(group["coveredResources"].empty());
        EXPECT_FALSE(group["flavors"].empty()) << object.name << ": a resource group without flavors";
        for (const auto& r : group["coveredResources"]) EXPECT_TRUE(resources.insert(r).second) << r;
        for (const auto& flavor : group["flavors"]) {
            EXPECT_TRUE(flavors.insert(flavor["name"]).second) << flavor["name"];
            ASSERT_EQ(flavor["resources"].size(), group["coveredResources"].size());
            for (std::size_t i = 0; i < flavor["resources"].size(); ++i)
                EXPECT_EQ(flavor["resources"][i]["name"], group["coveredResources"][i]) << "same order";
        }
    }
}

TEST(Mirror, KueueAcceptsEveryObjectEvenForOddPartitionsAndEmptyGroups) {
    BridgeConfig config = two_groups(Backend::kueue);
    config.groups.push_back({"idle", {"idle"}, {}, 2});
    auto objects = desired_objects(config, {{"gpu_A100", 8, 1}, {"gpu-a100", 4, 1}}, {{"physics", 6}});
    for (const auto& o : objects) expect_kueue_accepts(o);
    EXPECT_TRUE(find(objects, "ResourceFlavor", partition_flavor("gpu_A100")));
    EXPECT_TRUE(find(objects, "ResourceFlavor", "slurm-gpu-a100"));
    const auto* idle = find(objects, "ClusterQueue", "fairway-idle");
    ASSERT_TRUE(idle);
    EXPECT_FALSE(idle->body["spec"].contains("namespaceSelector")) << "no namespaces: no selector (matches none)";
    auto no_partitions = desired_objects(config, {}, {{"physics", 6}});
    for (const auto& o : no_partitions) expect_kueue_accepts(o);
    EXPECT_FALSE(find(no_partitions, "ClusterQueue", "fairway-physics")->body["spec"].contains("resourceGroups"))
        << "no flavor: no resource group";
}

TEST(Mirror, AClusterQueueCoversCpuAndMemoryUnlimitedByDefault) {
    BridgeConfig config = two_groups(Backend::kueue);
    config.kubernetes.covered_resources = KubernetesSettings{}.covered_resources;
    auto objects = desired_objects(config, {{"gpu", 8, 1}, {"debug", 4, 1}}, {{"physics", 6}});
    const auto& group = find(objects, "ClusterQueue", "fairway-physics")->body["spec"]["resourceGroups"][0];
    EXPECT_EQ(group["coveredResources"], json({"nvidia.com/gpu", "cpu", "memory"}));
    for (const auto& flavor : group["flavors"]) {
        EXPECT_EQ(flavor["resources"][1], json({{"name", "cpu"}, {"nominalQuota", unlimited_quota("cpu")}}));
        EXPECT_EQ(flavor["resources"][2], json({{"name", "memory"}, {"nominalQuota", unlimited_quota("memory")}}));
    }
    EXPECT_EQ(
        read_queue(find(objects, "ClusterQueue", "fairway-physics")->body, Backend::kueue, "nvidia.com/gpu").limit, 6)
        << "only the GPU counts towards L_k";
}

TEST(Mirror, AnAdminsResourceGroupIsKeptAndItsResourcesLeftToIt) {
    BridgeConfig config = two_groups(Backend::kueue);
    auto first = desired_objects(config, {{"gpu", 8, 1}}, {{"physics", 6}});
    json observed = find(first, "ClusterQueue", "fairway-physics")->body;
    const json admin = {
        {"coveredResources", {"cpu", "example.com/fpga"}},
        {"flavors",
         {{{"name", "cpu-nodes"},
           {"resources",
            {{{"name", "cpu"}, {"nominalQuota", 64}}, {{"name", "example.com/fpga"}, {"nominalQuota", 2}}}}}}}};
    observed["spec"]["resourceGroups"].push_back(admin);
    QueueReading reading = read_queue(observed, Backend::kueue, "nvidia.com/gpu");
    EXPECT_EQ(reading.flavors.kept_groups, json::array({admin}));
    EXPECT_EQ(reading.limit, 6);
    auto again = desired_objects(config, {{"gpu", 8, 1}}, {{"physics", 6}}, {{"physics", reading.flavors}});
    const auto* cq = find(again, "ClusterQueue", "fairway-physics");
    expect_kueue_accepts(*cq);
    const auto& groups = cq->body["spec"]["resourceGroups"];
    ASSERT_EQ(groups.size(), 2u) << "the forced apply replaces the whole list: the admin's group must be in it";
    EXPECT_EQ(groups[1], admin);
    EXPECT_EQ(groups[0]["coveredResources"], json({"nvidia.com/gpu", "memory"})) << "cpu is the admin's group's";
}

}  // namespace
