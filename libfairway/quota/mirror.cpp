#include "quota/mirror.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

namespace fairway::quota {
namespace {

constexpr const char* kKueue = "/apis/kueue.x-k8s.io/v1beta1";
constexpr const char* kVolcano = "/apis/scheduling.volcano.sh/v1beta1";
constexpr const char* kUsageBasedFairSharing = "UsageBasedAdmissionFairSharing";

nlohmann::json metadata(const std::string& name, const std::map<std::string, std::string>& extra_labels,
                        const std::string& ns = "") {
    nlohmann::json labels = {{kManagedByLabel, kManagedByValue}};
    for (const auto& [key, value] : extra_labels) labels[key] = value;
    nlohmann::json meta = {{"name", name}, {"labels", labels}};
    if (!ns.empty()) meta["namespace"] = ns;
    return meta;
}

DesiredObject kueue_object(const std::string& kind, const std::string& plural, const std::string& name,
                           nlohmann::json meta, nlohmann::json rest, const std::string& ns = "") {
    nlohmann::json body = {{"apiVersion", "kueue.x-k8s.io/v1beta1"}, {"kind", kind}, {"metadata", std::move(meta)}};
    body.update(rest);
    std::string collection = std::string(kKueue) + (ns.empty() ? "" : "/namespaces/" + ns) + "/" + plural;
    return {kind, collection, name, std::move(body)};
}

// What one ResourceFlavor stands for: a Slurm partition, or (kubernetes.flavors: gpu_types) a GPU
// type, whose GPUs are each node's counted once however many partitions contain the node.
struct FlavorSource {
    std::string name;  // the partition, or the GRES type
    long gpus = 0;
    bool gpu_type = false;
};

std::string flavor_name(const FlavorSource& f) {
    return f.gpu_type ? gpu_type_flavor(f.name) : partition_flavor(f.name);
}

DesiredObject resource_flavor(const BridgeConfig& config, const FlavorSource& f) {
    const auto& mappings = f.gpu_type ? config.gpu_types : config.partitions;
    auto mapping = mappings.find(f.name);
    std::map<std::string, std::string> labels;
    if (mapping != mappings.end() && !mapping->second.node_labels.empty()) labels = mapping->second.node_labels;
    else if (f.gpu_type) labels[config.kubernetes.gpu_type_label] = f.name;
    else labels[config.kubernetes.partition_label] = f.name;
    const char* mark = f.gpu_type ? kGpuTypeLabel : kPartitionLabel;
    return kueue_object("ResourceFlavor", "resourceflavors", flavor_name(f), metadata(flavor_name(f), {{mark, f.name}}),
                        {{"spec", {{"nodeLabels", labels}}}});
}

// The flavors the cluster's hardware calls for: one per GPU partition, or one per GPU type.
std::vector<FlavorSource> flavor_sources(const BridgeConfig& config, const std::vector<PartitionInfo>& gpu_partitions,
                                         const FlavorUse& gpus_by_type) {
    std::vector<FlavorSource> out;
    if (config.kubernetes.flavors == FlavorBasis::gpu_types) {
        for (const auto& [type, gpus] : gpus_by_type)
            if (gpus > 0) out.push_back({type, gpus, true});
    } else {
        for (const auto& p : gpu_partitions) out.push_back({p.name, p.gpus, false});
    }
    return out;
}

std::vector<FlavorSource> largest_flavors(std::vector<FlavorSource> flavors) {
    if (flavors.size() <= kMaxFlavorsPerQueue) return flavors;
    std::stable_sort(flavors.begin(), flavors.end(), [](auto& a, auto& b) { return a.gpus > b.gpus; });
    flavors.resize(kMaxFlavorsPerQueue);
    std::sort(flavors.begin(), flavors.end(), [](auto& a, auto& b) { return flavor_name(a) < flavor_name(b); });
    return flavors;
}

// The partition or GPU type a flavor of ours stands for: as its ResourceFlavor's label says
// (`named`), else the flavor's name less `prefix`, which `to_flavor` (partition_flavor() or
// gpu_type_flavor()) maps back to the same flavor: it keeps a DNS-1123 label as it is, but a
// hashed name cannot be turned back.
std::string flavor_stands_for(const std::string& flavor, const std::map<std::string, std::string>& named,
                              const std::string& prefix, std::string (*to_flavor)(const std::string&)) {
    auto label = named.find(flavor);
    if (label != named.end() && to_flavor(label->second) == flavor) return label->second;
    return flavor.substr(prefix.size());
}

// What a flavor of ours that neither Slurm nor the configuration calls for stands for, with no
// GPUs; nullopt for a flavor not named by partition_flavor() or gpu_type_flavor().
std::optional<FlavorSource> kept_flavor(const std::string& flavor, const QueueFlavors& seen) {
    if (flavor.starts_with(kFlavorPrefix))
        return FlavorSource{flavor_stands_for(flavor, seen.partitions, kFlavorPrefix, partition_flavor), 0, false};
    if (flavor.starts_with(kGpuTypeFlavorPrefix))
        return FlavorSource{flavor_stands_for(flavor, seen.gpu_types, kGpuTypeFlavorPrefix, gpu_type_flavor), 0, true};
    return std::nullopt;
}

// The flavors a group's ClusterQueue covers: the largest (see kMaxFlavorsPerQueue), and any that
// still holds quota or reservations (capacity 0 when Slurm no longer has its partition or type, or
// the configuration moved to the other basis), so that such a change never drops use from the
// queue's status nor moves its quota at once: its quota leaves with the group's next decrease.
std::vector<FlavorSource> queue_flavors(const std::vector<FlavorSource>& flavors, const QueueFlavors& seen) {
    std::vector<FlavorSource> covered = largest_flavors(flavors);
    std::set<std::string> names;
    for (const auto& f : covered) names.insert(flavor_name(f));
    for (const FlavorUse* gpus_by_flavor : {&seen.nominal, &seen.reserved})
        for (const auto& [flavor, gpus] : *gpus_by_flavor) {
            if (gpus <= 0 || names.count(flavor)) continue;
            if (auto kept = kept_flavor(flavor, seen)) {
                names.insert(flavor);
                covered.push_back(*kept);
            }
        }
    std::sort(covered.begin(), covered.end(), [](auto& a, auto& b) { return flavor_name(a) < flavor_name(b); });
    return covered;
}

nlohmann::json flavor_resource(const KubernetesSettings& kube, long quota) {
    nlohmann::json resource = {{"name", kube.gpu_resource}, {"nominalQuota", quota}};
    // In a cohort, neither borrow (Kubernetes must stay within L_k) nor lend (another queue in the
    // cohort would use this group's idle GPUs, which Slurm may be given). Kueue rejects both
    // fields on a queue without a cohort.
    if (!kube.cohort.empty()) resource.update({{"borrowingLimit", 0}, {"lendingLimit", 0}});
    return resource;
}

// The configured covered resources with the quota to write, less those an admin's resource group
// covers: Kueue allows each resource in one group of a ClusterQueue.
std::vector<std::pair<std::string, std::string>> other_resources(const KubernetesSettings& kube,
                                                                 const nlohmann::json& kept_groups) {
    std::set<std::string> taken;
    for (const auto& kept : kept_groups)
        for (const auto& name : kept.value("coveredResources", nlohmann::json::array()))
            if (name.is_string()) taken.insert(name.get<std::string>());
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [name, quota] : kube.covered_resources)
        if (!taken.count(name)) out.emplace_back(name, quota == kUnlimited ? unlimited_quota(name) : quota);
    return out;
}

DesiredObject cluster_queue(const BridgeConfig& config, const QuotaGroup& group,
                            const std::vector<FlavorSource>& covered, long limit, const QueueFlavors& seen) {
    auto gpus_of = [](const FlavorUse& gpus, const std::string& flavor) {
        auto found = gpus.find(flavor);
        return found == gpus.end() ? 0L : found->second;
    };
    std::vector<long> capacity, current, used;
    for (const auto& p : covered) {
        capacity.push_back(p.gpus);
        current.push_back(gpus_of(seen.nominal, flavor_name(p)));
        used.push_back(gpus_of(seen.reserved, flavor_name(p)));
    }
    auto quotas = step_flavor_quotas(limit, current, used, capacity);
    const auto others = other_resources(config.kubernetes, seen.kept_groups);
    nlohmann::json covered_resources = {config.kubernetes.gpu_resource};
    for (const auto& [name, quota] : others) covered_resources.push_back(name);
    nlohmann::json flavors = nlohmann::json::array();
    for (std::size_t i = 0; i < covered.size(); ++i) {
        nlohmann::json resources = {flavor_resource(config.kubernetes, quotas[i])};
        for (const auto& [name, quota] : others) resources.push_back({{"name", name}, {"nominalQuota", quota}});
        flavors.push_back({{"name", flavor_name(covered[i])}, {"resources", resources}});
    }
    // Kueue refuses a resource group without flavors; a queue without one admits nothing, as L_k = 0 wants.
    nlohmann::json groups = nlohmann::json::array();
    if (!flavors.empty()) groups.push_back({{"coveredResources", covered_resources}, {"flavors", flavors}});
    for (const auto& kept : seen.kept_groups) groups.push_back(kept);
    nlohmann::json spec = nlohmann::json::object();
    // Kueue refuses an In selector without values; an absent selector matches no namespace.
    if (!group.namespaces.empty())
        spec["namespaceSelector"] = {
            {"matchExpressions",
             {{{"key", "kubernetes.io/metadata.name"}, {"operator", "In"}, {"values", group.namespaces}}}}};
    if (!groups.empty()) spec["resourceGroups"] = groups;
    if (!config.kubernetes.cohort.empty()) spec["cohort"] = config.kubernetes.cohort;
    // The LocalQueues' weights order the group's namespaces only under Admission Fair Sharing.
    if (config.kubernetes.standing_weights) spec["admissionScope"] = {{"admissionMode", kUsageBasedFairSharing}};
    std::string name = group_queue_name(group);
    return kueue_object("ClusterQueue", "clusterqueues", name, metadata(name, {{kGroupLabel, group.name}}),
                        {{"spec", spec}});
}

// The published weight in thousandths of a group's or namespace's entry; full weight when absent.
long weight_in(const std::map<std::string, long>& weights, const std::string& key) {
    auto found = weights.find(key);
    return found == weights.end() ? kFullWeightMilli : found->second;
}

DesiredObject local_queue(const BridgeConfig& config, const QuotaGroup& group, const std::string& ns,
                          const PublishedStanding& standing) {
    const std::string& name = config.kubernetes.local_queue;
    nlohmann::json spec = {{"clusterQueue", group_queue_name(group)}};
    if (config.kubernetes.standing_weights)
        spec["fairSharing"] = {{"weight", weight_quantity(weight_in(standing.by_namespace, ns))}};
    return kueue_object("LocalQueue", "localqueues", name, metadata(name, {{kGroupLabel, group.name}}, ns),
                        {{"spec", spec}}, ns);
}

void add_kueue_objects(const BridgeConfig& config, const std::vector<PartitionInfo>& gpu_partitions,
                       const FlavorUse& gpus_by_type, const std::map<std::string, long>& kube_limits,
                       const std::map<std::string, QueueFlavors>& queues, const PublishedStanding& standing,
                       std::vector<DesiredObject>& out) {
    std::set<int> tiers;
    for (const auto& p : gpu_partitions) tiers.insert(p.priority_tier);
    const std::vector<FlavorSource> sources = flavor_sources(config, gpu_partitions, gpus_by_type);
    std::map<std::string, FlavorSource> flavored;  // every flavor some queue covers or the hardware calls for
    for (const auto& f : sources) flavored[flavor_name(f)] = f;
    std::vector<DesiredObject> group_objects;
    for (const auto& group : config.groups) {
        auto limit = kube_limits.find(group.name);
        auto seen = queues.find(group.name);
        const QueueFlavors& flavors = seen == queues.end() ? QueueFlavors{} : seen->second;
        auto covered = queue_flavors(sources, flavors);
        for (const auto& f : covered) flavored.emplace(flavor_name(f), f);
        group_objects.push_back(
            cluster_queue(config, group, covered, limit == kube_limits.end() ? 0 : limit->second, flavors));
        for (const auto& ns : group.namespaces) group_objects.push_back(local_queue(config, group, ns, standing));
    }
    for (const auto& [name, f] : flavored) out.push_back(resource_flavor(config, f));
    for (int tier : tiers) {
        std::string name = "slurm-tier-" + std::to_string(tier);
        out.push_back(kueue_object("WorkloadPriorityClass", "workloadpriorityclasses", name, metadata(name, {}),
                                   {{"value", tier}, {"description", "Slurm PriorityTier " + std::to_string(tier)}}));
    }
    out.insert(out.end(), group_objects.begin(), group_objects.end());
}

void add_volcano_objects(const BridgeConfig& config, const std::map<std::string, long>& kube_limits,
                         const PublishedStanding& standing, std::vector<DesiredObject>& out) {
    for (const auto& group : config.groups) {
        auto limit = kube_limits.find(group.name);
        std::string name = group_queue_name(group);
        // Volcano's proportion plugin shares the cluster among queues in proportion to weight.
        const long weight = config.kubernetes.standing_weights ? weight_in(standing.by_group, group.name) : 1;
        nlohmann::json body = {
            {"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "Queue"},
            {"metadata", metadata(name, {{kGroupLabel, group.name}})},
            {"spec",
             {{"weight", weight},
              {"reclaimable", false},
              {"capability", {{config.kubernetes.gpu_resource, limit == kube_limits.end() ? 0 : limit->second}}}}}};
        out.push_back({"Queue", std::string(kVolcano) + "/queues", name, std::move(body)});
    }
}

// Splits `total` in proportion to `weight` (largest remainder; all to the first when no weight):
// the parts add up to exactly `total`, and a part exceeds floor(total * weight / sum) by at most one,
// so with total <= sum(weight) no part exceeds its weight.
std::vector<long> share_in_proportion(long total, const std::vector<long>& weight) {
    std::vector<long> out(weight.size(), 0);
    long sum = std::accumulate(weight.begin(), weight.end(), 0L);
    if (weight.empty() || total <= 0) return out;
    if (sum <= 0) {
        out[0] = total;
        return out;
    }
    std::vector<std::pair<long, std::size_t>> remainders;  // (remainder, index): largest first
    long given = 0;
    for (std::size_t i = 0; i < weight.size(); ++i) {
        long long share = static_cast<long long>(total) * weight[i];
        out[i] = static_cast<long>(share / sum);
        given += out[i];
        remainders.push_back({static_cast<long>(share % sum), i});
    }
    std::stable_sort(remainders.begin(), remainders.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (std::size_t k = 0; given < total; ++k, ++given) ++out[remainders[k % remainders.size()].second];
    return out;
}

bool numbers_equal(const nlohmann::json& a, const nlohmann::json& b) {
    long x = parse_quantity(a), y = parse_quantity(b);
    return x >= 0 && x == y;
}

}  // namespace

std::vector<std::string> managed_collections(Backend backend) {
    if (backend == Backend::volcano) return {std::string(kVolcano) + "/queues"};
    std::string base = kKueue;
    return {base + "/localqueues", base + "/clusterqueues", base + "/resourceflavors",
            base + "/workloadpriorityclasses"};
}

std::string unlimited_quota(const std::string& resource) { return resource == "cpu" ? "1M" : "1Pi"; }

std::string flavor_label(const nlohmann::json& resource_flavor, const char* label) {
    const auto meta = resource_flavor.value("metadata", nlohmann::json::object());
    const auto labels = meta.value("labels", nlohmann::json::object());
    return labels.value(label, "");
}

std::string group_queue_name(const QuotaGroup& group) { return "fairway-" + group.name; }

std::vector<DesiredObject> desired_objects(const BridgeConfig& config, const std::vector<PartitionInfo>& partitions,
                                           const std::map<std::string, long>& kube_limits,
                                           const std::map<std::string, QueueFlavors>& queues,
                                           const FlavorUse& gpus_by_type, const PublishedStanding& standing) {
    std::vector<PartitionInfo> gpu_partitions;
    std::copy_if(partitions.begin(), partitions.end(), std::back_inserter(gpu_partitions),
                 [](const PartitionInfo& p) { return p.gpus > 0; });
    std::sort(gpu_partitions.begin(), gpu_partitions.end(), [](auto& a, auto& b) { return a.name < b.name; });
    std::vector<DesiredObject> out;
    if (config.kubernetes.backend == Backend::kueue)
        add_kueue_objects(config, gpu_partitions, gpus_by_type, kube_limits, queues, standing, out);
    else add_volcano_objects(config, kube_limits, standing, out);
    for (auto& object : out) object.body["metadata"]["labels"][kOwnerLabel] = config.kubernetes.owner;
    return out;
}

bool owned_by(const nlohmann::json& object, const std::string& owner) {
    const auto& meta = object.value("metadata", nlohmann::json::object());
    const auto& labels = meta.value("labels", nlohmann::json::object());
    auto mark = labels.find(kOwnerLabel);
    if (mark == labels.end()) return owner == kDefaultOwner;
    return mark->is_string() && mark->get<std::string>() == owner;
}

std::vector<long> split_over_flavors(long limit, const std::vector<long>& used, const std::vector<long>& capacity) {
    std::vector<long> use(capacity.size(), 0);
    for (std::size_t i = 0; i < use.size() && i < used.size(); ++i) use[i] = std::max(0L, used[i]);
    const long total_use = std::accumulate(use.begin(), use.end(), 0L);
    if (total_use > limit) return share_in_proportion(std::max(0L, limit), use);  // each at most its use
    std::vector<long> quotas = share_in_proportion(limit - total_use, capacity);
    for (std::size_t i = 0; i < quotas.size(); ++i) quotas[i] += use[i];
    return quotas;
}

std::vector<long> step_flavor_quotas(long limit, const std::vector<long>& current, const std::vector<long>& used,
                                     const std::vector<long>& capacity) {
    std::vector<long> quotas(capacity.size(), 0);
    for (std::size_t i = 0; i < quotas.size() && i < current.size(); ++i) quotas[i] = std::max(0L, current[i]);
    const std::vector<long> target = split_over_flavors(limit, used, capacity);
    long change = limit - std::accumulate(quotas.begin(), quotas.end(), 0L);
    // Towards the target, one way only: sum(max(0, target - current)) >= a raise's size, and
    // sum(max(0, current - target)) >= a decrease's, so the loop always ends at `limit`.
    for (std::size_t i = 0; i < quotas.size() && change != 0; ++i) {
        long room = change > 0 ? std::max(0L, target[i] - quotas[i]) : std::max(0L, quotas[i] - target[i]);
        long step = std::min(room, change > 0 ? change : -change);
        quotas[i] += change > 0 ? step : -step;
        change += change > 0 ? -step : step;
    }
    return quotas;
}

long parse_quantity(const nlohmann::json& quantity) {
    if (quantity.is_number_integer()) return quantity.get<long>();
    if (quantity.is_number()) return static_cast<long>(std::floor(quantity.get<double>()));
    if (!quantity.is_string()) return -1;
    const std::string text = quantity.get<std::string>();
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        return -1;
    }
    const std::string suffix = text.substr(used);
    static const std::map<std::string, double> scale = {{"", 1},           {"m", 1e-3},         {"k", 1e3},
                                                        {"M", 1e6},        {"G", 1e9},          {"Ki", 1024.0},
                                                        {"Mi", 1048576.0}, {"Gi", 1073741824.0}};
    auto factor = scale.find(suffix);
    if (factor == scale.end() || value < 0) return -1;
    return static_cast<long>(std::floor(value * factor->second + 1e-9));
}

bool covers(const nlohmann::json& observed, const nlohmann::json& desired) {
    if (desired.is_object()) {
        if (!observed.is_object()) return false;
        for (const auto& [key, value] : desired.items())
            if (!observed.contains(key) || !covers(observed.at(key), value)) return false;
        return true;
    }
    if (desired.is_array()) {
        if (!observed.is_array() || observed.size() != desired.size()) return false;
        for (std::size_t i = 0; i < desired.size(); ++i)
            if (!covers(observed[i], desired[i])) return false;
        return true;
    }
    if (desired.is_number() || observed.is_number()) return numbers_equal(observed, desired) || observed == desired;
    return observed == desired;
}

bool up_to_date(const nlohmann::json& observed, const DesiredObject& desired) {
    if (!covers(observed, desired.body)) return false;
    if (desired.kind != "ClusterQueue" || desired.body["spec"].contains("cohort")) return true;
    return !observed.value("spec", nlohmann::json::object()).contains("cohort");
}

bool needs_recreation(const nlohmann::json& observed, const DesiredObject& desired) {
    if (desired.kind != "LocalQueue") return false;
    const std::string was = observed.value("spec", nlohmann::json::object()).value("clusterQueue", "");
    return !was.empty() && was != desired.body["spec"].value("clusterQueue", "");
}

namespace {
// Whether a ClusterQueue's resource group covers `resource` (in coveredResources or a flavor's quotas).
bool covers_resource(const nlohmann::json& group, const std::string& resource) {
    const auto covered = group.value("coveredResources", nlohmann::json::array());
    if (std::find(covered.begin(), covered.end(), nlohmann::json(resource)) != covered.end()) return true;
    for (const auto& flavor : group.value("flavors", nlohmann::json::array()))
        for (const auto& quota : flavor.value("resources", nlohmann::json::array()))
            if (quota.value("name", "") == resource) return true;
    return false;
}

// The spec generation Kueue's ClusterQueue controller last reported (condition Active), 0: none.
long kueue_observed_generation(const nlohmann::json& status) {
    for (const auto& condition : status.value("conditions", nlohmann::json::array()))
        if (condition.value("type", "") == "Active") return condition.value("observedGeneration", 0L);
    return 0;
}
}  // namespace

QueueReading read_queue(const nlohmann::json& queue, Backend backend, const std::string& gpu_resource) {
    QueueReading r;
    const auto spec = queue.value("spec", nlohmann::json::object());
    const auto status = queue.value("status", nlohmann::json::object());
    auto gpus_in = [&](const nlohmann::json& resources) {
        long total = 0;
        for (const auto& res : resources)
            if (res.value("name", "") == gpu_resource)
                total += std::max(0L, parse_quantity(res.value("total", res.value("nominalQuota", nlohmann::json(0)))));
        return total;
    };
    r.version = queue.value("metadata", nlohmann::json::object()).value("resourceVersion", "");
    if (backend == Backend::volcano) {
        auto quantity_of = [&](const nlohmann::json& map) {
            return map.contains(gpu_resource) ? std::max(0L, parse_quantity(map[gpu_resource])) : 0L;
        };
        r.limit = quantity_of(spec.value("capability", nlohmann::json::object()));
        r.use_known = status.contains("allocated");
        r.used = quantity_of(status.value("allocated", nlohmann::json::object()));
        return r;
    }
    for (const auto& group : spec.value("resourceGroups", nlohmann::json::array())) {
        if (!covers_resource(group, gpu_resource)) {
            r.flavors.kept_groups.push_back(group);
            continue;
        }
        for (const auto& flavor : group.value("flavors", nlohmann::json::array())) {
            long gpus = gpus_in(flavor.value("resources", nlohmann::json::array()));
            r.flavors.nominal[flavor.value("name", "")] += gpus;
            r.limit += gpus;
        }
    }
    // Kueue charges quota when it reserves it (status.flavorsReservation); flavorsUsage counts only
    // admitted workloads, which leaves out those still waiting for their AdmissionChecks.
    for (const auto& flavor : status.value("flavorsReservation", nlohmann::json::array())) {
        long gpus = gpus_in(flavor.value("resources", nlohmann::json::array()));
        r.flavors.reserved[flavor.value("name", "")] += gpus;
        r.used += gpus;
    }
    r.holdable = 0;
    for (const auto& [flavor, quota] : r.flavors.nominal) r.holdable += std::max(quota, r.flavors.reserved[flavor]);
    for (const auto& [flavor, reserved] : r.flavors.reserved)
        if (!r.flavors.nominal.count(flavor)) r.holdable += reserved;
    r.in_force =
        kueue_observed_generation(status) >= queue.value("metadata", nlohmann::json::object()).value("generation", 0L);
    return r;
}

std::string demand_collection(Backend backend) {
    return backend == Backend::kueue ? std::string(kKueue) + "/workloads" : std::string(kVolcano) + "/podgroups";
}

namespace {

long gpus_of(const nlohmann::json& resources, const std::string& gpu_resource) {
    return resources.is_object() && resources.contains(gpu_resource)
               ? std::max(0L, parse_quantity(resources[gpu_resource]))
               : 0L;
}

long container_gpus(const nlohmann::json& container, const std::string& gpu_resource) {
    const auto resources = container.value("resources", nlohmann::json::object());
    const auto requests = resources.value("requests", nlohmann::json::object());
    if (requests.contains(gpu_resource)) return gpus_of(requests, gpu_resource);
    return gpus_of(resources.value("limits", nlohmann::json::object()), gpu_resource);
}

bool condition_true(const nlohmann::json& object, const std::string& type) {
    for (const auto& c : object.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array()))
        if (c.value("type", "") == type) return c.value("status", "") == "True";
    return false;
}

bool pending_workload(const nlohmann::json& workload) {
    const auto spec = workload.value("spec", nlohmann::json::object());
    return spec.value("active", true) && !condition_true(workload, "QuotaReserved") &&
           !condition_true(workload, "Finished");
}

}  // namespace

