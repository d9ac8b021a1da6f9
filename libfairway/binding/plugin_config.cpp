#include "binding/plugin_config.h"

#include "binding/text.h"
#include "common/error.h"

#include <functional>
#include <map>

namespace fairway::binding {
namespace {

[[noreturn]] void reject(const std::string& key, const std::string& problem) {
    throw InputError({"plugstack.conf", 0, key}, problem);
}

std::size_t parse_size(const std::string& key, const std::string& text) {
    auto value = parse_unsigned(text);
    if (!value || *value == 0 || *value > 16u * 1024 * 1024)
        reject(key, "expected a byte count between 1 and 16777216, got '" + text + "'");
    return *value;
}

std::string parse_path(const std::string& key, const std::string& text) {
    if (text.empty() || text.front() != '/') reject(key, "expected an absolute path, got '" + text + "'");
    return text;
}

using Setter = std::function<void(PluginConfig&, const std::string&)>;

const std::map<std::string, Setter>& setters() {
    static const std::map<std::string, Setter> table = {
        {"presets_dir", [](PluginConfig& c, const std::string& v) { c.presets_dir = parse_path("presets_dir", v); }},
        {"sysfs_root", [](PluginConfig& c, const std::string& v) { c.sysfs_root = parse_path("sysfs_root", v); }},
        {"presets_conf", [](PluginConfig& c, const std::string& v) { c.presets_conf = parse_path("presets_conf", v); }},
        {"master_port_range", [](PluginConfig& c, const std::string& v) { c.master_port_range = parse_port_range(v); }},
        {"allow_env", [](PluginConfig& c, const std::string& v) { c.allow_env = split(v, ','); }},
        {"user_preset_max_bytes",
         [](PluginConfig& c, const std::string& v) {
             c.user_preset_max_bytes = parse_size("user_preset_max_bytes", v);
         }},
    };
    return table;
}

}  // namespace

PortRange parse_port_range(const std::string& text) {
    auto parts = split(text, '-');
    std::optional<unsigned long> first, last;
    if (parts.size() == 2) {
        first = parse_unsigned(parts[0]);
        last = parse_unsigned(parts[1]);
    }
    if (!first || !last || *first < 1 || *last > 65535 || *first > *last)
        reject("master_port_range", "expected FIRST-LAST with 1 <= FIRST <= LAST <= 65535, got '" + text + "'");
    return {static_cast<int>(*first), static_cast<int>(*last)};
}

PluginConfig parse_plugin_args(const std::vector<std::string>& args) {
    PluginConfig config;
    for (const auto& arg : args) {
        auto eq = arg.find('=');
        std::string key = arg.substr(0, eq);
        auto setter = setters().find(key);
        if (setter == setters().end()) {
            std::string known;
            for (const auto& [name, unused] : setters()) known += (known.empty() ? "" : ", ") + name;
            reject(key, "unknown argument '" + arg + "' (known: " + known + ")");
        }
        if (eq == std::string::npos) reject(key, "missing '=VALUE' in '" + arg + "'");
        setter->second(config, arg.substr(eq + 1));
        config.given.insert(key);
    }
    return config;
}

std::string site_config_path(const PluginConfig& config, const char* presets_conf_env, const char* slurm_conf_env) {
    if (!config.presets_conf.empty()) return config.presets_conf;
    if (presets_conf_env && *presets_conf_env) return presets_conf_env;
    return presets::site_config_path_for(slurm_conf_env && *slurm_conf_env ? slurm_conf_env : "/etc/slurm/slurm.conf");
}

PluginConfig with_site_config(PluginConfig config, const presets::SiteConfig& site) {
    config.presets_dir = site.presets_dir;
    if (!config.given.count("allow_env")) config.allow_env = site.allow_env;
    if (!config.given.count("user_preset_max_bytes")) config.user_preset_max_bytes = site.max_user_preset_bytes;
    return config;
}

}  // namespace fairway::binding
