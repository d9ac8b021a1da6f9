// multifactor's job priority formula, factor by factor.
#include "fairshare/job_priority.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;
TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

PriorityConfig weights_only(std::uint32_t age, std::uint32_t fs, std::uint32_t js, std::uint32_t part,
                            std::uint32_t qos, std::uint32_t assoc) {
    PriorityConfig config;
    config.weights = PriorityWeights{age, assoc, fs, js, part, qos, {}};
    config.max_age = Seconds{1000};
    return config;
}

JobFacts plain_job() {
    JobFacts job;
    job.partitions.push_back(PartitionFacts{"main", 10, 0.5, 60, {}});
    return job;
}

TEST(PriorityAge, GrowsLinearlyUntilMaxAge) {
    const PriorityConfig config = weights_only(1000, 0, 0, 0, 0, 0);
    struct Case {
        std::optional<std::int64_t> accrued_ago;
        double factor;
    };
    for (const Case& c : {Case{std::nullopt, 0}, Case{0, 0}, Case{-50, 0}, Case{250, 0.25}, Case{999, 0.999},
                          Case{1000, 1}, Case{100000, 1}}) {
        JobFacts job = plain_job();
        if (c.accrued_ago) job.accrue_time = at(kNow - *c.accrued_ago);
        const JobPriority p = compute_job_priority(config, {}, job, at(kNow));
        EXPECT_DOUBLE_EQ(p.normalised.age, c.factor);
        EXPECT_DOUBLE_EQ(p.weighted.age, 1000 * c.factor);
    }
    JobFacts epoch = plain_job();
    epoch.accrue_time = TimePoint{};  // accrue_time 0 means "not accruing" in Slurm
    EXPECT_EQ(compute_job_priority(config, {}, epoch, at(kNow)).normalised.age, 0);
}

TEST(PriorityJobSize, FavorsLargeSmallAndSmallRelativeToTime) {
    const ClusterShape cluster{10, 100};
    JobFacts job = plain_job();
    job.min_nodes = 2;
    job.cpus = 40;
    job.time_limit_minutes = 30;
    PriorityConfig config = weights_only(0, 0, 1000, 0, 0, 0);
    EXPECT_DOUBLE_EQ(compute_job_priority(config, cluster, job, at(kNow)).normalised.job_size, (0.2 + 0.4) / 2);
    config.favor_small = true;
    EXPECT_DOUBLE_EQ(compute_job_priority(config, cluster, job, at(kNow)).normalised.job_size, (0.8 + 0.6) / 2);
    config.flags.small_relative_to_time = true;  // max(2 nodes * 10 cpus, 40) / 30 min / 100 cpus
    EXPECT_DOUBLE_EQ(compute_job_priority(config, cluster, job, at(kNow)).normalised.job_size, 1.0 - 40.0 / 30 / 100);
    job.time_limit_minutes.reset();  // partition MaxTime 60
    EXPECT_DOUBLE_EQ(compute_job_priority(config, cluster, job, at(kNow)).normalised.job_size, 1.0 - 40.0 / 60 / 100);
    config = weights_only(0, 0, 1000, 0, 0, 0);
    config.favor_small = true;
    job.min_nodes = 20;  // larger than the cluster: multifactor's unsigned arithmetic wraps, then clamps
    EXPECT_DOUBLE_EQ(compute_job_priority(config, cluster, job, at(kNow)).normalised.job_size, 1.0);
}

TEST(PriorityFormula, SumsWeightedFactorsPlusSiteMinusNice) {
    PriorityConfig config = weights_only(1000, 10000, 0, 2000, 3000, 500);
    JobFacts job = plain_job();
    job.accrue_time = at(kNow - 500);  // age 0.5
    job.fairshare_factor = 0.25;
    job.qos_priority = 7;
    job.qos_priority_norm = 0.7;
    job.assoc_priority = 3;
    job.assoc_priority_norm = 0.3;
    job.site_factor = 40;
    job.nice = -60;
    const JobPriority p = compute_job_priority(config, {}, job, at(kNow));
    EXPECT_DOUBLE_EQ(p.weighted.fairshare, 2500);
    EXPECT_DOUBLE_EQ(p.weighted.partition, 1000);
    EXPECT_DOUBLE_EQ(p.weighted.qos, 2100);
    EXPECT_DOUBLE_EQ(p.weighted.assoc, 150);
    EXPECT_EQ(p.priority, 500U + 2500 + 1000 + 2100 + 150 + 40 + 60);
    EXPECT_TRUE(p.partition_priority.empty());
    config.flags.no_normal_assoc = config.flags.no_normal_qos = config.flags.no_normal_partition = true;
    const JobPriority raw = compute_job_priority(config, {}, job, at(kNow));
    EXPECT_DOUBLE_EQ(raw.normalised.assoc, 3);
    EXPECT_DOUBLE_EQ(raw.normalised.qos, 7);
    EXPECT_DOUBLE_EQ(raw.normalised.partition, 10);
}

