#include "spank/spank_io.h"

#include <dlfcn.h>

#include <cstring>

namespace fairway::spank {
namespace {

// The step's (or task's) environment entry "name=...", or nullptr.
char** env_entry(spank_t sp, const std::string& name) {
    char** env = nullptr;
    if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS || !env) return nullptr;
    for (; *env; ++env)
        if (std::strncmp(*env, name.c_str(), name.size()) == 0 && (*env)[name.size()] == '=') return env;
    return nullptr;
}

// Slurm's xstrdup, whose strings Slurm's environment functions free (libslurmfull, in slurmstepd).
using SlurmStrdup = char* (*)(const char*);
SlurmStrdup slurm_strdup() {
    static const auto found = reinterpret_cast<SlurmStrdup>(dlsym(RTLD_DEFAULT, "slurm_xstrdup"));
    return found;
}

}  // namespace

std::optional<std::string> step_env(spank_t sp, const std::string& name) {
    char** entry = env_entry(sp, name);
    if (!entry) return std::nullopt;
    return std::string(*entry + name.size() + 1);
}

std::optional<std::uint32_t> u32_item(spank_t sp, spank_item_t item) {
    std::uint32_t value = 0;
    if (spank_get_item(sp, item, &value) != ESPANK_SUCCESS) return std::nullopt;
    return value;
}

bool set_step_env(spank_t sp, const std::string& name, const std::optional<std::string>& value) {
    spank_err_t rc = value ? spank_setenv(sp, name.c_str(), value->c_str(), 1) : spank_unsetenv(sp, name.c_str());
    if (rc == ESPANK_SUCCESS || (!value && rc == ESPANK_ENV_NOEXIST)) return true;
    slurm_error("fairway: cannot %s %s: %s", value ? "set" : "unset", name.c_str(), spank_strerror(rc));
    return false;
}

bool set_task_env(spank_t sp, const std::string& name, const std::string& value) {
    char** entry = env_entry(sp, name);
    char* replacement = entry && slurm_strdup() ? slurm_strdup()((name + "=" + value).c_str()) : nullptr;
    if (!replacement) return set_step_env(sp, name, value);
    // The old string is not freed: the task execs right after, and another copy of the array may
    // still point at it.
    *entry = replacement;
    return true;
}

}  // namespace fairway::spank
