// fairway-sim: replays a workload trace (Standard Workload Format) under FCFS, multifactor, fairway's
// windowed fair-share and a usage reset, with the same fair-share core as priority/fairway, and
// compares what users would have waited.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/iso8601.h"
#include "tools/report/live_source.h"
#include "tools/report/svg_plot.h"
#include "tools/sim/replay.h"
#include "tools/sim/sim_output.h"
#include "tools/sim/sim_plot.h"

using namespace fairway::simtool;

namespace {

// A one-line bar redrawn in place; only for a person watching a terminal.
ProgressSink terminal_progress(const Options& options) {
    if (!options.progress || !isatty(STDERR_FILENO)) return {};
    return [](double fraction, std::uint64_t jobs) {
        const int width = 40, done = static_cast<int>(fraction * width + 0.5);
        std::fprintf(stderr, "\rfairway-sim [%s%s] %3d%% %llu jobs",
                     std::string(static_cast<std::size_t>(done), '#').c_str(),
                     std::string(static_cast<std::size_t>(width - done), ' ').c_str(),
                     static_cast<int>(fraction * 100 + 0.5), static_cast<unsigned long long>(jobs));
        if (fraction >= 1.0) std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
    };
}

// Peak resident memory in KiB: VmHWM from /proc/self/status, else getrusage's ru_maxrss.
long peak_rss_kib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// Timing goes to stderr: stdout stays the same from run to run.
void report_timing(const ReplayResult& result, double seconds) {
    const double jobs = static_cast<double>(result.jobs_replayed);
    std::fprintf(
        stderr,
        "fairway-sim: %llu jobs x %zu policies in %.2f s: %.0f jobs/s (%.0f job-policies/s); peak RSS %.1f MiB\n",
        static_cast<unsigned long long>(result.jobs_replayed), result.simulators.size(), seconds, jobs / seconds,
        jobs * static_cast<double>(result.simulators.size()) / seconds, static_cast<double>(peak_rss_kib()) / 1024);
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw fairway::InputError({path, 0, ""}, "cannot write");
}

void open_for_writing(std::ofstream& out, const std::string& path) {
    out.open(path, std::ios::binary | std::ios::trunc);
    if (!out) throw fairway::InputError({path, 0, ""}, "cannot write");
}

void close_written(std::ofstream& out, const std::string& path) {
    out.close();
    if (!out) throw fairway::InputError({path, 0, ""}, "cannot write");
}

// The site's jobs submitted in the period, read the way fairway-report reads accounting, as a
// trace sorted by submission; the association tree and shares are slurmdbd's.
std::unique_ptr<AccountingTrace> read_site_accounting(const Options& options) {
    using std::chrono::seconds;
    const fairway::UnixTime from{seconds{*options.accounting_from}};
    const fairway::UnixTime to = options.accounting_to
                                     ? fairway::UnixTime{seconds{*options.accounting_to}}
                                     : std::chrono::time_point_cast<seconds>(std::chrono::system_clock::now());
    fairway::sim::SwfHeader header;
    header.unix_start_time = *options.accounting_from;
    auto trace = std::make_unique<AccountingTrace>(
        "accounting " + fairway::format_iso8601(from) + ".." + fairway::format_iso8601(to), header);
    fairway::report::AccountingQuery query{from, to, options.use_sacct};
    const std::time_t first = from.time_since_epoch().count(), end = to.time_since_epoch().count();
    std::size_t skipped = fairway::report::read_accounting(
        query, [&](const fairway::report::InputHeader& tree) { trace->set_association_tree(tree); },
        [&](const fairway::report::AccountedJob& job) {
            if (job.submit < first || job.submit >= end) return;
            fairway::sim::AccountedRun run{std::stoll(job.id),
                                           job.submit,
                                           job.start,
                                           job.end,
                                           static_cast<std::int64_t>(job.elapsed),
                                           job.time_limit,
                                           {static_cast<std::int64_t>(job.cpus), static_cast<std::int64_t>(job.gpus)}};
            trace->add(job.account, job.user, run);
        });
    trace->seal();
    if (skipped > 0)
        std::fprintf(stderr, "fairway-sim: note: %zu job record(s) of deleted associations were skipped\n", skipped);
    return trace;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    return fairway::tools::run_tool("fairway-sim", usage_text(), [&] {
        Options options = parse_options(args);
        if (options.help) {
            std::cout << usage_text();
            return 0;
        }
        const auto began = std::chrono::steady_clock::now();
        std::ofstream starts;
        if (!options.starts.empty()) open_for_writing(starts, options.starts);
        std::ostream* start_log = starts.is_open() ? &starts : nullptr;
        ReplayResult result = options.accounting_from ? replay(options, *read_site_accounting(options),
                                                               terminal_progress(options), start_log)
                                                      : replay_trace(options, terminal_progress(options), start_log);
        if (starts.is_open()) close_written(starts, options.starts);
        if (options.timing)
            report_timing(result, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
        if (options.json) std::cout << result_json(result, options).dump(2) << "\n";
        else print_tables(std::cout, result, options);
        if (!options.svg.empty()) write_file(options.svg, render_sim_svg(result, options));
        if (!options.png.empty()) fairway::report::convert_svg_to_png(options.svg, options.png);
        return 0;
    });
}
