#include "quota/bridge_config.h"

#include <gtest/gtest.h>

#include "common/error.h"

using fairway::InputError;
using fairway::quota::Backend;
using fairway::quota::parse_bridge_config;

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
        BadConfig{"kubernetes: {}\n", 0, "groups"}));

}  // namespace
