// The replay fairway-sim runs: reads its input twice (first the associations and each one's usage,
// then the jobs, streamed into one Simulator per policy), with the cluster, population and time
// origin worked out from the options and the input's header. The input is an SWF trace or a site's
// accounting (AccountingTrace, filled by the Slurm-facing reader in the binary).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/error.h"
#include "sim/simulator.h"
#include "sim/swf_reader.h"
#include "sim/workload.h"
#include "tools/report/offline_input.h"
#include "tools/sim/sim_options.h"

namespace fairway::simtool {

using AssociationKey = std::pair<std::string, std::string>;  // (account, user)

// One job of the input: as the simulator replays it (or why it is skipped), the names of its
// association, and where it was read (for messages).
struct InputJob {
    std::variant<sim::SimJob, sim::SkipReason> job;
    AssociationKey key;
    SourceLocation where;
    bool killed_at_limit = false;  // it ran past its time limit; the replay cuts it there
};

// Where the jobs come from, in submission order.
class JobSource {
public:
    virtual ~JobSource() = default;
    virtual const std::string& name() const = 0;  // the trace file, or what accounting was read
    virtual const sim::SwfHeader& header() const = 0;
    virtual void rewind() = 0;  // back to the first job: the replay reads its input twice
    virtual std::optional<InputJob> next(const sim::TraceShape& shape) = 0;
    virtual double fraction_read() const = 0;  // for the progress bar
    // The association tree the input brings (a site's slurmdbd), or null: derived from the jobs.
    virtual const report::InputHeader* association_tree() const { return nullptr; }
};

// A site's accounting as an input: every run of the period, kept in a compact form (about 80 bytes
// a job) because slurmdbd hands jobs over by their end and the replay needs them by submission.
class AccountingTrace : public JobSource {
public:
    // `name` for messages and the tables; `header` carries UnixStartTime (the period's start).
    AccountingTrace(std::string name, sim::SwfHeader header);
    void set_association_tree(report::InputHeader tree) { tree_ = std::move(tree); }
    void add(const std::string& account, const std::string& user, const sim::AccountedRun& run);
    // Sorts by submission (then job id): call once every job was added.
    void seal();

    const std::string& name() const override { return name_; }
    const sim::SwfHeader& header() const override { return header_; }
    void rewind() override { next_ = 0; }
    std::optional<InputJob> next(const sim::TraceShape& shape) override;
    double fraction_read() const override;
    const report::InputHeader* association_tree() const override { return tree_ ? &*tree_ : nullptr; }
    std::size_t size() const noexcept { return entries_.size(); }

private:
    struct Entry {
        sim::AccountedRun run;
        std::uint32_t key;  // index into keys_
    };
    std::string name_;
    sim::SwfHeader header_;
    std::optional<report::InputHeader> tree_;
    std::vector<AssociationKey> keys_;
    std::map<AssociationKey, std::uint32_t> key_index_;
    std::vector<Entry> entries_;
    std::size_t next_ = 0;
};

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
ReplayResult replay(const Options& options, JobSource& input, const ProgressSink& progress,
                    std::ostream* starts = nullptr);
// replay() of the SWF trace options.trace.
ReplayResult replay_trace(const Options& options, const ProgressSink& progress, std::ostream* starts = nullptr);

// The association a trace job belongs to: user N and group G are "uN" in account "gG"; with a
// tree of its own, a user missing from account gG is taken in its first account.
std::string swf_user_name(std::int64_t user);
std::string swf_account_name(std::int64_t group);

}  // namespace fairway::simtool
