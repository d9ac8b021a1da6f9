// Google Benchmark for the fair-share core: cost per association of a ledger pass with W = 7 days
// versus 90 days (must be flat), of the fair-share computation, and of one job's priority.
// Prints the W ratio at the end; no thresholds (timing is never asserted).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>

#include "fairshare/fair_share.h"
#include "fairshare/job_priority.h"
#include "fairshare/usage_ledger.h"

namespace fs = fairway::fairshare;
using fairway::Seconds;

namespace {

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kStart = 1'700'000'000;
constexpr std::int64_t kPass = 300;  // PriorityCalcPeriod of 5 minutes

fs::TimePoint at(std::int64_t s) { return fs::TimePoint{Seconds{s}}; }

// A ledger in steady state: every association charged every pass for longer than the window.
struct SteadyLedger {
    fs::WindowedUsageLedger ledger;
    std::int64_t now;

    SteadyLedger(std::int64_t window_days, fs::AssocId associations)
        : ledger(fs::LedgerConfig{Seconds{window_days * kDay}, Seconds{7 * kDay}, Seconds{0}}), now(kStart) {
        const std::int64_t warmup = window_days * kDay + 2 * ledger.config().bucket.count();
        const std::int64_t step = std::max<std::int64_t>(kPass, ledger.config().bucket.count());
        for (; now < kStart + warmup; now += step) {
            for (fs::AssocId id = 1; id <= associations; ++id) ledger.charge(id, 1000, at(now));
            ledger.advance(at(now));
        }
    }
    void pass(fs::AssocId associations) {
        now += kPass;
        for (fs::AssocId id = 1; id <= associations; ++id) ledger.charge(id, 1000, at(now));
        ledger.advance(at(now));
    }
};

void BM_LedgerPass(benchmark::State& state) {
    const auto days = state.range(0);
    const auto associations = static_cast<fs::AssocId>(state.range(1));
    SteadyLedger steady(days, associations);
    for (auto _ : state) steady.pass(associations);
    state.counters["per_assoc"] = benchmark::Counter(
        double(associations), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.counters["buckets"] = double(steady.ledger.bucket_count());
}
BENCHMARK(BM_LedgerPass)->Args({7, 1000})->Args({90, 1000})->Unit(benchmark::kMicrosecond);

void BM_LedgerUsage(benchmark::State& state) {
    SteadyLedger steady(state.range(0), 1000);
    double sink = 0;
    for (auto _ : state)
        for (fs::AssocId id = 1; id <= 1000; ++id) sink += steady.ledger.usage(id, at(steady.now));
    benchmark::DoNotOptimize(sink);
}
BENCHMARK(BM_LedgerUsage)->Arg(7)->Arg(90)->Unit(benchmark::kMicrosecond);

// 20 accounts x 50 users, as in tests/bench/priority-plugins' workload.
fs::AssociationTree workload_tree() {
    std::vector<fs::AssociationNode> nodes{{1, fs::kNoParent, "root", "", fs::Shares::of(1), 0}};
    for (fs::AssocId a = 0; a < 20; ++a) {
        const fs::AssocId account = 100 + a;
        nodes.push_back({account, 1, "acct" + std::to_string(a), "", fs::Shares::of(1 + a % 5), 0});
        for (fs::AssocId u = 0; u < 50; ++u)
            nodes.push_back({10000 + a * 100 + u, account, "acct" + std::to_string(a), "user" + std::to_string(u),
                             fs::Shares::of(1), double((a * 50 + u) % 37) * 1000});
    }
    return fs::AssociationTree(std::move(nodes));
}

void BM_FairShare(benchmark::State& state) {
    const fs::AssociationTree tree = workload_tree();
    const fs::FairShareOptions options{
        state.range(0) ? fs::FairShareAlgorithm::fair_tree : fs::FairShareAlgorithm::classic, 1};
    for (auto _ : state) benchmark::DoNotOptimize(fs::compute_fair_share(tree, options));
    state.SetLabel(state.range(0) ? "fair_tree" : "classic");
}
BENCHMARK(BM_FairShare)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_JobPriority(benchmark::State& state) {
    fs::PriorityConfig config;
    config.weights = fs::PriorityWeights{1000, 0, 10000, 1000, 1000, 1000, {1, 0, 0, 5}};
    fs::JobFacts job;
    job.accrue_time = at(kStart - 3600);
    job.fairshare_factor = 0.4;
    job.cpus = 8;
    job.tres_count = {8, 16384, 1, 2};
    job.partitions = {fs::PartitionFacts{"gpu", 10, 1.0, 1440, {512, 1 << 22, 16, 64}}};
    for (auto _ : state) benchmark::DoNotOptimize(fs::compute_job_priority(config, {16, 512}, job, at(kStart)));
}
BENCHMARK(BM_JobPriority);

// One pass per association, timed by hand for the printed ratio.
double seconds_per_assoc_pass(std::int64_t window_days) {
    SteadyLedger steady(window_days, 1000);
    const auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) steady.pass(1000);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() / (200.0 * 1000);
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    const double week = seconds_per_assoc_pass(7), quarter = seconds_per_assoc_pass(90);
    std::printf("ledger pass per association: W=7d %.1f ns, W=90d %.1f ns, ratio 90d/7d = %.2f (target: flat, ~1)\n",
                week * 1e9, quarter * 1e9, quarter / week);
    return 0;
}