long workload_gpus(const nlohmann::json& workload, const std::string& gpu_resource) {
    long total = 0;
    for (const auto& pod_set :
         workload.value("spec", nlohmann::json::object()).value("podSets", nlohmann::json::array()))
        total += pod_set.value("count", 1L) *
                 pod_gpus(pod_set.value("template", nlohmann::json::object()).value("spec", nlohmann::json::object()),
                          gpu_resource);
    return total;
}

long podgroup_gpus(const nlohmann::json& podgroup, const std::string& gpu_resource) {
    return gpus_of(podgroup.value("spec", nlohmann::json::object()).value("minResources", nlohmann::json::object()),
                   gpu_resource);
}

long pod_gpus(const nlohmann::json& pod_spec, const std::string& gpu_resource) {
    long containers = 0, init = 0;
    for (const auto& c : pod_spec.value("containers", nlohmann::json::array()))
        containers += container_gpus(c, gpu_resource);
    for (const auto& c : pod_spec.value("initContainers", nlohmann::json::array()))
        init = std::max(init, container_gpus(c, gpu_resource));
    return std::max(containers, init);
}

std::map<std::string, long> pending_gpus(const BridgeConfig& config, const nlohmann::json& items) {
    std::map<std::string, std::string> group_of;  // namespace (Kueue) or queue name (Volcano) -> group
    for (const auto& group : config.groups) {
        if (config.kubernetes.backend == Backend::volcano) group_of[group_queue_name(group)] = group.name;
        else
            for (const auto& ns : group.namespaces) group_of[ns] = group.name;
    }
    const std::string& gpu = config.kubernetes.gpu_resource;
    std::map<std::string, long> demand;
    for (const auto& item : items) {
        const auto spec = item.value("spec", nlohmann::json::object());
        if (config.kubernetes.backend == Backend::volcano) {
            const std::string phase = item.value("status", nlohmann::json::object()).value("phase", "");
            auto group = group_of.find(spec.value("queue", ""));
            if (group != group_of.end() && (phase.empty() || phase == "Pending" || phase == "Inqueue"))
                demand[group->second] += podgroup_gpus(item, gpu);
            continue;
        }
        auto group = group_of.find(item.value("metadata", nlohmann::json::object()).value("namespace", ""));
        if (group != group_of.end() && spec.value("queueName", "") == config.kubernetes.local_queue &&
            pending_workload(item))
            demand[group->second] += workload_gpus(item, gpu);
    }
    return demand;
}

