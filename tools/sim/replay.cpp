#include "replay.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <variant>

#include "common/error.h"
#include "report/commands.h"
#include "report/report_model.h"

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
    const bool gpus = options.procs_are == sim::ProcsAre::kGpus;
    spec.cores_per_node = options.cores_per_node.value_or(gpus ? 0 : per_node);
    spec.gpus_per_node = options.gpus_per_node.value_or(gpus ? per_node : 0);
    try {
        spec.validate();
    } catch (const InputError& error) {
        throw InputError({trace, 0, error.where().key}, error.problem());
    }
    return spec;
}

using AssociationKey = std::pair<std::string, std::string>;  // (account, user)

AssociationKey key_of(const SwfJob& swf) { return {swf_account_name(swf.group), swf_user_name(swf.user)}; }

// What the first pass learns: every (account, user) and the billing-seconds each runs.
struct TraceFacts {
    std::map<AssociationKey, double> billing;
};

double billing_of(const sim::SimConfig& config, const SimJob& job) {
    return (config.billing_per_core * static_cast<double>(job.need.cores) +
            config.billing_per_gpu * static_cast<double>(job.need.gpus)) *
           static_cast<double>(job.run);
}

TraceFacts scan_trace(const Options& options, const sim::TraceShape& shape) {
    std::ifstream in = open_trace(options.trace);
    SwfReader reader(in, options.trace);
    TraceFacts facts;
    std::uint64_t read = 0;
    while (std::optional<SwfJob> swf = reader.next()) {
        if (options.max_jobs && read++ >= *options.max_jobs) break;
        auto replayed = sim::replayed_job(*swf, shape, 0);
        if (const SimJob* job = std::get_if<SimJob>(&replayed))
            facts.billing[key_of(*swf)] += billing_of(options.config, *job);
    }
    return facts;
}

std::unique_ptr<sim::Population> population_of(const Options& options, const TraceFacts& facts) {
    if (options.tree.empty()) {
        std::vector<AssociationKey> pairs;
        for (const auto& [key, billing] : facts.billing) pairs.push_back(key);
        if (pairs.empty()) throw InputError({options.trace, 0, ""}, "the trace has no job to replay");
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

ReplayResult replay_trace(const Options& options, const ProgressSink& progress, std::ostream* starts) {
    ReplayResult result;
    result.trace = options.trace;
    std::ifstream in = open_trace(options.trace);
    in.seekg(0, std::ios::end);
    const auto size = static_cast<double>(in.tellg());
    in.seekg(0);
    SwfReader reader(in, options.trace);
    result.header = reader.header();
    result.cluster = cluster_of(options, result.header, options.trace);
    result.time_origin = options.start.value_or(result.header.unix_start_time.value_or(0));
    const sim::TraceShape shape{result.time_origin, options.procs_are, result.cluster.capacity()};

    const TraceFacts facts = scan_trace(options, shape);
    result.population = population_of(options, facts);
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
    while (std::optional<SwfJob> swf = reader.next()) {
        if (options.max_jobs && result.jobs_read >= *options.max_jobs) break;
        ++result.jobs_read;
        auto replayed = sim::replayed_job(*swf, shape, 0);
        if (const sim::SkipReason* reason = std::get_if<sim::SkipReason>(&replayed)) {
            ++result.skipped[static_cast<std::size_t>(*reason)];
            continue;
        }
        SimJob& job = std::get<SimJob>(replayed);
        std::optional<std::size_t> node = association_of(*result.population, key_of(*swf));
        if (!node)
            throw InputError({options.trace, swf->line, "user_id"},
                             swf_user_name(swf->user) + " has no association in " + options.tree);
        job.association = *node;
        if (last_submit && job.submit < *last_submit)
            throw InputError({options.trace, swf->line, "submit_time"},
                             "the job is submitted before the one above it; an SWF trace is sorted by submit time");
        last_submit = job.submit;
        result.killed_at_limit += swf->run_time > job.limit ? 1 : 0;
        for (auto& simulator : result.simulators) simulator->submit(job);
        if (++result.jobs_replayed % 4096 == 0 && progress && size > 0) {
            double read = static_cast<double>(in.tellg()) / size;
            if (options.max_jobs)
                read = std::max(read, static_cast<double>(result.jobs_read) / static_cast<double>(*options.max_jobs));
            progress(std::min(read, 1.0), result.jobs_replayed);
        }
    }
    for (auto& simulator : result.simulators) simulator->finish();
    if (progress) progress(1.0, result.jobs_replayed);
    return result;
}

}  // namespace fairway::simtool
