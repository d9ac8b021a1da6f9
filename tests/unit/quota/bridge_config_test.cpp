#include "quota/bridge_config.h"

#include <gtest/gtest.h>

#include "common/error.h"

using fairway::InputError;
using fairway::quota::Backend;
using fairway::quota::is_dns1123_label;
using fairway::quota::kFlavorPrefix;
using fairway::quota::parse_bridge_config;
using fairway::quota::partition_flavor;

namespace {

const char* kMinimal = R"(
groups:
  - name: physics
    accounts: [physics]
    namespaces: [physics-ml]
    gpus: 8
)";

TEST(BridgeConfig, MinimalConfigGetsDefaults) {
    auto config = parse_bridge_config(kMinimal, "bridge.yaml");
    EXPECT_EQ(config.kubernetes.backend, Backend::kueue);
    EXPECT_EQ(config.kubernetes.kubeconfig, "");
    EXPECT_EQ(config.metrics_listen, "127.0.0.1:9464");
    EXPECT_EQ(config.reconcile.period_seconds, 10);
    EXPECT_EQ(config.kubernetes.cohort, "") << "no cohort unless one is named";
    ASSERT_EQ(config.groups.size(), 1u);
    EXPECT_EQ(config.groups[0].gpus, 8);
    EXPECT_EQ(config.groups[0].namespaces, std::vector<std::string>{"physics-ml"});
}

TEST(BridgeConfig, FullConfigIsRead) {
    auto config = parse_bridge_config(R"(
kubernetes: {kubeconfig: /etc/k.conf, backend: volcano, cohort: lab, local_queue: q}
slurm: {cluster: c1, gres: gpu}
reconcile: {period_seconds: 5, stale_after_seconds: 20, write_timeout_seconds: 4}
metrics: {listen: "0.0.0.0:9000"}
partitions:
  gpu: {node_labels: {pool: a100}}
groups:
  - {name: a, gpus: 4, accounts: [x]}
  - {name: b, gpus: 0, accounts: [y]}
)",
                                      "f.yaml");
    EXPECT_EQ(config.kubernetes.backend, Backend::volcano);
    EXPECT_EQ(config.kubernetes.kubeconfig, "/etc/k.conf");
    EXPECT_EQ(config.kubernetes.cohort, "lab");
    EXPECT_EQ(config.reconcile.write_timeout_seconds, 4);
    EXPECT_EQ(config.partitions.at("gpu").node_labels.at("pool"), "a100");
    EXPECT_EQ(config.groups[1].accounts, std::vector<std::string>{"y"});
}

struct BadConfig {
    const char* text;
    int line;
    const char* key;
};

class BridgeConfigErrors : public ::testing::TestWithParam<BadConfig> {};

