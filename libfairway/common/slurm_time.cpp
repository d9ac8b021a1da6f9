#include "common/slurm_time.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace fairway {
namespace {

constexpr std::int64_t kMaxDays = 365LL * 1000;  // far beyond any sane window, far below overflow

std::optional<std::int64_t> parse_field(std::string_view text) {
    if (text.empty() || text.size() > 12) return std::nullopt;
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
    return value;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t pos; (pos = text.find(separator, start)) != std::string_view::npos; start = pos + 1)
        parts.push_back(text.substr(start, pos - start));
    parts.push_back(text.substr(start));
    return parts;
}

// Without a day part Slurm reads M, M:S, H:M:S; with one it reads D-H, D-H:M, D-H:M:S.
std::optional<std::int64_t> clock_seconds(std::string_view clock, bool after_days) {
    auto parts = split(clock, ':');
    if (parts.size() > 3) return std::nullopt;
    std::array<std::int64_t, 3> hms{0, 0, 0};
    std::vector<std::int64_t> values;
    for (auto part : parts) {
        auto value = parse_field(part);
        if (!value) return std::nullopt;
        values.push_back(*value);
    }
    if (after_days) {
        std::copy(values.begin(), values.end(), hms.begin());
    } else if (values.size() == 3) {
        hms = {values[0], values[1], values[2]};
    } else {
        hms = {0, values[0], values.size() == 2 ? values[1] : 0};
    }
    if (hms[0] > kMaxDays * 24 || hms[1] > kMaxDays * 24 * 60 || hms[2] > kMaxDays * 86400) return std::nullopt;
    return hms[0] * 3600 + hms[1] * 60 + hms[2];
}

}  // namespace

std::optional<Seconds> parse_slurm_duration(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    if (text.empty()) return std::nullopt;
    std::int64_t days = 0;
    auto dash = text.find('-');
    if (dash != std::string_view::npos) {
        auto parsed_days = parse_field(text.substr(0, dash));
        if (!parsed_days || *parsed_days > kMaxDays) return std::nullopt;
        days = *parsed_days;
        text = text.substr(dash + 1);
    }
    auto clock = clock_seconds(text, dash != std::string_view::npos);
    if (!clock) return std::nullopt;
    return Seconds(days * 86400 + *clock);
}

std::optional<Seconds> parse_slurm_duration_or_infinite(std::string_view text) {
    std::string lowered(text);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lowered == "infinite" || lowered == "unlimited") return Seconds::max();
    return parse_slurm_duration(text);
}

std::string format_slurm_duration(Seconds duration) {
    if (duration == Seconds::max()) return "infinite";
    std::int64_t total = duration.count();
    const char* sign = total < 0 ? "-" : "";
    if (total < 0) total = -total;
    std::int64_t days = total / 86400, hours = total / 3600 % 24, minutes = total / 60 % 60, seconds = total % 60;
    char text[64];
    if (days > 0)
        std::snprintf(text, sizeof text, "%s%lld-%02lld:%02lld:%02lld", sign, static_cast<long long>(days),
                      static_cast<long long>(hours), static_cast<long long>(minutes), static_cast<long long>(seconds));
    else
        std::snprintf(text, sizeof text, "%s%02lld:%02lld:%02lld", sign, static_cast<long long>(hours),
                      static_cast<long long>(minutes), static_cast<long long>(seconds));
    return text;
}

}  // namespace fairway
