#include "fairshare/fair_share.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fairway::fairshare {
namespace {

// Slurm's NO_VAL as a long double: Fair Tree's level_fs of the root and of "parent" accounts, and
// the initial "previous level_fs" of every sibling walk. Ranking compares against it, so keep it.
constexpr long double kNoVal = 4294967294.0L;
constexpr long double kInfinity = std::numeric_limits<long double>::infinity();

// Everything both algorithms derive from the tree shape and usage alone.
struct TreeFacts {
    const AssociationTree& tree;
    std::vector<std::size_t> preorder;  // parents before children
    std::vector<std::optional<std::size_t>> fs_parent;
    std::vector<std::vector<std::size_t>> fs_children;
    std::vector<std::uint32_t> level_shares;
    std::vector<long double> raw_usage;
    long double root_usage = 0;

    bool use_parent(std::size_t i) const { return tree.node(i).shares.use_parent; }
    std::uint32_t raw(std::size_t i) const { return use_parent(i) ? 0 : tree.node(i).shares.raw; }
    bool is_root(std::size_t i) const { return i == tree.root_index(); }
};

std::vector<std::size_t> preorder_of(const AssociationTree& tree) {
    std::vector<std::size_t> order;
    std::vector<std::size_t> stack{tree.root_index()};
    while (!stack.empty()) {
        const std::size_t at = stack.back();
        stack.pop_back();
        order.push_back(at);
        const auto& kids = tree.children(at);
        stack.insert(stack.end(), kids.rbegin(), kids.rend());
    }
    return order;
}

// The nearest ancestor whose shares are not "parent" (Slurm's fs_assoc_ptr); its fair-share
// children are the siblings a node is compared with.
void link_fair_share_parents(TreeFacts& facts, const std::vector<std::optional<std::size_t>>& parent) {
    const std::size_t n = facts.tree.size();
    facts.fs_parent.assign(n, std::nullopt);
    facts.fs_children.assign(n, {});
    for (std::size_t i : facts.preorder) {
        if (!parent[i]) continue;
        std::size_t up = *parent[i];
        while (facts.use_parent(up) && parent[up]) up = *parent[up];
        facts.fs_parent[i] = up;
    }
    for (std::size_t i = 0; i < n; ++i)
        if (facts.fs_parent[i]) facts.fs_children[*facts.fs_parent[i]].push_back(i);
}

TreeFacts gather(const AssociationTree& tree) {
    TreeFacts facts{tree, preorder_of(tree), {}, {}, {}, {}, 0};
    std::vector<std::optional<std::size_t>> parent(tree.size());
    for (std::size_t i = 0; i < tree.size(); ++i)
        for (std::size_t child : tree.children(i)) parent[child] = i;
    link_fair_share_parents(facts, parent);
    facts.level_shares.assign(tree.size(), 0);
    for (std::size_t p = 0; p < tree.size(); ++p) {
        std::uint32_t sum = 0;
        for (std::size_t child : facts.fs_children[p]) sum += facts.raw(child);
        for (std::size_t child : facts.fs_children[p]) facts.level_shares[child] = sum;
    }
    facts.raw_usage.assign(tree.size(), 0);
    for (auto it = facts.preorder.rbegin(); it != facts.preorder.rend(); ++it) {
        facts.raw_usage[*it] += static_cast<long double>(tree.node(*it).own_usage);
        if (parent[*it]) facts.raw_usage[*parent[*it]] += facts.raw_usage[*it];
    }
    facts.root_usage = facts.raw_usage[tree.root_index()];
    return facts;
}

long double norm_usage(const TreeFacts& facts, std::size_t i) {
    if (facts.root_usage == 0) return 0;
    return std::min(1.0L, facts.raw_usage[i] / facts.root_usage);
}

// Working values of one computation, in Slurm's types.
struct Work {
    std::vector<double> shares_norm;
    std::vector<long double> usage_efctv;
    std::vector<long double> level_fs;
    std::vector<double> user_factor;
    std::vector<long double> children_norm_usage;  // DEPTH_OBLIVIOUS only: see children_norm_usage()
};

// Each node's fair-share children's NormUsage summed, leaving out "parent" ones (Slurm sums a
// node's siblings this way for each node; once per parent gives the same sum).
std::vector<long double> children_norm_usage(const TreeFacts& facts) {
    std::vector<long double> sums(facts.tree.size(), 0);
    for (std::size_t p = 0; p < facts.tree.size(); ++p)
        for (std::size_t child : facts.fs_children[p])
            if (!facts.use_parent(child)) sums[p] += norm_usage(facts, child);
    return sums;
}

double classic_norm_shares(const TreeFacts& facts, const std::vector<std::optional<std::size_t>>& parent,
                           const Work& work, std::size_t i) {
    if (facts.use_parent(i) && facts.fs_parent[i]) return work.shares_norm[*facts.fs_parent[i]];
    double norm = 1.0;
    for (std::size_t at = i; parent[at]; at = *parent[at]) {
        if (facts.use_parent(at)) continue;
        if (facts.level_shares[at] == 0) norm = 0;
        else norm *= static_cast<double>(facts.raw(at)) / static_cast<double>(facts.level_shares[at]);
    }
    return norm;
}

// PriorityFlags=DEPTH_OBLIVIOUS (Slurm's _depth_oblivious_set_usage_efctv). The usage ratio
// R = EffectvUsage / NormShares becomes R_parent * r_local^k, where r_local is the node's usage
// ratio over that of all its siblings together, so that a deep account is not pulled towards 1 by
// every level above it; k = 1 / (1 + (5 ln R_parent)^2) when the parent and the node are off
// target in opposite directions (the node then moves towards its parent's ratio), else 1.
// The siblings are the fair-share parent's children whose shares are not "parent" (Slurm's
// children_list of fs_assoc_ptr, which takes in the children of "parent" accounts); the final pow()
// takes doubles there (C's pow on long double arguments), so it does here.
long double depth_oblivious_effective_usage(const TreeFacts& facts, const Work& work, std::size_t i) {
    const std::size_t up = *facts.fs_parent[i];
    const long double own = norm_usage(facts, i);
    const long double shares = work.shares_norm[i];
    const long double parent_shares = work.shares_norm[up];
    if (shares == 0 || parent_shares == 0 || work.usage_efctv[up] == 0 || own == 0) return own;
    const long double ratio_parent = work.usage_efctv[up] / parent_shares;
    const long double ratio_siblings = work.children_norm_usage[up] / parent_shares;
    const long double ratio_local = (own / shares) / ratio_siblings;
    constexpr long double kPull = 5.0L;
    long double k = 1;
    if (std::log(ratio_parent) * std::log(ratio_local) < 0)
        k = 1 / (1 + std::pow(kPull * std::log(ratio_parent), 2.0L));
    return ratio_parent * std::pow(static_cast<double>(ratio_local), static_cast<double>(k)) * shares;
}

long double classic_effective_usage(const TreeFacts& facts, const Work& work, std::size_t i,
                                    const FairShareOptions& options) {
    const std::size_t up = *facts.fs_parent[i];
    const long double own = norm_usage(facts, i);
    if (facts.is_root(up)) return own;
    if (facts.use_parent(i)) return work.usage_efctv[up];
    if (options.depth_oblivious) return depth_oblivious_effective_usage(facts, work, i);
    if (facts.level_shares[i] == 0) return work.usage_efctv[up];
    return own + (work.usage_efctv[up] - own) *
                     (static_cast<long double>(facts.raw(i)) / static_cast<long double>(facts.level_shares[i]));
}

Work run_classic(const TreeFacts& facts, const FairShareOptions& options) {
    const std::size_t n = facts.tree.size();
    std::vector<std::optional<std::size_t>> parent(n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t child : facts.tree.children(i)) parent[child] = i;
    Work work{std::vector<double>(n, 0),
              std::vector<long double>(n, 0),
              std::vector<long double>(n, 0),
              std::vector<double>(n, 0),
              {}};
    if (options.depth_oblivious) work.children_norm_usage = children_norm_usage(facts);
    for (std::size_t i : facts.preorder) {
        work.shares_norm[i] = classic_norm_shares(facts, parent, work, i);
        work.usage_efctv[i] = facts.is_root(i) ? 1.0L : classic_effective_usage(facts, work, i, options);
    }
    return work;
}

void fair_tree_level(const TreeFacts& facts, Work& work, std::size_t i) {
    const std::size_t fs = (facts.use_parent(i) && facts.fs_parent[i]) ? *facts.fs_parent[i] : i;
    work.shares_norm[i] =
        facts.level_shares[fs] ? static_cast<double>(facts.raw(fs)) / static_cast<double>(facts.level_shares[fs]) : 0.0;
    if (facts.is_root(i)) {
        work.usage_efctv[i] = 1.0L;
        work.level_fs[i] = kNoVal;
        return;
    }
    const long double parent_usage = facts.raw_usage[*facts.fs_parent[i]];
    work.usage_efctv[i] = parent_usage ? facts.raw_usage[i] / parent_usage : 0.0L;
    const long double shares = work.shares_norm[i];
    if (facts.use_parent(i)) work.level_fs[i] = facts.tree.node(i).is_user() ? kInfinity : kNoVal;
    else work.level_fs[i] = shares == 0 ? 0.0L : shares / work.usage_efctv[i];
}

struct Ranking {
    std::uint32_t users = 0;
    std::uint32_t rank = 0;
    std::uint32_t remaining = 0;  // Slurm's "rnt": rank of the next user not tied
};

// Slurm 22.05's _calc_tree_fs. Its tied-account merge never merges (it only counts users after an
// account, and users sort before accounts), so tied accounts are walked one after another with
// the tie carried into the next account's first child; this reproduces that.
void rank_siblings(const TreeFacts& facts, Work& work, Ranking& ranking, std::vector<std::size_t> siblings,
                   bool account_tied) {
    std::stable_sort(siblings.begin(), siblings.end(), [&](std::size_t a, std::size_t b) {
        if (work.level_fs[a] != work.level_fs[b]) return work.level_fs[a] > work.level_fs[b];
        return facts.tree.node(a).is_user() && !facts.tree.node(b).is_user();
    });
    long double previous = kNoVal;
    for (std::size_t k = 0; k < siblings.size(); ++k) {
        const std::size_t at = siblings[k];
        const bool tied = (k == 0 && account_tied) ? true : previous == work.level_fs[at];
        if (facts.tree.node(at).is_user()) {
            if (!tied) ranking.rank = ranking.remaining;
            work.user_factor[at] = ranking.rank / static_cast<double>(ranking.users);
            --ranking.remaining;
        } else {
            rank_siblings(facts, work, ranking, facts.fs_children[at], tied);
        }
        previous = work.level_fs[at];
    }
}

Work run_fair_tree(const TreeFacts& facts) {
    const std::size_t n = facts.tree.size();
    Work work{std::vector<double>(n, 0),
              std::vector<long double>(n, 0),
              std::vector<long double>(n, 0),
              std::vector<double>(n, 0),
              {}};
    for (std::size_t i : facts.preorder) fair_tree_level(facts, work, i);
    Ranking ranking;
    for (const AssociationNode& node : facts.tree.nodes()) ranking.users += node.is_user() ? 1 : 0;
    ranking.rank = ranking.remaining = ranking.users;
    rank_siblings(facts, work, ranking, facts.fs_children[facts.tree.root_index()], false);
    return work;
}

ShareFigures figures_of(const TreeFacts& facts, const Work& work, std::size_t i, const FairShareOptions& options) {
    const AssociationNode& node = facts.tree.node(i);
    const bool classic = options.algorithm == FairShareAlgorithm::classic;
    ShareFigures row;
    row.id = node.id;
    if (!facts.is_root(i)) row.raw_shares = node.shares;
    row.norm_shares = work.shares_norm[i];
    row.raw_usage = facts.raw_usage[i];
    if (!facts.is_root(i)) row.norm_usage = static_cast<double>(norm_usage(facts, i));
    row.effective_usage = static_cast<double>(work.usage_efctv[i]);
    // sshare computes classic FairShare from the double it received, as done here.
    if (classic) row.fair_share = classic_fs_factor(row.effective_usage, row.norm_shares, options.dampening);
    else if (node.is_user()) row.fair_share = work.user_factor[i];
    const bool no_level = facts.use_parent(i) || (!classic && facts.is_root(i));
    if (!no_level) row.level_fs = work.level_fs[i];
    return row;
}

}  // namespace

