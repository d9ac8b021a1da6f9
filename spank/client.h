// Client side (sbatch, salloc, srun) of the plugin.
#pragma once

#include "context.h"
#include "spank_io.h"

namespace fairway::spank {

// slurm_spank_init_post_opt in allocator and local context: validates --preset and
// --gpu-bind-policy and carries user preset files with the job. Never throws.
int client_post_opt(spank_t sp, const PluginContext& context);

}  // namespace fairway::spank
