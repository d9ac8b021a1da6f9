// What the presets a step applies mean for it: its environment changes, GPU binding policy and
// training switch, merged with what the step's user exported. No file access and no YAML:
// slurmstepd's common path (the client carried what it resolved) needs nothing else, so the
// SPANK plugin links this without yaml-cpp (see spank/README.md).
#pragma once

#include "binding/gpu_policy.h"
#include "presets/env_policy.h"
#include "presets/preset.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fairway::binding {

// What slurmstepd knows about the step's presets.
struct StepPresetInputs {
    std::optional<std::string> preset_option;      // --preset as the step received it
    std::optional<std::string> applied_presets;    // FAIRWAY_APPLIED_PRESETS (job_submit's record)
    std::optional<std::string> user_presets;       // FAIRWAY_USER_PRESETS (encoded)
    std::optional<std::string> step_presets;       // FAIRWAY_STEP_PRESETS (encoded, the client's resolution)
    std::optional<std::string> gpu_policy_option;  // --gpu-bind-policy
    std::optional<std::string> account;            // the job's account (SLURM_JOB_ACCOUNT)
    std::function<std::optional<std::string>(const std::string& name)> step_env;  // the step's environment
};

// An environment change: set to a value, or unset (nullopt).
using EnvChange = std::pair<std::string, std::optional<std::string>>;

struct StepSettings {
    std::string applied;   // names of the applied presets, for logs ("" when none)
    GpuPolicy gpu_policy;  // none unless a preset or --gpu-bind-policy says otherwise
    bool distributed_env = false;
    std::vector<EnvChange> env_changes;  // only names a preset mentions
};

// The list of presets the step applies: --preset as it received it, else job_submit's record.
const std::optional<std::string>& step_preset_list(const StepPresetInputs& inputs);

// The settings that `applied` (resolved from step_preset_list) give the step. Preset env merges
// with the step's own environment as the job's values (so `defaults` never overrides what the
// user exported); --gpu-bind-policy wins over the presets' binding. Throws fairway::InputError
// for a malformed --gpu-bind-policy.
StepSettings step_settings_from(const std::vector<presets::AppliedPreset>& applied, const StepPresetInputs& inputs);

// The default preset list of `account` as its srun carried it (`step_presets` resolved for that
// account's defaults: "" when it has none), so that slurmstepd need not read presets.conf for a
// step that names no preset and carries no job_submit record. Nullopt, and the step looks the
// default up itself, when nothing usable was carried for this very account.
std::optional<std::string> carried_account_default(const std::optional<std::string>& step_presets,
                                                   const std::optional<std::string>& account);

// The step's settings from what the client resolved (inputs.step_presets), the same as
// resolve_step_settings (step_presets.h) would give without reading any preset file. Nullopt, and the caller
// resolves the list itself, when nothing was carried, it was resolved for another list than the
// step's (an inherited value, say) or for the defaults of another account than inputs.account,
// it is malformed, or it names an env variable that the
// default policy refuses and `site_env_policy()` (called only then) does not allow: the user
// controls the carried text, and it must never let a step do what the site's rules forbid.
std::optional<StepSettings> carried_step_settings(const StepPresetInputs& inputs,
                                                  const std::function<presets::EnvPolicy()>& site_env_policy);

}  // namespace fairway::binding
