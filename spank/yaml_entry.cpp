// spank_fairway_yaml.so: the C entry points of yaml_module_api.h over libfairway's YAML-reading
// parts. Loaded by spank_fairway.so only when it must read presets.conf or preset files.
#include "spank/yaml_module_api.h"

#include "spank/site.h"
#include "spank/spank_io.h"  // kCarriedPrefix

#include "binding/site_access.h"
#include "binding/step_presets.h"
#include "binding/text.h"
#include "presets/carried.h"
#include "presets/loader.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace fairway::spank {
namespace {

std::optional<std::string> optional_text(const char* text) {
    return text ? std::optional<std::string>(text) : std::nullopt;
}

char* copy_out(const std::optional<std::string>& text) { return text ? strdup(text->c_str()) : nullptr; }

binding::PluginConfig plugstack_args(int argc, const char* const* argv) {
    return binding::parse_plugin_args(std::vector<std::string>(argv, argv + argc));
}

// Runs `body`; an exception becomes -1 and its message in *error (nothing may cross the C API).
template <typename Body>
int reply(char** error, Body body) noexcept {
    try {
        body();
        return 0;
    } catch (const std::exception& failure) {
        *error = strdup(failure.what());
    } catch (...) {
        *error = strdup("unexpected error");
    }
    return -1;
}

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

std::function<std::vector<presets::Preset>()> site_directory(const binding::PluginConfig& config) {
    return [&config] {
        binding::check_readable_by_users(config.presets_dir, binding::SiteEntry::directory);
        return presets::load_site_directory(config.presets_dir, presets::EnvPolicy{config.allow_env});
    };
}

std::optional<std::string> account_default(const presets::SiteConfig& site, const char* account) {
    auto found = account ? site.account_defaults.find(account) : site.account_defaults.end();
    return found == site.account_defaults.end() ? std::nullopt : std::optional<std::string>(found->second);
}

}  // namespace
}  // namespace fairway::spank

using namespace fairway;
using namespace fairway::spank;

extern "C" {

int fairway_yaml_client_check(int argc, const char* const* argv, const char* preset_option,
                              const char* gpu_policy_option, char** user_presets, char** step_presets, char** error) {
    return reply(error, [&] {
        auto config = effective_config(plugstack_args(argc, argv));
        binding::PresetSources sources{site_directory(config),
                                       [&config](const std::string& path) { return read_or_carried(path, config); }};
        auto request = binding::check_client_request(optional_text(preset_option), optional_text(gpu_policy_option),
                                                     sources, config);
        *user_presets = copy_out(request.user_presets);
        *step_presets = copy_out(request.step_presets);
    });
}

int fairway_yaml_step_presets(int argc, const char* const* argv, const char* preset_list, const char* user_presets,
                              char** step_presets, char** error) {
    return reply(error, [&] {
        auto config = effective_config(plugstack_args(argc, argv));
        *step_presets = copy_out(binding::resolve_step_presets(preset_list, optional_text(user_presets),
                                                               {site_directory(config), nullptr}, config));
    });
}

int fairway_yaml_site(int argc, const char* const* argv, const char* account, char** allow_env, char** account_default,
                      char** error) {
    return reply(error, [&] {
        auto args = plugstack_args(argc, argv);
        auto site = site_config(args);
        *allow_env = copy_out(binding::join(binding::with_site_config(args, site).allow_env, ","));
        *account_default = copy_out(spank::account_default(site, account));
    });
}

int fairway_yaml_account_presets(int argc, const char* const* argv, const char* account, char** step_presets,
                                 char** error) {
    return reply(error, [&] {
        auto args = plugstack_args(argc, argv);
        auto site = site_config(args);
        auto config = binding::with_site_config(args, site);
        *step_presets = copy_out(binding::account_step_presets(account, spank::account_default(site, account),
                                                               {site_directory(config), nullptr}, config));
    });
}

}  // extern "C"

// The definitions must match what spank_fairway.so looks up.
static_assert(std::is_same_v<decltype(fairway_yaml_client_check), fairway_yaml_client_check_fn>);
static_assert(std::is_same_v<decltype(fairway_yaml_step_presets), fairway_yaml_step_presets_fn>);
static_assert(std::is_same_v<decltype(fairway_yaml_site), fairway_yaml_site_fn>);
static_assert(std::is_same_v<decltype(fairway_yaml_account_presets), fairway_yaml_account_presets_fn>);
