// fairway-bridge's configuration: which Kubernetes API to talk to, how Slurm partitions and
// accounts map onto Kueue/Volcano objects, and the quota groups whose GPUs both clusters share.
// Pure data plus a YAML loader whose errors name file, line and key (fairway::InputError).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fairway::quota {

enum class Backend { kueue, volcano };
// What a ResourceFlavor stands for: a Slurm partition, or a GPU type (GRES type) of the nodes.
enum class FlavorBasis { partitions, gpu_types };

inline constexpr const char* kUnlimited = "unlimited";
// The identity of a bridge that names none (kubernetes.owner): it alone adopts objects made before
// bridges marked their owner, and its lease keeps the name it always had.
inline constexpr const char* kDefaultOwner = "default";

struct KubernetesSettings {
    std::string kubeconfig;  // path; empty means the in-cluster service account
    // This bridge's identity, written as label fairway.io/owner on everything it makes: it writes and
    // deletes only objects carrying it, so bridges of several sites (or a test's) share an apiserver.
    std::string owner = kDefaultOwner;
    Backend backend = Backend::kueue;
    std::string cohort;                   // Kueue cohort all managed ClusterQueues join; empty: none
    std::string local_queue = "fairway";  // name of the LocalQueue created in each namespace
    std::string gpu_resource = "nvidia.com/gpu";
    std::string partition_label = "fairway.io/slurm-partition";  // default flavor node label key
    FlavorBasis flavors = FlavorBasis::partitions;
    std::string gpu_type_label = "fairway.io/gpu-type";  // default node label key of a GPU type's flavor
    // Publish each team's Slurm fair-share standing (quota/standing.h) as Kueue LocalQueue weights
    // under Admission Fair Sharing, or as Volcano Queue weights.
    bool standing_weights = true;
    // Resources a group's ClusterQueue covers besides the GPU, with their quota per flavor
    // (kUnlimited or a Kubernetes quantity). Kueue refuses a workload requesting a resource its
    // ClusterQueue does not cover, so a GPU pod with cpu and memory requests needs both covered.
    std::map<std::string, std::string> covered_resources = {{"cpu", kUnlimited}, {"memory", kUnlimited}};
};

struct SlurmSettings {
    std::string cluster;       // slurmdbd cluster name; empty: the local ClusterName
    std::string gres = "gpu";  // GRES type counted and limited (gres/<gres>)
};

struct ReconcileSettings {
    int period_seconds = 10;        // one reconcile cycle
    int stale_after_seconds = 30;   // a side's data older than this is stale: no raises
    int write_timeout_seconds = 5;  // HTTP/slurmdbd timeout: a write not landed by then never will
};

// One active bridge: a coordination.k8s.io/v1 Lease names the only bridge that may write.
struct LeaderElectionSettings {
    bool enabled = true;
    std::string lease_namespace = "fairway-system";
    // Unless named: fairway-bridge-<owner> for an owner other than the default.
    std::string lease_name = "fairway-bridge";
    std::string identity;             // empty: "<hostname>_<pid>"
    int lease_duration_seconds = 15;  // others take over this long after our last renewal
    int renew_deadline_seconds = 10;  // we write only this long after our last renewal
    int retry_period_seconds = 2;     // how often the Lease is renewed (or, on standby, read)
};

struct PartitionMapping {
    std::map<std::string, std::string> node_labels;  // ResourceFlavor nodeLabels
};

struct QuotaGroup {
    std::string name;
    std::vector<std::string> accounts;    // exactly one Slurm account (its sub-accounts share its limit)
    std::vector<std::string> namespaces;  // Kubernetes namespaces sharing the quota
    long gpus = 0;                        // Q: GPUs both clusters together may use
};

// Metering Kubernetes GPU time into Slurm's fair-share (usage_meter.h): off without a spool.
struct UsageSettings {
    std::string spool;                // the plugin's spool: <StateSaveLocation>/fairway_usage; empty: no metering
    std::string source = "bridge";    // names this bridge's records; stable across restarts
    int record_seconds = 60;          // one record per this many seconds (and at a reservation's end)
    long keep_seconds = 30L * 86400;  // records kept this long: at least PriorityParameters' window + a bucket
    double gpu_billing = 1.0;         // billing per GPU-second: TRESBillingWeights' GRES/gpu weight
    std::map<std::string, std::string> associations;  // namespace -> "account" or "account/user"
};

struct BridgeConfig {
    std::string source_file;
    KubernetesSettings kubernetes;
    SlurmSettings slurm;
    ReconcileSettings reconcile;
    LeaderElectionSettings leader_election;
    std::string metrics_listen = "127.0.0.1:9464";
    std::map<std::string, PartitionMapping> partitions;  // optional per-partition overrides
    std::map<std::string, PartitionMapping> gpu_types;   // optional per-GPU-type overrides (node_labels)
    std::vector<QuotaGroup> groups;
    UsageSettings usage;
};

// The ResourceFlavor standing for a Slurm partition: "slurm-" + the partition name when that is a
// DNS-1123 label, as Kubernetes requires of object names; otherwise the name lowercased, every
// other character a '-', and a hash of the original appended, so two partitions that differ only
// in case or punctuation ("gpu_A100", "gpu-a100") still get two flavors. Deterministic: the same
// partition gets the same flavor in every bridge and every run.
std::string partition_flavor(const std::string& partition);
inline constexpr const char* kFlavorPrefix = "slurm-";
// The ResourceFlavor standing for a GPU type (kubernetes.flavors: gpu_types): "gpu-" + the type,
// made a DNS-1123 label as partition_flavor() does. GPUs of no type count as type kUntypedGpu.
std::string gpu_type_flavor(const std::string& type);
inline constexpr const char* kGpuTypeFlavorPrefix = "gpu-";
inline constexpr const char* kUntypedGpu = "untyped";

// Kubernetes' DNS-1123 label: at most 63 of [a-z0-9-], starting and ending alphanumeric.
bool is_dns1123_label(const std::string& name);

// Parses YAML text; `file` only names the source in error messages.
BridgeConfig parse_bridge_config(const std::string& yaml_text, const std::string& file);
// Reads and parses a file; an unreadable file is an InputError naming it.
BridgeConfig load_bridge_config(const std::string& path);

}  // namespace fairway::quota
