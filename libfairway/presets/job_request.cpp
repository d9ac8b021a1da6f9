#include "presets/job_request.h"

#include "presets/field_visit.h"
#include "presets/signal_names.h"

namespace fairway::presets {
namespace {

constexpr std::array<std::string_view, kFieldCount> kKeys = {
    "partition",       "qos",          "time",        "nodes",      "ntasks-per-node", "gpus", "gpus-per-node",
    "gpus-per-task",   "cpus-per-gpu", "mem-per-gpu", "constraint", "exclusive",       "env",  "gpu-binding",
    "distributed-env", "requeue",      "signal",
};

}  // namespace

const std::array<Field, kFieldCount>& all_fields() {
    static const std::array<Field, kFieldCount> fields = [] {
        std::array<Field, kFieldCount> all{};
        for (std::size_t i = 0; i < kFieldCount; ++i) all[i] = static_cast<Field>(i);
        return all;
    }();
    return fields;
}

std::string_view field_key(Field field) { return kKeys.at(detail::index(field)); }

std::optional<Field> field_from_key(std::string_view key) {
    for (std::size_t i = 0; i < kFieldCount; ++i)
        if (kKeys[i] == key) return static_cast<Field>(i);
    return std::nullopt;
}

bool is_set(const JobRequest& request, Field field) {
    if (field == Field::env) return !request.env.empty();
    bool set = false;
    detail::for_each_optional_field(request, request, [&](Field f, const auto& value, const auto&) {
        if (f == field) set = value.has_value();
    });
    return set;
}

FieldSet changed_fields(const JobRequest& before, const JobRequest& after) {
    FieldSet changed;
    detail::for_each_optional_field(before, after, [&](Field f, const auto& a, const auto& b) {
        if (a != b) changed.set(detail::index(f));
    });
    if (before.env != after.env) changed.set(detail::index(Field::env));
    return changed;
}

std::string format_gpu_count(const GpuCount& gpus) {
    auto count = std::to_string(gpus.count);
    return gpus.type.empty() ? count : gpus.type + ":" + count;
}

std::string format_gpu_binding(const GpuBinding& binding) {
    switch (binding.policy) {
    case GpuBindingPolicy::none: return "none";
    case GpuBindingPolicy::per_rank: return "per-rank:" + std::to_string(binding.gpus_per_rank);
    case GpuBindingPolicy::round_robin: return "round-robin";
    case GpuBindingPolicy::closest: return "closest";
    case GpuBindingPolicy::ordered: return "ordered";
    }
    return "none";
}

std::string format_warn_signal(const WarnSignal& signal) {
    std::string text = signal.batch_shell_only ? "B:" : "";
    auto name = signal_name(signal.number);
    text += name.empty() ? std::to_string(signal.number) : std::string(name);
    return text + "@" + std::to_string(signal.seconds_before);
}

}  // namespace fairway::presets
