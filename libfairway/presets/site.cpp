// The site's side of loading: the trusted presets directory and presets.conf.
#include <dirent.h>
#include <sys/stat.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>

#include "presets/loader.h"
#include "presets/resolver.h"
#include "presets/text_guard.h"
#include "presets/trusted_file.h"
#include "presets/values.h"

namespace fairway::presets {
namespace {

constexpr std::size_t kMaxSiteFiles = 1024;
constexpr std::size_t kMaxConfigBytes = 64 * 1024;

std::vector<std::string> yaml_files_in(const std::string& dir) {
    std::unique_ptr<DIR, int (*)(DIR*)> handle(::opendir(dir.c_str()), ::closedir);
    if (!handle) throw InputError({dir, 0, ""}, std::string("cannot read presets directory: ") + std::strerror(errno));
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(handle.get())) {
        std::string_view name = entry->d_name;
        if (name.starts_with('.') || !name.ends_with(".yaml")) continue;
        if (names.size() == kMaxSiteFiles) throw InputError({dir, 0, ""}, "more than 1024 preset files");
        names.emplace_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

[[noreturn]] void config_error(const std::string& file, const YAML::Node& node, const std::string& key,
                               const std::string& problem) {
    const auto mark = node.Mark();
    throw InputError({file, mark.is_null() ? 0 : mark.line + 1, key}, problem);
}

std::string config_scalar(const std::string& file, const YAML::Node& node, const std::string& key) {
    if (!node.IsScalar()) config_error(file, node, key, "expected a single value");
    return node.Scalar();
}

void read_allow_env(const std::string& file, const YAML::Node& node, SiteConfig& config) {
    if (!node.IsSequence()) config_error(file, node, "allow_env", "expected a list of variable names");
    for (const auto& item : node) {
        std::string name = config_scalar(file, item, "allow_env");
        std::string bare = name.ends_with('*') ? name.substr(0, name.size() - 1) : name;
        if (!is_valid_env_name(bare)) config_error(file, item, "allow_env", "invalid variable name '" + name + "'");
        config.allow_env.push_back(name);
    }
}

void read_account_defaults(const std::string& file, const YAML::Node& node, SiteConfig& config) {
    if (!node.IsMap()) config_error(file, node, "account_defaults", "expected a mapping of account to preset list");
    for (const auto& entry : node) {
        std::string account = config_scalar(file, entry.first, "account_defaults");
        std::string key = "account_defaults." + account;
        std::string list = config_scalar(file, entry.second, key);
        if (!is_valid_name(account)) config_error(file, entry.first, key, "invalid account name");
        // Slurm stores account names in lowercase, and job_submit looks them up so.
        for (auto& c : account) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (config.account_defaults.count(account))
            config_error(file, entry.first, key, "account '" + account + "' given twice (account names ignore case)");
        try {
            for (const auto& ref : parse_preset_list(list))
                if (ref.is_path())
                    config_error(file, entry.second, key, "account defaults name site presets, not files");
        } catch (const InputError& e) {
            if (e.where().file == file) throw;
            config_error(file, entry.second, key, e.problem());
        }
        config.account_defaults[account] = list;
    }
}

void read_config_entry(const std::string& file, const std::string& key, const YAML::Node& value, SiteConfig& config) {
    if (key == "presets_dir") {
        config.presets_dir = config_scalar(file, value, key);
        if (!config.presets_dir.starts_with('/')) config_error(file, value, key, "must be an absolute path");
    } else if (key == "allow_env") {
        read_allow_env(file, value, config);
    } else if (key == "max_user_preset_bytes") {
        auto bytes = parse_count(config_scalar(file, value, key), kMaxUserPresetBytesSetting);
        if (!bytes)
            config_error(file, value, key,
                         "expected a size in bytes, 1 to " + std::to_string(kMaxUserPresetBytesSetting));
        config.max_user_preset_bytes = *bytes;
    } else if (key == "account_defaults") {
        read_account_defaults(file, value, config);
    } else {
        config_error(file, value, key,
                     "unknown key (known: presets_dir, allow_env, max_user_preset_bytes, account_defaults)");
    }
}

}  // namespace

std::vector<Preset> load_site_directory(const std::string& dir, const EnvPolicy& env_policy) {
    check_trusted_path(dir);
    std::vector<Preset> all;
    std::map<std::string, std::string> file_of;  // preset name -> file that defined it
    for (const auto& name : yaml_files_in(dir)) {
        const std::string path = dir + "/" + name;
        auto presets = parse_presets(read_trusted_file(path, kMaxSiteFileBytes, true), path, env_policy);
        for (auto& preset : presets) {
            auto [it, fresh] =
                file_of.emplace(preset.name, preset.origin.file + ":" + std::to_string(preset.origin.line));
            if (!fresh)
                throw InputError({path, preset.origin.line, "name"},
                                 "preset '" + preset.name + "' is already defined in " + it->second);
            all.push_back(std::move(preset));
        }
    }
    return all;
}

SiteConfig parse_site_config(std::string_view text, const std::string& file, const std::string& default_presets_dir) {
    SiteConfig config;
    config.presets_dir = default_presets_dir;
    YAML::Node root;
    check_yaml_text(text, file);
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
        throw InputError({file, e.mark.is_null() ? 0 : e.mark.line + 1, ""}, "not valid YAML: " + e.msg);
    }
    if (root.IsNull()) return config;
    if (!root.IsMap()) config_error(file, root, "", "expected a mapping of settings");
    for (const auto& entry : root) read_config_entry(file, config_scalar(file, entry.first, ""), entry.second, config);
    return config;
}

SiteConfig load_site_config(const std::string& path, const std::string& default_presets_dir) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
        SiteConfig defaults;
        defaults.presets_dir = default_presets_dir;
        return defaults;
    }
    return parse_site_config(read_trusted_file(path, kMaxConfigBytes, true), path, default_presets_dir);
}

}  // namespace fairway::presets
