#include "presets/slurm_tres.h"

#include <vector>

#include "presets/values.h"

namespace fairway::presets {
namespace {

constexpr std::string_view kGpuPrefix = "gres:gpu";

std::vector<std::string_view> split_list(std::string_view text) {
    std::vector<std::string_view> parts;
    if (text.empty()) return parts;
    for (std::size_t start = 0;;) {
        auto comma = text.find(',', start);
        parts.push_back(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
        if (comma == std::string_view::npos) return parts;
        start = comma + 1;
    }
}

bool is_gpu_entry(std::string_view entry) {
    return entry == kGpuPrefix || entry.starts_with(std::string(kGpuPrefix) + ":");
}

// "gres:gpu:a100:4" -> "a100:4"; "gres:gpu" -> "".
std::string_view gpu_spec(std::string_view entry) {
    return entry.size() > kGpuPrefix.size() ? entry.substr(kGpuPrefix.size() + 1) : std::string_view{};
}

std::optional<std::string_view> find_gpu_entry(std::string_view tres) {
    for (auto entry : split_list(tres))
        if (is_gpu_entry(entry)) return entry;
    return std::nullopt;
}

std::string replace_gpu_entry(std::string_view tres, const std::optional<std::string>& replacement) {
    std::string out;
    bool placed = false;
    auto add = [&](std::string_view entry) {
        if (!out.empty()) out += ',';
        out += entry;
    };
    for (auto entry : split_list(tres)) {
        if (!is_gpu_entry(entry)) add(entry);
        else if (replacement && !placed) add(*replacement), placed = true;
    }
    if (replacement && !placed) add(*replacement);
    return out;
}

}  // namespace

std::optional<GpuCount> gpus_in_tres(std::string_view tres) {
    auto entry = find_gpu_entry(tres);
    if (!entry) return std::nullopt;
    auto spec = gpu_spec(*entry);
    if (spec.empty()) return GpuCount{"", 1};
    if (auto gpus = parse_gpu_count(spec)) return gpus;
    if (is_valid_name(spec)) return GpuCount{std::string(spec), 1};  // "gres:gpu:a100" = one a100
    return std::nullopt;
}

bool has_gpu_entry(std::string_view tres) { return find_gpu_entry(tres).has_value(); }

std::string with_gpus_in_tres(std::string_view tres, const std::optional<GpuCount>& gpus) {
    if (!gpus) return replace_gpu_entry(tres, std::nullopt);
    return replace_gpu_entry(tres, std::string(kGpuPrefix) + ":" + format_gpu_count(*gpus));
}

std::optional<std::uint64_t> per_gpu_amount_in_tres(std::string_view tres) {
    auto entry = find_gpu_entry(tres);
    if (!entry) return std::nullopt;
    auto amount = parse_memory_mb(gpu_spec(*entry));  // plain decimal; no suffix in job descriptors
    return amount;
}

std::string with_per_gpu_amount_in_tres(std::string_view tres, const std::optional<std::uint64_t>& amount) {
    if (!amount) return replace_gpu_entry(tres, std::nullopt);
    return replace_gpu_entry(tres, std::string(kGpuPrefix) + ":" + std::to_string(*amount));
}

}  // namespace fairway::presets