FairShareOptions fair_share_options(bool fair_tree, bool depth_oblivious, std::uint16_t dampening_factor) {
    FairShareOptions options;
    options.algorithm = fair_tree ? FairShareAlgorithm::fair_tree : FairShareAlgorithm::classic;
    options.depth_oblivious = !fair_tree && depth_oblivious;
    options.dampening = dampening_factor ? dampening_factor : 1;
    return options;
}

const char* algorithm_name(const FairShareOptions& options) {
    if (options.algorithm == FairShareAlgorithm::fair_tree) return "fair_tree";
    return options.depth_oblivious ? "depth_oblivious" : "classic";
}

double classic_fs_factor(long double effective_usage, long double norm_shares, std::uint16_t dampening) {
    if (norm_shares <= 0) return 0.0;
    const long double damp = dampening == 0 ? 1 : dampening;
    return std::pow(2.0, -static_cast<double>((effective_usage / norm_shares) / damp));
}

FairShareResult compute_fair_share(const AssociationTree& tree, const FairShareOptions& options) {
    const TreeFacts facts = gather(tree);
    const bool classic = options.algorithm == FairShareAlgorithm::classic;
    const Work work = classic ? run_classic(facts, options) : run_fair_tree(facts);
    FairShareResult result;
    result.options_ = options;
    result.effective_exact_ = work.usage_efctv;
    result.user_factor_ = work.user_factor;
    result.index_ = tree.id_index();
    result.figures_.reserve(tree.size());
    result.fs_assoc_.reserve(tree.size());
    for (std::size_t i = 0; i < tree.size(); ++i) {
        result.figures_.push_back(figures_of(facts, work, i, options));
        result.fs_assoc_.push_back((facts.use_parent(i) && facts.fs_parent[i]) ? *facts.fs_parent[i] : i);
    }
    return result;
}

const ShareFigures* FairShareResult::find(AssocId id) const {
    if (!index_) return nullptr;
    const auto found = index_->find(id);
    return found == index_->end() ? nullptr : &figures_[found->second];
}

double FairShareResult::job_factor(AssocId id) const {
    if (!index_) return 0.0;
    const auto found = index_->find(id);
    if (found == index_->end()) return 0.0;
    return job_factor_at(found->second);
}

double FairShareResult::job_factor_at(std::size_t position) const {
    if (options_.algorithm == FairShareAlgorithm::fair_tree) return user_factor_[position];
    const std::size_t fs = fs_assoc_[position];
    return classic_fs_factor(effective_exact_[fs], figures_[fs].norm_shares, options_.dampening);
}

bool FairShareResult::same_job_factors(const FairShareResult& other) const {
    if (index_ != other.index_ || figures_.size() != other.figures_.size() ||
        options_.algorithm != other.options_.algorithm)
        return false;
    for (std::size_t i = 0; i < figures_.size(); ++i)
        if (job_factor_at(i) != other.job_factor_at(i)) return false;
    return true;
}

}  // namespace fairway::fairshare
