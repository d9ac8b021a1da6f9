#include "binding/step_settings.h"

#include "common/error.h"
#include "presets/carried.h"

#include <set>

namespace fairway::binding {
namespace {

// Every env name the applied presets set or clear.
std::set<std::string> mentioned_env(const std::vector<presets::AppliedPreset>& applied) {
    std::set<std::string> names;
    for (const auto& entry : applied) {
        for (const auto& [name, value] : entry.preset->values.env) names.insert(name);
        names.insert(entry.preset->cleared_env.begin(), entry.preset->cleared_env.end());
    }
    return names;
}

// The job's own request as far as the step can tell: the values it exported.
presets::JobRequest own_request(const std::set<std::string>& names, const StepPresetInputs& inputs) {
    presets::JobRequest own;
    for (const auto& name : names)
        if (auto value = inputs.step_env(name)) own.env[name] = *value;
    return own;
}

std::vector<EnvChange> env_changes(const std::set<std::string>& names, const presets::JobRequest& merged) {
    std::vector<EnvChange> changes;
    for (const auto& name : names) {
        auto value = merged.env.find(name);
        changes.emplace_back(name, value == merged.env.end() ? std::nullopt : std::optional(value->second));
    }
    return changes;
}

StepSettings merged_settings(const std::vector<presets::AppliedPreset>& applied, const StepPresetInputs& inputs) {
    auto names = mentioned_env(applied);
    auto merged = presets::merge_presets(own_request(names, inputs), applied);
    StepSettings settings;
    settings.applied = presets::describe_applied(applied);
    settings.gpu_policy = merged.gpu_binding.value_or(GpuPolicy{});
    settings.distributed_env = merged.distributed_env.value_or(false);
    settings.env_changes = env_changes(names, merged);
    return settings;
}

// --gpu-bind-policy wins over the presets' binding.
StepSettings with_policy_option(StepSettings settings, const StepPresetInputs& inputs) {
    if (inputs.gpu_policy_option) settings.gpu_policy = parse_gpu_policy(*inputs.gpu_policy_option);
    return settings;
}

// Whether every env name the carried presets set or clear passes the site's policy. The default
// policy is the strictest (a site may only allow more), so presets.conf is consulted only for a
// name the default refuses.
bool env_names_allowed(const std::vector<presets::AppliedPreset>& applied,
                       const std::function<presets::EnvPolicy()>& site_env_policy) {
    std::optional<presets::EnvPolicy> site;
    for (const auto& name : mentioned_env(applied)) {
        if (presets::EnvPolicy{}.refusal(name).empty()) continue;
        if (!site) site = site_env_policy();
        if (!site->refusal(name).empty()) return false;
    }
    return true;
}

// The carried resolution, unless it is malformed or was made for another account's defaults.
std::optional<presets::StepPresets> carried_for_account(const std::optional<std::string>& step_presets,
                                                        const std::optional<std::string>& account) {
    if (!step_presets) return std::nullopt;
    try {
        auto carried = presets::decode_step_presets(*step_presets);
        if (carried.account && carried.account != account) return std::nullopt;
        return carried;
    } catch (const InputError&) {
        return std::nullopt;  // resolving the list itself gives the authoritative answer or error
    }
}

}  // namespace

const std::optional<std::string>& step_preset_list(const StepPresetInputs& inputs) {
    return inputs.preset_option ? inputs.preset_option : inputs.applied_presets;
}

StepSettings step_settings_from(const std::vector<presets::AppliedPreset>& applied, const StepPresetInputs& inputs) {
    return with_policy_option(merged_settings(applied, inputs), inputs);
}

std::optional<std::string> carried_account_default(const std::optional<std::string>& step_presets,
                                                   const std::optional<std::string>& account) {
    auto carried = carried_for_account(step_presets, account);
    if (!carried || !carried->account) return std::nullopt;
    return carried->preset_list;
}

std::optional<StepSettings> carried_step_settings(const StepPresetInputs& inputs,
                                                  const std::function<presets::EnvPolicy()>& site_env_policy) {
    const auto& list = step_preset_list(inputs);
    if (!list || list->empty()) return std::nullopt;
    auto carried = carried_for_account(inputs.step_presets, inputs.account);
    if (!carried || carried->preset_list != *list) return std::nullopt;
    auto applied = carried->applied();
    if (!env_names_allowed(applied, site_env_policy)) return std::nullopt;
    return step_settings_from(applied, inputs);
}

}  // namespace fairway::binding
