#include "binding/gpu_policy.h"
#include "common/error.h"

#include <gtest/gtest.h>

using namespace fairway::binding;
using Kind = PolicyKind;

namespace {

// Four GPUs "0".."3"; GPUs 0,1 on NUMA node 0 and 2,3 on node 1 unless told otherwise.
std::vector<StepGpu> four_gpus(std::vector<std::optional<int>> numa = {0, 0, 1, 1}) {
    std::vector<StepGpu> gpus;
    for (std::size_t i = 0; i < numa.size(); ++i) gpus.push_back({std::to_string(i), numa[i]});
    return gpus;
}

// CUDA_VISIBLE_DEVICES for every local rank, ";"-separated, or "untouched" for none.
std::string plan(const char* policy, int ranks, const std::vector<StepGpu>& gpus,
                 const std::vector<std::vector<int>>& cpus = {}, const NumaLayout& numa = {}) {
    std::string text;
    for (int r = 0; r < ranks; ++r) {
        RankPlacement placement{r, ranks, cpus.empty() ? std::vector<int>{} : cpus[r]};
        auto chosen = select_gpus(parse_gpu_policy(policy), gpus, placement, numa);
        text += (r ? ";" : "") + (chosen ? visible_devices(*chosen) : std::string("untouched"));
    }
    return text;
}

const NumaLayout kTwoSockets = {{0, {0, 1, 2, 3}}, {1, {4, 5, 6, 7}}};

}  // namespace

TEST(GpuPolicy, ParsesEveryForm) {
    struct Case {
        const char* text;
        Kind kind;
        unsigned per_rank;
        const char* canonical;
    };
    for (auto [text, kind, per_rank, canonical] :
         {Case{"none", Kind::none, 0, "none"}, Case{"per-rank:2", Kind::per_rank, 2, "per-rank:2"},
          Case{"per-rank:1", Kind::per_rank, 1, "per-rank:1"}, Case{"round-robin", Kind::round_robin, 0, "round-robin"},
          Case{"closest", Kind::closest, 0, "closest"}, Case{"ordered", Kind::ordered, 0, "ordered"}}) {
        auto policy = parse_gpu_policy(text);
        EXPECT_EQ(policy.policy, kind) << text;
        EXPECT_EQ(policy.gpus_per_rank, per_rank) << text;
        EXPECT_EQ(to_string(policy), canonical);
    }
}

TEST(GpuPolicy, RejectsUnknownFormsListingTheAcceptedOnes) {
    for (const char* bad : {"", "None", "per-rank:0", "per-rank:", "per-rank:x", "per-rank:-1", "per-rank:2000",
                            "roundrobin", "closest:2"}) {
        try {
            parse_gpu_policy(bad);
            ADD_FAILURE() << bad;
        } catch (const fairway::InputError& error) {
            EXPECT_EQ(error.where().key, "gpu_binding");
            EXPECT_NE(std::string(error.what()).find("round-robin"), std::string::npos) << error.what();
        }
    }
}

// The message reaches slurmstepd's log: a newline or escape sequence in it must not forge a line.
TEST(GpuPolicy, QuotesARefusedPolicyEscaped) {
    try {
        parse_gpu_policy("closest\nerror: FORGED\x1b[2J\x01");
        ADD_FAILURE() << "accepted";
    } catch (const fairway::InputError& error) {
        std::string message = error.what();
        EXPECT_NE(message.find("'closest\\nerror: FORGED\\x1b[2J\\x01'"), std::string::npos) << message;
        EXPECT_EQ(message.find_first_of("\n\x1b\x01"), std::string::npos) << message;
    }
}

