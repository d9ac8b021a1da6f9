// What fairway-bridge wants to exist in Kubernetes, computed from the configuration, the Slurm
// partitions and the Kubernetes limits chosen by QuotaSplit; and how to read the limits, use and
// demand back out of Kueue/Volcano objects. Pure: JSON in, JSON out, no HTTP.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quota/bridge_config.h"
#include "quota/standing.h"

namespace fairway::quota {

inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "fairway-bridge";
// The annotation a bridge writes on a group's queue to fence off writes conditional on its version
// (QuotaSplit's fences: a new term's, against its predecessors'; or against its own raise in doubt
// that no longer fits): when it was written, a value no earlier fence left, so the version moves.
inline constexpr const char* kTermAnnotation = "fairway.io/term";
// The label naming the bridge that made an object (kubernetes.owner): a bridge writes and deletes
// only its own objects.
inline constexpr const char* kOwnerLabel = "fairway.io/owner";
// The label naming the Slurm partition a ResourceFlavor stands for.
inline constexpr const char* kPartitionLabel = "fairway.io/slurm-partition";
// The label naming the GPU type a ResourceFlavor stands for (kubernetes.flavors: gpu_types).
inline constexpr const char* kGpuTypeLabel = "fairway.io/gpu-type";
// The label naming the quota group an object belongs to.
inline constexpr const char* kGroupLabel = "fairway.io/group";
// Kueue v1beta1 allows at most 64 flavors in a resource group: a ClusterQueue covers the 64
// partitions with the most GPUs (every partition still gets its ResourceFlavor).
inline constexpr std::size_t kMaxFlavorsPerQueue = 64;

struct PartitionInfo {
    std::string name;
    long gpus = 0;          // GPUs in the partition's nodes
    int priority_tier = 0;  // Slurm PriorityTier
};

struct DesiredObject {
    std::string kind;        // ResourceFlavor, ClusterQueue, LocalQueue, WorkloadPriorityClass, Queue
    std::string collection;  // API path of the collection, e.g. /apis/kueue.x-k8s.io/v1beta1/clusterqueues
    std::string name;
    nlohmann::json body;  // the apply configuration (only the fields we own)
    std::string path() const { return collection + "/" + name; }
};

// The collections the bridge manages, cluster-wide list paths (LocalQueues across namespaces).
std::vector<std::string> managed_collections(Backend backend);

// Whether the bridge of identity `owner` may write and delete `object`: its fairway.io/owner label
// names `owner`; or it has none (made before bridges marked their owner) and `owner` is the default
// identity, which adopts it (its next apply adds the label). Any other object is another bridge's.
bool owned_by(const nlohmann::json& object, const std::string& owner);
// What a ResourceFlavor stands for, by its `label` (kPartitionLabel: the partition; kGpuTypeLabel:
// the GPU type); empty when it names none.
std::string flavor_label(const nlohmann::json& resource_flavor, const char* label);

// Name of the group's queue (ClusterQueue or Volcano Queue).
std::string group_queue_name(const QuotaGroup& group);

// GPUs per flavor name.
using FlavorUse = std::map<std::string, long>;
// A group's ClusterQueue as read: its quota (spec nominalQuota) and reservations
// (status.flavorsReservation) per flavor.
struct QueueFlavors {
    FlavorUse nominal, reserved;
    // The resource groups not covering the GPU: an admin's, kept as read. resourceGroups is an
    // atomic list, so the bridge's forced apply replaces it whole: what it leaves out is wiped.
    nlohmann::json kept_groups = nlohmann::json::array();
    // The partition (or GPU type) each flavor stands for, as its ResourceFlavor's kPartitionLabel
    // (kGpuTypeLabel) says: a flavor whose partition or type Slurm no longer lists keeps its node
    // labels, and a hashed flavor name (partition_flavor, gpu_type_flavor) cannot be turned back.
    std::map<std::string, std::string> partitions = {};
    std::map<std::string, std::string> gpu_types = {};
};

// The nominalQuota written for a covered resource configured `unlimited`: Kueue has no unlimited
// quota. Kueue counts cpu in millicores as int64 and adds up a cohort's quotas, so cpu gets a
// million cores; other resources (memory in bytes) 2^50.
std::string unlimited_quota(const std::string& resource);

// Every object that should exist; `kube_limits` maps group name to its Kubernetes GPU limit and
// `queues` to its ClusterQueue's flavors as read. A flavor stands for a partition or, with
// kubernetes.flavors gpu_types, for a GPU type: `gpus_by_type` (gpus_by_type() added up over the
// nodes, each node once). A flavor that still holds quota or reservations stays in the
// ClusterQueue (with its ResourceFlavor) after its partition or type is gone. With
// kubernetes.standing_weights, `standing` gives each LocalQueue's fairSharing.weight (and the
// ClusterQueue Admission Fair Sharing) or each Volcano Queue's weight; absent entries: full weight.
std::vector<DesiredObject> desired_objects(const BridgeConfig& config, const std::vector<PartitionInfo>& partitions,
                                           const std::map<std::string, long>& kube_limits,
                                           const std::map<std::string, QueueFlavors>& queues = {},
                                           const FlavorUse& gpus_by_type = {}, const PublishedStanding& standing = {});

// Splits a group's Kubernetes limit over its flavors. Kueue enforces each flavor's nominalQuota on
// its own, so a flavor whose quota exceeded its share of use would let Kubernetes go past the
// limit while another flavor is full. The rule: the quotas add up to exactly `limit` (when there
// is a flavor); when sum(used) <= limit, each flavor gets its own use plus a share of the rest in
// proportion to its capacity (largest remainder; all to the first flavor when no capacity is
// known); when sum(used) > limit (use above a just-lowered limit), the quotas are shared in
// proportion to use, each at most its use, so no flavor admits anything until use falls.
std::vector<long> split_over_flavors(long limit, const std::vector<long>& used, const std::vector<long>& capacity);

// The quotas to write: from the `current` ones towards split_over_flavors, moving only one way. A
// raise raises no flavor above max(current, target) and lowers none; a decrease lowers no flavor
// below min(current, target) and raises none; the same limit changes nothing. Why: use read a moment
// ago may have grown since, up to each flavor's current quota; a flavor lowered under its new use
// while another gained room would let Kubernetes hold more than any limit the protocol counted.
// With monotone steps Kubernetes can hold at most sum(max(quota, reserved)) over the flavors read,
// plus the raise (see QueueReading::holdable). The quotas add up to `limit` whenever there is a flavor.
std::vector<long> step_flavor_quotas(long limit, const std::vector<long>& current, const std::vector<long>& used,
                                     const std::vector<long>& capacity);

// True when every field of `desired` is present with an equal value in `observed` (quantities
// compared by value): then applying would change nothing, and steady state writes nothing.
bool covers(const nlohmann::json& observed, const nlohmann::json& desired);

// covers(), and a ClusterQueue that should be in no cohort is in none: an omitted field is not
// compared by covers(), and a leftover cohort would lend the group's idle quota away.
bool up_to_date(const nlohmann::json& observed, const DesiredObject& desired);

// Whether `observed` must be deleted and created anew to become `desired`: a LocalQueue's
// spec.clusterQueue is immutable (Kueue's CEL rule), so a namespace moved to another group gets a
// new LocalQueue; an apply that changed it would be refused forever.
bool needs_recreation(const nlohmann::json& observed, const DesiredObject& desired);

// Kubernetes quantity ("4", 4, "2k", "500m") as a whole number, rounded down; -1 when malformed.
long parse_quantity(const nlohmann::json& quantity);

// Readings from a group's queue object (ClusterQueue or Volcano Queue), in GPUs.
struct QueueReading {
    long limit = 0;        // sum of nominalQuota (Kueue) or capability (Volcano)
    long used = 0;         // status.flavorsReservation total (Kueue) or status.allocated (Volcano)
    QueueFlavors flavors;  // Kueue: per flavor (quota is charged at reservation)
    // Kueue: the most the queue may come to hold without a write of ours, sum(max(nominal, reserved))
    // over its flavors (each flavor admits up to its own quota; one above it only shrinks); -1: no flavors.
    long holdable = -1;
    // Kueue: the ClusterQueue controller has observed this generation of the spec (its Active
    // condition's observedGeneration), so its cache enforces `limit`. Volcano reports nothing of
    // the kind; its scheduler takes a queue's capability at its next session.
    bool in_force = true;
    // Volcano: false while the queue has no status.allocated (the scheduler has not reported its
    // use yet): the use is unknown, never zero, and the queue counts as unread.
    bool use_known = true;
    std::string version;  // metadata.resourceVersion
};
QueueReading read_queue(const nlohmann::json& queue, Backend backend, const std::string& gpu_resource);

// Where Kubernetes' pending demand is read: Kueue Workloads or Volcano PodGroups, all namespaces.
std::string demand_collection(Backend backend);

// GPUs one pod of `pod_spec` requests: its containers' requests (the limit where a request is
// absent, as Kubernetes defaults it) added up, or its largest init container's when that is more.
long pod_gpus(const nlohmann::json& pod_spec, const std::string& gpu_resource);
// GPUs a Kueue Workload asks for: over its podSets, count x pod_gpus(template).
long workload_gpus(const nlohmann::json& workload, const std::string& gpu_resource);
// GPUs a Volcano PodGroup asks for: its spec.minResources (what its gang needs to run).
long podgroup_gpus(const nlohmann::json& podgroup, const std::string& gpu_resource);

// Pending Kubernetes demand per group, in GPUs, from the objects of demand_collection():
//  - Kueue: a Workload in one of the group's namespaces sent to its LocalQueue, active, holding no
//    quota reservation (condition QuotaReserved) and not Finished: the sum over its podSets of
//    count x pod_gpus(template);
//  - Volcano: a PodGroup naming the group's Queue that is not yet running (phase Pending, Inqueue
//    or none): its minResources.
// Groups without any have no entry.
std::map<std::string, long> pending_gpus(const BridgeConfig& config, const nlohmann::json& items);

// A core/v1 Event on a group's queue (`queue` as read: its kind, name and uid are referenced) in
// `ns`, type Warning, from component fairway-bridge; `at` is an RFC 3339 time.
nlohmann::json queue_event(const nlohmann::json& queue, const std::string& ns, const std::string& reason,
                           const std::string& message, const std::string& at);

}  // namespace fairway::quota

namespace fairway::quota {
// The count of TRES `name` in Slurm's "cpu=4,mem=1G,gres/gpu=2,gres/gpu:a100=2" form; 0 if absent.
long tres_count(const std::string& tres, const std::string& name);
// A node's GRES `name` per type from its Gres string ("gpu:a100:4(S:0-1),gpu:2,mps:100"); GRES of
// no type count under kUntypedGpu. A malformed entry counts nothing.
std::map<std::string, long> gpus_by_type(const std::string& gres, const std::string& name);
}  // namespace fairway::quota
