// The fairway SPANK plugin's settings, read from its plugstack.conf line
// ("optional spank_fairway.so presets_dir=/etc/slurm/fairway/presets.d master_port_range=29500-29999").
// Pure so that every argument and every error is unit-tested without Slurm.
#pragma once

#include "presets/loader.h"

#include <cstddef>
#include <string>
#include <vector>

namespace fairway::binding {

struct PortRange {
    int first = 29500;
    int last = 29999;  // inclusive
};

struct PluginConfig {
    std::string presets_dir = "/etc/slurm/fairway/presets.d";
    PortRange master_port_range;
    std::vector<std::string> allow_env;  // env names a preset may set although they are normally refused
    std::string sysfs_root = "/sys";     // tests point this at a fake tree
    std::size_t user_preset_max_bytes = presets::kMaxUserPresetBytes;  // as job_submit/fairway decodes
};

// Parses "key=value" plugin arguments. Unknown keys, missing values and bad values throw
// fairway::InputError whose location names plugstack.conf and the argument.
PluginConfig parse_plugin_args(const std::vector<std::string>& args);

// "29500-29999" -> {29500, 29999}; throws InputError (key "master_port_range") when malformed,
// reversed or outside 1..65535.
PortRange parse_port_range(const std::string& text);

}  // namespace fairway::binding
