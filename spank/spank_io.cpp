#include "spank_io.h"

#include <cstring>

namespace fairway::spank {

std::optional<std::string> step_env(spank_t sp, const std::string& name) {
    char** env = nullptr;
    if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS || !env) return std::nullopt;
    for (; *env; ++env)
        if (std::strncmp(*env, name.c_str(), name.size()) == 0 && (*env)[name.size()] == '=')
            return std::string(*env + name.size() + 1);
    return std::nullopt;
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

}  // namespace fairway::spank