TEST_P(BridgeConfigErrors, NameFileLineAndKey) {
    const auto& bad = GetParam();
    try {
        parse_bridge_config(bad.text, "bridge.yaml");
        FAIL() << "accepted: " << bad.text;
    } catch (const InputError& e) {
        EXPECT_EQ(e.where().file, "bridge.yaml");
        EXPECT_EQ(e.where().line, bad.line) << e.what();
        EXPECT_EQ(e.where().key, bad.key) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Table, BridgeConfigErrors,
    ::testing::Values(
        BadConfig{"kubernetes:\n  backend: slurm\ngroups: []\n", 2, "kubernetes.backend"},
        BadConfig{"kubernetes:\n  kubeconfg: /x\ngroups: []\n", 2, "kubernetes.kubeconfg"},
        BadConfig{"kubernetes:\n  standing_weights: yes\ngroups: []\n", 2, "kubernetes.standing_weights"},
        BadConfig{"groups:\n  - name: a\n    accounts: [p]\n    gpus: many\n", 4, "groups[0].gpus"},
        BadConfig{"groups:\n  - name: a\n    accounts: [p]\n    gpus: -1\n", 4, "groups[0].gpus"},
        BadConfig{"groups:\n  - name: a\n    accounts: [p]\n", 2, "groups[0].gpus"},
        BadConfig{"groups:\n  - {name: a, gpus: 1}\n", 2, "groups[0].accounts"},
        BadConfig{"groups:\n  - {name: a, gpus: 1, accounts: [p, q]}\n", 2, "groups[0].accounts"},
        BadConfig{"groups:\n  - {name: a, gpus: 1, accounts: [p]}\n  - {name: a, gpus: 2, accounts: [q]}\n", 3,
                  "groups[1].name"},
        BadConfig{"groups:\n  - {name: a, gpus: 1, accounts: [p]}\n  - {name: b, gpus: 2, accounts: [p]}\n", 3,
                  "groups[1].accounts"},
        BadConfig{"reconcile:\n  period_seconds: 0\ngroups: []\n", 2, "reconcile.period_seconds"},
        BadConfig{"metrics: {listen: ''}\ngroups: []\n", 1, "metrics.listen"},
        BadConfig{"bogus: 1\ngroups: []\n", 1, "bogus"}, BadConfig{"groups: [\n", 2, ""},
        BadConfig{"kubernetes: {}\n", 0, "groups"}, BadConfig{"groups: []\nusage:\n  source: a-b\n", 3, "usage.source"},
        BadConfig{"groups: []\nusage:\n  gpu_billing: -1\n", 3, "usage.gpu_billing"},
        BadConfig{"groups: []\nusage:\n  keep_days: 0\n", 3, "usage.keep_days"},
        BadConfig{"groups: []\nusage:\n  associations: {ns: a/b/c}\n", 3, "usage.associations.ns"},
        BadConfig{"groups: []\nusage:\n  spol: /x\n", 3, "usage.spol"},
        // Names Kubernetes would refuse, found before anything is written.
        BadConfig{"groups:\n  - {name: Physics_ML, gpus: 1, accounts: [p]}\n", 2, "groups[0].name"},
        BadConfig{"groups:\n  - {name: a, gpus: 1, accounts: [p], namespaces: [ok, Bad_NS]}\n", 2,
                  "groups[0].namespaces[1]"},
        BadConfig{"kubernetes:\n  cohort: My_Cohort\ngroups: []\n", 2, "kubernetes.cohort"},
        BadConfig{"kubernetes:\n  owner: Site_B\ngroups: []\n", 2, "kubernetes.owner"},
        BadConfig{"kubernetes:\n  flavors: nodes\ngroups: []\n", 2, "kubernetes.flavors"},
        BadConfig{"gpu_types:\n  a100:\n    labels: {x: y}\ngroups: []\n", 3, "gpu_types.a100.labels"},
        BadConfig{"partitions:\n  gpu:\n    node_labels: {a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1, h: 1, i: 1}\n"
                  "groups: []\n",
                  3, "partitions.gpu.node_labels"},
        BadConfig{"kubernetes:\n  covered_resources:\n    cpu: lots\ngroups: []\n", 3,
                  "kubernetes.covered_resources.cpu"},
        BadConfig{"kubernetes:\n  covered_resources:\n    nvidia.com/gpu: unlimited\ngroups: []\n", 3,
                  "kubernetes.covered_resources.nvidia.com/gpu"}));

TEST(BridgeConfig, FlavorsPerGpuTypeAreRead) {
    auto config = parse_bridge_config(R"(
kubernetes: {flavors: gpu_types, gpu_type_label: example.com/gpu}
gpu_types:
  h100: {node_labels: {nvidia.com/gpu.product: H100}}
groups: [{name: a, gpus: 4, accounts: [x]}]
)",
                                      "f.yaml");
    EXPECT_EQ(config.kubernetes.flavors, fairway::quota::FlavorBasis::gpu_types);
    EXPECT_EQ(config.kubernetes.gpu_type_label, "example.com/gpu");
    EXPECT_EQ(config.gpu_types.at("h100").node_labels.at("nvidia.com/gpu.product"), "H100");
    EXPECT_EQ(parse_bridge_config(kMinimal, "f.yaml").kubernetes.flavors, fairway::quota::FlavorBasis::partitions);
    EXPECT_TRUE(parse_bridge_config(kMinimal, "f.yaml").kubernetes.standing_weights) << "published by default";
    EXPECT_FALSE(parse_bridge_config("kubernetes: {standing_weights: false}\ngroups: []\n", "f.yaml")
                     .kubernetes.standing_weights);
    EXPECT_EQ(fairway::quota::gpu_type_flavor("a100"), "gpu-a100");
    EXPECT_TRUE(is_dns1123_label(fairway::quota::gpu_type_flavor("A100_80GB")));
}

