// Client side (sbatch, salloc, srun) of the plugin.
#pragma once

#include "context.h"
#include "spank_io.h"

namespace fairway::spank {

// slurm_spank_init_post_opt in allocator and local context: validates --preset and
// --gpu-bind-policy and carries with the job the user preset files and what the presets resolved
// to (an srun inside a job whose client already resolved the same list reuses that). Never throws.
int client_post_opt(spank_t sp, const PluginContext& context);

}  // namespace fairway::spank
