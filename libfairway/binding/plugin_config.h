// The fairway SPANK plugin's settings, read from its plugstack.conf line
// ("optional spank_fairway.so presets_dir=/etc/slurm/fairway/presets.d master_port_range=29500-29999").
// Pure so that every argument and every error is unit-tested without Slurm.
#pragma once

#include "presets/loader.h"

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace fairway::binding {

struct PortRange {
    int first = 29500;
    int last = 29999;  // inclusive
};

struct PluginConfig {
    std::string presets_dir = presets::kDefaultPresetsDir;
    std::string presets_conf;  // the site's presets.conf; empty: where job_submit/fairway looks
    PortRange master_port_range;
    std::vector<std::string> allow_env;  // env names a preset may set although they are normally refused
    std::string sysfs_root = "/sys";     // tests point this at a fake tree
    std::size_t user_preset_max_bytes = presets::kMaxUserPresetBytes;  // as job_submit/fairway decodes
    std::set<std::string> given;                                       // the argument names plugstack.conf actually set
};

// Parses "key=value" plugin arguments. Unknown keys, missing values and bad values throw
// fairway::InputError whose location names plugstack.conf and the argument.
PluginConfig parse_plugin_args(const std::vector<std::string>& args);

// "29500-29999" -> {29500, 29999}; throws InputError (key "master_port_range") when malformed,
// reversed or outside 1..65535.
PortRange parse_port_range(const std::string& text);

// The presets.conf both fairway plugins read, found as job_submit/fairway finds it: the
// presets_conf= argument, else $FAIRWAY_PRESETS_CONF, else fairway/presets.conf next to
// slurm.conf ($SLURM_CONF, else /etc/slurm/slurm.conf). Null environment values mean unset.
std::string site_config_path(const PluginConfig& config, const char* presets_conf_env, const char* slurm_conf_env);

// The settings after the site's presets.conf, so that client, slurmctld and slurmstepd agree on
// what a preset may do: its presets_dir wins (the plugstack argument is its default, as for
// job_submit/fairway); its allow_env and max_user_preset_bytes apply unless plugstack.conf set them.
PluginConfig with_site_config(PluginConfig config, const presets::SiteConfig& site);

}  // namespace fairway::binding
