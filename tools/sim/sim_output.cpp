#include "tools/sim/sim_output.h"

#include <algorithm>
#include <cstdio>

#include "common/iso8601.h"
#include "common/slurm_time.h"

namespace fairway::simtool {
namespace {

using nlohmann::json;
using sim::PolicyStatistics;
using sim::RecoveryFigures;
using sim::WaitFigures;

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string padded(const std::string& text, std::size_t width, bool left = false) {
    if (text.size() >= width) return text;
    return left ? text + std::string(width - text.size(), ' ') : std::string(width - text.size(), ' ') + text;
}

std::string iso(std::int64_t t) { return format_iso8601(UnixTime{Seconds{t}}); }

std::size_t policy_width(const ReplayResult& result) {
    std::size_t width = 6;
    for (const auto& simulator : result.simulators) width = std::max(width, simulator->policy().name().size());
    return width + 2;
}

std::string trace_line(const ReplayResult& result) {
    const sim::Population& population = *result.population;
    std::string text = result.trace + ": " + std::to_string(result.jobs_replayed) + " of " +
                       std::to_string(result.jobs_read) + " jobs replayed";
    for (std::size_t r = 0; r < sim::kSkipReasons; ++r)
        if (result.skipped[r])
            text += ", " + std::to_string(result.skipped[r]) + " skipped (" +
                    sim::skip_reason_name(static_cast<sim::SkipReason>(r)) + ")";
    if (result.killed_at_limit) text += ", " + std::to_string(result.killed_at_limit) + " killed at their limit";
    text += "\ncluster: " + std::to_string(result.cluster.nodes) + " nodes x " +
            std::to_string(result.cluster.cores_per_node) + " cores";
    if (result.cluster.gpus_per_node) text += " x " + std::to_string(result.cluster.gpus_per_node) + " GPUs";
    text += "; " + std::to_string(population.users().size()) + " users in " +
            std::to_string(population.accounts().size()) + " accounts; heaviest user " +
            population.users()[result.heavy_user];
    return text;
}

void print_summary(std::ostream& out, const ReplayResult& result) {
    const std::size_t w = policy_width(result);
    const std::string& heavy = result.population->users()[result.heavy_user];
    out << padded("policy", w, true) << "  util  wait-mean  wait-med  wait-p95  bsld-mean  bsld-p95  backfill   Jain"
        << "  recovered(" << heavy << ")  median   all-median\n";
    out << padded("", w, true) << "            (hours)   (hours)   (hours)" << std::string(38, ' ')
        << "     times  (hours)   (hours)\n";
    for (const auto& simulator : result.simulators) {
        const PolicyStatistics& s = simulator->statistics();
        const WaitFigures& all = s.overall();
        out << padded(simulator->policy().name(), w, true)
            << padded(fixed(s.core_utilization() > 0 ? s.core_utilization() : s.gpu_utilization(), 3), 6)
            << padded(hours(all.mean_wait()), 11) << padded(hours(all.wait.quantile(0.5)), 10)
            << padded(hours(all.wait.quantile(0.95)), 10) << padded(fixed(all.mean_slowdown(), 1), 11)
            << padded(fixed(all.slowdown.quantile(0.95), 1), 10) << padded(std::to_string(s.backfilled()), 10)
            << padded(fixed(s.shares().mean_jain(), 3), 7);
        if (!s.factors_seen()) {
            out << padded("-", 12 + heavy.size()) << padded("-", 9) << padded("-", 13) << "\n";
            continue;
        }
        const RecoveryFigures& h = s.recovery().users()[result.heavy_user];
        const RecoveryFigures& every = s.recovery().overall();
        out << padded(std::to_string(h.recovered) + "/" + std::to_string(h.stretches), 12 + heavy.size())
            << padded(h.recovered ? hours(h.seconds.quantile(0.5)) : "-", 9)
            << padded(every.recovered ? hours(every.seconds.quantile(0.5)) : "-", 13) << "\n";
    }
}

// One row per shown item, one column per policy.
template <class Cell>
void print_matrix(std::ostream& out, const ReplayResult& result, const std::string& title,
                  const std::vector<std::size_t>& rows, const std::vector<std::string>& names, Cell cell) {
    std::size_t name_width = 8;
    for (std::size_t row : rows) name_width = std::max(name_width, names[row].size() + 2);
    const std::size_t w = policy_width(result);
    out << "\n" << title << "\n" << padded("", name_width, true);
    for (const auto& simulator : result.simulators) out << padded(simulator->policy().name(), w);
    out << "\n";
    for (std::size_t row : rows) {
        out << padded(names[row], name_width, true);
        for (const auto& simulator : result.simulators) out << padded(cell(simulator->statistics(), row), w);
        out << "\n";
    }
}

json wait_json(const WaitFigures& f) {
    return {{"jobs", f.jobs},
            {"wait_s", {{"mean", f.mean_wait()}, {"median", f.wait.quantile(0.5)}, {"p95", f.wait.quantile(0.95)}}},
            {"bounded_slowdown",
             {{"mean", f.mean_slowdown()}, {"median", f.slowdown.quantile(0.5)}, {"p95", f.slowdown.quantile(0.95)}}}};
}

json recovery_json(const RecoveryFigures& f) {
    json j = {
        {"stretches", f.stretches}, {"recovered", f.recovered}, {"untimed", f.untimed}, {"unrecovered", f.unrecovered}};
    if (f.recovered)
        j["seconds"] = {{"mean", f.mean_seconds()},
                        {"median", f.seconds.quantile(0.5)},
                        {"p95", f.seconds.quantile(0.95)},
                        {"max", f.seconds_max}};
    return j;
}

std::string duration_text(Seconds s) { return s == fairshare::kInfiniteWindow ? "infinite" : format_slurm_duration(s); }

json policy_json(const ReplayResult& result, const sim::Simulator& simulator) {
    const sim::Population& population = *result.population;
    const PolicyStatistics& s = simulator.statistics();
    const sim::PolicySpec& policy = simulator.policy();
    json j = {{"name", policy.name()}, {"kind", policy.kind == sim::PolicyKind::fcfs ? "fcfs" : "fair_share"}};
    if (policy.kind == sim::PolicyKind::fair_share) {
        j["window"] = duration_text(policy.window);
        j["half_life"] = duration_text(policy.half_life);
        j["reset"] = sim::reset_period_name(policy.reset);
        j["calc_passes"] = simulator.calc_passes();
    }
    j["utilization"] = {{"cores", s.core_utilization()}, {"gpus", s.gpu_utilization()}};
    j["first_submit"] = iso(s.first_submit());
    j["last_end"] = iso(s.last_end());
    j["backfilled"] = s.backfilled();
    j["overall"] = wait_json(s.overall());
    json accounts = json::object(), users = json::object();
    for (std::size_t a = 0; a < population.accounts().size(); ++a)
        if (s.accounts()[a].jobs) accounts[population.accounts()[a]] = wait_json(s.accounts()[a]);
    for (std::size_t u = 0; u < population.users().size(); ++u) {
        if (!s.users()[u].jobs) continue;
        users[population.users()[u]] = wait_json(s.users()[u]);
        if (s.factors_seen()) users[population.users()[u]]["recovery"] = recovery_json(s.recovery().users()[u]);
    }
    j["accounts"] = std::move(accounts);
    j["users"] = std::move(users);
    json entities = json::object(), series = json::object(), jain = json::array();
    for (std::size_t e = 0; e < population.entities().size(); ++e) {
        const sim::EntityShareFigures& f = s.shares().entities()[e];
        if (f.active_windows)
            entities[population.entities()[e]] = {{"active_windows", f.active_windows},
                                                  {"delivered_mean", f.mean_delivered()},
                                                  {"entitled_mean", f.mean_entitled()}};
    }
    for (std::size_t i = 0; i < result.tracked_entities.size(); ++i) {
        json points = json::array();
        for (const sim::ShareSample& p : s.shares().tracked()[i]) points.push_back({p.end, p.delivered, p.entitled});
        series[population.entities()[result.tracked_entities[i]]] = std::move(points);
    }
    for (const auto& [end, index] : s.shares().jain()) jain.push_back({end, index});
    j["shares"] = {{"jain_mean", s.shares().mean_jain()},
                   {"entities", std::move(entities)},
                   {"series_columns", {"window_end", "delivered", "entitled"}},
                   {"series", std::move(series)},
                   {"jain", std::move(jain)}};
    if (s.factors_seen()) j["recovery"] = recovery_json(s.recovery().overall());
    return j;
}

}  // namespace

std::string hours(double seconds) { return fixed(seconds / 3600, 2); }

void print_tables(std::ostream& out, const ReplayResult& result, const Options& options) {
    const sim::Population& population = *result.population;
    out << trace_line(result) << "\n\n";
    print_summary(out, result);
    print_matrix(out, result, "mean wait by account (hours)", result.shown_accounts, population.accounts(),
                 [](const PolicyStatistics& s, std::size_t a) { return hours(s.accounts()[a].mean_wait()); });
    print_matrix(out, result, "p95 wait by account (hours)", result.shown_accounts, population.accounts(),
                 [](const PolicyStatistics& s, std::size_t a) { return hours(s.accounts()[a].wait.quantile(0.95)); });
    print_matrix(out, result,
                 "delivered / entitled share by account (means over the " +
                     format_slurm_duration(Seconds{options.statistics.share_window}) + " windows it was active in)",
                 result.tracked_entities, population.entities(), [](const PolicyStatistics& s, std::size_t e) {
                     const sim::EntityShareFigures& f = s.shares().entities()[e];
                     return fixed(f.mean_delivered(), 3) + "/" + fixed(f.mean_entitled(), 3);
                 });
    if (!options.users_table) return;
    std::vector<std::size_t> every_user(population.users().size());
    for (std::size_t u = 0; u < every_user.size(); ++u) every_user[u] = u;
    print_matrix(out, result, "mean wait by user (hours)", every_user, population.users(),
                 [](const PolicyStatistics& s, std::size_t u) { return hours(s.users()[u].mean_wait()); });
}

nlohmann::json result_json(const ReplayResult& result, const Options& options) {
    const sim::SimConfig& c = options.config;
    json skipped = json::object();
    for (std::size_t r = 0; r < sim::kSkipReasons; ++r)
        skipped[sim::skip_reason_name(static_cast<sim::SkipReason>(r))] = result.skipped[r];
    json j;
    j["trace"] = {{"file", result.trace},
                  {"jobs_read", result.jobs_read},
                  {"jobs_replayed", result.jobs_replayed},
                  {"skipped", skipped},
                  {"killed_at_limit", result.killed_at_limit},
                  {"time_origin", iso(result.time_origin)}};
    j["cluster"] = {{"nodes", result.cluster.nodes},
                    {"cores_per_node", result.cluster.cores_per_node},
                    {"gpus_per_node", result.cluster.gpus_per_node}};
    j["settings"] = {{"calc_period", format_slurm_duration(c.calc_period)},
                     {"weight_age", c.priority.weights.age},
                     {"weight_fairshare", c.priority.weights.fairshare},
                     {"weight_jobsize", c.priority.weights.job_size},
                     {"max_age", format_slurm_duration(c.priority.max_age)},
                     {"favor_small", c.priority.favor_small},
                     {"algorithm", fairshare::algorithm_name(c.fair_share)},
                     {"billing", {{"cpu", c.billing_per_core}, {"gpu", c.billing_per_gpu}}},
                     {"backfill_depth", c.backfill_depth},
                     {"share_window", format_slurm_duration(Seconds{options.statistics.share_window})},
                     {"share_step", format_slurm_duration(Seconds{options.statistics.share_step})},
                     {"recovery_level", options.statistics.recovery_level},
                     {"slowdown_threshold", options.statistics.slowdown_threshold}};
    j["heaviest_user"] = result.population->users()[result.heavy_user];
    json policies = json::array();
    for (const auto& simulator : result.simulators) policies.push_back(policy_json(result, *simulator));
    j["policies"] = std::move(policies);
    return j;
}

}  // namespace fairway::simtool
