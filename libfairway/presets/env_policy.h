// Which environment names a preset may set. Presets are convenience, not a security boundary, yet
// they must not become a way to inject code into every rank: loader and link-path variables and
// Slurm's own variables are refused unless the site allows them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fairway::presets {

struct EnvPolicy {
    // Names the site permits despite the deny list: exact, or a prefix ending in "*" ("SLURM_*").
    std::vector<std::string> allowed;

    // Empty when `name` may be set; otherwise why not (for the error message).
    std::string refusal(std::string_view name) const;
};

// Whether `name` is a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*).
bool is_valid_env_name(std::string_view name);

// The names and prefixes refused by default, for documentation: "LD_PRELOAD", "SLURM_*", ...
const std::vector<std::string>& default_denied_env();

}  // namespace fairway::presets
