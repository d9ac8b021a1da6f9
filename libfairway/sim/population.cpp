#include "sim/population.h"

#include <algorithm>
#include <set>

#include "common/error.h"

namespace fairway::sim {
namespace {

std::size_t slot_of(const std::vector<std::string>& sorted, const std::string& name) {
    return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), name) - sorted.begin());
}

}  // namespace

Population::Population(fairshare::AssociationTree tree) : tree_(std::move(tree)) {
    const std::size_t n = tree_.size();
    std::set<std::string> users, accounts;
    for (std::size_t i = 0; i < n; ++i) {
        const fairshare::AssociationNode& node = tree_.node(i);
        if (!node.is_user()) continue;
        user_nodes_.push_back(i);
        by_name_.emplace(std::pair{node.account, node.user}, i);
        users.insert(node.user);
        accounts.insert(node.account);
    }
    if (user_nodes_.empty()) throw InputError({"", 0, "associations"}, "the tree has no user association");
    users_.assign(users.begin(), users.end());
    accounts_.assign(accounts.begin(), accounts.end());
    user_slot_.assign(n, 0);
    account_slot_.assign(n, 0);
    for (std::size_t i : user_nodes_) {
        user_slot_[i] = slot_of(users_, tree_.node(i).user);
        account_slot_[i] = slot_of(accounts_, tree_.node(i).account);
    }
    entity_of_.assign(n, std::nullopt);
    const std::size_t root = tree_.root_index();
    for (std::size_t child : tree_.children(root)) {
        const fairshare::AssociationNode& node = tree_.node(child);
        std::size_t entity = entity_names_.size();
        entity_names_.push_back(node.is_user() ? node.user : node.account);
        entity_shares_.push_back(node.shares.use_parent ? 0.0 : static_cast<double>(node.shares.raw));
        std::vector<std::size_t> stack{child};
        while (!stack.empty()) {
            std::size_t at = stack.back();
            stack.pop_back();
            entity_of_[at] = entity;
            for (std::size_t below : tree_.children(at)) stack.push_back(below);
        }
    }
}

Population Population::derived(const std::vector<std::pair<std::string, std::string>>& account_user_pairs) {
    std::set<std::pair<std::string, std::string>> pairs(account_user_pairs.begin(), account_user_pairs.end());
    std::set<std::string> accounts;
    for (const auto& [account, user] : pairs) accounts.insert(account);
    std::vector<fairshare::AssociationNode> nodes;
    nodes.push_back({1, fairshare::kNoParent, "root", "", fairshare::Shares::of(1), 0});
    std::map<std::string, fairshare::AssocId> account_id;
    for (const std::string& account : accounts) {
        auto id = static_cast<fairshare::AssocId>(nodes.size() + 1);
        account_id[account] = id;
        nodes.push_back({id, 1, account, "", fairshare::Shares::of(1), 0});
    }
    for (const auto& [account, user] : pairs)
        nodes.push_back({static_cast<fairshare::AssocId>(nodes.size() + 1), account_id.at(account), account, user,
                         fairshare::Shares::of(1), 0});
    return Population(fairshare::AssociationTree(std::move(nodes)));
}

std::optional<std::size_t> Population::association(const std::string& account, const std::string& user) const {
    auto found = by_name_.find({account, user});
    if (found == by_name_.end()) return std::nullopt;
    return found->second;
}

std::vector<std::size_t> Population::associations_of(const std::string& user) const {
    std::vector<std::size_t> found;
    for (std::size_t i : user_nodes_)
        if (tree_.node(i).user == user) found.push_back(i);
    return found;
}

std::optional<std::size_t> Population::entity_of(std::size_t node) const { return entity_of_.at(node); }

}  // namespace fairway::sim
