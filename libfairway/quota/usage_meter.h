// What the bridge charges Slurm for Kubernetes GPU time: each quota reservation of a Kueue
// Workload, GPUs x seconds from the time quota was reserved (condition QuotaReserved turned True)
// until it was released (Finished, or QuotaReserved turned False: evicted, deactivated), to the Slurm
// association its namespace maps to. Pure: Workload JSON and times in, usage charges out.
//
// A reservation is keyed `<namespace>/<name>/<uid>@<reserved at>`, so a Workload admitted again is
// a new reservation. The meter remembers up to when each was charged; it learns that, after a
// restart, from the records it wrote (remember()), so no second is charged twice and none is lost
// while the bridge was away: each flush charges every reservation from where it was charged to
// its release, or to now while it holds quota. A Workload deleted while it held quota is charged
// up to the last flush that saw it.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fairshare/usage_records.h"
#include "quota/bridge_config.h"

namespace fairway::quota {

using fairshare::TimePoint;

struct Reservation {
    std::string key;
    std::string ns;
    TimePoint reserved_at;
    std::optional<TimePoint> released_at;
    long gpus = 0;
};

// The quota reservations the listed Workloads show (held, or released with their start known from
// `open`: keys charged and not yet released), in the namespaces of `config`'s groups. Times are the
// conditions' lastTransitionTime.
std::vector<Reservation> reservations(const BridgeConfig& config, const nlohmann::json& workloads,
                                      const std::map<std::string, TimePoint>& open);

// The Slurm association a namespace's usage is charged to: usage.associations, else its group's account.
std::optional<std::string> association_of(const BridgeConfig& config, const std::string& ns);

class UsageMeter {
public:
    explicit UsageMeter(const BridgeConfig& config) : config_(config) {}
    void reconfigure(const BridgeConfig& config) { config_ = config; }

    // A charge read back from a record this source wrote earlier.
    void remember(const fairshare::ExternalCharge& charge);
    // The charges owed at `now` for the listed Workloads; they count as charged once taken (the
    // caller writes them before it flushes again, or the process dies and remember()s the spool).
    std::vector<fairshare::ExternalCharge> flush(const nlohmann::json& workloads, TimePoint now);
    // Forgets reservations released before `horizon` (their records are pruned with them).
    void forget_before(TimePoint horizon);

private:
    struct Charged {
        TimePoint reserved_at;
        TimePoint until;
        bool released = false;
    };
    std::map<std::string, TimePoint> open_reservations() const;
    BridgeConfig config_;
    std::map<std::string, Charged> charged_;
};

}  // namespace fairway::quota
