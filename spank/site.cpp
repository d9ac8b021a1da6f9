#include "site.h"

#include "presets/loader.h"

#include <cstdlib>

namespace fairway::spank {

binding::PluginConfig effective_config(const binding::PluginConfig& plugstack_args) {
    // In slurmstepd the environment is slurmd's; on the client it is the user's, which only
    // steers the client's own early check (slurmctld and slurmstepd decide).
    auto path = binding::site_config_path(plugstack_args, std::getenv("FAIRWAY_PRESETS_CONF"), std::getenv("SLURM_CONF"));
    return binding::with_site_config(plugstack_args, presets::load_site_config(path, plugstack_args.presets_dir));
}

}  // namespace fairway::spank
