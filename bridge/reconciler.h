// One reconcile cycle, as numbered steps:
//   1. read Slurm (partitions, per-account limit/use/demand) and 2. read Kubernetes (our objects);
//   3. feed both into each group's QuotaSplit and take its decision;
//   4. write Slurm decreases, 5. apply the Kubernetes objects that differ from what is there
//      (ClusterQueue quotas included), 6. write Slurm raises, 7. delete our objects nobody wants.
// A group's queue carries L_k: it is written only with the protocol's decision, or at its current
// limit when that limit is settled (flavors added, removed or re-split) — and then recorded as a
// write like any other, so a re-split can never overtake or undo a decrease in flight.
// Nothing is written for a side that could not be read; in dry-run nothing is written at all.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "k8s/kube_api.h"
#include "quota/bridge_config.h"
#include "quota/mirror.h"
#include "quota/quota_split.h"
#include "slurm/slurm_client.h"

namespace fairway::bridge {

struct GroupReport {
    long quota = 0;
    std::array<std::optional<quota::SideReading>, 2> reading;
    quota::SplitDecision decision;
    quota::QueueFlavors flavors;  // Kueue: quota and reservations per flavor, to step the split from
};

struct CycleReport {
    bool slurm_ok = false, kube_ok = false;
    int writes = 0, failed_writes = 0;
    std::map<std::string, GroupReport> groups;
};

class Reconciler {
public:
    Reconciler(quota::BridgeConfig config, KubeApi& kube, SlurmClient& slurm, bool dry_run, quota::Instant now);

    CycleReport cycle(quota::Instant now);
    // A new configuration: groups that remain keep their protocol state (and its doubts).
    void reconfigure(quota::BridgeConfig config, quota::Instant now);

private:
    using Observed = std::map<std::string, nlohmann::json>;  // object path -> object
    bool read_kubernetes(Observed& observed);
    bool read_unlisted_queues(Observed& observed);
    void observe_group(const quota::QuotaGroup& group, const SlurmSnapshot& slurm, bool kube_ok,
                       const Observed& observed, quota::Instant now, GroupReport& report);
    void write_slurm(const quota::QuotaGroup& group, long limit, quota::Instant now, CycleReport& report);
    void apply_objects(const std::vector<quota::DesiredObject>& desired, const Observed& observed,
                       const std::map<std::string, bool>& kube_written, quota::Instant now, CycleReport& report);
    bool may_write_queue(const std::string& group, const std::map<std::string, bool>& kube_written,
                         quota::Instant now) const;
    void delete_unwanted(const std::vector<quota::DesiredObject>& desired, const Observed& observed,
                         CycleReport& report);
    std::string queue_path(const quota::QuotaGroup& group) const;

    quota::BridgeConfig config_;
    KubeApi& kube_;
    SlurmClient& slurm_;
    bool dry_run_;
    std::map<std::string, quota::QuotaSplit> splits_;
};

}  // namespace fairway::bridge
