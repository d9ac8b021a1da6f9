#include "tools/report/report_model.h"

#include <algorithm>

#include "fairshare/run_charges.h"

namespace fairway::report {
namespace {

std::string name_key(const std::string& account, const std::string& user) { return account + '\0' + user; }

// The core names settings and associations by key alone; add the input file so messages say where.
[[noreturn]] void rethrow_in(const std::string& file, const InputError& error) {
    throw InputError({file, error.where().line, error.where().key}, error.problem());
}

}  // namespace

// The core names a bad association by its id; name it by where the input defined it instead.
void ReportModel::rethrow_at_association(const InputHeader& header, const InputError& error) const {
    const std::string prefix = "association ";
    const std::string& key = error.where().key;
    if (key.rfind(prefix, 0) == 0 && key.size() > prefix.size() &&
        key.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
        std::size_t index = std::stoul(key.substr(prefix.size())) - 1;
        if (index < node_where_.size() && !node_where_[index].key.empty())
            throw InputError(node_where_[index], error.problem());
    }
    rethrow_in(header.source, error);
}

void ReportModel::add_node(const AssociationSpec& spec, fairshare::AssocId parent) {
    std::string key = name_key(spec.account, spec.user);
    if (index_by_name_.count(key))
        throw InputError(spec.where, "association account=" + spec.account +
                                         (spec.user.empty() ? "" : " user=" + spec.user) + " is defined twice");
    fairshare::AssociationNode node;
    node.id = static_cast<fairshare::AssocId>(nodes_.size() + 1);
    node.parent = parent;
    node.account = spec.account;
    node.user = spec.user;
    node.shares = spec.shares;
    index_by_name_.emplace(std::move(key), nodes_.size());
    nodes_.push_back(std::move(node));
    node_where_.push_back(spec.where);
}

// Accounts first (so parents can be named in any order), then users; ids follow that order.
void ReportModel::build_tree(const std::vector<AssociationSpec>& specs) {
    auto root_spec = std::find_if(specs.begin(), specs.end(),
                                  [](const AssociationSpec& s) { return s.account == "root" && s.user.empty(); });
    AssociationSpec root{"root", "", "", fairshare::Shares::of(1), {}};
    const AssociationSpec* explicit_root = root_spec != specs.end() ? &*root_spec : nullptr;
    if (explicit_root) {
        if (!root_spec->parent.empty()) throw InputError(root_spec->where, "the root account has no parent");
        root = *root_spec;
    }
    add_node(root, fairshare::kNoParent);
    for (const AssociationSpec& spec : specs) {
        if (!spec.user.empty() || &spec == explicit_root) continue;
        if (spec.parent.empty()) throw InputError(spec.where, "account '" + spec.account + "' needs a 'parent'");
        add_node(spec, 0);
    }
    for (const AssociationSpec& spec : specs) {
        if (spec.user.empty()) continue;
        auto account = index_by_name_.find(name_key(spec.account, ""));
        if (account == index_by_name_.end())
            throw InputError(spec.where, "user " + spec.user + " is in unknown account '" + spec.account + "'");
        add_node(spec, nodes_[account->second].id);
    }
    for (const AssociationSpec& spec : specs) {  // resolve account parents now that all exist
        if (!spec.user.empty() || spec.parent.empty()) continue;
        auto parent = index_by_name_.find(name_key(spec.parent, ""));
        if (parent == index_by_name_.end())
            throw InputError({spec.where.file, spec.where.line, spec.where.key + ".parent"},
                             "unknown parent account '" + spec.parent + "'");
        nodes_[index_by_name_.at(name_key(spec.account, ""))].parent = nodes_[parent->second].id;
    }
}

void ReportModel::begin(const InputHeader& header) {
    settings_ = header.settings;
    build_tree(header.associations);
    try {
        tree_ = fairshare::AssociationTree(nodes_);
        ledger_ = fairshare::WindowedUsageLedger(
            fairshare::LedgerConfig{settings_.window, settings_.half_life, settings_.bucket}.validated());
        kube_ledger_ = fairshare::WindowedUsageLedger(ledger_.config());
    } catch (const InputError& error) {
        rethrow_at_association(header, error);
    }
    totals_.assign(nodes_.size(), {});
    history_.assign(nodes_.size(), std::vector<double>(kHistoryBins, 0.0));
    kube_history_ = history_;
    Seconds span = settings_.window != fairshare::kInfiniteWindow ? settings_.window
                   : settings_.half_life.count() > 0              ? 4 * settings_.half_life
                                                                  : Seconds{14 * 86400};
    history_start_ = settings_.now - span;
    horizon_ = fairshare::usage_horizon(ledger_.config(), settings_.now);
}

void ReportModel::add(const UsageSample& sample, const SourceLocation& where) {
    std::optional<std::size_t> index = find(sample.account, sample.user);
    if (!index)
        throw InputError(
            where, "no association account=" + sample.account + (sample.user.empty() ? "" : " user=" + sample.user));
    if (sample.end > settings_.now) throw InputError({where.file, where.line, where.key + ".end"}, "is after 'now'");
    ++records_;
    try {
        charge(ledger_, tree_.node(*index).id, sample);
        if (sample.kubernetes) charge(kube_ledger_, tree_.node(*index).id, sample);
    } catch (const InputError& error) {
        throw InputError(where, error.what());
    }
    const double share = share_in_window(sample);
    if (share <= 0) return;
    WindowTotals& totals = totals_[*index];
    totals.billing_seconds += share * sample.billing_seconds;
    if (sample.kubernetes) {
        totals.kube_gpu_seconds += share * sample.gpu_seconds;
        totals.kube_billing_seconds += share * sample.billing_seconds;
    } else {
        totals.gpu_seconds += share * sample.gpu_seconds;
        totals.cpu_seconds += share * sample.cpu_seconds;
    }
    if (sample.end >= history_start_) {
        auto span = (settings_.now - history_start_).count();
        auto bin = span > 0 ? static_cast<std::size_t>((sample.end - history_start_).count() * kHistoryBins / span) : 0;
        const std::size_t clamped = std::min(bin, kHistoryBins - 1);
        history_[*index][clamped] += share * sample.billing_seconds;
        if (sample.kubernetes) kube_history_[*index][clamped] += share * sample.billing_seconds;
    }
}

// A record with a start is a job's run, charged by the plugin's rule; one without is charged at its end.
void ReportModel::charge(fairshare::WindowedUsageLedger& ledger, fairshare::AssocId id, const UsageSample& sample) {
    if (!sample.start || *sample.start >= sample.end) {
        ledger.charge(id, sample.billing_seconds, sample.end);
        return;
    }
    const double rate = sample.billing_seconds / static_cast<double>((sample.end - *sample.start).count());
    const fairshare::ChargeSpan span = fairshare::uncharged_span(*sample.start, sample.end, std::nullopt, horizon_);
    ledger.charge_span(id, rate, span.from, span.to);
}

// The part of a record's amounts used inside the window at "now" (the ledger judges age against the
// latest record seen so far; the totals use "now" exactly).
double ReportModel::share_in_window(const UsageSample& sample) const {
    if (settings_.window == fairshare::kInfiniteWindow) return 1;
    const TimePoint window_start = settings_.now - settings_.window;
    if (!sample.start || *sample.start >= sample.end) return sample.end > window_start ? 1 : 0;
    const auto inside = sample.end - std::max(*sample.start, window_start);
    return inside.count() <= 0 ? 0 : static_cast<double>(inside.count()) / (sample.end - *sample.start).count();
}

void ReportModel::finish(const ReportSettings& settings) {
    settings_ = settings;
    ledger_.advance(settings_.now);
    kube_ledger_.advance(settings_.now);
    tree_ = tree_.with_usage(ledger_, settings_.now);
}

double ReportModel::kubernetes_usage(std::size_t index) const {
    return kube_ledger_.usage(tree_.node(index).id, settings_.now);
}

fairshare::FairShareResult ReportModel::fair_share() const {
    return fairshare::compute_fair_share(tree_, settings_.fair_share);
}

WindowTotals ReportModel::subtree_totals(std::size_t index) const {
    WindowTotals sum = totals_.at(index);
    for (std::size_t child : tree_.children(index)) {
        WindowTotals part = subtree_totals(child);
        sum.billing_seconds += part.billing_seconds;
        sum.gpu_seconds += part.gpu_seconds;
        sum.cpu_seconds += part.cpu_seconds;
        sum.kube_gpu_seconds += part.kube_gpu_seconds;
        sum.kube_billing_seconds += part.kube_billing_seconds;
    }
    return sum;
}

std::vector<double> ReportModel::subtree_sum(const std::vector<std::vector<double>>& per_node,
                                             std::size_t index) const {
    std::vector<double> sum = per_node.at(index);
    for (std::size_t child : tree_.children(index)) {
        std::vector<double> part = subtree_sum(per_node, child);
        for (std::size_t bin = 0; bin < sum.size(); ++bin) sum[bin] += part[bin];
    }
    return sum;
}

std::vector<double> ReportModel::subtree_history(std::size_t index) const { return subtree_sum(history_, index); }

std::vector<double> ReportModel::subtree_kubernetes_history(std::size_t index) const {
    return subtree_sum(kube_history_, index);
}

std::optional<std::size_t> ReportModel::find(const std::string& account, const std::string& user) const {
    lookup_key_.assign(account).append(1, '\0').append(user);
    auto found = index_by_name_.find(lookup_key_);
    if (found == index_by_name_.end()) return std::nullopt;
    return found->second;
}

std::vector<std::size_t> ReportModel::associations_of_user(const std::string& user) const {
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < tree_.size(); ++i)
        if (tree_.node(i).user == user) found.push_back(i);
    return found;
}

}  // namespace fairway::report
