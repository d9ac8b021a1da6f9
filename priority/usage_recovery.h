// Where the usage book comes from at start: the state file fairway saved last time, or, when
// that is missing, corrupt, was written with another window/half-life or by an earlier fairway
// that kept fair-share usage only, slurmdbd's job records inside the window. The state file is
// written atomically after every pass and at shutdown.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "fairshare/usage_book.h"
#include "priority/slurm_api.h"

namespace fairway::priority {

// The saved book, or nullopt after logging why it cannot be used (missing, unreadable, corrupt,
// configured differently, saved before the book, or its clock is ahead of `now` by more than
// `tolerance`).
std::optional<fairshare::UsageBook> load_saved_book(const std::string& path, const fairshare::LedgerConfig& expected,
                                                    time_t now, Seconds tolerance);

// Writes the serialized book atomically. Logs and returns false on failure (never throws).
bool save_usage_state(const std::string& path, const std::string& serialized);

// Partition name -> the id of its QOS (partitions with a QOS only).
using PartitionQos = std::unordered_map<std::string, fairshare::QosId>;

// The usage of every job that ran within the window (running jobs up to `now`), from slurmdbd
// through slurmctld's accounting connection, charged as the passes would have: billing, wall time
// and each allocated TRES, x QOS UsageFactor, to the job's association, its QOS and its partition's
// QOS (`partition_qos`, today's configuration). Each job is split into bucket-sized pieces so decay
// sees it as it was charged. nullopt (logged) when slurmdbd does not answer. Takes assoc_mgr's QOS
// read lock itself; call without any Slurm lock held.
std::optional<fairshare::UsageBook> usage_from_accounting(void* db_conn, const fairshare::LedgerConfig& config,
                                                          time_t now, const PartitionQos& partition_qos);

}  // namespace fairway::priority
