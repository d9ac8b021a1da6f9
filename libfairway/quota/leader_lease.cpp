#include "quota/leader_lease.h"

#include <cctype>
#include <cstdio>

#include "common/iso8601.h"

namespace fairway::quota {

const char* lease_action_name(LeaseAction action) {
    switch (action) {
    case LeaseAction::create: return "create";
    case LeaseAction::renew: return "renew";
    case LeaseAction::take_over: return "take_over";
    case LeaseAction::standby: return "standby";
    }
    return "?";
}

long long lease_expiry(const LeaseRecord& record) { return record.renew_ms + record.duration * 1000LL; }

LeaseAction decide_lease(const std::optional<LeaseRecord>& current, const std::string& me, long long wall_now_ms) {
    if (!current) return LeaseAction::create;
    if (current->holder == me) return LeaseAction::renew;
    if (current->holder.empty()) return LeaseAction::take_over;
    // Strictly after expiry: at the expiry instant itself the holder's lease still counts.
    return wall_now_ms > lease_expiry(*current) ? LeaseAction::take_over : LeaseAction::standby;
}

bool write_allowed(std::optional<double> renew_sent, double now, const LeaseTiming& timing) {
    if (!renew_sent || now < *renew_sent) return false;  // a clock running backwards is no evidence
    return now + static_cast<double>(timing.write_timeout) <= *renew_sent + static_cast<double>(timing.renew_deadline);
}

std::optional<long long> parse_lease_time(const std::string& text) {
    auto seconds = parse_iso8601(text);
    if (!seconds) return std::nullopt;
    long long ms = seconds->time_since_epoch().count() * 1000LL;
    auto dot = text.find('.');
    if (dot == std::string::npos) return ms;
    long long scale = 100;
    for (std::size_t i = dot + 1; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && scale > 0;
         ++i, scale /= 10)
        ms += (text[i] - '0') * scale;
    return ms;
}

std::string format_lease_time(long long unix_ms) {
    std::string seconds = format_iso8601(UnixTime(std::chrono::seconds(unix_ms / 1000)));
    char fraction[16];
    std::snprintf(fraction, sizeof fraction, ".%03lld000Z", unix_ms % 1000);
    return seconds.substr(0, seconds.size() - 1) + fraction;
}

std::string lease_timing_problem(const LeaseTiming& timing, long retry_period) {
    // A renewal every retry_period keeps the fence open for writes of up to write_timeout.
    if (timing.renew_deadline <= retry_period + timing.write_timeout)
        return "renew_deadline_seconds must exceed retry_period_seconds + reconcile.write_timeout_seconds";
    if (timing.lease_duration <= timing.renew_deadline)
        return "lease_duration_seconds must exceed renew_deadline_seconds (the margin covers clock skew)";
    return "";
}

}  // namespace fairway::quota
