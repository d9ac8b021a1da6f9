// What the SPANK plugin decides from a job's presets, as pure functions of plain inputs:
//   on the client (sbatch/salloc/srun): is --preset valid, and which user files travel with the job;
//   in slurmstepd: which presets apply to this step, and what they mean for its environment,
//   GPU binding and distributed-training variables.
// Slurm-facing details (spank_getenv, spank_job_control_setenv) stay in spank/.
#pragma once

#include "binding/plugin_config.h"
#include "binding/step_settings.h"
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
                                   const std::optional<std::string>& gpu_policy_option, const PresetSources& sources,
                                   const PluginConfig& config);

// What srun carries for a step that names no preset when no job_submit record travels (jobs that
// srun or salloc created): `account`'s default list (presets.conf; nullopt or "" when it has none)
// resolved as check_client_request would, tagged with the account, so that slurmstepd needs
// neither presets.conf nor the YAML module (carried_account_default). Nullopt when it exceeds
// the carried size limit. Throws fairway::InputError.
std::optional<std::string> account_step_presets(const std::string& account,
                                                const std::optional<std::string>& default_list,
                                                const PresetSources& sources, const PluginConfig& config);

// The step's settings, resolving its list (step_preset_list) here: the site directory and the
// carried user files. The --preset option wins over job_submit's record (an srun inside a batch
// job may name other presets than sbatch did); the record still brings account defaults when the
// user named none. Throws fairway::InputError.
StepSettings resolve_step_settings(const StepPresetInputs& inputs, const PresetSources& sources,
                                   const PluginConfig& config);

// The step's list resolved here, encoded as a client carries it (presets::encode_step_presets,
// without the carried size limit): what slurmstepd's YAML module hands back to the plugin when
// no usable resolution was carried. Throws fairway::InputError.
std::string resolve_step_presets(const std::string& preset_list, const std::optional<std::string>& user_presets,
                                 const PresetSources& sources, const PluginConfig& config);

}  // namespace fairway::binding
