#include "reconciler.h"

#include <set>

#include "log.h"

namespace fairway::bridge {
namespace {

using quota::Side;

quota::SplitTiming timing_of(const quota::BridgeConfig& config) {
    return {config.reconcile.stale_after_seconds, config.reconcile.write_timeout_seconds};
}

std::string object_path(const std::string& collection, const nlohmann::json& object) {
    // Cluster-wide list paths drop the namespace; rebuild the object's own path from its metadata.
    const auto& meta = object["metadata"];
    std::string ns = meta.value("namespace", "");
    std::string base = collection;
    if (!ns.empty()) {
        auto slash = base.rfind('/');
        base = base.substr(0, slash) + "/namespaces/" + ns + base.substr(slash);
    }
    return base + "/" + meta.value("name", "");
}

bool is_decrease(const GroupReport& g, Side side) {
    const auto& write = g.decision.write[static_cast<int>(side)];
    const auto& seen = g.reading[static_cast<int>(side)];
    return write && seen && *write < seen->limit;
}

}  // namespace

Reconciler::Reconciler(quota::BridgeConfig config, KubeApi& kube, SlurmClient& slurm, bool dry_run, quota::Instant now)
    : kube_(kube), slurm_(slurm), dry_run_(dry_run) {
    reconfigure(std::move(config), now);
}

void Reconciler::reconfigure(quota::BridgeConfig config, quota::Instant now) {
    std::map<std::string, quota::QuotaSplit> kept;
    for (const auto& group : config.groups) {
        auto old = splits_.find(group.name);
        if (old != splits_.end()) {
            old->second.set_quota(group.gpus);
            kept.emplace(group.name, old->second);
        } else {
            kept.emplace(group.name, quota::QuotaSplit(group.gpus, timing_of(config), now));
        }
    }
    splits_ = std::move(kept);
    config_ = std::move(config);
}

std::string Reconciler::queue_path(const quota::QuotaGroup& group) const {
    for (const auto& collection : quota::managed_collections(config_.kubernetes.backend))
        if (collection.ends_with("/clusterqueues") || collection.ends_with("/queues"))
            return collection + "/" + quota::group_queue_name(group);
    return {};
}

bool Reconciler::read_kubernetes(Observed& observed) {
    std::string selector = std::string(quota::kManagedByLabel) + "=" + quota::kManagedByValue;
    for (const auto& collection : quota::managed_collections(config_.kubernetes.backend)) {
        ApiResult list = kube_.list(collection, selector);
        if (!list.ok()) {
            log_event(LogLevel::warn, "cannot list", {{"collection", collection}, {"error", list.response.summary()}});
            return false;
        }
        for (const auto& item : list.object["items"]) observed[object_path(collection, item)] = item;
    }
    return read_unlisted_queues(observed);
}

// A group's queue missing from the labelled list may still exist with its label stripped by
// another writer; its usage must count (reading "no queue: nothing admitted" would hand Slurm
// GPUs Kubernetes is using). Costs a GET only in that case, so steady state is unchanged.
bool Reconciler::read_unlisted_queues(Observed& observed) {
    for (const auto& group : config_.groups) {
        const std::string path = queue_path(group);
        if (observed.count(path)) continue;
        ApiResult queue = kube_.get(path);
        if (queue.response.status == 404) continue;  // truly absent: nothing can be admitted
        if (!queue.ok()) {
            log_event(LogLevel::warn, "cannot read queue", {{"path", path}, {"error", queue.response.summary()}});
            return false;
        }
        log_event(LogLevel::warn, "queue lost its managed-by label", {{"path", path}});
        observed[path] = queue.object;
    }
    return true;
}

void Reconciler::observe_group(const quota::QuotaGroup& group, const SlurmSnapshot& slurm, bool kube_ok,
                               const Observed& observed, quota::Instant now, GroupReport& report) {
    quota::QuotaSplit& split = splits_.at(group.name);
    auto account = slurm.accounts.find(group.accounts.front());
    if (slurm.error.empty() && account != slurm.accounts.end()) {
        quota::SideReading r{now, account->second.limit, account->second.used, account->second.pending};
        split.observe(Side::slurm, r);
        report.reading[0] = r;
    } else if (slurm.error.empty()) {
        log_event(LogLevel::warn, "Slurm account has no association",
                  {{"group", group.name}, {"account", group.accounts.front()}});
    }
    if (kube_ok) {
        auto queue = observed.find(queue_path(group));
        quota::QueueReading q;  // no queue yet: nothing admitted, limit 0
        if (queue != observed.end())
            q = quota::read_queue(queue->second, config_.kubernetes.backend, config_.kubernetes.gpu_resource);
        quota::SideReading r{now, q.limit, q.used, q.pending, q.holdable};
        split.observe(Side::kubernetes, r);
        report.reading[1] = r;
        report.flavors = q.flavors;
    }
    report.quota = group.gpus;
    report.decision = split.decide(now);
}

void Reconciler::write_slurm(const quota::QuotaGroup& group, long limit, quota::Instant now, CycleReport& report) {
    const std::string& account = group.accounts.front();
    if (dry_run_) {
        log_event(LogLevel::info, "dry-run: would set GrpTRES",
                  {{"account", account}, {"gpus", std::to_string(limit)}});
        return;
    }
    splits_.at(group.name).wrote(Side::slurm, limit, now);  // in doubt until read back
    std::string error = slurm_.set_gpu_limit(account, limit);
    ++report.writes;
    if (!error.empty()) {
        ++report.failed_writes;
        log_event(LogLevel::warn, "cannot set GrpTRES", {{"account", account}, {"error", error}});
    } else {
        log_event(LogLevel::info, "set GrpTRES", {{"account", account}, {"gpus", std::to_string(limit)}});
    }
}

bool Reconciler::may_write_queue(const std::string& group, const std::map<std::string, bool>& kube_written,
                                 quota::Instant now) const {
    auto split = splits_.find(group);
    return split != splits_.end() && (kube_written.count(group) || split->second.settled(Side::kubernetes, now));
}

void Reconciler::apply_objects(const std::vector<quota::DesiredObject>& desired, const Observed& observed,
                               const std::map<std::string, bool>& kube_written, quota::Instant now,
                               CycleReport& report) {
    for (const auto& object : desired) {
        auto seen = observed.find(object.path());
        if (seen != observed.end() && quota::up_to_date(seen->second, object)) continue;  // steady state: no write
        if (dry_run_) {
            log_event(LogLevel::info, "dry-run: would apply", {{"kind", object.kind}, {"path", object.path()}});
            continue;
        }
        auto group = object.body["metadata"]["labels"].value("fairway.io/group", "");
        bool is_queue = object.kind == "ClusterQueue" || object.kind == "Queue";
        if (is_queue && !may_write_queue(group, kube_written, now)) {
            log_event(LogLevel::debug, "queue rewrite waits for a settled limit", {{"path", object.path()}});
            continue;
        }
        if (is_queue)
            splits_.at(group).wrote(
                Side::kubernetes,
                quota::read_queue(object.body, config_.kubernetes.backend, config_.kubernetes.gpu_resource).limit, now);
        ApiResult result = kube_.apply(object.path(), object.body);
        ++report.writes;
        if (!result.ok()) ++report.failed_writes;
        log_event(result.ok() ? LogLevel::info : LogLevel::warn, result.ok() ? "applied" : "cannot apply",
                  {{"kind", object.kind}, {"path", object.path()}, {"result", result.response.summary()}});
    }
}

void Reconciler::delete_unwanted(const std::vector<quota::DesiredObject>& desired, const Observed& observed,
                                 CycleReport& report) {
    std::set<std::string> wanted;
    for (const auto& object : desired) wanted.insert(object.path());
    for (const auto& [path, object] : observed) {
        if (wanted.count(path) || object["metadata"].contains("deletionTimestamp")) continue;
        if (dry_run_) {
            log_event(LogLevel::info, "dry-run: would delete", {{"path", path}});
            continue;
        }
        ApiResult result = kube_.remove(path);
        ++report.writes;
        if (!result.ok() && result.response.status != 404) ++report.failed_writes;
        log_event(LogLevel::info, "deleted", {{"path", path}, {"result", result.response.summary()}});
    }
}

CycleReport Reconciler::cycle(quota::Instant now) {
    CycleReport report;
    std::vector<std::string> accounts;
    for (const auto& group : config_.groups) accounts.push_back(group.accounts.front());
    SlurmSnapshot slurm = slurm_.read(accounts);  // 1
    report.slurm_ok = slurm.error.empty();
    if (!report.slurm_ok) log_event(LogLevel::warn, "cannot read Slurm", {{"error", slurm.error}});
    Observed observed;
    report.kube_ok = read_kubernetes(observed);  // 2
    std::map<std::string, long> kube_limits;
    std::map<std::string, quota::QueueFlavors> queue_flavors;
    std::map<std::string, bool> kube_written;
    for (const auto& group : config_.groups) {  // 3
        GroupReport& g = report.groups[group.name];
        observe_group(group, slurm, report.kube_ok, observed, now, g);
        if (g.reading[1]) kube_limits[group.name] = g.reading[1]->limit;
        queue_flavors[group.name] = g.flavors;
        if (g.decision.write[1]) {
            kube_limits[group.name] = *g.decision.write[1];
            kube_written[group.name] = true;
        }
        if (is_decrease(g, Side::slurm)) write_slurm(group, *g.decision.write[0], now, report);  // 4
    }
    // Mirroring needs both views: without Slurm's partitions we would delete every flavor.
    if (!report.slurm_ok || !report.kube_ok) return report;
    auto desired = quota::desired_objects(config_, slurm.partitions, kube_limits, queue_flavors);
    apply_objects(desired, observed, kube_written, now, report);  // 5
    for (const auto& group : config_.groups) {                    // 6
        const GroupReport& g = report.groups[group.name];
        if (g.decision.write[0] && !is_decrease(g, Side::slurm)) write_slurm(group, *g.decision.write[0], now, report);
    }
    delete_unwanted(desired, observed, report);  // 7
    return report;
}

}  // namespace fairway::bridge