TEST(GpuPolicy, PlansEveryRankOfANode) {
    struct Case {
        const char* policy;
        int ranks;
        const char* expected;
    };
    for (auto [policy, ranks, expected] : {
             Case{"none", 2, "untouched;untouched"}, Case{"per-rank:1", 4, "0;1;2;3"}, Case{"per-rank:2", 2, "0,1;2,3"},
             Case{"per-rank:1", 2, "0;1"}, Case{"per-rank:4", 1, "0,1,2,3"}, Case{"round-robin", 4, "0;1;2;3"},
             Case{"round-robin", 6, "0;1;2;3;0;1"}, Case{"round-robin", 1, "0"},
             Case{"ordered", 4, "0,1,2,3;1,0,2,3;2,0,1,3;3,0,1,2"},
             Case{"ordered", 5, "0,1,2,3;1,0,2,3;2,0,1,3;3,0,1,2;0,1,2,3"},
             Case{"closest", 4, "0;1;2;3"},  // no affinity known: spread by local rank
         })
        EXPECT_EQ(plan(policy, ranks, four_gpus()), expected) << policy << " x" << ranks;
}

TEST(GpuPolicy, KeepsSlurmsDeviceIdsVerbatim) {
    std::vector<StepGpu> gpus{{"5", 0}, {"7", 1}};
    EXPECT_EQ(plan("per-rank:1", 2, gpus), "5;7");
    EXPECT_EQ(plan("ordered", 2, gpus), "5,7;7,5");
}

TEST(GpuPolicy, ClosestFollowsTheTasksCpus) {
    auto gpus = four_gpus();
    // Block distribution, each rank pinned to its own cores: ranks 0,1 on socket 0, 2,3 on socket 1.
    EXPECT_EQ(plan("closest", 4, gpus, {{0, 1}, {2, 3}, {4, 5}, {6, 7}}, kTwoSockets), "0;1;2;3");
    // Cyclic distribution: ranks alternate sockets, and still get distinct, local GPUs.
    EXPECT_EQ(plan("closest", 4, gpus, {{0, 1}, {4, 5}, {2, 3}, {6, 7}}, kTwoSockets), "0;2;1;3");
    // A whole socket per rank: the socket's GPUs, spread by local rank.
    EXPECT_EQ(plan("closest", 2, gpus, {{0, 1, 2, 3}, {4, 5, 6, 7}}, kTwoSockets), "0;3");
    // GPUs on socket 1 only: ranks on socket 0 have no local GPU and spread over all of them.
    EXPECT_EQ(plan("closest", 2, four_gpus({1, 1, 1, 1}), {{0}, {1}}, kTwoSockets), "0;1");
    // Unknown GPU locality: spread by local rank.
    EXPECT_EQ(plan("closest", 2, four_gpus({std::nullopt, std::nullopt, std::nullopt, std::nullopt}), {{0}, {4}},
                   kTwoSockets),
              "0;1");
}

TEST(GpuPolicy, UnsatisfiablePoliciesSayWhatIsMissing) {
    struct Case {
        const char* policy;
        std::size_t gpus;
        int ranks;
        const char* message;
    };
    for (auto [policy, gpus, ranks, message] : {
             Case{"per-rank:2", 4, 3, "'per-rank:2' needs 6 GPUs for 3 local ranks but the step has 4 GPUs"},
             Case{"per-rank:1", 1, 2, "needs 2 GPUs for 2 local ranks but the step has 1 GPU on this node"},
             Case{"round-robin", 0, 1, "needs GPUs but the step has none on this node"},
             Case{"ordered", 0, 4, "has none"},
             Case{"closest", 0, 1, "has none"},
         }) {
        try {
            check_satisfiable(parse_gpu_policy(policy), gpus, ranks);
            ADD_FAILURE() << policy;
        } catch (const BindingError& error) {
            EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
        }
    }
    EXPECT_NO_THROW(check_satisfiable(parse_gpu_policy("none"), 0, 8));
    EXPECT_NO_THROW(check_satisfiable(parse_gpu_policy("per-rank:2"), 4, 2));
    EXPECT_THROW(select_gpus(parse_gpu_policy("per-rank:1"), four_gpus(), {4, 4, {}}), BindingError);
}
