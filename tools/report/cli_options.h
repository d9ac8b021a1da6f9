// fairway-report's command line: a subcommand (summary by default) and its options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/report/tool_main.h"

namespace fairway::report {

enum class Command { summary, explain, forecast, plot };

struct Options {
    Command command = Command::summary;
    std::string target;              // explain: JOBID or USER; forecast: USER or ACCOUNT
    std::string input;               // --input FILE: offline mode; empty: live from slurmdbd
    bool parsable = false;           // --parsable / -P
    bool json = false;               // --json
    bool header = true;              // --noheader / -n turns it off
    double level = 0.5;              // forecast --level
    std::string svg, png;            // plot --svg / --png
    bool use_sacct = false;          // --sacct: read accounting through sacct instead of libslurmdb
    std::string sacct = "sacct";     // --sacct-command PATH (tests, benchmarks)
    std::optional<std::string> now;  // --now ISO-8601 (live mode; offline takes "now" from the file)
    bool help = false;
};

using tools::UsageError;  // main prints it with the usage text and exits 2

Options parse_options(const std::vector<std::string>& args);
// True for explain's JOBID form (all digits, optionally "_N" array or "+N" het suffix).
bool is_job_id(const std::string& target);
const char* usage_text();

}  // namespace fairway::report
