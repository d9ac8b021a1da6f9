// Usage metered outside Slurm (fairway-bridge's Kubernetes GPU time) comes in through a spool
// directory, `<StateSaveLocation>/fairway_usage`, that only SlurmUser (or root) may write: no
// listener inside slurmctld, and the file checks are the authentication. The record format, its
// validation and the exactly-once rule are the core's (fairshare/usage_records.h).
//
// A pass reads the records above the book's watermarks with no lock held (read_new_records), then
// resolves their associations under assoc_mgr's assoc read lock and charges them, moving the
// watermarks, under the adapter's mutex (CalcPass::ingest_external_usage, in step 1 of the pass).
// A refused record is logged once with its name and reason, moved to `fairway_usage/refused/` and
// counted; the records charged stay in the spool (the bridge prunes them once they left the
// window), so a rebuilt book, which starts with no watermarks, charges them again, once.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "fairshare/usage_records.h"

namespace fairway::priority {

// assoc_mgr's association names ("account", "account/user"), as usage records name them -> ids.
using AssociationIds = std::unordered_map<std::string, fairshare::AssocId>;

// The spool beside the state file.
std::string usage_spool_dir(const std::string& state_file);

struct SpoolReading {
    std::vector<fairshare::UsageRecord> records;  // valid, in the order to charge them
    std::size_t refused = 0;                      // logged and moved aside
};

// The records not yet charged under `watermarks`, read and validated at `now`; refused ones are
// logged and moved aside. Checks the spool (a directory owned by `owner` or root, writable by no
// one else) and each file (regular, same owner rule, not group- or world-writable, bounded size).
// Nothing (no error) when the spool does not exist. Call with no lock held.
SpoolReading read_new_records(const std::string& spool, uid_t owner, const fairshare::DeliveryWatermarks& watermarks,
                              time_t now);

}  // namespace fairway::priority
