#include "bridge/reconciler.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "quota/leader_lease.h"

#include "bridge/log.h"

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

long long wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The partition each of our ResourceFlavors stands for, as read: a flavor whose partition Slurm
// no longer lists is mirrored from it.
// Per ResourceFlavor name, what its `label` says it stands for (quota::flavor_label).
std::map<std::string, std::string> flavor_labels(const std::map<std::string, nlohmann::json>& observed,
                                                 const char* label) {
    std::map<std::string, std::string> out;
    for (const auto& [path, object] : observed) {
        const std::string stands_for = quota::flavor_label(object, label);
        if (path.find("/resourceflavors/") != std::string::npos && !stands_for.empty())
            out[object["metadata"].value("name", "")] = stands_for;
    }
    return out;
}

bool is_decrease(const GroupReport& g, Side side) {
    const auto& write = g.decision.write[side];
    const auto& seen = g.reading[side];
    return write && seen && *write < seen->limit;
}

}  // namespace

Reconciler::Reconciler(quota::BridgeConfig config, KubeApi& kube, SlurmClient& slurm, bool dry_run,
                       std::function<quota::Instant()> clock)
    : kube_(kube), slurm_(slurm), dry_run_(dry_run), clock_(std::move(clock)) {
    reconfigure(std::move(config), clock_());
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
        for (const auto& item : list.object["items"]) {
            const std::string path = object_path(collection, item);
            if (quota::owned_by(item, config_.kubernetes.owner)) observed[path] = item;
            else note_foreign(path, item);
        }
    }
    return read_unlisted_queues(observed);
}

// Another bridge's object (another owner): never written nor deleted.
void Reconciler::note_foreign(const std::string& path, const nlohmann::json& object) {
    const auto& labels = object["metadata"].value("labels", nlohmann::json::object());
    foreign_[path] = labels.value(quota::kOwnerLabel, "-");
}

// A group's queue missing from the labelled list may still exist with its label stripped by
// another writer; its usage must count (reading "no queue: nothing admitted" would hand Slurm
// GPUs Kubernetes is using). Costs a GET only in that case, so steady state is unchanged.
bool Reconciler::read_unlisted_queues(Observed& observed) {
    for (const auto& group : config_.groups) {
        const std::string path = queue_path(group);
        if (observed.count(path) || foreign_.count(path)) continue;
        ApiResult queue = kube_.get(path);
        if (queue.response.status == 404) continue;  // truly absent: nothing can be admitted
        if (!queue.ok()) {
            log_event(LogLevel::warn, "cannot read queue", {{"path", path}, {"error", queue.response.summary()}});
            return false;
        }
        if (!quota::owned_by(queue.object, config_.kubernetes.owner)) {
            note_foreign(path, queue.object);
            continue;
        }
        log_event(LogLevel::warn, "queue lost its managed-by label", {{"path", path}});
        observed[path] = queue.object;
    }
    return true;
}

// Kubernetes' pending demand in GPUs (Workloads or PodGroups), one paged list for every group.
bool Reconciler::read_demand(std::map<std::string, long>& demand) {
    const std::string collection = quota::demand_collection(config_.kubernetes.backend);
    ApiResult list = kube_.list(collection);
    if (!list.ok()) {
        log_event(LogLevel::warn, "cannot list", {{"collection", collection}, {"error", list.response.summary()}});
        return false;
    }
    demand = quota::pending_gpus(config_, list.object.value("items", nlohmann::json::array()));
    return true;
}

