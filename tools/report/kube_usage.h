// Kubernetes usage in the live report: the records fairway-bridge leaves in priority/fairway's spool
// (StateSaveLocation/fairway_usage, readable where the report runs on the controller host as root
// or SlurmUser), read with the plugin's checks and parser (fairshare/usage_records.h) and charged as
// the plugin charges them: each charge's billing per second over [start, end), into the same
// ledger as the Slurm jobs, so RawUsage matches sshare's; the model also keeps them apart
// (KubeGPUHours, explain's share per cluster).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>

#include "tools/report/report_model.h"

namespace fairway::report {

struct KubernetesReading {
    std::size_t records = 0;  // charged
    std::size_t refused = 0;  // records the plugin refuses too (untrusted file, malformed)
    std::size_t unknown = 0;  // charges naming no association the report knows
};

// When an association's usage counts from, given a charge's start: the plugin charges nothing from
// before the association's last RawUsage reset (fairshare/usage_resets.h).
using CountsFrom = std::function<TimePoint(const std::string& account, const std::string& user, TimePoint from)>;

// Adds every record of `spool` trusted under `owner` (SlurmUser) to `model` as Kubernetes usage
// at the model's "now", each charge from `counts_from` on. Nothing when the spool does not exist;
// a note on stderr for what it cannot read or refuses.
KubernetesReading add_kubernetes_usage(const std::string& spool, uid_t owner, ReportModel& model,
                                       const CountsFrom& counts_from);

}  // namespace fairway::report
