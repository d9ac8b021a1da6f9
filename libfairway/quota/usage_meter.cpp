#include "quota/usage_meter.h"

#include <algorithm>

#include "common/iso8601.h"
#include "quota/mirror.h"

namespace fairway::quota {

std::string spool_keep_shortfall(Seconds keep, const fairshare::LedgerConfig& ledger) {
    const fairshare::LedgerConfig resolved = ledger.validated();
    if (resolved.window == fairshare::kInfiniteWindow)
        return "the window is infinite: a rebuild of priority/fairway's usage, and fairway-report, count only the "
               "Kubernetes usage of the last usage.keep_days";
    const Seconds needed = resolved.window + resolved.bucket;
    if (keep >= needed) return {};
    return "usage.keep_days (" + std::to_string(keep.count() / 86400) +
           ") is shorter than priority/fairway's window (" + std::to_string(resolved.window.count()) +
           " s, and a bucket of " + std::to_string(resolved.bucket.count()) +
           " s): a rebuild of its usage, and fairway-report, would miss the Kubernetes usage older than that; keep at "
           "least " +
           std::to_string((needed.count() + 86399) / 86400) + " days";
}

namespace {

const nlohmann::json* condition(const nlohmann::json& workload, const std::string& type) {
    const auto status = workload.find("status");
    if (status == workload.end() || !status->is_object()) return nullptr;
    const auto conditions = status->find("conditions");
    if (conditions == status->end() || !conditions->is_array()) return nullptr;
    for (const auto& c : *conditions)
        if (c.is_object() && c.value("type", "") == type) return &c;
    return nullptr;
}

bool is_true(const nlohmann::json* c) { return c && c->value("status", "") == "True"; }

std::optional<TimePoint> transition_time(const nlohmann::json* c) {
    if (!c) return std::nullopt;
    const auto at = parse_iso8601(c->value("lastTransitionTime", ""));
    return at ? std::optional<TimePoint>(TimePoint{at->time_since_epoch()}) : std::nullopt;
}

std::string object_id(const nlohmann::json& meta) {
    return meta.value("namespace", "") + "/" + meta.value("name", "") + "/" + meta.value("uid", "");
}

std::string reservation_key(const std::string& id, TimePoint reserved_at) {
    return id + "@" + std::to_string(reserved_at.time_since_epoch().count());
}

const ChargedObject* charged_object(const ChargeHistory& history, const std::string& id) {
    const auto charged = history.find(id);
    return charged == history.end() ? nullptr : &charged->second;
}

std::optional<TimePoint> open_since(const ChargeHistory& history, const std::string& id) {
    const ChargedObject* charged = charged_object(history, id);
    return charged ? charged->open_since : std::nullopt;
}

// The reservation a Workload shows: held (QuotaReserved True) with its start, released (Finished,
// or QuotaReserved False) with its end; a released one's start comes from `history`.
std::optional<Reservation> workload_reservation(const nlohmann::json& workload, const std::string& gpu_resource,
                                                const ChargeHistory& history) {
    const std::string id = object_id(workload.value("metadata", nlohmann::json::object()));
    const nlohmann::json* reserved = condition(workload, "QuotaReserved");
    const nlohmann::json* finished = condition(workload, "Finished");
    Reservation r;
    r.gpus = workload_gpus(workload, gpu_resource);
    if (is_true(reserved)) {
        const auto at = transition_time(reserved);
        if (!at) return std::nullopt;
        r.reserved_at = *at;
        if (is_true(finished)) r.released_at = transition_time(finished);
    } else {
        const auto held = open_since(history, id);
        if (!held || !reserved) return std::nullopt;
        r.reserved_at = *held;
        r.released_at = transition_time(reserved);
    }
    r.key = reservation_key(id, r.reserved_at);
    return r;
}

// The run a PodGroup shows (see the header): running with its start, or, when the meter holds a
// run open, ended where it was charged.
std::optional<Reservation> podgroup_reservation(const nlohmann::json& podgroup, const std::string& gpu_resource,
                                                const ChargeHistory& history, TimePoint now) {
    const std::string id = object_id(podgroup.value("metadata", nlohmann::json::object()));
    const std::string phase = podgroup.value("status", nlohmann::json::object()).value("phase", "");
    const bool running = phase == "Running" || phase == "Unknown";
    const ChargedObject* charged = charged_object(history, id);
    Reservation r;
    r.gpus = podgroup_gpus(podgroup, gpu_resource);
    if (charged && charged->open_since) {
        r.reserved_at = *charged->open_since;
        if (!running) r.released_at = charged->open_until;
    } else {
        if (!running) return std::nullopt;
        const nlohmann::json* scheduled = condition(podgroup, "Scheduled");
        auto start = is_true(scheduled) ? transition_time(scheduled) : std::nullopt;
        // A condition older than the previous run's end is that run's: this one starts now.
        if (start && charged && charged->released_until && *start < *charged->released_until) start.reset();
        r.reserved_at = start.value_or(now);
    }
    r.key = reservation_key(id, r.reserved_at);
    return r;
}

// "<ns>/<name>/<uid>" of a reservation key.
std::string id_of_key(const std::string& key) { return key.substr(0, key.rfind('@')); }

}  // namespace

std::optional<std::string> association_of(const BridgeConfig& config, const std::string& ns,
                                          const std::string& volcano_queue) {
    const auto mapped = config.usage.associations.find(ns);
    if (mapped != config.usage.associations.end()) return mapped->second;
    for (const auto& group : config.groups)
        if (std::find(group.namespaces.begin(), group.namespaces.end(), ns) != group.namespaces.end())
            return group.accounts.front();
    if (!volcano_queue.empty())
        for (const auto& group : config.groups)
            if (group_queue_name(group) == volcano_queue) return group.accounts.front();
    return std::nullopt;
}

std::vector<Reservation> reservations(const BridgeConfig& config, const nlohmann::json& items,
                                      const ChargeHistory& history, TimePoint now) {
    std::vector<Reservation> out;
    if (!items.is_array()) return out;
    const bool volcano = config.kubernetes.backend == Backend::volcano;
    const std::string& gpu = config.kubernetes.gpu_resource;
    for (const auto& item : items) {
        if (!item.is_object()) continue;
        auto r = volcano ? podgroup_reservation(item, gpu, history, now) : workload_reservation(item, gpu, history);
        if (!r || r->gpus <= 0) continue;
        const auto association =
            association_of(config, item.value("metadata", nlohmann::json::object()).value("namespace", ""),
                           volcano ? item.value("spec", nlohmann::json::object()).value("queue", "") : "");
        if (!association) continue;
        r->association = *association;
        if (r->released_at && *r->released_at < r->reserved_at) r->released_at = r->reserved_at;
        out.push_back(std::move(*r));
    }
    return out;
}

void UsageMeter::remember(const fairshare::ExternalCharge& charge) {
    const std::size_t at = charge.workload.rfind('@');
    if (at == std::string::npos) return;
    const TimePoint reserved_at = fairshare::from_unix_seconds(std::stoll(charge.workload.substr(at + 1)));
    Charged& c = charged_.try_emplace(charge.workload, Charged{reserved_at, reserved_at}).first->second;
    c.until = std::max(c.until, charge.end);
}

ChargeHistory UsageMeter::history() const {
    ChargeHistory history;
    for (const auto& [key, c] : charged_) {
        ChargedObject& object = history[id_of_key(key)];
        if (!c.released) {
            object.open_since = c.reserved_at;
            object.open_until = c.until;
        } else object.released_until = std::max(object.released_until.value_or(c.until), c.until);
    }
    return history;
}

std::vector<fairshare::ExternalCharge> UsageMeter::flush(const nlohmann::json& workloads, TimePoint now) {
    std::vector<fairshare::ExternalCharge> charges;
    for (const Reservation& r : reservations(config_, workloads, history(), now)) {
        Charged& c = charged_.try_emplace(r.key, Charged{r.reserved_at, r.reserved_at}).first->second;
        const TimePoint end = std::min(r.released_at.value_or(now), now);
        // Nothing older than the records are kept for: it could no longer count.
        const TimePoint from = std::max(c.until, now - Seconds{config_.usage.keep_seconds});
        if (r.released_at) c.released = true;
        if (end <= from) continue;
        fairshare::AssociationName name = fairshare::split_association_key(r.association);
        charges.push_back(
            fairshare::ExternalCharge{.account = std::move(name.account),
                                      .user = std::move(name.user),
                                      .start = from,
                                      .end = end,
                                      .gpus = r.gpus,
                                      .billing_rate = static_cast<double>(r.gpus) * config_.usage.gpu_billing,
                                      .workload = r.key});
        c.until = end;
    }
    return charges;
}

void UsageMeter::forget_before(TimePoint horizon) {
    std::erase_if(charged_, [&](const auto& entry) { return entry.second.until < horizon; });
}

}  // namespace fairway::quota
