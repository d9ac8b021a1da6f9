// The plugin's one context struct: what the options and plugstack.conf said, for the
// per-context files (client.cpp, remote.cpp). Nothing here includes Slurm headers.
#pragma once

#include "binding/plugin_config.h"

#include <optional>
#include <string>

namespace fairway::spank {

struct PluginContext {
    binding::PluginConfig config;
    std::optional<std::string> preset_option;      // --preset=NAME[,NAME...] as given
    std::optional<std::string> gpu_policy_option;  // --gpu-bind-policy=POLICY as given
};

// The single instance; SPANK callbacks carry no user pointer, so option callbacks reach it here.
PluginContext& plugin_context();

}  // namespace fairway::spank
