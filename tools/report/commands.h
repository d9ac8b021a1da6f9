// The subcommands over a loaded ReportModel; each writes to `out` and returns the exit status.
#pragma once

#include <ostream>

#include "tools/report/cli_options.h"
#include "tools/report/report_model.h"

namespace fairway::report {

// Reads the offline input file into `model` (begin, every record, finish). Throws InputError.
void load_offline(const std::string& path, ReportModel& model);

int run_summary(const Options& options, const ReportModel& model, std::ostream& out);
int run_explain(const Options& options, const ReportModel& model, std::ostream& out);
int run_forecast(const Options& options, const ReportModel& model, std::ostream& out);
int run_plot(const Options& options, const ReportModel& model, std::ostream& out);
int run_command(const Options& options, const ReportModel& model, std::ostream& out);

}  // namespace fairway::report
