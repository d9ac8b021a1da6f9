// The simulator on schedules worked out by hand, invariants on random traces, determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/simulator.h"
#include "tests/unit/sim/sim_fixtures.h"

using namespace fairway::sim;
using namespace fairway::sim::testing;

namespace {

// Only fair-share in the priority, recomputed every 10 s: orders are easy to work out by hand.
SimConfig fair_share_only(std::int64_t cores) {
    SimConfig config = one_node(cores);
    config.priority.weights = {};
    config.priority.weights.fairshare = 10000;
    config.calc_period = std::chrono::seconds{10};
    return config;
}

std::map<std::int64_t, std::int64_t> starts_of(const SimConfig& config, const PolicySpec& policy,
                                               const Population& population, const std::vector<SimJob>& jobs) {
    Recorder recorder(config.cluster);
    Simulator simulator(config, policy, population, StatisticsConfig{}, &recorder);
    replay(simulator, jobs);
    EXPECT_EQ(recorder.ended, jobs.size());
    return recorder.starts;
}

}  // namespace

// 4 cores. A holds all of them until 100; B and C then start together, in submit order.
TEST(Simulator, FcfsStartsJobsInSubmitOrderAsCoresFree) {
    Population users = population_of(2);
    std::vector<SimJob> jobs{job(users, 1, 1, 0, 4, 100, 100), job(users, 2, 2, 10, 2, 50, 100),
                             job(users, 1, 3, 20, 2, 30, 50)};
    auto starts = starts_of(one_node(4), PolicySpec{}, users, jobs);
    EXPECT_EQ(starts, (std::map<std::int64_t, std::int64_t>{{1, 0}, {2, 100}, {3, 100}}));

    Simulator simulator(one_node(4), PolicySpec{}, users, StatisticsConfig{});
    replay(simulator, jobs);
    const PolicyStatistics& stats = simulator.statistics();
    EXPECT_EQ(stats.jobs(), 3U);
    EXPECT_DOUBLE_EQ(stats.overall().mean_wait(), (0 + 90 + 80) / 3.0);
    EXPECT_DOUBLE_EQ(stats.overall().wait.quantile(0.5), 80);
    // Bounded slowdowns: 1, (90 + 50) / 50, (80 + 30) / 30.
    EXPECT_DOUBLE_EQ(stats.overall().mean_slowdown(), (1 + 2.8 + 110.0 / 30) / 3);
    // 4*100 + 2*50 + 2*30 core-seconds over 4 cores x 150 s.
    EXPECT_DOUBLE_EQ(stats.core_utilization(), 560.0 / 600);
    EXPECT_EQ(stats.last_end(), 150);
}

// 4 cores. A (2 cores) runs until 100; B needs all 4 and reserves 100. C (2 cores, limit 50) ends
// by then and backfills at once; D (2 cores, limit 200) would delay B and waits until B is done.
TEST(Simulator, BackfillFillsTheHoleWithoutDelayingTheHead) {
    Population users = population_of(2);
    std::vector<SimJob> jobs{job(users, 1, 1, 0, 2, 100, 100), job(users, 2, 2, 1, 4, 10, 10),
                             job(users, 1, 3, 2, 2, 50, 50), job(users, 2, 4, 3, 2, 100, 200)};
    Recorder recorder(one_node(4).cluster);
    Simulator simulator(one_node(4), PolicySpec{}, users, StatisticsConfig{}, &recorder);
    replay(simulator, jobs);
    EXPECT_EQ(recorder.starts, (std::map<std::int64_t, std::int64_t>{{1, 0}, {2, 100}, {3, 2}, {4, 110}}));
    EXPECT_EQ(recorder.backfilled_jobs, (std::vector<std::int64_t>{3}));
    EXPECT_GT(recorder.reservations, 0U);
    EXPECT_EQ(simulator.statistics().backfilled(), 1U);
}

