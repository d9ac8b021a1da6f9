// One reconcile cycle, as numbered steps:
//   1. read Slurm (partitions, per-account limit/use/demand) and 2. read Kubernetes (our objects);
//   3. feed both into each group's QuotaSplit and take its decision;
//   4. write Slurm decreases, 5. apply the Kubernetes objects that differ from what is there
//      (ClusterQueue quotas included), 6. write Slurm raises, 7. delete our objects nobody wants.
// A group's queue carries L_k: it is written only with the protocol's decision, or at its current
// limit when that limit is settled (flavors added, removed or re-split) — and then recorded as a
// write like any other, so a re-split can never overtake or undo a decrease in flight.
// The queue is applied on the resourceVersion it was read at: a 409 means read again next cycle.
// Nothing is written for a side that could not be read; in dry-run nothing is written at all.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bridge/k8s/kube_api.h"
#include "bridge/slurm/slurm_client.h"
#include "quota/bridge_config.h"
#include "quota/mirror.h"
#include "quota/quota_split.h"

namespace fairway::bridge {

struct GroupReport {
    long quota = 0;
    quota::PerSide<std::optional<quota::SideReading>> reading;
    quota::SplitDecision decision;
    quota::QueueFlavors flavors;      // Kueue: quota and reservations per flavor, to step the split from
    std::optional<long> queue_limit;  // the queue's limit as read, even when its use is unknown
};

struct CycleReport {
    bool slurm_ok = false, kube_ok = false;
    int writes = 0, failed_writes = 0;
    std::map<std::string, GroupReport> groups;
};

class Reconciler {
public:
    // `clock`: the monotonic time in seconds; a write is stamped when it ends, not when its cycle began
    // (with retries a write may end well after), since its doubt lasts from then.
    Reconciler(quota::BridgeConfig config, KubeApi& kube, SlurmClient& slurm, bool dry_run,
               std::function<quota::Instant()> clock);

    CycleReport cycle(quota::Instant now);
    // A new configuration: groups that remain keep their protocol state (and its doubts).
    void reconfigure(quota::BridgeConfig config, quota::Instant now);

private:
    using Observed = std::map<std::string, nlohmann::json>;  // object path -> object
    bool read_kubernetes(Observed& observed);
    bool read_unlisted_queues(Observed& observed);
    void note_foreign(const std::string& path, const nlohmann::json& object);
    bool read_demand(std::map<std::string, long>& demand);
    void observe_group(const quota::QuotaGroup& group, const SlurmSnapshot& slurm, bool kube_ok,
                       const Observed& observed, long kube_demand, quota::Instant now, GroupReport& report);
    void note_outside_change(const quota::QuotaGroup& group, quota::Side side, long limit, const Observed& observed);
    void write_slurm(const quota::QuotaGroup& group, long limit, CycleReport& report);
    void write_fence(const quota::QuotaGroup& group, const std::string& on_version, CycleReport& report);
    void apply_objects(const std::vector<quota::DesiredObject>& desired, const Observed& observed,
                       const std::map<std::string, bool>& kube_written, quota::Instant now, CycleReport& report);
    bool may_write_queue(const std::string& group, const std::map<std::string, bool>& kube_written,
                         quota::Instant now) const;
    void recreate(const quota::DesiredObject& object, const nlohmann::json& seen, CycleReport& report);
    void delete_unwanted(const std::vector<quota::DesiredObject>& desired, const Observed& observed,
                         CycleReport& report);
    std::string queue_path(const quota::QuotaGroup& group) const;

    quota::BridgeConfig config_;
    KubeApi& kube_;
    SlurmClient& slurm_;
    bool dry_run_;
    std::function<quota::Instant()> clock_;
    std::map<std::string, quota::QuotaSplit> splits_;
    std::set<std::string> use_unknown_;           // groups whose queue's use is unknown (logged once)
    std::map<std::string, std::string> foreign_;  // path -> owner of other owners' objects seen this cycle
    std::set<std::string> foreign_logged_;        // those this bridge wanted too (logged once)
};

}  // namespace fairway::bridge
