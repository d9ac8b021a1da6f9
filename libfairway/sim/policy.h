// The policies a replay compares, and the settings every policy shares (SimConfig).
//
//   fcfs                                  submit order (priority/basic), same EASY backfill
//   multifactor[:half_life=7-0]           priority/multifactor: window=infinite, half-life decay
//   fairway:window=14-0[,half_life=7-0]   priority/fairway: usage over the window, decayed inside it
//   reset:period=monthly[,half_life=0]    multifactor with PriorityUsageResetPeriod (daily, weekly,
//                                         monthly, quarterly, yearly): every usage forgotten at once
// Durations are Slurm's ("14-0", "12:00:00"); "W"/"H" are accepted for window/half_life.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "fairshare/fair_share.h"
#include "fairshare/job_priority.h"
#include "fairshare/usage_ledger.h"
#include "sim/cluster.h"

namespace fairway::sim {

enum class PolicyKind { fcfs, fair_share };
enum class ResetPeriod { none, daily, weekly, monthly, quarterly, yearly };

struct PolicySpec {
    PolicyKind kind = PolicyKind::fcfs;
    Seconds window = fairshare::kInfiniteWindow;
    Seconds half_life{7 * 86400};  // Slurm's PriorityDecayHalfLife default
    ResetPeriod reset = ResetPeriod::none;

    // How tables and files name it: "fcfs", "multifactor H=7-0", "fairway W=14-0 H=7-0",
    // "reset=monthly H=0".
    std::string name() const;
    fairshare::LedgerConfig ledger_config() const;
};

// Throws InputError (key "policy") naming what is wrong.
PolicySpec parse_policy(std::string_view text);

// The first reset boundary strictly after `after` (epoch seconds, UTC): midnight; Sunday 00:00;
// the first day of the month, quarter or year at 00:00 (as slurm.conf documents the periods).
std::int64_t next_reset(ResetPeriod period, std::int64_t after);
const char* reset_period_name(ResetPeriod period);

// What every simulated policy shares.
struct SimConfig {
    ClusterSpec cluster;
    Seconds calc_period{300};  // PriorityCalcPeriod
    fairshare::PriorityConfig priority = default_priority();
    fairshare::FairShareOptions fair_share;  // Fair Tree by default, as the plugin
    double billing_per_core = 1;             // TRESBillingWeights CPU=
    double billing_per_gpu = 0;              // TRESBillingWeights GRES/gpu=
    std::size_t backfill_depth = 500;        // bf_max_job_test: queue jobs tried behind the head
    // PriorityWeightAge=1000, PriorityWeightFairshare=10000, PriorityWeightJobSize=1000, MaxAge 7-0.
    static fairshare::PriorityConfig default_priority();
};

}  // namespace fairway::sim