// 1 core. u1 submits three 100 s jobs at 0, u2 one at 1. FCFS runs u2 last (waits 299 s). With
// fair-share, u1's usage from the first pass after its job started (t = 10) ranks u2 above it,
// so u2 runs as soon as u1's first job ends.
TEST(Simulator, FairShareFixesThePriorityInversionFcfsLeaves) {
    Population users = population_of(2);
    std::vector<SimJob> jobs{job(users, 1, 1, 0, 1, 100, 100), job(users, 1, 2, 0, 1, 100, 100),
                             job(users, 1, 3, 0, 1, 100, 100), job(users, 2, 4, 1, 1, 100, 100)};
    EXPECT_EQ(starts_of(fair_share_only(1), PolicySpec{}, users, jobs),
              (std::map<std::int64_t, std::int64_t>{{1, 0}, {2, 100}, {3, 200}, {4, 300}}));
    for (const char* policy : {"multifactor", "fairway:window=1-0", "reset:period=weekly"}) {
        EXPECT_EQ(starts_of(fair_share_only(1), parse_policy(policy), users, jobs),
                  (std::map<std::int64_t, std::int64_t>{{1, 0}, {4, 100}, {2, 200}, {3, 300}}))
            << policy;
    }
}

// A window shorter than the gap between bursts forgets the first burst; infinite decay does not.
// 1 core. u1 runs 1000 s at 0; at 5000 u1 and u2 each submit a job, u1 first.
TEST(Simulator, OnlyTheWindowForgetsUsageCompletely) {
    Population users = population_of(2);
    std::vector<SimJob> jobs{job(users, 1, 1, 0, 1, 1000, 1000), job(users, 1, 2, 5000, 1, 10, 10),
                             job(users, 2, 3, 5000, 1, 10, 10)};
    SimConfig config = fair_share_only(1);
    auto multifactor = starts_of(config, parse_policy("multifactor:half_life=1:00:00"), users, jobs);
    EXPECT_LT(multifactor.at(3), multifactor.at(2));  // u1's old usage still ranks it below u2
    auto windowed = starts_of(config, parse_policy("fairway:window=1:00:00,half_life=1:00:00"), users, jobs);
    EXPECT_LT(windowed.at(2), windowed.at(3));  // forgotten: ties go to submit order
}

// PriorityUsageResetPeriod forgets everything at the boundary; without decay nothing else would.
// 1 core. u1 runs 1000 s on day 0 (the epoch); just after midnight u1 and u2 each submit a job.
TEST(Simulator, AResetForgetsAllUsageAtTheBoundary) {
    Population users = population_of(2);
    std::vector<SimJob> jobs{job(users, 1, 1, 0, 1, 1000, 1000), job(users, 1, 2, 86400 + 100, 1, 10, 10),
                             job(users, 2, 3, 86400 + 100, 1, 10, 10)};
    SimConfig config = fair_share_only(1);
    auto undecayed = starts_of(config, parse_policy("multifactor:half_life=0"), users, jobs);
    EXPECT_LT(undecayed.at(3), undecayed.at(2));
    auto reset = starts_of(config, parse_policy("reset:period=daily,half_life=0"), users, jobs);
    EXPECT_LT(reset.at(2), reset.at(3));
}

// Usage by the plugin's rule (fairshare/run_charges.h): each second a job ran decays from its own
// time, however the calc passes cut the run. 1 core. u1 runs 3 h under a 1 h half-life; passes
// every 2 h (the run cut at 2 h) or every 4 h (the run charged whole after its end). At the pass at
// 4 h, u1's RawUsage is the integral of 2^-((4 h - t) / 1 h) over [0, 3 h): 2272 core-seconds.
// Charging what ran since the last pass at the pass's time gives 5400 (every 2 h) or 10800 (every
// 4 h); charging the whole job at its end, 5400.
TEST(Simulator, ChargesEachSecondDecayedFromItsOwnTimeHoweverPassesCutTheRun) {
    Population users = population_of(2);
    constexpr std::int64_t kHour = 3600;
    // u2's job, submitted just after 4 h, makes the simulator run the pass at 4 h.
    const std::vector<SimJob> jobs{job(users, 1, 1, 0, 1, 3 * kHour, 3 * kHour),
                                   job(users, 2, 2, 4 * kHour + 1, 1, 10, 10)};
    const fairway::fairshare::AssocId u1 = users.tree().node(jobs[0].association).id;
    const double expected = kHour / std::log(2.0) * (std::exp2(-1.0) - std::exp2(-4.0));
    for (std::int64_t period : {2 * kHour, 4 * kHour}) {
        SimConfig config = fair_share_only(1);
        config.calc_period = std::chrono::seconds{period};
        Simulator simulator(config, parse_policy("fairway:window=1-0,half_life=1:00:00"), users, StatisticsConfig{});
        for (const SimJob& j : jobs) simulator.submit(j);
        const fairway::fairshare::ShareFigures* figures = simulator.fair_share_figures().find(u1);
        ASSERT_NE(figures, nullptr);
        EXPECT_NEAR(static_cast<double>(figures->raw_usage), expected, expected * 1e-9)
            << "passes every " << period << " s";
    }
}

