// Moves association data between Slurm's assoc_mgr and the core: the hierarchy and shares go in,
// sshare's figures (RawUsage ... LevelFS) come back into each association's usage record.
#pragma once

#include <vector>

#include "fairshare/association_tree.h"
#include "fairshare/fair_share.h"
#include "priority/slurm_api.h"

namespace fairway::priority {

// The association hierarchy with shares (own usage left 0). Caller holds assoc_mgr's assoc read
// lock. Throws fairway::InputError when assoc_mgr's tree is inconsistent.
fairshare::AssociationTree snapshot_association_tree();

// Associations whose RawUsage an administrator reset (`sacctmgr modify ... set RawUsage=0` sets
// usage_raw to 0) although fairway last published usage for them: their ledger usage is to be
// forgotten. Caller holds assoc_mgr's assoc read lock.
std::vector<fairshare::AssocId> associations_reset_by_admin(const fairshare::FairShareResult* published);

// Writes every association's usage_raw, usage_norm, usage_efctv, shares_norm, fs_factor and
// level_fs from `result`, so sshare (which copies these fields) shows fairway's numbers.
// Associations added after the snapshot keep their values until the next pass.
// Caller holds assoc_mgr's assoc write lock.
void publish_fair_share(const fairshare::FairShareResult& result);

}  // namespace fairway::priority
