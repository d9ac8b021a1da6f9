// Allocator (sbatch, salloc) and local (srun) context: check --preset before anything is
// submitted, so a typo or a malformed file is reported at the user's terminal with the list of
// presets and the nearest match, and carry with the job the user's own preset files and what the
// presets resolved to. Reading presets is the YAML module's part (yaml_module.h).
#include "spank/client.h"

#include "spank/yaml_module.h"

#include "binding/gpu_policy.h"
#include "binding/step_settings.h"
#include "binding/training_env.h"
#include "common/error.h"
#include "presets/carried.h"
#include "presets/reference.h"

#include <sys/random.h>

#include <cstdint>
#include <cstdlib>

namespace fairway::spank {
namespace {

int set_job_control_env(spank_t sp, const char* name, const std::string& value) {
    spank_err_t rc = spank_job_control_setenv(sp, name, value.c_str(), 1);
    if (rc == ESPANK_SUCCESS) return ESPANK_SUCCESS;
    slurm_error("fairway: --preset: cannot carry %s with the job: %s", name, spank_strerror(rc));
    return kSpankFailure;
}

// Puts `name` where the job's steps find it as SLURM_SPANK_<name>, and where slurmctld sees it
// when `to_slurmctld`. sbatch and salloc send the job control environment to slurmctld and export
// it to the job as SLURM_SPANK_<name>. srun's steps get srun's own environment and never its job
// control environment, so srun sets the SLURM_SPANK_ name itself.
int carry(spank_t sp, const char* name, const std::string& value, bool to_slurmctld) {
    if (spank_context() != S_CTX_LOCAL) return set_job_control_env(sp, name, value);
    setenv((std::string(kCarriedPrefix) + name).c_str(), value.c_str(), 1);
    return to_slurmctld ? set_job_control_env(sp, name, value) : ESPANK_SUCCESS;
}

// The user's preset files (for slurmctld and the steps) and what the presets resolved to (so that
// slurmstepd need not scan the site directory and parse YAML on every node of every step).
int carry_request(spank_t sp, const CarriedRequest& request) {
    if (request.user_presets && carry(sp, presets::kUserPresetsVar, *request.user_presets, true) != ESPANK_SUCCESS)
        return kSpankFailure;
    if (request.step_presets) return carry(sp, presets::kStepPresetsVar, *request.step_presets, false);
    return ESPANK_SUCCESS;
}

// What srun's environment holds under the name the job's steps find `name` by.
const char* inherited(const char* name) { return std::getenv((std::string(kCarriedPrefix) + name).c_str()); }

// An srun inside a job (batch script, salloc, another step's task) inherits --preset and the
// resolution the job's client carried. When that resolution is of this very list, the list was
// checked when the job was submitted, and srun passes the resolution on to its steps in its
// environment: no YAML module and no preset file for each srun of a training script. (slurmstepd
// checks the carried text in any case.) Outside a job srun creates one, and slurmctld needs the
// user files srun carries, so srun always checks there.
bool resolved_for_this_job(const PluginContext& context) {
    if (spank_context() != S_CTX_LOCAL || !std::getenv("SLURM_JOB_ID")) return false;
    const char* carried = inherited(presets::kStepPresetsVar);
    if (!carried) return false;
    try {
        return presets::decode_step_presets(carried).preset_list == *context.preset_option;
    } catch (const InputError&) {
        return false;
    }
}

// The job's account when srun is to resolve its default presets for the step: the step names no
// preset, no job_submit record travels (a batch job's does, and its steps use that), presets.conf
// exists (else there are no defaults, and no YAML module to load), and srun did not inherit a
// resolution for this account (an srun inside a step of such a job passes that on).
std::optional<std::string> account_to_resolve(const PluginContext& context) {
    if (context.preset_option || inherited(presets::kAppliedPresetsVar)) return std::nullopt;
    // srun set it from its allocation (or inherited it inside one) before local_user_init.
    const char* account = std::getenv("SLURM_JOB_ACCOUNT");
    if (!account || !*account || !site_config_exists(context.config)) return std::nullopt;
    const char* carried = inherited(presets::kStepPresetsVar);
    if (carried && binding::carried_account_default(std::string(carried), std::string(account))) return std::nullopt;
    return account;
}

// "--preset=a,b --gpu-bind-policy=x": what the user typed, to prefix every message; escaped, so a
// refused control character shows as the message names it and the terminal acts on none.
std::string given_options(const PluginContext& context) {
    std::string text;
    if (context.preset_option) text = "--preset=" + *context.preset_option;
    if (context.gpu_policy_option)
        text += (text.empty() ? "" : " ") + ("--gpu-bind-policy=" + *context.gpu_policy_option);
    return presets::escape_for_message(text);
}

// A fresh random key for this launch's MASTER_PORT (binding/training_env.h), in srun's own
// environment, which srun hands to every slurmstepd of the step and no other user can read.
bool carry_master_port_key() {
    std::uint64_t key = 0;
    if (getrandom(&key, sizeof key, 0) != static_cast<ssize_t>(sizeof key)) {
        slurm_error("fairway: cannot draw the step's MASTER_PORT key: %m");
        return false;
    }
    setenv((std::string(kCarriedPrefix) + binding::kMasterPortKeyVar).c_str(), binding::format_port_key(key).c_str(),
           1);
    return true;
}

}  // namespace

int client_post_opt(spank_t sp, const PluginContext& context) {
    if (!context.preset_option && !context.gpu_policy_option) return ESPANK_SUCCESS;
    try {
        if (context.gpu_policy_option) binding::parse_gpu_policy(*context.gpu_policy_option);
        if (!context.preset_option || resolved_for_this_job(context)) return ESPANK_SUCCESS;
        return carry_request(sp,
                             yaml_client_check(context.plugin_args, context.preset_option, context.gpu_policy_option));
    } catch (const std::exception& error) {
        slurm_error("fairway: %s: %s", given_options(context).c_str(), error.what());
        return kSpankFailure;
    }
}

int client_local_user_init(spank_t sp, const PluginContext& context) {
    if (!carry_master_port_key()) return kSpankFailure;
    try {
        auto account = account_to_resolve(context);
        if (!account) return ESPANK_SUCCESS;
        auto resolved = yaml_account_presets(context.plugin_args, *account);
        if (resolved) carry(sp, presets::kStepPresetsVar, *resolved, false);
    } catch (const std::exception& error) {
        // slurmstepd then resolves the defaults itself and reports the authoritative error.
        slurm_debug("fairway: the account's default presets are left to the steps: %s", error.what());
    }
    return ESPANK_SUCCESS;
}

}  // namespace fairway::spank
