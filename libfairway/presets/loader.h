// Reading presets: YAML text and files, site directories (with ownership/permission checks) and
// the site configuration. Every error is a fairway::InputError naming file, line and key.
//
// File format: a YAML stream of one or more documents ("---" between them), each one preset:
//   name: a100-train              # [A-Za-z0-9._-]+, required in site files
//   description: "4 A100s, 1 day"
//   merge: defaults               # defaults | override | replace
//   partition: gpu
//   gpus: a100:4
//   time: 1-0
//   env: {NCCL_IB_DISABLE: "0"}
// Unknown keys, wrong types and bad values are hard errors. See man 5 fairway-presets.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "presets/env_policy.h"
#include "presets/preset.h"
#include "presets/yaml_tree.h"

namespace fairway::presets {

inline constexpr std::size_t kMaxSiteFileBytes = 256 * 1024;
// The default limit for user presets. yaml-cpp reads about 80 ns a byte and 800 ns a value of a
// flow list here, inside slurmctld's job_submit: 4 KiB and kUserFileBudget's 256 values keep the
// costliest accepted or refused user preset well under 1 ms of the core's CPU (an 8 KiB preset
// cost 0.96 ms, 70% of it in yaml-cpp; tests/bench/presets-hostile). A typical preset is 300 bytes.
inline constexpr std::size_t kMaxUserPresetBytes = 4 * 1024;
// The most presets.conf's max_user_preset_bytes may say: the text travels with every job it names
// (spank_job_env, kept in slurmctld's state), base64-encoded.
inline constexpr std::size_t kMaxUserPresetBytesSetting = 64 * 1024;
inline constexpr std::size_t kMaxPresetsPerFile = 256;

// What one file may cost to read. A site file is the site's own; a user file is parsed inside
// slurmctld's job_submit for every submission that names it, so its budget is what keeps that
// cheap (one parse, and the structural and value budgets bound yaml-cpp's work whatever the bytes).
inline constexpr ParseBudget kSiteFileBudget{kMaxSiteFileBytes, 64 * 1024, 2 * kMaxPresetsPerFile,
                                             64 * 1024,         16,        "site preset file"};
inline constexpr ParseBudget kUserFileBudget{kMaxUserPresetBytes, 512, 16, 256, 16, "user preset"};
// kUserFileBudget with the site's max_user_preset_bytes.
ParseBudget user_file_budget(std::size_t max_bytes);

// Parses preset text, once. `file` names the source in errors. When `require_name` is false a
// document without `name` is named `default_name` (user files referenced by path). Every env name
// is checked against `env_policy`. Throws InputError on any problem, naming the budget when the
// text exceeds `budget`; never crashes on hostile text.
std::vector<Preset> parse_presets(std::string_view text, const std::string& file, const EnvPolicy& env_policy,
                                  bool require_name = true, const std::string& default_name = "",
                                  const ParseBudget& budget = kSiteFileBudget);

// Reads and parses one file, refusing files larger than `max_bytes`.
std::vector<Preset> load_preset_file(const std::string& path, const EnvPolicy& env_policy,
                                     std::size_t max_bytes = kMaxSiteFileBytes);

// Refuses (InputError naming the path) anything a non-root user could have written: not owned by
// root, or writable by group/others. Used for the site directory, its files and the site config.
void check_trusted_path(const std::string& path);

// Loads every "*.yaml" file of a site directory in byte order of file names (hidden files are
// skipped). The directory and each file must pass check_trusted_path. A name defined twice is an
// error naming both files. Returns presets in load order.
std::vector<Preset> load_site_directory(const std::string& dir, const EnvPolicy& env_policy);

// Site configuration for presets (file `presets.conf`, YAML), shared by job_submit/fairway and
// the SPANK plugin:
//   presets_dir: /etc/slurm/fairway/presets.d
//   allow_env: [LD_LIBRARY_PATH]           # names normally refused that presets may set
//   max_user_preset_bytes: 4096
//   account_defaults:                      # presets applied when a job names none
//     physics: a100-train
//     biology: "cpu-small,nccl-ib"
inline constexpr const char* kDefaultPresetsDir = "/etc/slurm/fairway/presets.d";

struct SiteConfig {
    std::string presets_dir = kDefaultPresetsDir;
    std::vector<std::string> allow_env;
    std::size_t max_user_preset_bytes = kMaxUserPresetBytes;
    std::map<std::string, std::string> account_defaults;  // account -> preset list text
    EnvPolicy env_policy() const { return EnvPolicy{allow_env}; }
};

inline constexpr const char* kDefaultSiteConfigPath = "/etc/slurm/fairway/presets.conf";

// Parses site configuration text (unknown keys are errors). `default_presets_dir` applies when
// the text does not set presets_dir.
SiteConfig parse_site_config(std::string_view text, const std::string& file,
                             const std::string& default_presets_dir = kDefaultPresetsDir);

// Loads the site config; a missing file yields defaults. The file must pass check_trusted_path.
SiteConfig load_site_config(const std::string& path, const std::string& default_presets_dir = kDefaultPresetsDir);

// Where presets.conf lives for a given slurm.conf: "<directory of slurm.conf>/fairway/presets.conf"
// (/etc/slurm/slurm.conf -> /etc/slurm/fairway/presets.conf).
std::string site_config_path_for(std::string_view slurm_conf_path);

// The presets_dir= argument of the fairway SPANK plugin's line ("... spank_fairway.so presets_dir=DIR")
// in plugstack.conf text; nullopt when there is no such line or argument. `include` lines are not
// followed here (see presets_dir_from_plugstack_file).
std::optional<std::string> presets_dir_from_plugstack(std::string_view plugstack_text);

// As above for a file, following "include GLOB" lines one level deep; nullopt when unreadable.
std::optional<std::string> presets_dir_from_plugstack_file(const std::string& path);

}  // namespace fairway::presets
