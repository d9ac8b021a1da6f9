#include "fairshare/association_tree.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

[[noreturn]] void reject(AssocId id, const std::string& problem) {
    throw InputError(SourceLocation{"", 0, "association " + std::to_string(id)}, problem);
}

void check_usage(AssocId id, double usage) {
    if (!std::isfinite(usage) || usage < 0) reject(id, "usage must be a finite number >= 0");
}

// Walks up from every node; a walk longer than the tree means a cycle.
void check_acyclic(const std::vector<AssociationNode>& nodes, const std::vector<std::size_t>& parent_index,
                   std::size_t root) {
    for (std::size_t start = 0; start < nodes.size(); ++start) {
        std::size_t at = start;
        for (std::size_t steps = 0; at != root; ++steps) {
            if (steps > nodes.size()) reject(nodes[start].id, "its parents form a cycle");
            at = parent_index[at];
        }
    }
}

}  // namespace

AssociationTree::AssociationTree(std::vector<AssociationNode> nodes) : nodes_(std::move(nodes)) {
    auto shape = std::make_shared<Shape>();
    auto& index = shape->index;
    index.reserve(nodes_.size());
    std::optional<std::size_t> root;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        const AssociationNode& node = nodes_[i];
        if (node.id == 0) reject(0, "id 0 is reserved");
        if (!index.emplace(node.id, i).second) reject(node.id, "id is used twice");
        check_usage(node.id, node.own_usage);
        if (node.parent != kNoParent) continue;
        if (root) reject(node.id, "a second root (no parent); the first is " + std::to_string(nodes_[*root].id));
        root = i;
    }
    if (!root) throw InputError(SourceLocation{"", 0, "root"}, "the association tree has no root");
    if (nodes_[*root].shares.use_parent) reject(nodes_[*root].id, "the root cannot have Fairshare=parent");
    if (nodes_[*root].is_user()) reject(nodes_[*root].id, "the root must be an account");
    root_ = *root;
    auto& children = shape->children;
    children.assign(nodes_.size(), {});
    std::vector<std::size_t> parent_index(nodes_.size(), root_);
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        if (i == root_) continue;
        const auto parent = index.find(nodes_[i].parent);
        if (parent == index.end()) reject(nodes_[i].id, "parent " + std::to_string(nodes_[i].parent) + " is unknown");
        if (nodes_[parent->second].is_user()) reject(nodes_[i].id, "parent is a user association");
        parent_index[i] = parent->second;
        children[parent->second].push_back(i);
    }
    check_acyclic(nodes_, parent_index, root_);
    shape->parent = std::move(parent_index);
    shape_ = std::move(shape);
}

std::optional<std::size_t> AssociationTree::index_of(AssocId id) const {
    if (!shape_) return std::nullopt;
    const auto found = shape_->index.find(id);
    if (found == shape_->index.end()) return std::nullopt;
    return found->second;
}

const std::vector<std::size_t>& AssociationTree::children(std::size_t index) const {
    static const std::vector<std::vector<std::size_t>> none;
    return (shape_ ? shape_->children : none).at(index);
}

std::shared_ptr<const AssociationTree::IdIndex> AssociationTree::id_index() const {
    static const auto empty = std::make_shared<const IdIndex>();
    if (!shape_) return empty;
    return std::shared_ptr<const IdIndex>(shape_, &shape_->index);
}

bool AssociationTree::has_node(std::size_t index, const NodeFacts& facts) const {
    if (index >= nodes_.size()) return false;
    const AssociationNode& node = nodes_[index];
    return node.id == facts.id && node.parent == facts.parent && node.shares == facts.shares &&
           node.account == facts.account && node.user == facts.user;
}

void HierarchyReader::add(const NodeFacts& facts) {
    if (!diverged_ && !(known_ && known_->has_node(read_, facts))) diverge();
    if (diverged_) nodes_.push_back(facts.node());
    ++read_;
}

std::optional<std::vector<AssociationNode>> HierarchyReader::changed_nodes() && {
    if (!diverged_ && known_ && read_ > 0 && read_ == known_->size()) return std::nullopt;
    if (!diverged_) diverge();  // fewer nodes than known (the last ones removed), or none
    return std::move(nodes_);
}

// The nodes read so far were the known tree's: they are copied, usage left 0 as for a new node.
void HierarchyReader::diverge() {
    diverged_ = true;
    nodes_.reserve(known_ ? known_->size() : 0);
    for (std::size_t i = 0; i < read_; ++i) {
        nodes_.push_back(known_->node(i));
        nodes_.back().own_usage = 0;
    }
}

AssociationTree AssociationTree::with_usage(const WindowedUsageLedger& ledger, TimePoint now) const {
    AssociationTree copy = *this;
    for (AssociationNode& node : copy.nodes_) node.own_usage = ledger.usage(node.id, now);
    return copy;
}

std::vector<double> AssociationTree::subtree_usage(const WindowedUsageLedger& ledger, TimePoint now) const {
    std::vector<double> totals(nodes_.size(), 0.0);
    for (const AssocId id : ledger.associations()) {
        const std::optional<std::size_t> at = index_of(id);
        const double usage = at ? ledger.usage(id, now) : 0.0;
        if (usage == 0) continue;
        for (std::size_t i = *at;; i = shape_->parent[i]) {
            totals[i] += usage;
            if (i == root_) break;
        }
    }
    return totals;
}

void AssociationTree::set_own_usage(std::size_t index, double usage) {
    check_usage(nodes_.at(index).id, usage);
    nodes_[index].own_usage = usage;
}

std::vector<std::size_t> AssociationTree::sshare_order() const {
    std::vector<std::size_t> order;
    std::vector<std::size_t> stack{root_};
    const auto before = [this](std::size_t a, std::size_t b) {
        const AssociationNode& x = nodes_[a];
        const AssociationNode& y = nodes_[b];
        if (x.is_user() != y.is_user()) return x.is_user();
        return (x.is_user() ? x.user : x.account) < (y.is_user() ? y.user : y.account);
    };
    while (!stack.empty()) {
        const std::size_t at = stack.back();
        stack.pop_back();
        order.push_back(at);
        std::vector<std::size_t> kids = children(at);
        std::sort(kids.begin(), kids.end(), before);
        stack.insert(stack.end(), kids.rbegin(), kids.rend());
    }
    return order;
}

}  // namespace fairway::fairshare
