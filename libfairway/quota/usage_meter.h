// What the bridge charges Slurm for Kubernetes GPU time, GPUs x seconds, to the Slurm association
// the object maps to. Pure: object JSON and times in, usage charges out. A reservation is:
//  - Kueue: a Workload's quota reservation, from the time quota was reserved (condition
//    QuotaReserved turned True) until it was released (Finished, or QuotaReserved turned False:
//    evicted, deactivated); its GPUs are its podSets' requests.
//  - Volcano: a PodGroup's run, its minResources' GPUs while its phase is Running (or Unknown:
//    pods still run), from its Scheduled condition's lastTransitionTime (when first seen running
//    without one) until it is seen in any other phase (Completed, or back to Pending/Inqueue after
//    a preemption). Volcano writes no time for that change, so a run ends where the last flush
//    that saw it running charged it, as a deleted object does: at most usage.record_seconds short,
//    never twice, even when a restarted bridge sees the end only later. Volcano's scheduler
//    rewrites the Scheduled condition's time, so a run's start is the one first charged; a
//    condition older than the end of the PodGroup's previous run is that run's, and a new run
//    starts when first seen.
//
// A reservation is keyed `<namespace>/<name>/<uid>@<reserved at>`, so a Workload admitted again (a
// PodGroup run again) is a new reservation. The meter remembers up to when each was charged; it learns that, after a
// restart, from the records it wrote (remember()), so no second is charged twice and none is lost
// while the bridge was away: each flush charges every reservation from where it was charged to
// its release, or to now while it holds quota. A Workload deleted while it held quota is charged
// up to the last flush that saw it.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fairshare/usage_records.h"
#include "quota/bridge_config.h"

namespace fairway::quota {

using fairshare::TimePoint;

struct Reservation {
    std::string key;
    std::string association;  // "account" or "account/user"
    TimePoint reserved_at;
    std::optional<TimePoint> released_at;
    long gpus = 0;
};

// What the meter has charged of one object (`<namespace>/<name>/<uid>`): the start of the
// reservation it still holds, if any, and up to when it charged that; the end of its last released one.
struct ChargedObject {
    std::optional<TimePoint> open_since;
    TimePoint open_until{};
    std::optional<TimePoint> released_until;
};
using ChargeHistory = std::map<std::string, ChargedObject>;

// The reservations the listed objects of `config`'s backend show (held, or released with their
// start known from `history`), of those with an association. Kueue's times are its conditions'
// lastTransitionTime; a Volcano run first seen at `now` without a start starts then.
std::vector<Reservation> reservations(const BridgeConfig& config, const nlohmann::json& items,
                                      const ChargeHistory& history, TimePoint now);

// The Slurm association an object's usage is charged to: usage.associations for its namespace,
// else the account of the group holding the namespace, else (Volcano) of the group whose Queue it names.
std::optional<std::string> association_of(const BridgeConfig& config, const std::string& ns,
                                          const std::string& volcano_queue = "");

class UsageMeter {
public:
    explicit UsageMeter(const BridgeConfig& config) : config_(config) {}
    void reconfigure(const BridgeConfig& config) { config_ = config; }

    // A charge read back from a record this source wrote earlier.
    void remember(const fairshare::ExternalCharge& charge);
    // The charges owed at `now` for the listed Workloads (PodGroups with Volcano); they count as charged once taken
    // (the caller writes them before it flushes again, or the process dies and remember()s the spool).
    std::vector<fairshare::ExternalCharge> flush(const nlohmann::json& workloads, TimePoint now);
    // Forgets reservations released before `horizon` (their records are pruned with them).
    void forget_before(TimePoint horizon);

private:
    struct Charged {
        TimePoint reserved_at;
        TimePoint until;
        bool released = false;
    };
    ChargeHistory history() const;
    BridgeConfig config_;
    std::map<std::string, Charged> charged_;
};

// A rebuild of priority/fairway's usage (its state file missing or corrupt) and fairway-report see
// Kubernetes usage only while its record is in the spool, so the records must outlast the plugin's
// window and one bucket. Why `keep` (usage.keep_days) falls short of the plugin's `ledger`, one
// sentence for the log; empty when it does not.
std::string spool_keep_shortfall(Seconds keep, const fairshare::LedgerConfig& ledger);

}  // namespace fairway::quota