nlohmann::json queue_event(const nlohmann::json& queue, const std::string& ns, const std::string& reason,
                           const std::string& message, const std::string& at) {
    const auto meta = queue.value("metadata", nlohmann::json::object());
    const std::string name = meta.value("name", "");
    return {{"apiVersion", "v1"},
            {"kind", "Event"},
            {"metadata", {{"generateName", name + "."}, {"namespace", ns}}},
            {"involvedObject",
             {{"apiVersion", queue.value("apiVersion", "")},
              {"kind", queue.value("kind", "")},
              {"name", name},
              {"uid", meta.value("uid", "")},
              {"resourceVersion", meta.value("resourceVersion", "")}}},
            {"reason", reason},
            {"message", message},
            {"type", "Warning"},
            {"source", {{"component", kManagedByValue}}},
            {"firstTimestamp", at},
            {"lastTimestamp", at},
            {"count", 1}};
}

}  // namespace fairway::quota

namespace fairway::quota {
long tres_count(const std::string& tres, const std::string& name) {
    std::size_t start = 0;
    while (start < tres.size()) {
        std::size_t end = tres.find(',', start);
        if (end == std::string::npos) end = tres.size();
        std::string item = tres.substr(start, end - start);
        if (item.size() > name.size() && item.compare(0, name.size(), name) == 0 && item[name.size()] == '=')
            return std::max(0L, parse_quantity(nlohmann::json(item.substr(name.size() + 1))));
        start = end + 1;
    }
    return 0;
}

std::map<std::string, long> gpus_by_type(const std::string& gres, const std::string& name) {
    std::string plain;  // without the "(S:0-1)" socket lists, which may hold commas
    int depth = 0;
    for (char c : gres) {
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (depth == 0 && c != ')') plain += c;
    }
    std::map<std::string, long> out;
    std::stringstream items(plain);
    for (std::string item; std::getline(items, item, ',');) {
        std::vector<std::string> parts;
        std::stringstream fields(item);
        for (std::string field; std::getline(fields, field, ':');) parts.push_back(field);
        if (parts.empty() || parts[0] != name) continue;
        auto is_digits = [](const std::string& t) { return !t.empty() && t.find_first_not_of("0123456789") == t.npos; };
        // name, name:COUNT, name:TYPE, name:TYPE:COUNT (and flags such as no_consume between)
        const bool counted = parts.size() > 1 && is_digits(parts.back());
        if (counted && parts.back().size() > 9) continue;  // no GPU count is that long: malformed
        const long count = counted ? std::stol(parts.back()) : 1;
        const bool typed = parts.size() > (counted ? 2u : 1u);
        out[typed ? parts[1] : kUntypedGpu] += count;
    }
    return out;
}
}  // namespace fairway::quota
