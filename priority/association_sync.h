// Moves association data between Slurm's assoc_mgr and the core: the hierarchy and shares go in,
// sshare's figures (RawUsage ... LevelFS) come back into each association's usage record.
//
// A pass copies assoc_mgr's association pointers once (association_pointers), keeps those the scan
// finds in the hierarchy, and works on them under one hold of assoc_mgr's assoc write lock: the
// snapshot, the admin-reset check and the publishing all see the same associations, in the same
// order, so the published figures go back by position, with no lookup by id.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fairshare/association_tree.h"
#include "fairshare/fair_share.h"
#include "fairshare/walk_memo.h"
#include "priority/slurm_api.h"

namespace fairway::priority {

// assoc_mgr's associations, in assoc_mgr's order: the list's nodes are chased, the records are not
// read. Valid while the caller holds assoc_mgr's assoc lock.
std::vector<slurmdb_assoc_rec_t*> association_pointers();

// What a pass reads of the associations, in one walk. Caller holds assoc_mgr's assoc read lock.
struct AssociationScan {
    // The hierarchy with shares (own usage left 0), node i for association i; none when it is the
    // `known` tree's.
    std::optional<std::vector<fairshare::AssociationNode>> changed_hierarchy;
    // Associations whose RawUsage an administrator reset (`sacctmgr modify ... set RawUsage=0` sets
    // usage_raw to 0) although fairway last `published` usage for them: their ledger usage is to
    // be forgotten.
    std::vector<fairshare::AssocId> reset_by_admin;
    // Fingerprint of what job priorities take from the associations (records, priorities), so a
    // pass can tell they did not change (walk_memo.h).
    std::uint64_t priority_inputs = 0;
};

// Scans `associations` and leaves in it only those in the hierarchy (one being removed has no
// usage record), node i of the scan's hierarchy (or of `known`, when it is unchanged) being
// association i. `known` is the last pass's tree, or null.
AssociationScan scan_associations(std::vector<slurmdb_assoc_rec_t*>& associations,
                                  const fairshare::AssociationTree* known, const fairshare::FairShareResult* published);

// Writes usage_raw, usage_norm, usage_efctv, shares_norm, fs_factor and level_fs of association i
// from figure i of `result`, which was computed from the tree of scan_associations(associations), so
// sshare (which copies these fields) shows fairway's numbers. Associations added since keep their
// values until the next pass. Caller holds assoc_mgr's assoc write lock, taken before the copy.
void publish_fair_share(const std::vector<slurmdb_assoc_rec_t*>& associations,
                        const fairshare::FairShareResult& result);

}  // namespace fairway::priority