TEST(PriorityFormula, ZeroWeightsLeaveFactorsOut) {
    JobFacts job = plain_job();
    job.fairshare_factor = 0.9;
    job.accrue_time = at(kNow - 5000);
    job.qos_priority = 1;
    job.qos_priority_norm = 1;
    const JobPriority p = compute_job_priority(weights_only(0, 0, 0, 0, 0, 0), {}, job, at(kNow));
    EXPECT_EQ(p.normalised.fairshare, 0);
    EXPECT_EQ(p.normalised.age, 0);
    EXPECT_EQ(p.normalised.qos, 0);
    EXPECT_EQ(p.priority, 1U);  // 0 is reserved for held jobs
}

TEST(PriorityFormula, ClampsLikeMultifactor) {
    EXPECT_EQ(clamp_priority(-5), 1U);
    EXPECT_EQ(clamp_priority(0.99), 1U);
    EXPECT_EQ(clamp_priority(std::nan("")), 1U);
    EXPECT_EQ(clamp_priority(1.7), 1U);
    EXPECT_EQ(clamp_priority(12345.9), 12345U);
    EXPECT_EQ(clamp_priority(4294967295.0), 0xFFFFFFFFU);
    EXPECT_EQ(clamp_priority(1e30), 0xFFFFFFFFU);
    EXPECT_EQ(clamp_priority(INFINITY), 0xFFFFFFFFU);
    JobFacts job = plain_job();
    job.fairshare_factor = 1;
    EXPECT_EQ(compute_job_priority(weights_only(0, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0, 0), {}, job, at(kNow)).priority,
              0xFFFFFFFFU);
    job.nice = 100000;
    EXPECT_EQ(compute_job_priority(weights_only(0, 1000, 0, 0, 0, 0), {}, job, at(kNow)).priority, 1U);
}

TEST(PriorityTres, WeightsShareOfThePartition) {
    PriorityConfig config = weights_only(0, 0, 0, 0, 0, 0);
    config.weights.tres = {1000, 0, 5000};  // cpu, mem, gres/gpu
    JobFacts job = plain_job();
    job.tres_count = {4, 4096, 1};
    job.partitions[0].tres_total = {64, 1 << 20, 8};
    const JobPriority p = compute_job_priority(config, {}, job, at(kNow));
    ASSERT_EQ(p.normalised.tres.size(), 3U);
    EXPECT_DOUBLE_EQ(p.normalised.tres[0], 4.0 / 64);
    EXPECT_DOUBLE_EQ(p.weighted.tres[2], 5000.0 / 8);
    EXPECT_EQ(p.priority, std::uint32_t(62.5 + 625));
    config.flags.no_normal_tres = true;
    EXPECT_DOUBLE_EQ(compute_job_priority(config, {}, job, at(kNow)).normalised.tres[0], 4);
}

TEST(PriorityPartitions, MultiPartitionJobGetsOnePriorityEach) {
    PriorityConfig config = weights_only(0, 1000, 0, 10000, 0, 0);
    config.weights.tres = {100};
    JobFacts job = plain_job();
    job.fairshare_factor = 0.5;
    job.tres_count = {8};
    job.partitions = {PartitionFacts{"gpu", 100, 1.0, 60, {16}}, PartitionFacts{"cpu", 10, 0.1, 60, {64}},
                      PartitionFacts{"idle", 0, 0.0, 60, {}}};
    const JobPriority p = compute_job_priority(config, {}, job, at(kNow));
    ASSERT_EQ(p.partition_priority.size(), 3U);
    EXPECT_EQ(p.partition_priority[0], 500U + 10000 + 50);
    EXPECT_EQ(p.partition_priority[1], 500U + 1000 + 12);  // 12.5 truncated
    EXPECT_EQ(p.partition_priority[2], 500U);
    EXPECT_EQ(p.priority, p.partition_priority[0]);
}

TEST(PriorityInput, RejectsInconsistentOrNonFiniteFacts) {
    PriorityConfig config = weights_only(0, 1, 0, 0, 0, 0);
    config.weights.tres = {1, 2};
    JobFacts job = plain_job();
    job.tres_count = {1};
    struct Case {
        const char* what;
        PriorityConfig config;
        JobFacts job;
        const char* key;
    };
    std::vector<Case> cases;
    cases.push_back({"tres weights vs counts", config, job, "tres"});
    JobFacts partition_mismatch = plain_job();
    partition_mismatch.tres_count = {1, 2};
    partition_mismatch.partitions[0].tres_total = {1};
    cases.push_back({"partition totals", config, partition_mismatch, "tres"});
    JobFacts no_partition = plain_job();
    no_partition.partitions.clear();
    cases.push_back({"no partition", weights_only(0, 1, 0, 0, 0, 0), no_partition, "partitions"});
    JobFacts nan_fs = plain_job();
    nan_fs.fairshare_factor = std::nan("");
    cases.push_back({"NaN fair-share", weights_only(0, 1, 0, 0, 0, 0), nan_fs, "fairshare_factor"});
    for (const Case& c : cases) {
        try {
            compute_job_priority(c.config, {}, c.job, at(kNow));
            ADD_FAILURE() << c.what << " accepted";
        } catch (const InputError& error) {
            EXPECT_EQ(error.where().key, c.key) << c.what;
        }
    }
    EXPECT_THROW(compute_job_priority(weights_only(0, 1, 0, 0, 0, 0), ClusterShape{0, 0}, plain_job(), at(kNow)),
                 InputError);
}

}  // namespace
}  // namespace fairway::fairshare
