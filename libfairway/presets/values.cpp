#include "presets/values.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>

#include "presets/signal_names.h"

namespace fairway::presets {
namespace {

std::optional<std::uint64_t> parse_decimal(std::string_view text, std::uint64_t max) {
    if (text.empty() || text.size() > 19) return std::nullopt;
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value > max) return std::nullopt;
    return value;
}

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
}

}  // namespace

std::optional<std::uint32_t> parse_count(std::string_view text, std::uint32_t max) {
    auto value = parse_decimal(text, max);
    if (!value || *value == 0) return std::nullopt;
    return static_cast<std::uint32_t>(*value);
}

std::optional<GpuCount> parse_gpu_count(std::string_view text) {
    GpuCount gpus;
    auto colon = text.rfind(':');
    if (colon != std::string_view::npos) {
        auto type = text.substr(0, colon);
        if (type.empty() || type.size() > 64 || !std::all_of(type.begin(), type.end(), is_name_char))
            return std::nullopt;
        gpus.type = std::string(type);
        text.remove_prefix(colon + 1);
    }
    auto count = parse_count(text);
    if (!count) return std::nullopt;
    gpus.count = *count;
    return gpus;
}

std::optional<GpuBinding> parse_gpu_binding(std::string_view text) {
    if (text == "none") return GpuBinding{GpuBindingPolicy::none, 0};
    if (text == "round-robin") return GpuBinding{GpuBindingPolicy::round_robin, 0};
    if (text == "closest") return GpuBinding{GpuBindingPolicy::closest, 0};
    if (text == "ordered") return GpuBinding{GpuBindingPolicy::ordered, 0};
    constexpr std::string_view per_rank = "per-rank:";
    if (!text.starts_with(per_rank)) return std::nullopt;
    auto count = parse_count(text.substr(per_rank.size()), 1024);
    if (!count) return std::nullopt;
    return GpuBinding{GpuBindingPolicy::per_rank, *count};
}

std::optional<WarnSignal> parse_warn_signal(std::string_view text) {
    WarnSignal signal;
    if (text.starts_with("B:")) {
        signal.batch_shell_only = true;
        text.remove_prefix(2);
    } else if (text.starts_with("R:")) {
        text.remove_prefix(2);
    }
    auto at = text.find('@');
    if (at != std::string_view::npos) {
        auto seconds = parse_decimal(text.substr(at + 1), std::numeric_limits<std::uint16_t>::max());
        if (!seconds) return std::nullopt;
        signal.seconds_before = static_cast<std::uint16_t>(*seconds);
        text = text.substr(0, at);
    }
    auto number = signal_number(text);
    if (!number) return std::nullopt;
    signal.number = *number;
    return signal;
}

std::optional<std::uint64_t> parse_memory_mb(std::string_view text) {
    constexpr std::uint64_t kMaxMb = 1ULL << 40;  // 1 EiB: beyond any node, far below overflow
    std::uint64_t multiplier_mb = 1, divisor = 1;
    if (!text.empty()) {
        switch (text.back()) {
        case 'K':
        case 'k': divisor = 1024; break;
        case 'M':
        case 'm': break;
        case 'G':
        case 'g': multiplier_mb = 1024; break;
        case 'T':
        case 't': multiplier_mb = 1024 * 1024; break;
        default: multiplier_mb = 0; break;
        }
        if (multiplier_mb == 0) multiplier_mb = 1;
        else text.remove_suffix(1);
    }
    auto value = parse_decimal(text, kMaxMb);
    if (!value || *value == 0 || *value > kMaxMb / multiplier_mb) return std::nullopt;
    return (*value * multiplier_mb + divisor - 1) / divisor;
}

bool is_valid_name(std::string_view text) {
    if (text.empty() || text.size() > 64 || text[0] == '.' || text[0] == '-') return false;
    return std::all_of(text.begin(), text.end(), is_name_char);
}

bool is_valid_name_list(std::string_view text) {
    if (text.size() > 1024) return false;
    for (std::size_t start = 0;;) {
        auto comma = text.find(',', start);
        if (!is_valid_name(text.substr(start, comma - start))) return false;
        if (comma == std::string_view::npos) return true;
        start = comma + 1;
    }
}

bool is_valid_constraint(std::string_view text) {
    constexpr std::string_view extra = "_.&|,!*:=()[]-";
    if (text.empty() || text.size() > 1024) return false;
    return std::all_of(text.begin(), text.end(), [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               extra.find(c) != std::string_view::npos;
    });
}

std::optional<bool> parse_bool(std::string_view text) {
    for (std::string_view word : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})
        if (text == word) return true;
    for (std::string_view word : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})
        if (text == word) return false;
    return std::nullopt;
}

}  // namespace fairway::presets
