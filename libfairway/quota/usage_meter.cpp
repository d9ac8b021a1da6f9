#include "quota/usage_meter.h"

#include <algorithm>

#include "common/iso8601.h"
#include "quota/mirror.h"

namespace fairway::quota {
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

std::string workload_id(const nlohmann::json& meta) {
    return meta.value("namespace", "") + "/" + meta.value("name", "") + "/" + meta.value("uid", "");
}

std::string reservation_key(const std::string& id, TimePoint reserved_at) {
    return id + "@" + std::to_string(reserved_at.time_since_epoch().count());
}

// The reservation a Workload shows: held (QuotaReserved True) with its start, released (Finished,
// or QuotaReserved False) with its end; a released one's start comes from `open`.
std::optional<Reservation> reservation_of(const nlohmann::json& workload, const std::string& gpu_resource,
                                          const std::map<std::string, TimePoint>& open) {
    const auto meta = workload.value("metadata", nlohmann::json::object());
    const std::string id = workload_id(meta);
    const nlohmann::json* reserved = condition(workload, "QuotaReserved");
    const nlohmann::json* finished = condition(workload, "Finished");
    Reservation r;
    r.ns = meta.value("namespace", "");
    r.gpus = workload_gpus(workload, gpu_resource);
    if (is_true(reserved)) {
        const auto at = transition_time(reserved);
        if (!at) return std::nullopt;
        r.reserved_at = *at;
        if (is_true(finished)) r.released_at = transition_time(finished);
    } else {
        const auto held = open.find(id);
        if (held == open.end() || !reserved) return std::nullopt;
        r.reserved_at = held->second;
        r.released_at = transition_time(reserved);
    }
    r.key = reservation_key(id, r.reserved_at);
    if (r.released_at && *r.released_at < r.reserved_at) r.released_at = r.reserved_at;
    return r;
}

// "<ns>/<name>/<uid>" of a reservation key.
std::string id_of_key(const std::string& key) { return key.substr(0, key.rfind('@')); }

}  // namespace

std::optional<std::string> association_of(const BridgeConfig& config, const std::string& ns) {
    const auto mapped = config.usage.associations.find(ns);
    if (mapped != config.usage.associations.end()) return mapped->second;
    for (const auto& group : config.groups)
        if (std::find(group.namespaces.begin(), group.namespaces.end(), ns) != group.namespaces.end())
            return group.accounts.front();
    return std::nullopt;
}

std::vector<Reservation> reservations(const BridgeConfig& config, const nlohmann::json& workloads,
                                      const std::map<std::string, TimePoint>& open) {
    std::vector<Reservation> out;
    if (!workloads.is_array()) return out;
    for (const auto& workload : workloads) {
        if (!workload.is_object()) continue;
        auto r = reservation_of(workload, config.kubernetes.gpu_resource, open);
        if (r && r->gpus > 0 && association_of(config, r->ns)) out.push_back(std::move(*r));
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

std::map<std::string, TimePoint> UsageMeter::open_reservations() const {
    std::map<std::string, TimePoint> open;
    for (const auto& [key, c] : charged_)
        if (!c.released) open[id_of_key(key)] = c.reserved_at;
    return open;
}

std::vector<fairshare::ExternalCharge> UsageMeter::flush(const nlohmann::json& workloads, TimePoint now) {
    std::vector<fairshare::ExternalCharge> charges;
    for (const Reservation& r : reservations(config_, workloads, open_reservations())) {
        Charged& c = charged_.try_emplace(r.key, Charged{r.reserved_at, r.reserved_at}).first->second;
        const TimePoint end = std::min(r.released_at.value_or(now), now);
        // Nothing older than the records are kept for: it could no longer count.
        const TimePoint from = std::max(c.until, now - Seconds{config_.usage.keep_seconds});
        if (r.released_at) c.released = true;
        if (end <= from) continue;
        const auto association = *association_of(config_, r.ns);
        const std::size_t slash = association.find('/');
        charges.push_back(
            fairshare::ExternalCharge{.account = association.substr(0, slash),
                                      .user = slash == std::string::npos ? "" : association.substr(slash + 1),
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
