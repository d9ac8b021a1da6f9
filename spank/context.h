// The plugin's one context struct: settings from plugstack.conf, the option values, and what
// slurmstepd worked out once per step for its tasks. Nothing here includes Slurm headers.
#pragma once

#include "binding/gpu_policy.h"
#include "binding/plugin_config.h"
#include "binding/step_settings.h"

#include <optional>
#include <string>
#include <vector>

namespace fairway::spank {

// Decided in slurm_spank_user_init (once per step and node), used by every task of the node.
struct StepPlan {
    binding::StepSettings settings;
    bool per_rank = false;               // a regular step: binding and training env apply
    std::vector<binding::StepGpu> gpus;  // the step's GPUs on this node, as Slurm exposed them
    binding::NumaLayout numa;            // only read for `closest`
};

struct PluginContext {
    std::vector<std::string> plugin_args;  // as plugstack.conf gave them (for the YAML module)
    binding::PluginConfig config;
    std::optional<std::string> preset_option;      // --preset=NAME[,NAME...] as given
    std::optional<std::string> gpu_policy_option;  // --gpu-bind-policy=POLICY as given
    std::optional<StepPlan> plan;                  // remote context, after user_init
    bool step_refused = false;                     // user_init found the step's presets unusable
};

// The single instance; SPANK callbacks carry no user pointer, so option callbacks reach it here.
PluginContext& plugin_context();

}  // namespace fairway::spank
