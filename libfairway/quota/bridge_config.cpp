#include "quota/bridge_config.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "fairshare/usage_records.h"
#include "quota/leader_lease.h"

namespace fairway::quota {
namespace {

bool is_dns1123_subdomain(const std::string& name);

// Walks the YAML tree remembering the file so every error names file, line and dotted key.
class Reader {
public:
    explicit Reader(std::string file) : file_(std::move(file)) {}

    [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& why) const {
        int line = at.IsDefined() && at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
        throw InputError({file_, line, key}, why);
    }

    // Rejects keys outside `allowed`: a typo must not silently fall back to a default.
    void expect_map(const YAML::Node& node, const std::string& key, const std::set<std::string>& allowed) const {
        if (!node.IsMap()) fail(node, key, "expected a mapping");
        for (const auto& entry : node) {
            std::string name = entry.first.as<std::string>();
            if (!allowed.count(name)) fail(entry.first, join(key, name), "unknown key");
        }
    }

    std::string text(const YAML::Node& node, const std::string& key) const {
        if (!node.IsScalar() || node.Scalar().empty()) fail(node, key, "expected a non-empty string");
        return node.Scalar();
    }

    long integer(const YAML::Node& node, const std::string& key, long min, long max) const {
        if (!node.IsScalar()) fail(node, key, "expected an integer");
        long value = 0;
        std::size_t used = 0;
        try {
            value = std::stol(node.Scalar(), &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != node.Scalar().size())
            fail(node, key, "expected an integer, got '" + node.Scalar() + "'");
        if (value < min || value > max)
            fail(node, key, "must be between " + std::to_string(min) + " and " + std::to_string(max));
        return value;
    }

    bool boolean(const YAML::Node& node, const std::string& key) const {
        std::string flag = text(node, key);
        if (flag != "true" && flag != "false") fail(node, key, "expected true or false, got '" + flag + "'");
        return flag == "true";
    }

    std::vector<std::string> names(const YAML::Node& node, const std::string& key) const {
        if (!node.IsSequence()) fail(node, key, "expected a list of names");
        std::vector<std::string> out;
        for (std::size_t i = 0; i < node.size(); ++i) out.push_back(text(node[i], key + "[" + std::to_string(i) + "]"));
        return out;
    }

    std::map<std::string, std::string> labels(const YAML::Node& node, const std::string& key) const {
        if (!node.IsMap()) fail(node, key, "expected a mapping of label names to values");
        std::map<std::string, std::string> out;
        for (const auto& entry : node) {
            std::string name = entry.first.as<std::string>();
            out[name] = text(entry.second, join(key, name));
        }
        return out;
    }

    // A name Kubernetes accepts as an object name (`subdomain`: dot-separated labels) or label.
    std::string kube_name(const YAML::Node& node, const std::string& key, bool subdomain, std::size_t max = 63) const {
        std::string name = text(node, key);
        bool valid = subdomain ? is_dns1123_subdomain(name) : is_dns1123_label(name) && name.size() <= max;
        if (!valid)
            fail(node, key,
                 "'" + name + "' is not a valid Kubernetes name (lowercase letters, digits and '-', starting and " +
                     "ending with a letter or digit, at most " + std::to_string(subdomain ? 253 : max) + " characters" +
                     (subdomain ? ", '.' between parts)" : ")"));
        return name;
    }

    static std::string join(const std::string& parent, const std::string& child) {
        return parent.empty() ? child : parent + "." + child;
    }

private:
    std::string file_;
};

bool is_dns1123_subdomain(const std::string& name) {
    if (name.empty() || name.size() > 253) return false;
    std::size_t start = 0;
    for (std::size_t dot = name.find('.');; dot = name.find('.', start)) {
        if (!is_dns1123_label(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start)))
            return false;
        if (dot == std::string::npos) return true;
        start = dot + 1;
    }
}

// Kueue's nominalQuota: a Kubernetes quantity (its CRD's pattern), here also non-negative.
bool is_quantity(const std::string& text) {
    static const std::regex quantity(
        R"(^\+?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)");
    return std::regex_match(text, quantity);
}

// A resource name as Kubernetes validates it: an optional DNS subdomain prefix and '/', then a name part.
bool is_resource_name(const std::string& name) {
    static const std::regex resource(R"(^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$)");
    return name.size() <= 316 && std::regex_match(name, resource);
}

void read_covered_resources(const Reader& r, const YAML::Node& node, KubernetesSettings& out) {
    const std::string key = "kubernetes.covered_resources";
    if (!node.IsMap()) r.fail(node, key, "expected a mapping of resource names to quotas (a quantity or unlimited)");
    out.covered_resources.clear();
    for (const auto& entry : node) {
        const std::string name = entry.first.as<std::string>();
        const std::string quota = r.text(entry.second, Reader::join(key, name));
        if (!is_resource_name(name)) r.fail(entry.first, Reader::join(key, name), "not a Kubernetes resource name");
        if (quota != kUnlimited && !is_quantity(quota))
            r.fail(entry.second, Reader::join(key, name),
                   "expected 'unlimited' or a non-negative quantity such as 64, 500m or 256Gi, got '" + quota + "'");
        out.covered_resources[name] = quota;
    }
}

void read_kubernetes(const Reader& r, const YAML::Node& node, KubernetesSettings& out) {
    r.expect_map(node, "kubernetes",
                 {"kubeconfig", "owner", "backend", "cohort", "local_queue", "gpu_resource", "partition_label",
                  "flavors", "gpu_type_label", "covered_resources", "standing_weights"});
    if (node["kubeconfig"]) {
        std::string path = r.text(node["kubeconfig"], "kubernetes.kubeconfig");
        out.kubeconfig = path == "in-cluster" ? "" : path;
    }
    // A label value; the lease fairway-bridge-<owner> must stay a valid name too.
    if (node["owner"]) out.owner = r.kube_name(node["owner"], "kubernetes.owner", false, 63);
    if (node["backend"]) {
        std::string name = r.text(node["backend"], "kubernetes.backend");
        if (name == "kueue") out.backend = Backend::kueue;
        else if (name == "volcano") out.backend = Backend::volcano;
        else r.fail(node["backend"], "kubernetes.backend", "expected 'kueue' or 'volcano', got '" + name + "'");
    }
    if (node["cohort"]) out.cohort = r.kube_name(node["cohort"], "kubernetes.cohort", true);
    if (node["local_queue"]) out.local_queue = r.kube_name(node["local_queue"], "kubernetes.local_queue", true);
    if (node["gpu_resource"]) out.gpu_resource = r.text(node["gpu_resource"], "kubernetes.gpu_resource");
    if (node["partition_label"]) out.partition_label = r.text(node["partition_label"], "kubernetes.partition_label");
    if (node["flavors"]) {
        std::string basis = r.text(node["flavors"], "kubernetes.flavors");
        if (basis == "partitions") out.flavors = FlavorBasis::partitions;
        else if (basis == "gpu_types") out.flavors = FlavorBasis::gpu_types;
        else r.fail(node["flavors"], "kubernetes.flavors", "expected 'partitions' or 'gpu_types', got '" + basis + "'");
    }
    if (node["gpu_type_label"]) out.gpu_type_label = r.text(node["gpu_type_label"], "kubernetes.gpu_type_label");
    if (node["covered_resources"]) read_covered_resources(r, node["covered_resources"], out);
    if (node["standing_weights"])
        out.standing_weights = r.boolean(node["standing_weights"], "kubernetes.standing_weights");
    // Kueue allows a resource in one place of a ClusterQueue; the GPU's quota is the bridge's to set.
    if (out.covered_resources.count(out.gpu_resource))
        r.fail(node["covered_resources"], "kubernetes.covered_resources." + out.gpu_resource,
               "the GPU resource is always covered, with the quota the bridge sets; remove it here");
}

void read_slurm(const Reader& r, const YAML::Node& node, SlurmSettings& out) {
    r.expect_map(node, "slurm", {"cluster", "gres"});
    if (node["cluster"]) out.cluster = r.text(node["cluster"], "slurm.cluster");
    if (node["gres"]) out.gres = r.text(node["gres"], "slurm.gres");
}

void read_reconcile(const Reader& r, const YAML::Node& node, ReconcileSettings& out) {
    r.expect_map(node, "reconcile", {"period_seconds", "stale_after_seconds", "write_timeout_seconds"});
    const long day = 86400;
    if (node["period_seconds"])
        out.period_seconds = r.integer(node["period_seconds"], "reconcile.period_seconds", 1, day);
    if (node["stale_after_seconds"])
        out.stale_after_seconds = r.integer(node["stale_after_seconds"], "reconcile.stale_after_seconds", 1, day);
    if (node["write_timeout_seconds"])
        out.write_timeout_seconds = r.integer(node["write_timeout_seconds"], "reconcile.write_timeout_seconds", 1, day);
    if (out.stale_after_seconds < out.period_seconds)
        r.fail(node["stale_after_seconds"], "reconcile.stale_after_seconds", "must be at least period_seconds");
    // Each side is written at most once per write timeout; a longer one would slow demand past two periods.
    if (out.write_timeout_seconds > out.period_seconds)
        r.fail(node["write_timeout_seconds"], "reconcile.write_timeout_seconds", "must not exceed period_seconds");
}

// Also run without a leader_election section: the default durations must fit write_timeout_seconds.
void check_lease_timing(const Reader& r, const YAML::Node& node, const ReconcileSettings& reconcile,
                        const LeaderElectionSettings& le) {
    LeaseTiming timing{le.lease_duration_seconds, le.renew_deadline_seconds, reconcile.write_timeout_seconds};
    std::string problem = lease_timing_problem(timing, le.retry_period_seconds);
    if (le.enabled && !problem.empty()) r.fail(node, "leader_election", problem);
}

void read_leader_election(const Reader& r, const YAML::Node& node, const ReconcileSettings& reconcile,
                          LeaderElectionSettings& out) {
    r.expect_map(node, "leader_election",
                 {"enabled", "namespace", "name", "identity", "lease_duration_seconds", "renew_deadline_seconds",
                  "retry_period_seconds"});
    if (node["enabled"]) out.enabled = r.boolean(node["enabled"], "leader_election.enabled");
    if (node["namespace"]) out.lease_namespace = r.text(node["namespace"], "leader_election.namespace");
    if (node["name"]) out.lease_name = r.text(node["name"], "leader_election.name");
    if (node["identity"]) out.identity = r.text(node["identity"], "leader_election.identity");
    const long hour = 3600;
    if (node["lease_duration_seconds"])
        out.lease_duration_seconds =
            r.integer(node["lease_duration_seconds"], "leader_election.lease_duration_seconds", 2, hour);
    if (node["renew_deadline_seconds"])
        out.renew_deadline_seconds =
            r.integer(node["renew_deadline_seconds"], "leader_election.renew_deadline_seconds", 1, hour);
    if (node["retry_period_seconds"])
        out.retry_period_seconds =
            r.integer(node["retry_period_seconds"], "leader_election.retry_period_seconds", 1, hour);
    check_lease_timing(r, node, reconcile, out);
}

// Kueue v0.14's ResourceFlavor allows at most this many nodeLabels (CRD maxProperties).
constexpr std::size_t kMaxNodeLabels = 8;

// `section`: partitions or gpu_types, each name's flavor named by `flavor_of`.
void read_flavor_mappings(const Reader& r, const YAML::Node& node, const std::string& section,
                          std::string (*flavor_of)(const std::string&), std::map<std::string, PartitionMapping>& out) {
    if (!node.IsMap()) r.fail(node, section, "expected a mapping of names");
    std::map<std::string, std::string> name_of_flavor;
    for (const auto& entry : node) {
        std::string name = entry.first.as<std::string>();
        std::string key = section + "." + name;
        r.expect_map(entry.second, key, {"node_labels"});
        auto [flavor, fresh] = name_of_flavor.emplace(flavor_of(name), name);
        if (!fresh)
            r.fail(entry.first, key,
                   section + " '" + flavor->second + "' and '" + name + "' would share ResourceFlavor '" +
                       flavor->first + "'");
        PartitionMapping mapping;
        if (entry.second["node_labels"])
            mapping.node_labels = r.labels(entry.second["node_labels"], key + ".node_labels");
        if (mapping.node_labels.size() > kMaxNodeLabels)
            r.fail(entry.second["node_labels"], key + ".node_labels",
                   "at most " + std::to_string(kMaxNodeLabels) + " node labels per flavor (Kueue refuses more)");
        out[name] = std::move(mapping);
    }
}

QuotaGroup read_group(const Reader& r, const YAML::Node& node, const std::string& key) {
    r.expect_map(node, key, {"name", "accounts", "namespaces", "gpus"});
    QuotaGroup group;
    for (const char* required : {"name", "gpus", "accounts"})
        if (!node[required]) r.fail(node, key + "." + required, "missing");
    // The ClusterQueue (Volcano Queue) is named fairway-<name>, and <name> is a label value: 63 at most.
    group.name = r.kube_name(node["name"], key + ".name", false, 63 - std::string("fairway-").size());
    group.gpus = r.integer(node["gpus"], key + ".gpus", 0, 1000000);
    group.accounts = r.names(node["accounts"], key + ".accounts");
    // GrpTRES on one association bounds it and its sub-accounts; two sibling limits could add up past L_s.
    if (group.accounts.size() != 1)
        r.fail(node["accounts"], key + ".accounts",
               "exactly one Slurm account per group (group sub-accounts under a parent account)");
    if (node["namespaces"]) group.namespaces = r.names(node["namespaces"], key + ".namespaces");
    for (std::size_t i = 0; i < group.namespaces.size(); ++i)
        r.kube_name(node["namespaces"][i], key + ".namespaces[" + std::to_string(i) + "]", false);
    return group;
}

void read_groups(const Reader& r, const YAML::Node& node, std::vector<QuotaGroup>& out) {
    if (!node.IsSequence()) r.fail(node, "groups", "expected a list of quota groups");
    std::set<std::string> seen_groups, seen_accounts, seen_namespaces;
    for (std::size_t i = 0; i < node.size(); ++i) {
        std::string key = "groups[" + std::to_string(i) + "]";
        QuotaGroup group = read_group(r, node[i], key);
        if (!seen_groups.insert(group.name).second)
            r.fail(node[i]["name"], key + ".name", "duplicate group '" + group.name + "'");
        // One account or namespace in two groups would count its use against both quotas.
        for (const auto& account : group.accounts)
            if (!seen_accounts.insert(account).second)
                r.fail(node[i]["accounts"], key + ".accounts", "account '" + account + "' is already in another group");
        for (const auto& ns : group.namespaces)
            if (!seen_namespaces.insert(ns).second)
                r.fail(node[i]["namespaces"], key + ".namespaces",
                       "namespace '" + ns + "' is already in another group");
        out.push_back(std::move(group));
    }
}

double billing_weight(const Reader& r, const YAML::Node& node, const std::string& key) {
    double value = -1;
    try {
        std::size_t used = 0;
        value = node.IsScalar() ? std::stod(node.Scalar(), &used) : -1;
        if (used != node.Scalar().size()) value = -1;
    } catch (const std::exception&) {
        value = -1;
    }
    if (!(value >= 0 && value <= fairshare::kMaxBillingPerGpu))
        r.fail(node, key, "expected a billing weight between 0 and " + std::to_string(fairshare::kMaxBillingPerGpu));
    return value;
}

void read_usage(const Reader& r, const YAML::Node& node, UsageSettings& out) {
    r.expect_map(node, "usage", {"spool", "source", "record_seconds", "keep_days", "gpu_billing", "associations"});
    if (node["spool"]) out.spool = r.text(node["spool"], "usage.spool");
    if (node["source"]) out.source = r.text(node["source"], "usage.source");
    if (!fairshare::valid_usage_source(out.source))
        r.fail(node["source"], "usage.source", "1 to 63 letters, digits, '.' or '_'");
    if (node["record_seconds"])
        out.record_seconds = r.integer(node["record_seconds"], "usage.record_seconds", 1, 86400);
    if (node["keep_days"]) out.keep_seconds = r.integer(node["keep_days"], "usage.keep_days", 1, 366) * 86400;
    if (node["gpu_billing"]) out.gpu_billing = billing_weight(r, node["gpu_billing"], "usage.gpu_billing");
    if (node["associations"]) {
        out.associations = r.labels(node["associations"], "usage.associations");
        for (const auto& [ns, association] : out.associations)
            if (std::count(association.begin(), association.end(), '/') > 1 ||
                association.find(' ') != std::string::npos)
                r.fail(node["associations"][ns], "usage.associations." + ns, "expected account or account/user");
    }
}

}  // namespace

bool is_dns1123_label(const std::string& name) {
    static const std::regex label("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    return name.size() <= 63 && std::regex_match(name, label);
}

namespace {
// prefix + name when that is a DNS-1123 label; otherwise name lowercased, other characters '-',
// and an FNV-1a hash of name appended.
std::string flavor_label(const std::string& prefix, const std::string& name) {
    const std::string plain = prefix + name;
    if (is_dns1123_label(plain)) return plain;
    std::uint32_t hash = 2166136261u;  // FNV-1a: stable across builds and hosts, unlike std::hash
    std::string base;
    for (unsigned char c : name) {
        hash = (hash ^ c) * 16777619u;
        base += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '-';
    }
    char suffix[10];
    std::snprintf(suffix, sizeof suffix, "-%08x", hash);
    base = (prefix + base).substr(0, 63 - 9);
    while (!base.empty() && base.back() == '-') base.pop_back();
    return base + suffix;
}
}  // namespace

std::string partition_flavor(const std::string& partition) { return flavor_label(kFlavorPrefix, partition); }

std::string gpu_type_flavor(const std::string& type) { return flavor_label(kGpuTypeFlavorPrefix, type); }

BridgeConfig parse_bridge_config(const std::string& yaml_text, const std::string& file) {
    Reader r(file);
    YAML::Node root;
    try {
        root = YAML::Load(yaml_text);
    } catch (const YAML::ParserException& e) {
        throw InputError({file, e.mark.line + 1, ""}, "invalid YAML: " + e.msg);
    }
    BridgeConfig config;
    config.source_file = file;
    if (!root.IsDefined() || root.IsNull()) throw InputError({file, 0, ""}, "empty configuration");
    r.expect_map(root, "",
                 {"kubernetes", "slurm", "reconcile", "leader_election", "metrics", "partitions", "gpu_types", "groups",
                  "usage"});
    if (root["kubernetes"]) read_kubernetes(r, root["kubernetes"], config.kubernetes);
    if (root["slurm"]) read_slurm(r, root["slurm"], config.slurm);
    if (root["reconcile"]) read_reconcile(r, root["reconcile"], config.reconcile);
    // Bridges of different owners are no leader-election case: each has its own lease by default.
    if (config.kubernetes.owner != kDefaultOwner)
        config.leader_election.lease_name = "fairway-bridge-" + config.kubernetes.owner;
    if (root["leader_election"])
        read_leader_election(r, root["leader_election"], config.reconcile, config.leader_election);
    else check_lease_timing(r, root["leader_election"], config.reconcile, config.leader_election);
    if (root["metrics"]) {
        r.expect_map(root["metrics"], "metrics", {"listen"});
        if (root["metrics"]["listen"]) config.metrics_listen = r.text(root["metrics"]["listen"], "metrics.listen");
    }
    if (root["partitions"])
        read_flavor_mappings(r, root["partitions"], "partitions", partition_flavor, config.partitions);
    if (root["gpu_types"]) read_flavor_mappings(r, root["gpu_types"], "gpu_types", gpu_type_flavor, config.gpu_types);
    if (!root["groups"]) throw InputError({file, 0, "groups"}, "missing: at least one quota group is needed");
    read_groups(r, root["groups"], config.groups);
    if (root["usage"]) read_usage(r, root["usage"], config.usage);
    return config;
}

BridgeConfig load_bridge_config(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError({path, 0, ""}, "cannot read the configuration file");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_bridge_config(text.str(), path);
}

}  // namespace fairway::quota
