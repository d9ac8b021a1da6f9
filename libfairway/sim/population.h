// Who submits: the association tree the fair-share core ranks, and the names statistics group by.
//
// Either derived from a trace (one account per SWF group, each user under the accounts of the groups
// it submitted with, every share equal) or any AssociationTree (e.g. fairway-report's offline JSON).
// Share figures (delivered against entitled) are kept per top-level entity: each child of the root
// (an account with its whole subtree, or a user directly under the root).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fairshare/association_tree.h"

namespace fairway::sim {

class Population {
public:
    // Throws InputError when the tree has no user association.
    explicit Population(fairshare::AssociationTree tree);
    // One account per group, named `account`, users under it; equal shares everywhere. Pairs may
    // repeat and come in any order: the tree's order is sorted by name (deterministic).
    static Population derived(const std::vector<std::pair<std::string, std::string>>& account_user_pairs);

    const fairshare::AssociationTree& tree() const noexcept { return tree_; }

    // Node index of a user's association in `account`; nullopt when there is none.
    std::optional<std::size_t> association(const std::string& account, const std::string& user) const;
    // Node indexes of every association of `user`, in tree order.
    std::vector<std::size_t> associations_of(const std::string& user) const;

    // User associations, in tree order.
    const std::vector<std::size_t>& user_associations() const noexcept { return user_nodes_; }

    // Distinct user names and account names (sorted), and each user association's slot in them.
    const std::vector<std::string>& users() const noexcept { return users_; }
    const std::vector<std::string>& accounts() const noexcept { return accounts_; }
    std::size_t user_slot(std::size_t node) const { return user_slot_.at(node); }
    std::size_t account_slot(std::size_t node) const { return account_slot_.at(node); }

    // Top-level entities (children of the root), their names and raw shares ("parent" counts 0),
    // and the entity a node belongs to (the root's own: none).
    const std::vector<std::string>& entities() const noexcept { return entity_names_; }
    const std::vector<double>& entity_shares() const noexcept { return entity_shares_; }
    std::optional<std::size_t> entity_of(std::size_t node) const;

private:
    fairshare::AssociationTree tree_;
    std::map<std::pair<std::string, std::string>, std::size_t> by_name_;  // (account, user) -> node
    std::vector<std::size_t> user_nodes_;
    std::vector<std::string> users_, accounts_;
    std::vector<std::size_t> user_slot_, account_slot_;
    std::vector<std::string> entity_names_;
    std::vector<double> entity_shares_;
    std::vector<std::optional<std::size_t>> entity_of_;
};

}  // namespace fairway::sim
