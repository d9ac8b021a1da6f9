// What the SPANK plugin decides from a job's presets, as pure functions of plain inputs:
//   on the client (sbatch/salloc/srun): is --preset valid, and which user files travel with the job;
//   in slurmstepd: which presets apply to this step, and what they mean for its environment,
//   GPU binding and distributed-training variables.
// Slurm-facing details (spank_getenv, spank_job_control_setenv) stay in spank/.
#pragma once

#include "binding/gpu_policy.h"
#include "binding/plugin_config.h"
#include "presets/preset.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fairway::binding {

// Where presets come from; functions so that nothing is read unless a preset list needs it.
struct PresetSources {
    std::function<std::vector<presets::Preset>()> site_presets;          // the site directory
    std::function<std::string(const std::string& path)> read_user_file;  // client side only
};

// What the client carries with the job after checking its options.
struct ClientRequest {
    std::optional<std::string> user_presets;  // FAIRWAY_USER_PRESETS, when the list names files
    std::optional<std::string> step_presets;  // FAIRWAY_STEP_PRESETS, when --preset was given and fits
};

// Client check of --preset (and --gpu-bind-policy when given). Resolves the list exactly as
// slurmstepd would, so an unknown name ("did you mean ...? available: ...") or a malformed file
// (file:line: key ...) stops the submission. Returns what to carry: the encoded user files and
// the resolved step fields. Throws fairway::InputError.
ClientRequest check_client_request(const std::optional<std::string>& preset_list,
                                   const std::optional<std::string>& gpu_policy_option,
                                   const PresetSources& sources, const PluginConfig& config);

// What slurmstepd knows about the step's presets.
struct StepPresetInputs {
    std::optional<std::string> preset_option;      // --preset as the step received it
    std::optional<std::string> applied_presets;    // FAIRWAY_APPLIED_PRESETS (job_submit's record)
    std::optional<std::string> user_presets;       // FAIRWAY_USER_PRESETS (encoded)
    std::optional<std::string> step_presets;       // FAIRWAY_STEP_PRESETS (encoded, the client's resolution)
    std::optional<std::string> gpu_policy_option;  // --gpu-bind-policy
    std::function<std::optional<std::string>(const std::string& name)> step_env;  // the step's environment
};

// An environment change: set to a value, or unset (nullopt).
using EnvChange = std::pair<std::string, std::optional<std::string>>;

struct StepSettings {
    std::string applied;                 // names of the applied presets, for logs ("" when none)
    GpuPolicy gpu_policy;                // none unless a preset or --gpu-bind-policy says otherwise
    bool distributed_env = false;
    std::vector<EnvChange> env_changes;  // only names a preset mentions
};

// The step's settings. The --preset option wins over job_submit's record (an srun inside a batch
// job may name other presets than sbatch did); the record still brings account defaults when the
// user named none. Preset env merges with the step's own environment as the job's values
// (so `defaults` never overrides what the user exported). Throws fairway::InputError.
StepSettings resolve_step_settings(const StepPresetInputs& inputs, const PresetSources& sources,
                                   const PluginConfig& config);

// The step's settings from what the client resolved (inputs.step_presets), the same as
// resolve_step_settings would give without reading any preset file. Nullopt, and the caller
// resolves the list itself, when nothing was carried, it was resolved for another list than the
// step's (an inherited value, say), it is malformed, or it names an env variable that the
// default policy refuses and `site_env_policy()` (called only then) does not allow: the user
// controls the carried text, and it must never let a step do what the site's rules forbid.
std::optional<StepSettings> carried_step_settings(const StepPresetInputs& inputs,
                                                  const std::function<presets::EnvPolicy()>& site_env_policy);

}  // namespace fairway::binding
