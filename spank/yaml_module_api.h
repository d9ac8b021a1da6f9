// The C interface between spank_fairway.so and spank_fairway_yaml.so, the part of the plugin that
// reads YAML (presets.conf, preset files). Loading libstdc++ and yaml-cpp cost every process that
// loads the plugin ~1.1 ms of CPU, 5 times per `srun -N4` launch; so the plugin links libstdc++
// statically, without yaml-cpp, and loads the module only when YAML must be read (see README.md).
// Each side has its own C++ runtime, hence C: only C strings cross, malloc'ed by the module and
// freed by the caller, and no exception does. Every function returns 0, or -1 with *error set.
#pragma once

extern "C" {

// Client (sbatch/salloc/srun): checks --preset (NULL: not given) and --gpu-bind-policy against the
// site's presets and the user's files; sets *user_presets and *step_presets (the values to carry,
// either may stay NULL). `argv` are the plugin's plugstack.conf arguments.
typedef int fairway_yaml_client_check_fn(int argc, const char* const* argv, const char* preset_option,
                                         const char* gpu_policy_option, char** user_presets, char** step_presets,
                                         char** error);

// slurmstepd: `preset_list` resolved from the site directory and the carried user files (NULL:
// none), encoded as presets::encode_step_presets does.
typedef int fairway_yaml_step_presets_fn(int argc, const char* const* argv, const char* preset_list,
                                         const char* user_presets, char** step_presets, char** error);

// slurmstepd: what presets.conf says: the env names presets may set despite the default policy
// (comma-separated, plugstack.conf's allow_env when it sets one) and `account`'s default preset
// list (stays NULL when none).
typedef int fairway_yaml_site_fn(int argc, const char* const* argv, const char* account, char** allow_env,
                                 char** account_default, char** error);

// srun, for a step that names no preset and carries no job_submit record: `account`'s default
// presets (presets.conf) resolved from the site directory and encoded for that account as
// binding::account_step_presets does (an empty list when it has none); *step_presets stays NULL
// when the result is too large to carry.
typedef int fairway_yaml_account_presets_fn(int argc, const char* const* argv, const char* account, char** step_presets,
                                            char** error);

}  // extern "C"

namespace fairway::spank {

inline constexpr const char* kYamlModuleFile = "spank_fairway_yaml.so";  // next to spank_fairway.so
inline constexpr const char* kYamlClientCheck = "fairway_yaml_client_check";
inline constexpr const char* kYamlStepPresets = "fairway_yaml_step_presets";
inline constexpr const char* kYamlSite = "fairway_yaml_site";
inline constexpr const char* kYamlAccountPresets = "fairway_yaml_account_presets";

}  // namespace fairway::spank
