// Allocator (sbatch, salloc) and local (srun) context: check --preset before anything is
// submitted, so a typo or a malformed file is reported at the user's terminal with the list of
// presets and the nearest match, and carry the user's own preset files with the job.
#include "client.h"

#include "site.h"

#include "presets/carried.h"
#include "presets/loader.h"

#include <cstdlib>
#include <unistd.h>

namespace fairway::spank {
namespace {

// Inside a batch job, srun inherits --preset=./mine.yaml from sbatch while its working
// directory may not hold the file: the text sbatch carried then stands in for it.
std::string read_or_carried(const std::string& path, const binding::PluginConfig& config) {
    const char* carried = std::getenv((std::string(kCarriedPrefix) + presets::kUserPresetsVar).c_str());
    if (access(path.c_str(), R_OK) != 0 && carried) {
        auto files = presets::decode_user_presets(carried, config.user_preset_max_bytes);
        if (auto file = files.find(path); file != files.end()) return file->second;
    }
    return presets::read_user_preset_file(path, config.user_preset_max_bytes);
}

binding::PresetSources client_sources(const binding::PluginConfig& config) {
    return {
        [&config] { return presets::load_site_directory(config.presets_dir, presets::EnvPolicy{config.allow_env}); },
        [&config](const std::string& path) { return read_or_carried(path, config); },
    };
}

// The job control environment reaches slurmctld (job_submit/fairway) and, exported by
// sbatch/salloc as SLURM_SPANK_*, the job's steps. srun exports its own environment to the
// tasks, so it sets the SLURM_SPANK_ name itself.
int carry_user_presets(spank_t sp, const std::string& encoded) {
    spank_err_t rc = spank_job_control_setenv(sp, presets::kUserPresetsVar, encoded.c_str(), 1);
    if (rc != ESPANK_SUCCESS) {
        slurm_error("fairway: --preset: cannot carry the preset files with the job: %s", spank_strerror(rc));
        return kSpankFailure;
    }
    if (spank_context() == S_CTX_LOCAL)
        setenv((std::string(kCarriedPrefix) + presets::kUserPresetsVar).c_str(), encoded.c_str(), 1);
    return ESPANK_SUCCESS;
}

// "--preset=a,b --gpu-bind-policy=x": what the user typed, to prefix every message.
std::string given_options(const PluginContext& context) {
    std::string text;
    if (context.preset_option) text = "--preset=" + *context.preset_option;
    if (context.gpu_policy_option) text += (text.empty() ? "" : " ") + ("--gpu-bind-policy=" + *context.gpu_policy_option);
    return text;
}

}  // namespace

int client_post_opt(spank_t sp, const PluginContext& context) {
    if (!context.preset_option && !context.gpu_policy_option) return ESPANK_SUCCESS;
    try {
        auto config = effective_config(context.config);
        auto encoded = binding::check_client_request(context.preset_option, context.gpu_policy_option,
                                                     client_sources(config), config);
        return encoded ? carry_user_presets(sp, *encoded) : ESPANK_SUCCESS;
    } catch (const std::exception& error) {
        slurm_error("fairway: %s: %s", given_options(context).c_str(), error.what());
        return kSpankFailure;
    }
}

}  // namespace fairway::spank
