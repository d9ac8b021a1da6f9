#include "tools/report/commands.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "tools/report/explain.h"
#include "tools/report/offline_input.h"
#include "tools/report/sshare_format.h"
#include "tools/report/svg_plot.h"

namespace fairway::report {

void load_offline(const std::string& path, ReportModel& model) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "r"), &std::fclose);
    if (!file) throw InputError({path, 0, ""}, std::string("cannot open: ") + std::strerror(errno));
    InputHeader header = read_offline_input(file.get(), path, model);
    model.finish(header.settings);
}

int run_summary(const Options& options, const ReportModel& model, std::ostream& out) {
    std::vector<SummaryRow> rows = summary_rows(model, model.fair_share());
    if (options.json) out << summary_json(model.settings(), rows).dump(2) << "\n";
    else print_summary_table(out, rows, TableStyle{options.parsable, options.header});
    return 0;
}

int run_explain(const Options& options, const ReportModel& model, std::ostream& out) {
    if (is_job_id(options.target))
        throw InputError({options.input, 0, "JOBID"},
                         "explain JOBID reads the job from slurmctld; offline input has no jobs (explain a USER)");
    std::vector<AssociationExplanation> explanations = explain_target(model, options.target);
    if (options.json) out << explanations_json(explanations).dump(2) << "\n";
    else print_explanations(out, model, explanations);
    return 0;
}

int run_forecast(const Options& options, const ReportModel& model, std::ostream& out) {
    std::vector<ForecastLine> lines = forecast_target(model, options.target, options.level);
    if (options.json) out << forecasts_json(model, lines).dump(2) << "\n";
    else print_forecasts(out, model, lines);
    return 0;
}

int run_plot(const Options& options, const ReportModel& model, std::ostream& out) {
    std::string svg_path = options.svg.empty() ? options.png + ".svg" : options.svg;
    {
        std::ofstream svg(svg_path, std::ios::trunc);
        svg << render_report_svg(model);
        if (!svg.flush()) throw std::runtime_error("cannot write " + svg_path);
    }
    if (!options.png.empty()) {
        convert_svg_to_png(svg_path, options.png);
        if (options.svg.empty()) std::remove(svg_path.c_str());
        out << "wrote " << options.png << "\n";
    }
    if (!options.svg.empty()) out << "wrote " << options.svg << "\n";
    return 0;
}

int run_command(const Options& options, const ReportModel& model, std::ostream& out) {
    switch (options.command) {
    case Command::summary: return run_summary(options, model, out);
    case Command::explain: return run_explain(options, model, out);
    case Command::forecast: return run_forecast(options, model, out);
    case Command::plot: return run_plot(options, model, out);
    }
    return 2;
}

}  // namespace fairway::report
