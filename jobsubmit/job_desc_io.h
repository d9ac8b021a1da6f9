// Translation between Slurm's job descriptor and the presets core's JobRequest, and the few edits
// job_submit/fairway makes to a descriptor. Slurm's conventions: NO_VAL/NO_VAL16/NULL = unset.
#pragma once

#include <optional>
#include <string>

#include "presets/job_request.h"

extern "C" {
#include "slurm/slurm.h"
}

namespace fairway::jobsubmit {

// What the job itself asked for, in the core's terms.
presets::JobRequest read_job_request(const job_desc_msg_t& desc);

// Writes every field that differs between `before` (as read) and `after` (after presets).
// `env`, `gpu_binding` and `distributed_env` are not descriptor fields: slurmstepd applies them.
void write_job_request(job_desc_msg_t& desc, const presets::JobRequest& before, const presets::JobRequest& after);

// The value of NAME in spank_job_env ("NAME=value"); the last one wins, as with environ.
std::optional<std::string> spank_env_value(const job_desc_msg_t& desc, const std::string& name);

// Sets NAME=value in spank_job_env, removing earlier entries of NAME (a user may have put one there);
// with nullopt, only removes.
void set_spank_env(job_desc_msg_t& desc, const std::string& name, const std::optional<std::string>& value);

// The same for a batch job's environment (no-op for salloc/srun jobs, which have none).
void set_batch_env(job_desc_msg_t& desc, const std::string& name, const std::optional<std::string>& value);

// Appends `text` to the admin comment ("; " between entries).
void append_admin_comment(job_desc_msg_t& desc, const std::string& text);

}  // namespace fairway::jobsubmit