void Reconciler::observe_group(const quota::QuotaGroup& group, const SlurmSnapshot& slurm, bool kube_ok,
                               const Observed& observed, long kube_demand, quota::Instant now, GroupReport& report) {
    quota::QuotaSplit& split = splits_.at(group.name);
    auto account = slurm.accounts.find(group.accounts.front());
    if (slurm.error.empty() && account != slurm.accounts.end()) {
        const AccountReading& a = account->second;
        quota::SideReading r{
            .read_at = now, .limit = a.limit, .used = a.used, .pending = a.pending, .stored = a.stored};
        if (!split.explains(Side::slurm, r))
            note_outside_change(group, Side::slurm, std::max(r.limit, r.stored), observed);
        split.observe(Side::slurm, r);
        report.reading[Side::slurm] = r;
    } else if (slurm.error.empty()) {
        log_event(LogLevel::warn, "Slurm account has no association",
                  {{"group", group.name}, {"account", group.accounts.front()}});
    }
    if (kube_ok && foreign_.count(queue_path(group))) {
        // Its name is taken by another bridge's queue: this side stays unread (never "no queue, no
        // use"), so Slurm is never raised on its account.
        log_event(LogLevel::debug, "the group's queue belongs to another owner; Kubernetes side unread",
                  {{"group", group.name}, {"path", queue_path(group)}});
    } else if (kube_ok) {
        auto queue = observed.find(queue_path(group));
        quota::QueueReading q;  // no queue yet: nothing admitted, limit 0
        if (queue != observed.end())
            q = quota::read_queue(queue->second, config_.kubernetes.backend, config_.kubernetes.gpu_resource);
        quota::SideReading r{.read_at = now,
                             .limit = q.limit,
                             .used = q.used,
                             .pending = kube_demand,
                             .holdable = q.holdable,
                             .in_force = q.in_force,
                             .version = q.version};
        report.queue_limit = q.limit;
        report.flavors = q.flavors;
        if (!q.use_known) {
            // Unread, not zero: a queue whose use nobody reported may be full. Its last reading ages
            // until it is stale, and then nothing is written.
            if (use_unknown_.insert(group.name).second)
                log_event(LogLevel::warn, "queue use unknown (no status.allocated); not counted as read",
                          {{"group", group.name}, {"path", queue_path(group)}});
        } else {
            use_unknown_.erase(group.name);
            if (!split.explains(Side::kubernetes, r)) note_outside_change(group, Side::kubernetes, r.limit, observed);
            split.observe(Side::kubernetes, r);
            report.reading[Side::kubernetes] = r;
        }
    }
    report.quota = group.gpus;
    report.decision = split.decide(now);
}

// A limit the protocol did not count possible was set by someone else (an admin's sacctmgr or
// kubectl edit). A raise breaks the one-quota promise until the decision it leads to lowers it
// again, this cycle (or once a write of ours in doubt has settled): logged, and reported as a
// Warning Event on the group's queue (namespace default). A lowering is safe and only logged; the protocol raises the
// limit back when its side has demand.
void Reconciler::note_outside_change(const quota::QuotaGroup& group, Side side, long limit, const Observed& observed) {
    const quota::SideState& was = splits_.at(group.name).state().sides[side];
    const bool raised = limit > was.highest;
    const std::string object = side == Side::slurm ? "account " + group.accounts.front() : queue_path(group);
    log_event(LogLevel::warn,
              raised ? "limit raised outside the bridge; restoring" : "limit lowered outside the bridge",
              {{"group", group.name},
               {"side", quota::side_name(side)},
               {"object", object},
               {"was_at_most", std::to_string(was.highest)},
               {"now", std::to_string(limit)}});
    auto queue = observed.find(queue_path(group));
    if (!raised || dry_run_ || queue == observed.end()) return;
    const std::string what = side == Side::slurm ? "Slurm GrpTRES gres/gpu of account " + group.accounts.front()
                                                 : "the GPU quota of this queue";
    const std::string message = what + " was raised to " + std::to_string(limit) + " outside fairway-bridge (at most " +
                                std::to_string(was.highest) + " keeps group " + group.name + " within " +
                                std::to_string(group.gpus) + " GPUs); restoring";
    // Events about cluster-scoped objects (ClusterQueue, Volcano Queue) must live in namespace default.
    const std::string ns = "default";
    ApiResult posted = kube_.create_once("/api/v1/namespaces/" + ns + "/events",
                                         quota::queue_event(queue->second, ns, "LimitRaisedOutsideBridge", message,
                                                            quota::format_lease_time(wall_clock_ms())));
    if (!posted.ok())
        log_event(LogLevel::warn, "cannot record an event", {{"object", object}, {"error", posted.response.summary()}});
}

