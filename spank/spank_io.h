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

}  // namespace fairway::spank
