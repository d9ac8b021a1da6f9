#include "bridge/leader_lease.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "bridge/log.h"

namespace fairway::bridge {
namespace {

long long wall_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// An unreadable renewTime counts as "just renewed": we would rather wait than take over early.
quota::LeaseRecord record_of(const nlohmann::json& lease, long long now_ms) {
    const auto& spec = lease.contains("spec") ? lease["spec"] : nlohmann::json::object();
    quota::LeaseRecord record;
    record.holder = spec.value("holderIdentity", "");
    record.duration = spec.value("leaseDurationSeconds", 0L);
    auto renewed = quota::parse_lease_time(spec.value("renewTime", ""));
    record.renew_ms = renewed ? *renewed : now_ms;
    return record;
}

}  // namespace

double monotonic_seconds() {
    using namespace std::chrono;
    return duration_cast<duration<double>>(steady_clock::now().time_since_epoch()).count();
}

std::string default_identity() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0 || !host[0]) std::snprintf(host, sizeof host, "unknown-host");
    return std::string(host) + "_" + std::to_string(getpid());
}

LeaderLease::LeaderLease(KubeApi& api, const quota::LeaderElectionSettings& settings, int write_timeout_seconds)
    : api_(api),
      settings_(settings),
      timing_{settings.lease_duration_seconds, settings.renew_deadline_seconds, write_timeout_seconds},
      identity_(settings.identity.empty() ? default_identity() : settings.identity) {}

std::string LeaderLease::path() const {
    return "/apis/coordination.k8s.io/v1/namespaces/" + settings_.lease_namespace + "/leases/" + settings_.lease_name;
}

std::string LeaderLease::qualified_name() const { return settings_.lease_namespace + "/" + settings_.lease_name; }

bool LeaderLease::write_allowed() const { return quota::write_allowed(renew_sent_, monotonic_seconds(), timing_); }

void LeaderLease::note_holder(const std::string& holder, const std::string& why) {
    const bool was_mine = holder_ == identity_, is_mine = holder == identity_;
    if (is_mine && !was_mine)
        log_event(
            LogLevel::info, "lease acquired",
            {{"lease", qualified_name()}, {"identity", identity_}, {"previous", holder_.empty() ? "-" : holder_}});
    else if (was_mine && !is_mine)
        log_event(LogLevel::warn, "lease lost",
                  {{"lease", qualified_name()}, {"holder", holder.empty() ? "-" : holder}, {"reason", why}});
    else if (!is_mine && holder != holder_)
        log_event(LogLevel::info, "lease held by another bridge; standing by",
                  {{"lease", qualified_name()}, {"holder", holder.empty() ? "-" : holder}});
    if (!is_mine) {
        renew_sent_.reset();
        last_ = nullptr;
    }
    holder_ = holder;
}

// The common case costs one request: a PUT of the Lease we last wrote, conditional on its
// resourceVersion. Returns false when that is not known to have worked (then we read afresh).
bool LeaderLease::renew_cached() {
    if (last_.is_null() || holder_ != identity_) return false;
    return write_lease(quota::LeaseAction::renew, last_);
}

bool LeaderLease::write_lease(quota::LeaseAction action, const nlohmann::json& current) {
    // The fence is measured from before the request leaves, an instant no later than the
    // renewTime the server stores: others see our lease end later than we stop writing.
    const double sent = monotonic_seconds();
    const long long now = wall_ms();
    nlohmann::json lease = current.is_null()
                               ? nlohmann::json{{"apiVersion", "coordination.k8s.io/v1"},
                                                {"kind", "Lease"},
                                                {"metadata",
                                                 {{"name", settings_.lease_name},
                                                  {"namespace", settings_.lease_namespace},
                                                  {"labels", {{"app.kubernetes.io/name", "fairway-bridge"}}}}},
                                                {"spec", nlohmann::json::object()}}
                               : current;
    auto& spec = lease["spec"];
    if (action != quota::LeaseAction::renew) {
        spec["acquireTime"] = quota::format_lease_time(now);
        spec["leaseTransitions"] =
            spec.value("leaseTransitions", 0) + (action == quota::LeaseAction::take_over ? 1 : 0);
    }
    spec["holderIdentity"] = identity_;
    spec["leaseDurationSeconds"] = settings_.lease_duration_seconds;
    spec["renewTime"] = quota::format_lease_time(now);
    std::string collection = path().substr(0, path().rfind('/'));
    ApiResult result =
        action == quota::LeaseAction::create ? api_.create_once(collection, lease) : api_.replace_once(path(), lease);
    if (result.response.status == 409) {
        // Someone wrote the Lease since we read it: stop writing until a fresh read says it is ours.
        renew_sent_.reset();
        last_ = nullptr;
        return false;
    }
    if (!result.ok()) {
        log_event(LogLevel::warn, "cannot write the lease",
                  {{"action", quota::lease_action_name(action)}, {"error", result.response.summary()}});
        return false;
    }
    last_ = result.object;
    renew_sent_ = sent;
    if (action != quota::LeaseAction::renew) ++term_;
    note_holder(identity_, "");
    return true;
}

bool LeaderLease::acquire_or_renew() {
    if (renew_cached()) return true;
    ApiResult read = api_.get(path());
    if (read.response.status == 404) return write_lease(quota::LeaseAction::create, nullptr);
    if (!read.ok()) {
        // Unreadable: keep what we had; the fence closes by itself at the renew deadline.
        log_event(LogLevel::warn, "cannot read the lease", {{"path", path()}, {"error", read.response.summary()}});
        return write_allowed();
    }
    const long long now = wall_ms();
    quota::LeaseRecord record = record_of(read.object, now);
    quota::LeaseAction action = quota::decide_lease(record, identity_, now);
    if (action == quota::LeaseAction::standby) {
        note_holder(record.holder, "another bridge renewed or took it");
        return false;
    }
    if (write_lease(action, read.object)) return true;
    return write_allowed();  // a renewal that failed in transit: the fence closes by itself
}

void LeaderLease::release() {
    if (last_.is_null() || holder_ != identity_) return;
    nlohmann::json lease = last_;
    lease["spec"]["holderIdentity"] = "";
    lease["spec"]["leaseDurationSeconds"] = 1;
    lease["spec"]["renewTime"] = quota::format_lease_time(wall_ms());
    renew_sent_.reset();  // no write after this point, whatever the answer
    ApiResult result = api_.replace_once(path(), lease);
    log_event(result.ok() ? LogLevel::info : LogLevel::warn,
              result.ok() ? "lease released" : "cannot release the lease",
              {{"lease", qualified_name()}, {"result", result.response.summary()}});
    last_ = nullptr;
    holder_.clear();
}

}  // namespace fairway::bridge