void Reconciler::write_slurm(const quota::QuotaGroup& group, long limit, CycleReport& report) {
    const std::string& account = group.accounts.front();
    if (dry_run_) {
        log_event(LogLevel::info, "dry-run: would set GrpTRES",
                  {{"account", account}, {"gpus", std::to_string(limit)}});
        return;
    }
    std::string error = slurm_.set_gpu_limit(account, limit);
    splits_.at(group.name).wrote(Side::slurm, limit, clock_());  // in doubt until read back
    ++report.writes;
    if (!error.empty()) {
        ++report.failed_writes;
        log_event(LogLevel::warn, "cannot set GrpTRES", {{"account", account}, {"error", error}});
    } else {
        log_event(LogLevel::info, "set GrpTRES", {{"account", account}, {"gpus", std::to_string(limit)}});
    }
}

// A mark on the group's queue, on the version to fence off: once the queue has moved past it, no
// write conditional on that version can land (an earlier term's, on the version this term first
// read; or our own raise in doubt that no longer fits). Stamped when written, so it always moves.
void Reconciler::write_fence(const quota::QuotaGroup& group, const std::string& on_version, CycleReport& report) {
    if (dry_run_) return;
    const nlohmann::json mark = {
        {"metadata", {{"annotations", {{quota::kTermAnnotation, quota::format_lease_time(wall_clock_ms())}}}}}};
    ApiResult result = kube_.merge_patch(queue_path(group), mark, on_version);
    splits_.at(group.name).fenced(clock_());
    ++report.writes;
    if (!result.ok() && result.response.status != 409) ++report.failed_writes;
    log_event(result.ok() ? LogLevel::info : LogLevel::debug, "fence written on the queue",
              {{"group", group.name}, {"version", on_version}, {"result", result.response.summary()}});
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
        if (auto other = foreign_.find(object.path()); other != foreign_.end()) {
            // Two sites mirroring the same group or partition name: the first to make it keeps it.
            if (foreign_logged_.insert(object.path()).second)
                log_event(LogLevel::warn, "object of another owner; not touched",
                          {{"path", object.path()}, {"owner", other->second}});
            continue;
        }
        auto seen = observed.find(object.path());
        if (seen != observed.end() && quota::up_to_date(seen->second, object)) continue;  // steady state: no write
        if (dry_run_) {  // the apiserver checks the object (dryRun=All); nothing is stored
            ApiResult checked = kube_.apply_dry_run(object.path(), object.body);
            if (!checked.ok()) ++report.failed_writes;
            log_event(checked.ok() ? LogLevel::info : LogLevel::warn,
                      checked.ok() ? "dry-run: would apply" : "dry-run: the apiserver refuses",
                      {{"kind", object.kind}, {"path", object.path()}, {"result", checked.response.summary()}});
            continue;
        }
        if (seen != observed.end() && quota::needs_recreation(seen->second, object)) {
            recreate(object, seen->second, report);
            continue;
        }
        auto group = object.body["metadata"]["labels"].value(quota::kGroupLabel, "");
        bool is_queue = object.kind == "ClusterQueue" || object.kind == "Queue";
        if (is_queue && !may_write_queue(group, kube_written, now)) {
            log_event(LogLevel::debug, "queue rewrite waits for a settled limit", {{"path", object.path()}});
            continue;
        }
        // The queue carries L_k and its flavor quotas were stepped from the ones read: it is written
        // only onto the version read, never over a change this cycle has not seen.
        const std::string on_version =
            is_queue && seen != observed.end() ? seen->second["metadata"].value("resourceVersion", "") : "";
        ApiResult result = kube_.apply(object.path(), object.body, on_version);
        if (is_queue)
            splits_.at(group).wrote(
                Side::kubernetes,
                quota::read_queue(object.body, config_.kubernetes.backend, config_.kubernetes.gpu_resource).limit,
                clock_(), on_version);
        ++report.writes;
        if (!result.ok()) ++report.failed_writes;
        log_event(result.ok() ? LogLevel::info : LogLevel::warn, result.ok() ? "applied" : "cannot apply",
                  {{"kind", object.kind}, {"path", object.path()}, {"result", result.response.summary()}});
    }
}

