#include "binding/training_env.h"
#include "common/error.h"

#include <gtest/gtest.h>

#include <set>

using namespace fairway::binding;

TEST(TrainingEnv, EveryVariableTorchReads) {
    RankIdentity rank{.job_id = 42,
                      .step_id = 3,
                      .port_key = 0x0123456789abcdefULL,
                      .global_rank = 5,
                      .local_rank = 1,
                      .world_size = 8,
                      .local_world_size = 4,
                      .node_rank = 1,
                      .step_nodelist = "node[2-3]"};
    PortRange ports{29500, 29999};
    auto env = training_env(rank, ports);
    EnvList expected{{"RANK", "5"},
                     {"LOCAL_RANK", "1"},
                     {"WORLD_SIZE", "8"},
                     {"LOCAL_WORLD_SIZE", "4"},
                     {"NODE_RANK", "1"},
                     {"MASTER_ADDR", "node2"},
                     {"MASTER_PORT", std::to_string(master_port(ports, 0x0123456789abcdefULL, 42, 3))}};
    EXPECT_EQ(env, expected);
}

TEST(TrainingEnv, NodePartIsTheSameForEveryRankOfTheNode) {
    RankIdentity first{.job_id = 42,
                       .step_id = 3,
                       .global_rank = 4,
                       .local_rank = 0,
                       .world_size = 8,
                       .local_world_size = 4,
                       .node_rank = 1,
                       .step_nodelist = "node[2-3]"};
    RankIdentity other = first;
    other.global_rank = 7;
    other.local_rank = 3;
    EXPECT_EQ(node_training_env(first, {}), node_training_env(other, {}));
    EXPECT_EQ(rank_training_env(other), (EnvList{{"RANK", "7"}, {"LOCAL_RANK", "3"}}));
    EXPECT_EQ(node_training_env(first, {}).size() + rank_training_env(first).size(), training_env(first, {}).size());
}

TEST(TrainingEnv, MasterPortIsDeterministicAndInRange) {
    PortRange ports{40000, 40009};
    std::set<int> seen;
    for (std::uint32_t job = 1; job <= 200; ++job) {
        int port = master_port(ports, 99, job, 0);
        EXPECT_EQ(port, master_port(ports, 99, job, 0));
        EXPECT_GE(port, 40000);
        EXPECT_LE(port, 40009);
        seen.insert(port);
    }
    EXPECT_EQ(seen.size(), 10u);  // consecutive jobs use the whole range
    EXPECT_NE(master_port({29500, 29999}, 99, 7, 0), master_port({29500, 29999}, 99, 7, 1));
    EXPECT_EQ(master_port({29500, 29500}, 99, 123, 4), 29500);
}

// Who knows only the public job and step ids cannot tell the port: for one step, the keys srun
// may draw spread it over the whole range.
TEST(TrainingEnv, MasterPortDependsOnTheKeyNotOnlyOnTheIds) {
    PortRange ports{29500, 29999};
    std::set<int> seen;
    for (std::uint64_t key = 1; key <= 2000; ++key) seen.insert(master_port(ports, key * 0x9e3779b97f4a7c15ULL, 42, 3));
    EXPECT_GT(seen.size(), 450u);
    EXPECT_NE(master_port(ports, 1, 42, 3), master_port(ports, 2, 42, 3));
}

TEST(TrainingEnv, PortKeyRoundTripsAndRefusesAnythingElse) {
    for (std::uint64_t key : {0ULL, 1ULL, 0x0123456789abcdefULL, ~0ULL}) {
        EXPECT_EQ(format_port_key(key).size(), 16u);
        EXPECT_EQ(parse_port_key(format_port_key(key)), key);
    }
    EXPECT_EQ(format_port_key(0x0123456789abcdefULL), "0123456789abcdef");
    for (const char* bad : {"", "0123456789abcde", "0123456789abcdef0", "0123456789ABCDEF", "0123456789abcdeg",
                            " 123456789abcdef", "-123456789abcdef"})
        EXPECT_EQ(parse_port_key(bad), std::nullopt) << bad;
}

TEST(TrainingEnv, MalformedNodelistIsAnInputError) {
    RankIdentity rank;
    rank.step_nodelist = "node[1-";
    EXPECT_THROW(training_env(rank, {}), fairway::InputError);
}
