// Remote side (slurmstepd) of the plugin.
#pragma once

#include "spank/context.h"
#include "spank/spank_io.h"

namespace fairway::spank {

// slurm_spank_user_init: resolves the step's presets once per node and applies their environment
// to the whole step. When the presets are unusable or the GPU policy cannot be satisfied by the
// step's GPUs on this node, it prints why (once per node, to srun) and marks the step refused;
// every task then fails in remote_task_init before exec. (Failing user_init itself would stop the
// launch, but srun 22.05 then exits 0; failed tasks make it exit non-zero.) Never throws.
int remote_user_init(spank_t sp, PluginContext& context);

// slurm_spank_task_init: the rank's GPUs and distributed-training environment; fails every
// task of a refused step. Never throws.
int remote_task_init(spank_t sp, const PluginContext& context);

}  // namespace fairway::spank
