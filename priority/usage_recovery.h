// Where the usage ledger comes from at start: the state file fairway saved last time, or, when
// that is missing, corrupt or was written with another window/half-life, slurmdbd's job records
// inside the window. The state file is written atomically after every pass and at shutdown.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fairshare/usage_ledger.h"
#include "priority/slurm_api.h"

namespace fairway::priority {

// The saved ledger, or nullopt after logging why it cannot be used (missing, unreadable, corrupt,
// configured differently, or its clock is ahead of `now` by more than `tolerance`).
std::optional<fairshare::WindowedUsageLedger> load_saved_ledger(const std::string& path,
                                                                const fairshare::LedgerConfig& expected,
                                                                time_t now, Seconds tolerance);

// Writes the serialized ledger atomically. Logs and returns false on failure (never throws).
bool save_ledger(const std::string& path, const std::string& serialized);

// Usage of every job that ran within the window (running jobs up to `now`), from slurmdbd through
// slurmctld's accounting connection, each job split into bucket-sized pieces so decay sees it as
// it was charged: billing TRES x seconds x QOS UsageFactor. nullopt (logged) when slurmdbd does
// not answer. Takes assoc_mgr's QOS read lock itself; call without any Slurm lock held.
std::optional<std::vector<fairshare::UsageRecord>> usage_from_accounting(void* db_conn,
                                                                         const fairshare::LedgerConfig& config,
                                                                         time_t now);

}  // namespace fairway::priority
