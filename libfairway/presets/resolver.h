// From what the user typed (--preset=a100,nccl-ib:override,./mine.yaml) to the presets to apply.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "presets/loader.h"
#include "presets/preset.h"

namespace fairway::presets {

// One entry of a preset list: a site preset name or a user file path, with an optional strategy
// override written as a suffix (":defaults", ":override", ":replace").
struct PresetRef {
    std::string name;                       // "a100" or "./mine.yaml"
    std::optional<MergeStrategy> strategy;  // overrides the preset's own strategy
    // A path is anything containing '/' ("./x.yaml", "/home/u/x.yaml", "conf/x.yaml").
    bool is_path() const;
    friend bool operator==(const PresetRef&, const PresetRef&) = default;
};

inline constexpr std::size_t kMaxPresetRefs = 16;

// Parses a comma-separated preset list. Throws InputError (key "preset") for empty entries, bad
// names, unknown strategy suffixes or more than kMaxPresetRefs entries.
std::vector<PresetRef> parse_preset_list(std::string_view text);

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);

// The available name closest to `wanted` (ties: first in order); nullopt when `names` is empty or
// nothing is close enough to be a plausible typo.
std::optional<std::string> nearest_name(std::string_view wanted, const std::vector<std::string>& names);

// User preset files, by the path the user wrote; their text is read on the client and carried
// with the job (see carried.h).
using UserPresetTexts = std::map<std::string, std::string>;

// An immutable set of presets to resolve names against.
class PresetCatalog {
public:
    PresetCatalog() = default;
    explicit PresetCatalog(std::vector<Preset> site_presets);

    const Preset* find(std::string_view name) const;
    std::vector<std::string> names() const;  // sorted
    const std::vector<Preset>& presets() const { return presets_; }

private:
    std::vector<Preset> presets_;
};

// Resolves preset lists. Parsed user files are owned by the resolver, so the returned
// AppliedPresets stay valid as long as the resolver (and the catalog) live.
class PresetResolver {
public:
    PresetResolver(const PresetCatalog& catalog, EnvPolicy env_policy,
                   std::size_t max_user_preset_bytes = kMaxUserPresetBytes);

    // Adds the text of a user file (parsed at once; throws InputError naming `path`, line, key).
    void add_user_file(const std::string& path, std::string_view text);

    // Resolves refs in order. A user file contributes all its presets in document order.
    // Unknown site name: InputError "unknown preset 'x'; did you mean 'y'? available: a, b, c".
    // A path never added: InputError saying the file's text did not reach the resolver.
    std::vector<AppliedPreset> resolve(const std::vector<PresetRef>& refs) const;

    // parse_preset_list + resolve.
    std::vector<AppliedPreset> resolve(std::string_view preset_list) const;

private:
    const PresetCatalog& catalog_;
    EnvPolicy env_policy_;
    std::size_t max_user_preset_bytes_;
    std::map<std::string, std::vector<Preset>> user_files_;
};

}  // namespace fairway::presets
