#include "tools/sim/replay.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <variant>

#include "common/error.h"
#include "tools/report/commands.h"
#include "tools/report/report_model.h"

namespace fairway::simtool {
namespace {

using sim::SimJob;
using sim::SwfJob;
using sim::SwfReader;

std::ifstream open_trace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError({path, 0, ""}, "cannot open the trace");
    return in;
}

// The cluster: the options, else the header: MaxNodes nodes of MaxProcs / MaxNodes processors when
// that divides evenly, else one node per processor.
sim::ClusterSpec cluster_of(const Options& options, const sim::SwfHeader& header, const std::string& trace) {
    const std::int64_t max_procs = header.max_procs.value_or(0);
    std::int64_t nodes = 0, per_node = 1;
    if (options.nodes) {
        nodes = *options.nodes;
        if (nodes > 0 && max_procs > 0 && max_procs % nodes == 0) per_node = max_procs / nodes;
    } else if (header.max_nodes && *header.max_nodes > 0 && max_procs > 0 && max_procs % *header.max_nodes == 0) {
        nodes = *header.max_nodes;
        per_node = max_procs / nodes;
    } else {
        nodes = max_procs > 0 ? max_procs : header.max_nodes.value_or(0);
    }
    if (nodes <= 0) throw InputError({trace, 0, "MaxNodes"}, "the trace names no MaxNodes or MaxProcs: give --nodes");
    sim::ClusterSpec spec;
    spec.nodes = static_cast<std::uint32_t>(nodes);
    const bool gpus = options.procs_are == sim::ProcsAre::gpus;
    spec.cores_per_node = options.cores_per_node.value_or(gpus ? 0 : per_node);
    spec.gpus_per_node = options.gpus_per_node.value_or(gpus ? per_node : 0);
    try {
        spec.validate();
    } catch (const InputError& error) {
        throw InputError({trace, 0, error.where().key}, error.problem());
    }
    return spec;
}

AssociationKey key_of(const SwfJob& swf) { return {swf_account_name(swf.group), swf_user_name(swf.user)}; }

// An SWF file as an input, read one line at a time.
class SwfTrace : public JobSource {
public:
    explicit SwfTrace(std::string path) : path_(std::move(path)) { rewind(); }
    const std::string& name() const override { return path_; }
    const sim::SwfHeader& header() const override { return reader_->header(); }
    void rewind() override {
        reader_.reset();
        in_ = open_trace(path_);
        in_.seekg(0, std::ios::end);
        size_ = static_cast<double>(in_.tellg());
        in_.seekg(0);
        reader_ = std::make_unique<SwfReader>(in_, path_);
    }
    std::optional<InputJob> next(const sim::TraceShape& shape) override {
        std::optional<SwfJob> swf = reader_->next();
        if (!swf) return std::nullopt;
        InputJob job{sim::replayed_job(*swf, shape, 0), key_of(*swf), {path_, swf->line, "user_id"}, false};
        if (const SimJob* replayed = std::get_if<SimJob>(&job.job))
            job.killed_at_limit = swf->run_time > replayed->limit;
        return job;
    }
    double fraction_read() const override { return size_ > 0 ? static_cast<double>(in_.tellg()) / size_ : 0; }

private:
    std::string path_;
    mutable std::ifstream in_;  // tellg() for the progress bar
    std::unique_ptr<SwfReader> reader_;
    double size_ = 0;
};

// What the first pass learns: every (account, user) and the billing-seconds each runs.
struct TraceFacts {
    std::map<AssociationKey, double> billing;
};

double billing_of(const sim::SimConfig& config, const SimJob& job) {
    return (config.billing_per_core * static_cast<double>(job.need.cores) +
            config.billing_per_gpu * static_cast<double>(job.need.gpus)) *
           static_cast<double>(job.run);
}

TraceFacts scan_input(const Options& options, JobSource& input, const sim::TraceShape& shape) {
    TraceFacts facts;
    std::uint64_t read = 0;
    while (std::optional<InputJob> next = input.next(shape)) {
        if (options.max_jobs && read++ >= *options.max_jobs) break;
        if (const SimJob* job = std::get_if<SimJob>(&next->job))
            facts.billing[next->key] += billing_of(options.config, *job);
    }
    input.rewind();
    return facts;
}

std::unique_ptr<sim::Population> population_of(const Options& options, const JobSource& input,
                                               const TraceFacts& facts) {
    if (options.tree.empty() && input.association_tree()) {
        report::ReportModel model;
        model.begin(*input.association_tree());
        return std::make_unique<sim::Population>(model.tree());
    }
    if (options.tree.empty()) {
        std::vector<AssociationKey> pairs;
        for (const auto& [key, billing] : facts.billing) pairs.push_back(key);
        if (pairs.empty()) throw InputError({input.name(), 0, ""}, "no job to replay");
        return std::make_unique<sim::Population>(sim::Population::derived(pairs));
    }
    report::ReportModel model;
    report::load_offline(options.tree, model);
    try {
        return std::make_unique<sim::Population>(model.tree());
    } catch (const InputError& error) {
        throw InputError({options.tree, 0, error.where().key}, error.problem());
    }
}

std::optional<std::size_t> association_of(const sim::Population& population, const AssociationKey& key) {
    if (auto exact = population.association(key.first, key.second)) return exact;
    std::vector<std::size_t> any = population.associations_of(key.second);
    if (any.empty()) return std::nullopt;
    return any.front();
}

// Orders slots by the billing they ran in the trace, largest first (ties by slot: by name).
std::vector<std::size_t> by_billing(const std::vector<double>& billing) {
    std::vector<std::size_t> order(billing.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return billing[a] > billing[b]; });
    return order;
}

