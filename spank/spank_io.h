// Thin, exception-free wrappers over the SPANK calls the context files share, returning
// std::optional / std::string instead of error codes and fixed buffers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

extern "C" {
#include <slurm/spank.h>
}

namespace fairway::spank {

// What every entry point returns on failure. Slurm 22.05 fails a step or a submission only for a
// NEGATIVE return of user_init/task_init/init_post_opt (`spank_user(job) < 0`), so ESPANK_ERROR
// (3000) would be logged and then ignored.
inline constexpr int kSpankFailure = -1;

// The environment names through which jobs carry fairway data (sbatch/salloc export the job
// control environment to the job as SLURM_SPANK_<name>).
inline constexpr const char* kCarriedPrefix = "SLURM_SPANK_";

// A variable of the step's environment (remote context), any length.
std::optional<std::string> step_env(spank_t sp, const std::string& name);

// A uint32_t item (S_JOB_ID, S_JOB_STEPID, S_JOB_NODEID, S_JOB_LOCAL_TASK_COUNT, ...).
std::optional<std::uint32_t> u32_item(spank_t sp, spank_item_t item);

// Sets (or with nullopt unsets) a variable of the step's or task's environment; logs failures.
bool set_step_env(spank_t sp, const std::string& name, const std::optional<std::string>& value);

// Sets a variable of the environment a task is about to exec with (task_init only). Slurm's
// spank_setenv is setenvf, which zeroes a 256 KiB buffer per call (~40 us in every task); a name
// the environment already holds (gres's CUDA_VISIBLE_DEVICES, or one user_init set for all ranks)
// has its entry replaced in place instead, with a string from Slurm's own allocator, as
// env_array_overwrite does, so Slurm may still replace or free it before the exec. Other names,
// or no such allocator in the process: spank_setenv.
bool set_task_env(spank_t sp, const std::string& name, const std::string& value);

}  // namespace fairway::spank
