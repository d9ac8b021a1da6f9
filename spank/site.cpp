#include "spank/site.h"

#include "binding/site_access.h"
#include "presets/loader.h"

#include <cstdlib>

namespace fairway::spank {

presets::SiteConfig site_config(const binding::PluginConfig& plugstack_args) {
    // In slurmstepd the environment is slurmd's; on the client it is the user's, which only
    // steers the client's own early check (slurmctld and slurmstepd decide).
    auto path =
        binding::site_config_path(plugstack_args, std::getenv("FAIRWAY_PRESETS_CONF"), std::getenv("SLURM_CONF"));
    binding::check_readable_by_users(path, binding::SiteEntry::file);
    return presets::load_site_config(path, plugstack_args.presets_dir);
}

binding::PluginConfig effective_config(const binding::PluginConfig& plugstack_args) {
    return binding::with_site_config(plugstack_args, site_config(plugstack_args));
}

}  // namespace fairway::spank