void choose_shown(ReplayResult& result, const Options& options, const TraceFacts& facts) {
    const sim::Population& population = *result.population;
    std::vector<double> accounts(population.accounts().size()), entities(population.entities().size()),
        users(population.users().size());
    for (const auto& [key, billing] : facts.billing) {
        std::optional<std::size_t> node = association_of(population, key);
        if (!node) continue;  // reported when the job is replayed
        accounts[population.account_slot(*node)] += billing;
        users[population.user_slot(*node)] += billing;
        if (auto entity = population.entity_of(*node)) entities[*entity] += billing;
    }
    result.shown_accounts = by_billing(accounts);
    result.shown_accounts.resize(std::min(result.shown_accounts.size(), options.accounts_shown));
    result.tracked_entities = by_billing(entities);
    result.tracked_entities.resize(std::min(result.tracked_entities.size(), options.accounts_shown));
    result.heavy_user = by_billing(users).front();
}

}  // namespace

std::string swf_user_name(std::int64_t user) { return user < 0 ? "u_unknown" : "u" + std::to_string(user); }
std::string swf_account_name(std::int64_t group) { return group < 0 ? "g_unknown" : "g" + std::to_string(group); }

void StartLog::job_started(const sim::SimJob& job, std::int64_t start, bool backfilled,
                           const std::vector<sim::Piece>& /*pieces*/) {
    out_ << policy_ << '\t' << job.id << '\t' << job.submit - time_origin_ << '\t' << start - time_origin_ << '\t'
         << (backfilled ? "backfill" : "main") << '\n';
}

ReplayResult replay(const Options& options, JobSource& input, const ProgressSink& progress, std::ostream* starts) {
    ReplayResult result;
    result.trace = input.name();
    result.header = input.header();
    result.cluster = cluster_of(options, result.header, input.name());
    result.time_origin = options.start.value_or(result.header.unix_start_time.value_or(0));
    const sim::TraceShape shape{result.time_origin, options.procs_are, result.cluster.capacity()};

    const TraceFacts facts = scan_input(options, input, shape);
    result.population = population_of(options, input, facts);
    choose_shown(result, options, facts);
    sim::StatisticsConfig statistics = options.statistics;
    statistics.tracked_entities = result.tracked_entities;
    sim::SimConfig config = options.config;
    config.cluster = result.cluster;
    for (const sim::PolicySpec& policy : options.policies) {
        sim::SimObserver* observer = nullptr;
        if (starts) {
            result.start_logs.push_back(std::make_unique<StartLog>(*starts, policy.name(), result.time_origin));
            observer = result.start_logs.back().get();
        }
        result.simulators.push_back(
            std::make_unique<sim::Simulator>(config, policy, *result.population, statistics, observer));
    }

    std::optional<std::int64_t> last_submit;
    while (std::optional<InputJob> next = input.next(shape)) {
        if (options.max_jobs && result.jobs_read >= *options.max_jobs) break;
        ++result.jobs_read;
        if (const sim::SkipReason* reason = std::get_if<sim::SkipReason>(&next->job)) {
            ++result.skipped[static_cast<std::size_t>(*reason)];
            continue;
        }
        SimJob& job = std::get<SimJob>(next->job);
        std::optional<std::size_t> node = association_of(*result.population, next->key);
        if (!node)
            throw InputError(next->where, next->key.second + " has no association in " +
                                              (options.tree.empty() ? std::string("the tree") : options.tree));
        job.association = *node;
        if (last_submit && job.submit < *last_submit)
            throw InputError({next->where.file, next->where.line, "submit_time"},
                             "the job is submitted before the one above it; an SWF trace is sorted by submit time");
        last_submit = job.submit;
        result.killed_at_limit += next->killed_at_limit ? 1 : 0;
        for (auto& simulator : result.simulators) simulator->submit(job);
        if (++result.jobs_replayed % 4096 == 0 && progress) {
            double read = input.fraction_read();
            if (options.max_jobs)
                read = std::max(read, static_cast<double>(result.jobs_read) / static_cast<double>(*options.max_jobs));
            progress(std::min(read, 1.0), result.jobs_replayed);
        }
    }
    for (auto& simulator : result.simulators) simulator->finish();
    if (progress) progress(1.0, result.jobs_replayed);
    return result;
}

ReplayResult replay_trace(const Options& options, const ProgressSink& progress, std::ostream* starts) {
    SwfTrace trace(options.trace);
    return replay(options, trace, progress, starts);
}

AccountingTrace::AccountingTrace(std::string name, sim::SwfHeader header)
    : name_(std::move(name)), header_(std::move(header)) {}

void AccountingTrace::add(const std::string& account, const std::string& user, const sim::AccountedRun& run) {
    AssociationKey key{account, user};
    auto [slot, added] = key_index_.try_emplace(key, static_cast<std::uint32_t>(keys_.size()));
    if (added) keys_.push_back(std::move(key));
    entries_.push_back({run, slot->second});
}

void AccountingTrace::seal() {
    std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return a.run.submit != b.run.submit ? a.run.submit < b.run.submit : a.run.id < b.run.id;
    });
}

std::optional<InputJob> AccountingTrace::next(const sim::TraceShape& shape) {
    if (next_ >= entries_.size()) return std::nullopt;
    const Entry& entry = entries_[next_++];
    InputJob job{sim::accounted_job(entry.run, shape.capacity, 0),
                 keys_[entry.key],
                 {name_, 0, "job " + std::to_string(entry.run.id)},
                 false};
    job.killed_at_limit = entry.run.limit > 0 && entry.run.elapsed > entry.run.limit;
    return job;
}

double AccountingTrace::fraction_read() const {
    return entries_.empty() ? 1.0 : static_cast<double>(next_) / static_cast<double>(entries_.size());
}

}  // namespace fairway::simtool