// An object whose immutable field must change is deleted this cycle and created at a later one, once
// it is gone (a LocalQueue moved to another ClusterQueue: its pending workloads wait meanwhile).
void Reconciler::recreate(const quota::DesiredObject& object, const nlohmann::json& seen, CycleReport& report) {
    if (seen["metadata"].contains("deletionTimestamp")) return;  // still going
    ApiResult result = kube_.remove(object.path());
    ++report.writes;
    if (!result.ok() && result.response.status != 404) ++report.failed_writes;
    log_event(result.ok() ? LogLevel::info : LogLevel::warn, "deleted to recreate (immutable field changed)",
              {{"kind", object.kind}, {"path", object.path()}, {"result", result.response.summary()}});
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
    std::vector<std::string> standing_keys;
    for (const auto& [ns, association] : config_.usage.associations) standing_keys.push_back(association);
    SlurmSnapshot slurm =
        slurm_.read(accounts, config_.kubernetes.flavors == quota::FlavorBasis::gpu_types, standing_keys);  // 1
    report.slurm_ok = slurm.error.empty();
    if (!report.slurm_ok) log_event(LogLevel::warn, "cannot read Slurm", {{"error", slurm.error}});
    Observed observed;
    foreign_.clear();
    std::map<std::string, long> kube_demand;
    report.kube_ok = read_kubernetes(observed) && read_demand(kube_demand);  // 2
    std::map<std::string, long> kube_limits;
    std::map<std::string, quota::QueueFlavors> queue_flavors;
    std::map<std::string, bool> kube_written;
    const auto partitions = flavor_labels(observed, quota::kPartitionLabel);
    const auto gpu_types = flavor_labels(observed, quota::kGpuTypeLabel);
    for (const auto& group : config_.groups) {  // 3
        GroupReport& g = report.groups[group.name];
        observe_group(group, slurm, report.kube_ok, observed, kube_demand[group.name], now, g);
        if (g.queue_limit) kube_limits[group.name] = *g.queue_limit;
        queue_flavors[group.name] = g.flavors;
        queue_flavors[group.name].partitions = partitions;
        queue_flavors[group.name].gpu_types = gpu_types;
        if (g.decision.write[Side::kubernetes]) {
            kube_limits[group.name] = *g.decision.write[Side::kubernetes];
            kube_written[group.name] = true;
        }
        if (g.decision.fence_on) write_fence(group, *g.decision.fence_on, report);
        if (is_decrease(g, Side::slurm)) write_slurm(group, *g.decision.write[Side::slurm], report);  // 4
    }
    // Mirroring needs both views: without Slurm's partitions we would delete every flavor.
    if (!report.slurm_ok || !report.kube_ok) return report;
    auto desired = quota::desired_objects(config_, slurm.partitions, kube_limits, queue_flavors, slurm.gpus_by_type,
                                          quota::published_standing(config_, slurm.standings, slurm.fs_dampening));
    apply_objects(desired, observed, kube_written, now, report);  // 5
    for (const auto& group : config_.groups) {                    // 6
        const GroupReport& g = report.groups[group.name];
        if (g.decision.write[Side::slurm] && !is_decrease(g, Side::slurm))
            write_slurm(group, *g.decision.write[Side::slurm], report);
    }
    delete_unwanted(desired, observed, report);  // 7
    return report;
}

}  // namespace fairway::bridge
