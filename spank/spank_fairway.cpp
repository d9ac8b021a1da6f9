// fairway SPANK plugin: the Slurm entry points only. Each one dispatches on spank_context()
// to the per-context files and turns every exception into a SPANK error code, because an
// exception escaping into srun, sbatch or slurmstepd would kill it.
#include "spank/client.h"
#include "spank/context.h"
#include "spank/remote.h"

#include <exception>
#include <string>
#include <vector>

namespace fairway::spank {

PluginContext& plugin_context() {
    static PluginContext context;
    return context;
}

namespace {

enum OptionId { preset_option_id = 1, gpu_policy_option_id = 2 };

int remember_option(int id, const char* value, int /*remote*/) noexcept {
    try {
        auto& context = plugin_context();
        std::string text = value ? value : "";
        if (id == preset_option_id) context.preset_option = text;
        if (id == gpu_policy_option_id) context.gpu_policy_option = text;
        return ESPANK_SUCCESS;
    } catch (...) {
        return kSpankFailure;
    }
}

// Slurm keeps pointers to the option descriptions, hence static storage (kept local to this
// function so the context struct stays the plugin's only file-scope state).
int register_options(spank_t sp) {
    static spank_option options[] = {
        {const_cast<char*>("preset"), const_cast<char*>("NAME[,NAME...]"),
         const_cast<char*>("fairway: apply the named presets (or ./file.yaml), left to right"), 1, preset_option_id,
         remember_option},
        {const_cast<char*>("gpu-bind-policy"), const_cast<char*>("POLICY"),
         const_cast<char*>("fairway: per-rank GPU binding: none, per-rank:N, round-robin, closest, ordered"), 1,
         gpu_policy_option_id, remember_option},
    };
    for (spank_option& option : options) {
        if (spank_option_register(sp, &option) != ESPANK_SUCCESS) {
            slurm_error("fairway: cannot register --%s", option.name);
            return kSpankFailure;
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
    return kSpankFailure;
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
        auto& context = plugin_context();
        context.plugin_args.assign(argv, argv + argc);
        context.config = fairway::binding::parse_plugin_args(context.plugin_args);
        return register_options(sp);
    });
}

int slurm_spank_init_post_opt(spank_t sp, int /*argc*/, char** /*argv*/) {
    return guarded("init_post_opt", [&] {
        spank_context_t context = spank_context();
        if (context == S_CTX_ALLOCATOR || context == S_CTX_LOCAL) return client_post_opt(sp, plugin_context());
        return static_cast<int>(ESPANK_SUCCESS);
    });
}

// srun only, after its allocation and before it launches the step.
int slurm_spank_local_user_init(spank_t sp, int /*argc*/, char** /*argv*/) {
    return guarded("local_user_init", [&] {
        return spank_context() == S_CTX_LOCAL ? client_local_user_init(sp, plugin_context())
                                              : static_cast<int>(ESPANK_SUCCESS);
    });
}

int slurm_spank_user_init(spank_t sp, int /*argc*/, char** /*argv*/) {
    return guarded("user_init", [&] {
        return spank_remote(sp) ? remote_user_init(sp, plugin_context()) : static_cast<int>(ESPANK_SUCCESS);
    });
}

int slurm_spank_task_init(spank_t sp, int /*argc*/, char** /*argv*/) {
    return guarded("task_init", [&] {
        return spank_remote(sp) ? remote_task_init(sp, plugin_context()) : static_cast<int>(ESPANK_SUCCESS);
    });
}

}  // extern "C"
