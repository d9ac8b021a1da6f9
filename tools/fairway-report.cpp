// fairway-report: windowed fair-share reports (summary, explain, forecast, plot) from slurmdbd's
// accounting or an offline JSON file, computed with the same core as priority/fairway.
#include <iostream>
#include <string>
#include <vector>

#include "tools/report/cli_options.h"
#include "tools/report/commands.h"
#include "tools/report/live_source.h"

using namespace fairway::report;

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    return fairway::tools::run_tool("fairway-report", usage_text(), [&] {
        Options options = parse_options(args);
        if (options.help) {
            std::cout << usage_text();
            return 0;
        }
        ReportModel model;
        if (!options.input.empty()) load_offline(options.input, model);
        else load_live(options, model);
        if (!options.input.empty() || !is_job_id(options.target) || options.command != Command::explain)
            return run_command(options, model, std::cout);
        return explain_live_job(options, model, std::cout);
    });
}
