// spank_fairway.so's side of yaml_module_api.h: loads spank_fairway_yaml.so from the directory
// this plugin was loaded from, on first use and once per process, and turns its C results into
// C++ values. Every failure (the module missing, or its error) throws std::runtime_error whose
// message is the module's (file:line:key for presets).
#pragma once

#include "binding/plugin_config.h"

#include <optional>
#include <string>
#include <vector>

namespace fairway::spank {

// What the client carries with the job (see binding::ClientRequest).
struct CarriedRequest {
    std::optional<std::string> user_presets;
    std::optional<std::string> step_presets;
};

CarriedRequest yaml_client_check(const std::vector<std::string>& plugin_args,
                                 const std::optional<std::string>& preset_option,
                                 const std::optional<std::string>& gpu_policy_option);

// The list resolved in slurmstepd, encoded as presets::encode_step_presets does.
std::string yaml_step_presets(const std::vector<std::string>& plugin_args, const std::string& preset_list,
                              const std::optional<std::string>& user_presets);

// What presets.conf says about env names and about the step's account.
struct SiteFacts {
    std::vector<std::string> allow_env;          // after plugstack.conf's allow_env
    std::optional<std::string> account_default;  // the account's default preset list
};

SiteFacts yaml_site(const std::vector<std::string>& plugin_args, const std::optional<std::string>& account);

// srun: `account`'s default presets resolved for its steps, to carry as FAIRWAY_STEP_PRESETS
// (nullopt: too large to carry).
std::optional<std::string> yaml_account_presets(const std::vector<std::string>& plugin_args,
                                                const std::string& account);

// Whether the site's presets.conf exists. Without it there are no account defaults and the env
// policy is the default one: nothing to load the YAML module for. Throws (naming the file) when it
// cannot be looked up or its mode hides it from users (binding/site_access.h).
bool site_config_exists(const binding::PluginConfig& config);

}  // namespace fairway::spank