TEST(Simulator, RejectsJobsOutOfSubmitOrder) {
    Population users = population_of(1);
    Simulator simulator(one_node(1), PolicySpec{}, users, StatisticsConfig{});
    simulator.submit(job(users, 1, 1, 100, 1, 10, 10));
    EXPECT_THROW(simulator.submit(job(users, 1, 2, 99, 1, 10, 10)), std::invalid_argument);
}

namespace {

// Random jobs on 3 nodes x 4 cores x 2 GPUs: bursts of submissions, limits over-estimated up to 4x,
// some jobs killed at their limits, some of length 0.
std::vector<SimJob> random_trace(const Population& users, unsigned seed, int count) {
    std::mt19937 random(seed);
    std::vector<SimJob> jobs;
    std::int64_t t = 0;
    for (int i = 0; i < count; ++i) {
        t += random() % 4 == 0 ? static_cast<std::int64_t>(random() % 600) : 0;
        const std::int64_t limit = 1 + static_cast<std::int64_t>(random() % 3000);
        std::int64_t run = static_cast<std::int64_t>(random() % (limit + 1));
        if (random() % 10 == 0) run = limit;
        SimJob j = job(users, 1 + static_cast<int>(random() % 4), i + 1, t,
                       1 + static_cast<std::int64_t>(random() % 12), run, limit);
        j.need.gpus = random() % 3 == 0 ? static_cast<std::int64_t>(random() % 7) : 0;
        if (j.need.gpus > 0 && random() % 2 == 0) j.need.cores = 0;
        jobs.push_back(j);
    }
    return jobs;
}

SimConfig random_cluster() {
    SimConfig config;
    config.cluster = {3, 4, 2};
    config.calc_period = std::chrono::seconds{60};
    config.billing_per_gpu = 4;
    return config;
}

}  // namespace

TEST(Simulator, RandomTracesKeepTheInvariants) {
    Population users = population_of(4);
    for (unsigned seed = 1; seed <= 12; ++seed) {
        std::vector<SimJob> jobs = random_trace(users, seed, 300);
        for (const char* policy : {"fcfs", "multifactor", "fairway:window=1:00:00,half_life=0", "reset:period=daily"}) {
            SCOPED_TRACE(std::string(policy) + " seed " + std::to_string(seed));
            Recorder recorder(random_cluster().cluster);  // checks as the schedule is made
            Simulator simulator(random_cluster(), parse_policy(policy), users, StatisticsConfig{}, &recorder);
            replay(simulator, jobs);
            EXPECT_EQ(recorder.starts.size(), jobs.size());
            EXPECT_EQ(recorder.ended, jobs.size());
            EXPECT_GT(recorder.reservations, 0U);
            EXPECT_EQ(simulator.pending(), 0U);
            EXPECT_EQ(simulator.running(), 0U);
            EXPECT_LE(simulator.statistics().core_utilization(), 1.0);
        }
    }
}

TEST(Simulator, SameJobsGiveTheSameScheduleAndFigures) {
    Population users = population_of(4);
    std::vector<SimJob> jobs = random_trace(users, 99, 400);
    auto transcript = [&] {
        Recorder recorder(random_cluster().cluster);
        Simulator simulator(random_cluster(), parse_policy("fairway:window=2:00:00,half_life=30:00"), users,
                            StatisticsConfig{}, &recorder);
        replay(simulator, jobs);
        const PolicyStatistics& stats = simulator.statistics();
        recorder.transcript << stats.overall().mean_wait() << " " << stats.overall().wait.quantile(0.95) << " "
                            << stats.core_utilization() << " " << stats.shares().mean_jain();
        return recorder.transcript.str();
    };
    std::string first = transcript();
    EXPECT_EQ(first, transcript());
    EXPECT_GT(first.size(), 1000U);
}
