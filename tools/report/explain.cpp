#include "tools/report/explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/iso8601.h"
#include "common/slurm_time.h"
#include "tools/report/sshare_format.h"

namespace fairway::report {
namespace {

using fairshare::FairShareResult;

bool is_classic(const ReportModel& model) {
    return model.settings().fair_share.algorithm == fairshare::FairShareAlgorithm::classic;
}

// Indexes matching a target: the user's associations, else the account's own association.
std::vector<std::size_t> resolve_target(const ReportModel& model, const std::string& target) {
    std::vector<std::size_t> found = model.associations_of_user(target);
    if (found.empty())
        if (std::optional<std::size_t> account = model.find(target, "")) found.push_back(*account);
    if (found.empty()) throw InputError({"", 0, "target"}, "no user or account named '" + target + "'");
    return found;
}

std::vector<std::string> account_path(const fairshare::AssociationTree& tree, std::size_t index) {
    std::vector<std::string> path;
    std::optional<std::size_t> at = tree.node(index).is_user() ? tree.index_of(tree.node(index).parent) : index;
    for (; at; at = tree.index_of(tree.node(*at).parent)) path.insert(path.begin(), tree.node(*at).account);
    return path;
}

// 1-based rank of `value` among `values` (higher is better; ties share a rank).
std::size_t rank_of(double value, const std::vector<double>& values) {
    return 1 +
           static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [&](double v) { return v > value; }));
}

double peer_score(const ReportModel& model, const FairShareResult& result, std::size_t index) {
    const fairshare::ShareFigures& f = result.figures().at(index);
    if (is_classic(model)) return result.job_factor(f.id);
    if (!f.level_fs) return std::numeric_limits<double>::infinity();
    return static_cast<double>(*f.level_fs);
}

void rank_among_peers(const ReportModel& model, const FairShareResult& result, AssociationExplanation& e) {
    const fairshare::AssociationTree& tree = model.tree();
    std::optional<std::size_t> parent = tree.index_of(tree.node(e.index).parent);
    std::vector<double> scores;
    for (std::size_t sibling : parent ? tree.children(*parent) : std::vector<std::size_t>{e.index})
        scores.push_back(peer_score(model, result, sibling));
    e.peers = scores.size();
    e.peer_rank = rank_of(peer_score(model, result, e.index), scores);
}

std::string fixed(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%f", value);
    return text;
}

std::string optional_fixed(std::optional<long double> value) {
    if (!value) return "-";
    return std::isinf(*value) ? "inf" : fixed(static_cast<double>(*value));
}

std::string joined(const std::vector<std::string>& parts) {
    std::string text;
    for (const std::string& part : parts) text += (text.empty() ? "" : "/") + part;
    return text;
}

// Kubernetes' part of a node's RawUsage: its own and, for an account, its subtree's, as sshare sums it.
double subtree_kubernetes_usage(const ReportModel& model, std::size_t index) {
    double sum = model.kubernetes_usage(index);
    for (std::size_t child : model.tree().children(index)) sum += subtree_kubernetes_usage(model, child);
    return sum;
}

// Where the usage behind the factor was spent: Slurm's jobs, Kubernetes' GPUs (fairway-bridge's records).
void print_usage_by_cluster(std::ostream& out, long double raw_usage, double kubernetes) {
    const double total = static_cast<double>(raw_usage);
    const double slurm = std::max(0.0, total - kubernetes);
    const auto percent = [&](double part) { return total > 0 ? std::llround(100 * part / total) : 0LL; };
    out << "  RawUsage from Slurm " << std::llround(slurm) << " (" << percent(slurm) << "%), from Kubernetes "
        << std::llround(kubernetes) << " (" << percent(kubernetes) << "%)\n";
}

}  // namespace

std::vector<AssociationExplanation> explain_target(const ReportModel& model, const std::string& target) {
    FairShareResult result = model.fair_share();
    const fairshare::AssociationTree& tree = model.tree();
    std::vector<double> user_factors;
    for (std::size_t i = 0; i < tree.size(); ++i)
        if (tree.node(i).is_user()) user_factors.push_back(result.job_factor(tree.node(i).id));
    std::vector<AssociationExplanation> out;
    for (std::size_t index : resolve_target(model, target)) {
        AssociationExplanation e;
        e.index = index;
        e.account = tree.node(index).account;
        e.user = tree.node(index).user;
        e.path = account_path(tree, index);
        e.figures = result.figures().at(index);
        e.job_factor = result.job_factor(tree.node(index).id);
        e.ranked = user_factors.size();
        e.rank = rank_of(e.job_factor, user_factors);
        rank_among_peers(model, result, e);
        e.weighted_fairshare = model.settings().weight_fairshare * e.job_factor;
        e.kubernetes_usage = subtree_kubernetes_usage(model, index);
        out.push_back(std::move(e));
    }
    return out;
}

