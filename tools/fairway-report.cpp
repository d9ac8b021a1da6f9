// fairway-report: windowed fair-share reports (summary, explain, forecast, plot) from slurmdbd's
// accounting or an offline JSON file, computed with the same core as priority/fairway.
#include <iostream>
#include <string>
#include <vector>

#include "common/error.h"
#include "report/cli_options.h"
#include "report/commands.h"
#include "report/live_source.h"

using namespace fairway::report;

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        Options options = parse_options(args);
        if (options.help) {
            std::cout << usage_text();
            return 0;
        }
        ReportModel model;
        if (!options.input.empty()) load_offline(options.input, model);
        else load_live(options, model);
        if (!options.input.empty() || !is_job_id(options.target) || options.command != Command::kExplain)
            return run_command(options, model, std::cout);
        return explain_live_job(options, model, std::cout);
    } catch (const UsageError& error) {
        std::cerr << "fairway-report: " << error.what() << "\n" << usage_text();
        return 2;
    } catch (const fairway::InputError& error) {
        std::cerr << "fairway-report: error: " << error.what() << "\n";
        return 1;
    } catch (const std::exception& error) {
        std::cerr << "fairway-report: error: " << error.what() << "\n";
        return 1;
    }
}
