// AssociationTree: Slurm's association hierarchy as plain values (no Slurm headers).
//
// One node per association: the root (parent kNoParent, normally account "root"), accounts and
// user associations (user non-empty). Shares are a number or "parent" (Fairshare=parent in
// sacctmgr, SLURMDB_FS_USE_PARENT). own_usage is the usage charged to this association itself
// (normally only user associations have any); the algorithms sum subtrees to get RawUsage, the way
// Slurm propagates usage up the tree. So charge the ledger only at a job's own association.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {

inline constexpr AssocId kNoParent = 0;

struct Shares {
    bool use_parent = false;  // Fairshare=parent
    std::uint32_t raw = 1;    // meaningful when !use_parent

    static Shares parent() { return {true, 0}; }
    static Shares of(std::uint32_t raw) { return {false, raw}; }
    bool operator==(const Shares&) const = default;
};

struct AssociationNode {
    AssocId id = 0;              // must be non-zero and unique
    AssocId parent = kNoParent;  // kNoParent only for the root
    std::string account;         // account name (for a user association: the account it is in)
    std::string user;            // empty for accounts
    Shares shares;
    double own_usage = 0;  // windowed usage charged to this association itself

    bool is_user() const noexcept { return !user.empty(); }
};

// What a node is, as read from its source: the names are views, so reading a node that has not
// changed copies nothing (HierarchyReader).
struct NodeFacts {
    AssocId id = 0;
    AssocId parent = kNoParent;
    std::string_view account;
    std::string_view user;
    Shares shares;

    AssociationNode node() const { return {id, parent, std::string(account), std::string(user), shares, 0}; }
};

class AssociationTree {
public:
    AssociationTree() = default;
    // Validates: exactly one root, unique non-zero ids, parents exist and are accounts, no cycles,
    // the root does not use "parent" shares, finite non-negative usage. Throws InputError whose key
    // is "association <id>" (or "root") and whose message says what is wrong.
    explicit AssociationTree(std::vector<AssociationNode> nodes);

    // Id -> node index; shared (not copied) by copies of the tree and by results computed from it.
    using IdIndex = std::unordered_map<AssocId, std::size_t>;

    const std::vector<AssociationNode>& nodes() const noexcept { return nodes_; }
    std::size_t size() const noexcept { return nodes_.size(); }
    // Index of the node with this id, or nullopt.
    std::optional<std::size_t> index_of(AssocId id) const;
    const AssociationNode& node(std::size_t index) const { return nodes_.at(index); }
    std::size_t root_index() const noexcept { return root_; }
    // Direct children (indexes), in the order the nodes were given.
    const std::vector<std::size_t>& children(std::size_t index) const;
    std::shared_ptr<const IdIndex> id_index() const;
    // True when node `index` exists and is `facts` (own usage aside).
    bool has_node(std::size_t index, const NodeFacts& facts) const;
    // Replaces every node's own_usage with ledger.usage(id, now) (copy-and-set, tree shape unchanged).
    AssociationTree with_usage(const WindowedUsageLedger& ledger, TimePoint now) const;
    // Each node's subtree total of one ledger's usage at `now` (node i: the usage of every association
    // at or below it, as Slurm propagates usage up the tree). Ids the tree does not hold are left
    // out. O(associations with usage x depth).
    std::vector<double> subtree_usage(const WindowedUsageLedger& ledger, TimePoint now) const;
    // Sets one node's own usage (throws InputError for negative/NaN/inf).
    void set_own_usage(std::size_t index, double usage);
    // The order sshare prints: depth first from the root; among siblings users first, then
    // accounts, each sorted by name.
    std::vector<std::size_t> sshare_order() const;

private:
    // What validation derived from the nodes; a pass copies the tree to set usage (with_usage),
    // and the copies share this instead of rebuilding a map and a vector per node.
    struct Shape {
        std::vector<std::vector<std::size_t>> children;
        std::vector<std::size_t> parent;  // the root's is itself
        IdIndex index;
    };

    std::vector<AssociationNode> nodes_;
    std::shared_ptr<const Shape> shape_;
    std::size_t root_ = 0;
};

// Reads a hierarchy node by node, in order, against the one a pass already has, and copies nodes
// only from the first that differs: the hierarchy nearly always comes back unchanged, and copying
// every association's names just to compare them cost a pass a string and its copy per name.
class HierarchyReader {
public:
    // `known` (may be null: every node is new) must outlive the reader.
    explicit HierarchyReader(const AssociationTree* known) : known_(known) {}
    void add(const NodeFacts& facts);
    // The nodes read, or nullopt when they are exactly `known`'s (the same nodes in the same order,
    // own usage aside): the tree of them would be `known`, so validating and indexing them again
    // is skipped.
    std::optional<std::vector<AssociationNode>> changed_nodes() &&;

private:
    void diverge();

    const AssociationTree* known_;
    std::size_t read_ = 0;
    bool diverged_ = false;  // a node differed: nodes_ holds every node read
    std::vector<AssociationNode> nodes_;
};

}  // namespace fairway::fairshare
