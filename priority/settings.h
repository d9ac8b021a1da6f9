// The adapter's view of slurm.conf: Slurm's own priority keys plus fairway's PriorityParameters,
// gathered into one value so a reconfigure can validate everything before replacing anything.
#pragma once

#include <string>
#include <string_view>

#include "fairshare/fair_share.h"
#include "fairshare/job_priority.h"
#include "fairshare/parameters.h"
#include "fairshare/recorded_runs.h"
#include "fairshare/usage_resets.h"
#include "priority/slurm_api.h"

namespace fairway::priority {

struct Settings {
    fairshare::FairshareParameters fairshare;  // PriorityParameters (window, bucket) + half-life
    fairshare::FairShareOptions fair_share;    // Fair Tree or classic, FairShareDampeningFactor
    fairshare::PriorityConfig priority;        // PriorityWeight*, PriorityMaxAge, PriorityFavorSmall
    Seconds calc_period{300};                  // PriorityCalcPeriod (or the test-only override)
    bool accrue_always = false;                // PriorityFlags=ACCRUE_ALWAYS
    bool calculate_running = false;            // PriorityFlags=CALCULATE_RUNNING
    bool incr_only = false;                    // PriorityFlags=INCR_ONLY
    bool walk_shortcuts = true;                // PriorityParameters=walk_shortcuts=yes|no (walk_skip.cpp)
    std::string state_file;                    // StateSaveLocation/fairway_priority_state
    std::string resets_file;                   // StateSaveLocation/fairway_priority_resets (usage_resets.h)
    std::string forgotten_runs_file;           // StateSaveLocation/fairway_priority_forgotten (recorded_runs.h)
};

// PriorityParameters' adapter keys (fairshare/parameters.h): calc_period is test-only, so cluster
// tests need not wait minutes; walk_shortcuts=no makes every pass walk every job (walk_skip.cpp's
// shortcuts off), and defaults to yes only on the releases whose behaviour they were checked against.
inline constexpr const char* kStateFileName = "fairway_priority_state";
using fairshare::kForgottenRunsFileName;
using fairshare::kResetsFileName;

// Reads every setting from Slurm's parsed configuration. `tres_count` sizes the PriorityWeightTRES
// vector. Throws fairway::InputError naming the key (e.g. "window") for bad PriorityParameters.
Settings read_settings(const slurm_conf_t& conf, int tres_count);

// One line for the log, e.g. "window=14-00:00:00,bucket=03:21:36 half_life=7-00:00:00 fair_tree ...".
std::string describe(const Settings& settings);

}  // namespace fairway::priority
