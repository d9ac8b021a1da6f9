// fairway SPANK plugin: the Slurm entry points only. Each one dispatches on spank_context()
// to the per-context files and turns every exception into a SPANK error code, because an
// exception escaping into srun, sbatch or slurmstepd would kill it.
#include "context.h"

#include <exception>
#include <string>
#include <vector>

extern "C" {
#include <slurm/spank.h>
}

namespace fairway::spank {

PluginContext& plugin_context() {
    static PluginContext context;
    return context;
}

namespace {

enum OptionId { kPresetOption = 1, kGpuPolicyOption = 2 };

int remember_option(int id, const char* value, int /*remote*/) noexcept {
    try {
        auto& context = plugin_context();
        std::string text = value ? value : "";
        if (id == kPresetOption) context.preset_option = text;
        if (id == kGpuPolicyOption) context.gpu_policy_option = text;
        return ESPANK_SUCCESS;
    } catch (...) {
        return ESPANK_ERROR;
    }
}

spank_option preset_option{
    const_cast<char*>("preset"), const_cast<char*>("NAME[,NAME...]"),
    const_cast<char*>("fairway: apply the named presets (or ./file.yaml), left to right"),
    1, kPresetOption, remember_option};

spank_option gpu_policy_option{
    const_cast<char*>("gpu-bind-policy"), const_cast<char*>("POLICY"),
    const_cast<char*>("fairway: per-rank GPU binding: none, per-rank:N, round-robin, closest, ordered"),
    1, kGpuPolicyOption, remember_option};

int register_options(spank_t sp) {
    for (spank_option* option : {&preset_option, &gpu_policy_option}) {
        if (spank_option_register(sp, option) != ESPANK_SUCCESS) {
            slurm_error("fairway: cannot register --%s", option->name);
            return ESPANK_ERROR;
        }
    }
    return ESPANK_SUCCESS;
}

// Runs `body`, turning any exception into a logged SPANK error.
template <typename Body>
int guarded(const char* where, Body body) noexcept {
    try {
        return body();
    } catch (const std::exception& error) {
        slurm_error("fairway: %s: %s", where, error.what());
    } catch (...) {
        slurm_error("fairway: %s: unexpected error", where);
    }
    return ESPANK_ERROR;
}

}  // namespace
}  // namespace fairway::spank

using namespace fairway::spank;

extern "C" {

extern const char plugin_name[] = "fairway";
extern const char plugin_type[] = "spank";
extern const unsigned int plugin_version = SLURM_VERSION_NUMBER;
extern const unsigned int spank_plugin_version = 1;

int slurm_spank_init(spank_t sp, int argc, char** argv) {
    return guarded("init", [&] {
        plugin_context().config = fairway::binding::parse_plugin_args(std::vector<std::string>(argv, argv + argc));
        return register_options(sp);
    });
}

}  // extern "C"
