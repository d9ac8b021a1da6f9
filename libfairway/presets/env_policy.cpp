#include "presets/env_policy.h"

#include <algorithm>

namespace fairway::presets {
namespace {

// Code-injection routes (dynamic loader, shell start-up files, exported shell functions) and the
// variables through which Slurm and fairway themselves talk to a job.
const std::vector<std::string> kDenied = {
    "LD_*", "BASH_ENV", "ENV", "BASH_FUNC_*", "SLURM_*", "SPANK_*", "_SLURM_*", "FAIRWAY_*",
};

bool matches(std::string_view pattern, std::string_view name) {
    if (pattern.ends_with('*')) return name.starts_with(pattern.substr(0, pattern.size() - 1));
    return pattern == name;
}

}  // namespace

const std::vector<std::string>& default_denied_env() { return kDenied; }

bool is_valid_env_name(std::string_view name) {
    if (name.empty() || name.size() > 256) return false;
    auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (!alpha(name[0])) return false;
    return std::all_of(name.begin(), name.end(), [&](char c) { return alpha(c) || digit(c); });
}

std::string EnvPolicy::refusal(std::string_view name) const {
    if (!is_valid_env_name(name)) return "not a valid environment variable name";
    auto denied = std::find_if(kDenied.begin(), kDenied.end(), [&](const auto& p) { return matches(p, name); });
    if (denied == kDenied.end()) return {};
    bool site_allows = std::any_of(allowed.begin(), allowed.end(), [&](const auto& p) { return matches(p, name); });
    if (site_allows) return {};
    return "environment name matches '" + *denied +
           "', which presets may not set unless the site allows it (allow_env)";
}

}  // namespace fairway::presets
