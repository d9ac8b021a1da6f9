// Fair-share factors on an AssociationTree, numerically identical to Slurm 22.05's
// priority/multifactor (same operations in the same precision: long double usage, double shares).
//
// Both algorithms use the "fair-share parent" of a node: its nearest ancestor whose shares are not
// "parent"; a node's siblings are the nodes with the same fair-share parent, and its level_shares is
// the sum of the siblings' raw shares ("parent" siblings count 0). RawUsage = own usage of the
// subtree; NormUsage = RawUsage / root RawUsage (capped at 1, 0 when the root has none).
//
// Classic (PriorityFlags=NO_FAIR_TREE):
//   NormShares  = product over the node and its ancestors (below root, not "parent") of raw/level_shares;
//                 a "parent" node takes its fair-share parent's NormShares
//   EffectvUsage = NormUsage when the fair-share parent is root; the parent's EffectvUsage for "parent"
//                 nodes; otherwise NormUsage + (parentEffectv - NormUsage) * raw / level_shares
//                 (parentEffectv when level_shares is 0)
//                 With PriorityFlags=DEPTH_OBLIVIOUS (below root's children, not "parent"):
//                 EffectvUsage = R_parent * r_local^k * NormShares (see fair_share.cpp), or
//                 NormUsage when the node, its fair-share parent or their usage has nothing
//   FairShare   = 2^(-(EffectvUsage / NormShares) / dampening), 0 when NormShares <= 0
//   LevelFS     = 0 (Slurm leaves it unset)
// Fair Tree (default):
//   NormShares  = raw / level_shares (of the fair-share parent for "parent" nodes)
//   EffectvUsage = RawUsage / fair-share parent's RawUsage (0 when that is 0)
//   LevelFS     = NormShares / EffectvUsage (inf when usage is 0; 0 when shares are 0);
//                 "parent" users: inf; "parent" accounts: none
//   FairShare (users only) = rank / number of users, ranking users by a depth-first walk over
//                 siblings sorted by LevelFS (users before accounts on ties), equal LevelFS = equal rank.
#pragma once

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fairshare/association_tree.h"

namespace fairway::fairshare {

enum class FairShareAlgorithm { fair_tree, classic };

struct FairShareOptions {
    FairShareAlgorithm algorithm = FairShareAlgorithm::fair_tree;
    std::uint16_t dampening = 1;   // FairShareDampeningFactor (classic only); 0 is treated as 1
    bool depth_oblivious = false;  // PriorityFlags=DEPTH_OBLIVIOUS (classic only)
};

// The options slurm.conf selects: PriorityFlags' FAIR_TREE bit (which NO_FAIR_TREE and
// DEPTH_OBLIVIOUS clear) and DEPTH_OBLIVIOUS bit, and FairShareDampeningFactor (0 means 1).
FairShareOptions fair_share_options(bool fair_tree, bool depth_oblivious, std::uint16_t dampening_factor);

// "fair_tree", "classic" or "depth_oblivious" (classic with DEPTH_OBLIVIOUS): how logs and reports
// name the algorithm.
const char* algorithm_name(const FairShareOptions& options);

// What sshare -l shows for one association. Optional fields are the ones sshare prints empty.
struct ShareFigures {
    AssocId id = 0;
    std::optional<Shares> raw_shares;     // RawShares: nullopt for the root; "parent" when use_parent
    double norm_shares = 0;               // NormShares
    long double raw_usage = 0;            // RawUsage (sshare prints it truncated to an integer)
    std::optional<double> norm_usage;     // NormUsage: nullopt for the root (Slurm never sets it)
    double effective_usage = 0;           // EffectvUsage (1 for the root)
    std::optional<double> fair_share;     // FairShare: Fair Tree: users only; classic: every node
    std::optional<long double> level_fs;  // LevelFS: nullopt for "parent" nodes and the root;
                                          // may be +inf (sshare prints "inf")
};

class FairShareResult {
public:
    FairShareResult() = default;  // empty: find() fails, job_factor() is 0

    // Figures in the tree's node order (figures()[i] belongs to tree.node(i)).
    const std::vector<ShareFigures>& figures() const noexcept { return figures_; }
    // Figures of one association, or nullptr for an unknown id.
    const ShareFigures* find(AssocId id) const;

    // The fair-share factor multifactor puts in a job's priority (0..1): Fair Tree: the association's
    // FairShare; classic: 2^(-EffectvUsage/NormShares/damp) of the association, or of its fair-share
    // parent when its shares are "parent". 0 for an unknown id.
    double job_factor(AssocId id) const;

    // True when every association's job_factor() equals the one in `other`, for the same hierarchy
    // (the same tree shape, not only equal ids).
    bool same_job_factors(const FairShareResult& other) const;

private:
    double job_factor_at(std::size_t position) const;

    friend FairShareResult compute_fair_share(const AssociationTree&, const FairShareOptions&);

    std::vector<ShareFigures> figures_;
    std::vector<std::size_t> fs_assoc_;         // whose figures a job uses: self, or fs parent for "parent"
    std::vector<long double> effective_exact_;  // EffectvUsage before sshare's cast to double
    std::vector<double> user_factor_;           // Fair Tree rank / users (0 for accounts)
    std::shared_ptr<const AssociationTree::IdIndex> index_;  // the tree's, shared
    FairShareOptions options_;
};

// Slurm's priority_p_calc_fs_factor: 2^(-(usage_efctv / shares_norm) / dampening); 0 when
// shares_norm <= 0.
double classic_fs_factor(long double effective_usage, long double norm_shares, std::uint16_t dampening);

// Computes every node's figures. O(n log n). Does not throw for a valid tree.
FairShareResult compute_fair_share(const AssociationTree& tree, const FairShareOptions& options);

}  // namespace fairway::fairshare
