// The replay fairway-sim runs: reads the trace twice (first the associations and each one's usage,
// then the jobs, streamed into one Simulator per policy), with the cluster, population and time
// origin worked out from the options and the trace's header.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "sim/simulator.h"
#include "sim/swf_reader.h"
#include "sim_options.h"

namespace fairway::simtool {

// Writes a line per job start, "POLICY<TAB>JOB<TAB>SUBMIT<TAB>START<TAB>main|backfill", times in
// seconds from the trace's time 0: the schedule itself, to compare with another scheduler's.
class StartLog : public sim::SimObserver {
public:
    StartLog(std::ostream& out, std::string policy, std::int64_t time_origin)
        : out_(out), policy_(std::move(policy)), time_origin_(time_origin) {}
    void job_started(const sim::SimJob& job, std::int64_t start, bool backfilled,
                     const std::vector<sim::Piece>& pieces) override;

private:
    std::ostream& out_;
    std::string policy_;
    std::int64_t time_origin_;
};

struct ReplayResult {
    std::string trace;
    sim::SwfHeader header;
    sim::ClusterSpec cluster;
    std::int64_t time_origin = 0;
    std::uint64_t jobs_read = 0, jobs_replayed = 0, killed_at_limit = 0;
    std::array<std::uint64_t, sim::kSkipReasons> skipped{};
    std::unique_ptr<sim::Population> population;
    std::vector<std::unique_ptr<StartLog>> start_logs;        // with `starts` only; outlive the simulators' use
    std::vector<std::unique_ptr<sim::Simulator>> simulators;  // one per policy, in the options' order
    // By billing-seconds in the trace (what every policy runs), largest first: the accounts the
    // tables and plots show (Population::accounts() slots), the top-level entities whose share
    // series are kept, and the heaviest user (Population::users() slot).
    std::vector<std::size_t> shown_accounts;
    std::vector<std::size_t> tracked_entities;
    std::size_t heavy_user = 0;
};

// Called now and then with the fraction of the trace read and the jobs replayed so far.
using ProgressSink = std::function<void(double fraction, std::uint64_t jobs)>;

// Throws InputError naming the trace (or tree) file, line and field for bad input.
// With `starts`, every policy's job starts are written to it (StartLog).
ReplayResult replay_trace(const Options& options, const ProgressSink& progress, std::ostream* starts = nullptr);

// The association a trace job belongs to: user N and group G are "uN" in account "gG"; with a
// tree of its own, a user missing from account gG is taken in its first account.
std::string swf_user_name(std::int64_t user);
std::string swf_account_name(std::int64_t group);

}  // namespace fairway::simtool