void print_explanations(std::ostream& out, const ReportModel& model,
                        const std::vector<AssociationExplanation>& explanations) {
    const ReportSettings& s = model.settings();
    out << "Fair share at " << format_iso8601(s.now) << " (" << (is_classic(model) ? "classic" : "Fair Tree")
        << ", window " << format_slurm_duration(s.window) << ", half-life " << format_slurm_duration(s.half_life)
        << ")\n";
    for (const AssociationExplanation& e : explanations) {
        const fairshare::ShareFigures& f = e.figures;
        out << "\n"
            << (e.user.empty() ? "Account " + e.account : "User " + e.user + " in account " + e.account) << " ("
            << joined(e.path) << ")\n";
        out << "  RawShares "
            << (f.raw_shares ? (f.raw_shares->use_parent ? "parent" : std::to_string(f.raw_shares->raw)) : "-")
            << "  NormShares " << fixed(f.norm_shares) << "  RawUsage " << static_cast<unsigned long long>(f.raw_usage)
            << "  EffectvUsage " << fixed(f.effective_usage) << "  LevelFS " << optional_fixed(f.level_fs) << "\n";
        print_usage_by_cluster(out, f.raw_usage, e.kubernetes_usage);
        out << "  Fair-share factor " << fixed(e.job_factor) << ": rank " << e.rank << " of " << e.ranked
            << " user associations (1 = highest)\n";
        out << "  Among its " << e.peers << " sibling(s): rank " << e.peer_rank << " by "
            << (is_classic(model) ? "fair-share factor" : "LevelFS") << "\n";
        out << "  Priority from fair share: PriorityWeightFairshare " << s.weight_fairshare << " x "
            << fixed(e.job_factor) << " = " << static_cast<long long>(std::llround(e.weighted_fairshare)) << "\n";
    }
}

nlohmann::json explanations_json(const std::vector<AssociationExplanation>& explanations) {
    nlohmann::json list = nlohmann::json::array();
    for (const AssociationExplanation& e : explanations) {
        nlohmann::json item = {{"account", e.account},
                               {"path", e.path},
                               {"norm_shares", e.figures.norm_shares},
                               {"raw_usage", static_cast<double>(e.figures.raw_usage)},
                               {"effective_usage", e.figures.effective_usage},
                               {"level_fs", json_number(e.figures.level_fs)},
                               {"fairshare_factor", e.job_factor},
                               {"rank", e.rank},
                               {"ranked", e.ranked},
                               {"peer_rank", e.peer_rank},
                               {"peers", e.peers},
                               {"weighted_fairshare", e.weighted_fairshare},
                               {"kubernetes_usage", e.kubernetes_usage}};
        if (!e.user.empty()) item["user"] = e.user;
        list.push_back(std::move(item));
    }
    return list;
}

std::vector<ForecastLine> forecast_target(const ReportModel& model, const std::string& target, double level) {
    const fairshare::AssociationTree& tree = model.tree();
    std::vector<std::size_t> watched;
    for (std::size_t index : resolve_target(model, target)) {
        if (tree.node(index).is_user() || is_classic(model)) {
            watched.push_back(index);
            continue;
        }
        for (std::size_t child : tree.children(index))
            if (tree.node(child).is_user()) watched.push_back(child);
    }
    std::vector<ForecastLine> lines;
    for (std::size_t index : watched) {
        fairshare::RecoveryQuery query{tree.node(index).id, level, Seconds{0}};
        lines.push_back({index, tree.node(index).account, tree.node(index).user, level,
                         fairshare::forecast_recovery(model.ledger(), tree, model.settings().fair_share, query,
                                                      model.settings().now)});
    }
    return lines;
}

void print_forecasts(std::ostream& out, const ReportModel& model, const std::vector<ForecastLine>& lines) {
    TimePoint now = model.settings().now;
    for (const ForecastLine& line : lines) {
        out << (line.user.empty() ? line.account : line.user + " (account " + line.account + ")") << ": factor "
            << fixed(line.forecast.factor_now) << " now; ";
        if (!line.forecast.reached)
            out << "does not reach " << fixed(line.target_level) << " within the forecast horizon\n";
        else if (*line.forecast.reached <= now) out << "already at or above " << fixed(line.target_level) << "\n";
        else
            out << "reaches " << fixed(line.target_level) << " at " << format_iso8601(*line.forecast.reached) << " (in "
                << format_slurm_duration(*line.forecast.reached - now) << ", factor "
                << fixed(line.forecast.factor_at_reached) << ")\n";
    }
}

nlohmann::json forecasts_json(const ReportModel& model, const std::vector<ForecastLine>& lines) {
    nlohmann::json list = nlohmann::json::array();
    for (const ForecastLine& line : lines) {
        nlohmann::json item = {
            {"account", line.account}, {"level", line.target_level}, {"factor_now", line.forecast.factor_now}};
        if (!line.user.empty()) item["user"] = line.user;
        item["reached"] = line.forecast.reached ? nlohmann::json(format_iso8601(*line.forecast.reached)) : nullptr;
        item["seconds_from_now"] =
            line.forecast.reached ? nlohmann::json((*line.forecast.reached - model.settings().now).count()) : nullptr;
        list.push_back(std::move(item));
    }
    return list;
}

}  // namespace fairway::report
