// fairway-sim's command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/policy.h"
#include "sim/statistics.h"
#include "sim/workload.h"
#include "tools/report/tool_main.h"

namespace fairway::simtool {

struct Options {
    std::string trace;  // the SWF file
    // --accounting FROM[..TO]: the site's own jobs submitted in [FROM, TO) (epoch seconds), read
    // from slurmdbd (or with --sacct through sacct) instead of a trace.
    std::optional<std::int64_t> accounting_from, accounting_to;
    bool use_sacct = false;
    std::vector<sim::PolicySpec> policies;  // default_policies() when none is given
    std::string tree;                       // --tree FILE.json; empty: derived from the trace
    std::optional<std::uint32_t> nodes;     // else from the header
    std::optional<std::int64_t> cores_per_node, gpus_per_node;
    sim::ProcsAre procs_are = sim::ProcsAre::cores;
    std::optional<std::int64_t> start;  // --start: epoch seconds of SWF time 0
    sim::SimConfig config;              // calc period, weights, algorithm, billing, backfill depth
    sim::StatisticsConfig statistics;   // share window and step, recovery level
    std::size_t accounts_shown = 8;     // --accounts N
    bool users_table = false;           // --users
    bool json = false;
    std::string svg, png;
    std::string starts;  // --starts FILE: every job start per policy (StartLog)
    std::optional<std::uint64_t> max_jobs;
    bool progress = true;  // --quiet turns it off (it shows only on a terminal)
    bool timing = false;   // --timing: jobs per second and peak RSS on stderr
    bool help = false;
};

using tools::UsageError;  // main prints it with the usage text and exits 2

Options parse_options(const std::vector<std::string>& args);
std::vector<sim::PolicySpec> default_policies();
const char* usage_text();

}  // namespace fairway::simtool