TEST(BridgeConfig, PartitionsWhoseFlavorsWouldCollideAreRefused) {
    EXPECT_NO_THROW(
        parse_bridge_config("partitions:\n  gpu_A100: {}\n  gpu_a100: {}\n  gpu-a100: {}\ngroups: []\n", "bridge.yaml"))
        << "differing in case or punctuation only, the hash keeps them apart";
    // The one way to meet: a partition named like another's hashed flavor.
    const std::string twin = partition_flavor("gpu_a100").substr(std::string(kFlavorPrefix).size());
    try {
        parse_bridge_config("partitions:\n  gpu_a100: {}\n  " + twin + ": {}\ngroups: []\n", "bridge.yaml");
        FAIL() << "accepted two partitions sharing flavor " << partition_flavor("gpu_a100");
    } catch (const InputError& e) {
        EXPECT_EQ(e.where().line, 3);
        EXPECT_EQ(e.where().key, "partitions." + twin);
        EXPECT_NE(std::string(e.what()).find("would share ResourceFlavor"), std::string::npos) << e.what();
    }
}

TEST(BridgeConfig, PartitionFlavorsAreDns1123LabelsAndStable) {
    EXPECT_EQ(partition_flavor("gpu"), "slurm-gpu") << "a valid name stays as it is";
    for (const std::string& partition :
         std::vector<std::string>{"gpu_A100", "GPU", "a.b", "___", "x-", std::string(80, 'p')}) {
        const std::string flavor = partition_flavor(partition);
        EXPECT_TRUE(is_dns1123_label(flavor)) << partition << " -> " << flavor;
        EXPECT_EQ(partition_flavor(flavor.substr(6)), flavor) << "a flavor's own name maps to itself";
    }
    EXPECT_NE(partition_flavor("gpu_A100"), partition_flavor("gpu_a100"));
    EXPECT_EQ(partition_flavor("gpu_A100"), "slurm-gpu-a100-" + partition_flavor("gpu_A100").substr(15))
        << "readable: lowercased, '_' as '-'";
}

TEST(BridgeConfig, CpuAndMemoryAreCoveredUnlimitedByDefault) {
    auto config = parse_bridge_config(kMinimal, "bridge.yaml");
    EXPECT_EQ(config.kubernetes.covered_resources,
              (std::map<std::string, std::string>{{"cpu", "unlimited"}, {"memory", "unlimited"}}));
    config = parse_bridge_config("kubernetes: {covered_resources: {memory: 512Gi}}\ngroups: []\n", "b.yaml");
    EXPECT_EQ(config.kubernetes.covered_resources, (std::map<std::string, std::string>{{"memory", "512Gi"}}));
    config = parse_bridge_config("kubernetes: {covered_resources: {}}\ngroups: []\n", "b.yaml");
    EXPECT_TRUE(config.kubernetes.covered_resources.empty()) << "none: Kueue's excludeResourcePrefixes instead";
}

TEST(BridgeConfig, UsageSectionIsRead) {
    auto config = parse_bridge_config(std::string(kMinimal) + R"(
usage:
  spool: /var/spool/slurmctld/fairway_usage
  source: gpu.bridge
  record_seconds: 30
  keep_days: 20
  gpu_billing: 8.5
  associations: {physics-ml: physics/alice}
)",
                                      "bridge.yaml");
    EXPECT_EQ(config.usage.spool, "/var/spool/slurmctld/fairway_usage");
    EXPECT_EQ(config.usage.source, "gpu.bridge");
    EXPECT_EQ(config.usage.record_seconds, 30);
    EXPECT_EQ(config.usage.keep_seconds, 20 * 86400);
    EXPECT_DOUBLE_EQ(config.usage.gpu_billing, 8.5);
    EXPECT_EQ(config.usage.associations.at("physics-ml"), "physics/alice");
    EXPECT_TRUE(parse_bridge_config(kMinimal, "bridge.yaml").usage.spool.empty());
}

}  // namespace
