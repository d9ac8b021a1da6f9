// Client side (sbatch, salloc, srun) of the plugin.
#pragma once

#include "spank/context.h"
#include "spank/spank_io.h"

namespace fairway::spank {

// slurm_spank_init_post_opt in allocator and local context: validates --preset and
// --gpu-bind-policy and carries with the job the user preset files and what the presets resolved
// to (an srun inside a job whose client already resolved the same list reuses that). Never throws.
int client_post_opt(spank_t sp, const PluginContext& context);

// slurm_spank_local_user_init (srun, once per launch, after its allocation): for a step that names
// no preset and carries no job_submit record, resolves the account's default presets once and
// carries them to every slurmstepd of the step. Never fails the launch: what it cannot resolve,
// slurmstepd resolves (and reports) itself. Never throws.
int client_local_user_init(spank_t sp, const PluginContext& context);

}  // namespace fairway::spank
