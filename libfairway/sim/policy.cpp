#include "sim/policy.h"

#include <vector>

#include "common/error.h"
#include "common/slurm_time.h"

namespace fairway::sim {
namespace {

[[noreturn]] void reject(std::string_view text, const std::string& problem) {
    throw InputError({"", 0, "policy"}, "'" + std::string(text) + "': " + problem);
}

// "14-0" for whole days, else Slurm's own form.
std::string short_duration(Seconds duration) {
    if (duration == fairshare::kInfiniteWindow) return "infinite";
    if (duration.count() % 86400 == 0) return std::to_string(duration.count() / 86400) + "-0";
    return format_slurm_duration(duration);
}

std::vector<std::pair<std::string, std::string>> parse_settings(std::string_view spec, std::string_view text) {
    std::vector<std::pair<std::string, std::string>> settings;
    if (text.empty()) return settings;
    for (;;) {
        std::size_t comma = text.find(',');
        std::string_view item = text.substr(0, comma);
        std::size_t equals = item.find('=');
        if (equals == std::string_view::npos || equals == 0)
            reject(spec, "expected key=value, found '" + std::string(item) + "'");
        settings.emplace_back(std::string(item.substr(0, equals)), std::string(item.substr(equals + 1)));
        if (comma == std::string_view::npos) return settings;
        text = text.substr(comma + 1);
    }
}

Seconds duration_setting(std::string_view spec, const std::string& key, const std::string& value, bool infinite_ok) {
    std::optional<Seconds> parsed = infinite_ok ? parse_slurm_duration_or_infinite(value) : parse_slurm_duration(value);
    if (!parsed) reject(spec, key + ": '" + value + "' is not a Slurm duration");
    return *parsed;
}

ResetPeriod period_setting(std::string_view spec, const std::string& value) {
    for (ResetPeriod period :
         {ResetPeriod::daily, ResetPeriod::weekly, ResetPeriod::monthly, ResetPeriod::quarterly, ResetPeriod::yearly})
        if (value == reset_period_name(period)) return period;
    reject(spec, "period: '" + value + "' is not daily, weekly, monthly, quarterly or yearly");
}

}  // namespace

const char* reset_period_name(ResetPeriod period) {
    switch (period) {
    case ResetPeriod::none: return "none";
    case ResetPeriod::daily: return "daily";
    case ResetPeriod::weekly: return "weekly";
    case ResetPeriod::monthly: return "monthly";
    case ResetPeriod::quarterly: return "quarterly";
    case ResetPeriod::yearly: return "yearly";
    }
    return "none";
}

std::string PolicySpec::name() const {
    if (kind == PolicyKind::fcfs) return "fcfs";
    std::string half = "H=" + short_duration(half_life);
    if (reset != ResetPeriod::none) return std::string("reset=") + reset_period_name(reset) + " " + half;
    if (window == fairshare::kInfiniteWindow) return "multifactor " + half;
    return "fairway W=" + short_duration(window) + " " + half;
}

fairshare::LedgerConfig PolicySpec::ledger_config() const {
    return fairshare::LedgerConfig{window, half_life, Seconds{0}}.validated();
}

PolicySpec parse_policy(std::string_view text) {
    std::size_t colon = text.find(':');
    std::string_view kind = text.substr(0, colon);
    std::string_view rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
    PolicySpec spec;
    if (kind == "fcfs") {
        if (!rest.empty()) reject(text, "fcfs takes no settings");
        return spec;
    }
    if (kind != "multifactor" && kind != "fairway" && kind != "reset")
        reject(text, "unknown policy '" + std::string(kind) + "' (fcfs, multifactor, fairway, reset)");
    spec.kind = PolicyKind::fair_share;
    bool window_given = false, period_given = false;
    for (const auto& [key, value] : parse_settings(text, rest)) {
        if (key == "half_life" || key == "H") {
            spec.half_life = duration_setting(text, key, value, false);
        } else if ((key == "window" || key == "W") && kind == "fairway") {
            spec.window = duration_setting(text, key, value, true);
            window_given = true;
        } else if (key == "period" && kind == "reset") {
            spec.reset = period_setting(text, value);
            period_given = true;
        } else {
            reject(text, "unknown setting '" + key + "' for " + std::string(kind));
        }
    }
    if (kind == "fairway" && !window_given) reject(text, "fairway needs window=");
    if (kind == "reset" && !period_given) reject(text, "reset needs period=");
    try {
        spec.ledger_config();
    } catch (const InputError& error) {
        reject(text, error.problem());
    }
    return spec;
}

std::int64_t next_reset(ResetPeriod period, std::int64_t after) {
    using namespace std::chrono;
    constexpr std::int64_t kDay = 86400;
    const std::int64_t day = after >= 0 ? after / kDay : (after - kDay + 1) / kDay;
    const year_month_day date{sys_days{days{day}}};
    auto at = [](const year_month_day& d) { return sys_days{d}.time_since_epoch().count() * kDay; };
    switch (period) {
    case ResetPeriod::none: return INT64_MAX;
    case ResetPeriod::daily: return (day + 1) * kDay;
    case ResetPeriod::weekly: {
        const unsigned weekday = year_month_weekday{sys_days{days{day}}}.weekday().c_encoding();  // 0 = Sunday
        return (day + 7 - weekday) * kDay;
    }
    case ResetPeriod::monthly: return at(year_month_day{date.year() / date.month() / 1} + months{1});
    case ResetPeriod::quarterly: {
        const unsigned first_month = (static_cast<unsigned>(date.month()) - 1) / 3 * 3 + 1;
        return at(year_month_day{date.year() / month{first_month} / 1} + months{3});
    }
    case ResetPeriod::yearly: return at(year_month_day{(date.year() + years{1}) / January / 1});
    }
    return INT64_MAX;
}

fairshare::PriorityConfig SimConfig::default_priority() {
    fairshare::PriorityConfig config;
    config.weights.age = 1000;
    config.weights.fairshare = 10000;
    config.weights.job_size = 1000;
    config.max_age = Seconds{7 * 86400};
    return config;
}

}  // namespace fairway::sim
