#include "presets/resolver.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "presets/reference.h"
#include "presets/values.h"

namespace fairway::presets {
namespace {

[[noreturn]] void preset_error(const std::string& problem) {
    throw InputError(SourceLocation{"", 0, "preset"}, problem);
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
    std::string text;
    for (const auto& part : parts) {
        if (!text.empty()) text += separator;
        text += part;
    }
    return text;
}

// Splits a trailing ":strategy" off an entry; a colon followed by anything else is left alone
// (file names may contain colons).
PresetRef split_strategy(std::string_view entry) {
    auto colon = entry.rfind(':');
    if (colon != std::string_view::npos) {
        if (auto strategy = strategy_from_name(entry.substr(colon + 1)))
            return PresetRef{std::string(entry.substr(0, colon)), strategy};
    }
    return PresetRef{std::string(entry), std::nullopt};
}

// The whole entry is checked first, so that no message below quotes a character the rule refuses.
void check_ref(const PresetRef& ref, std::string_view entry) {
    check_reference(entry);
    if (ref.name.empty()) preset_error("empty entry in preset list");
    if (ref.is_path()) {
        if (ref.name.size() > 4096) preset_error("preset path longer than 4096 bytes");
        return;
    }
    if (!is_valid_name(ref.name))
        preset_error("invalid preset '" + std::string(entry) +
                     "': a name (letters, digits, '.', '_', '-') or a path containing '/', optionally "
                     "followed by :defaults, :override or :replace");
}

}  // namespace

bool PresetRef::is_path() const { return name.find('/') != std::string::npos; }

std::vector<PresetRef> parse_preset_list(std::string_view text) {
    std::vector<PresetRef> refs;
    if (text.size() > 16 * 1024) preset_error("preset list too long");
    for (std::size_t start = 0;;) {
        auto comma = text.find(',', start);
        auto entry = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
        if (refs.size() == kMaxPresetRefs) preset_error("more than 16 presets in one list");
        refs.push_back(split_strategy(entry));
        check_ref(refs.back(), entry);
        if (comma == std::string_view::npos) return refs;
        start = comma + 1;
    }
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::optional<std::string> nearest_name(std::string_view wanted, const std::vector<std::string>& names) {
    if (wanted.size() > 256) return std::nullopt;  // nobody mistypes 256 characters; bounds the work
    // A typo changes a few characters; a truncated name ("nccl" for "nccl-ib") is a prefix.
    const std::size_t typo_limit = std::max<std::size_t>(2, wanted.size() / 2);
    std::optional<std::string> best;
    std::size_t best_distance = std::numeric_limits<std::size_t>::max();
    for (const auto& name : names) {
        auto distance = edit_distance(wanted, name);
        bool plausible = distance <= typo_limit || (!wanted.empty() && name.starts_with(wanted));
        if (plausible && distance < best_distance) best = name, best_distance = distance;
    }
    return best;
}

PresetCatalog::PresetCatalog(std::vector<Preset> site_presets) : presets_(std::move(site_presets)) {}

const Preset* PresetCatalog::find(std::string_view name) const {
    auto it = std::find_if(presets_.begin(), presets_.end(), [&](const Preset& p) { return p.name == name; });
    return it == presets_.end() ? nullptr : &*it;
}

std::vector<std::string> PresetCatalog::names() const {
    std::vector<std::string> names;
    for (const auto& preset : presets_) names.push_back(preset.name);
    std::sort(names.begin(), names.end());
    return names;
}

PresetResolver::PresetResolver(const PresetCatalog& catalog, EnvPolicy env_policy, std::size_t max_user_preset_bytes)
    : catalog_(catalog), env_policy_(std::move(env_policy)), max_user_preset_bytes_(max_user_preset_bytes) {}

void PresetResolver::add_user_file(const std::string& path, std::string_view text) {
    check_reference(path);  // every message below names the path, and the record will
    auto presets = parse_presets(text, path, env_policy_, false, path, user_file_budget(max_user_preset_bytes_));
    // Named after the file, so a user preset can never pass for a site preset in records.
    for (auto& preset : presets)
        if (preset.name != path) preset.name = path + "#" + preset.name;
    user_files_[path] = std::move(presets);
}

namespace {

// A preset named twice applies once more to no purpose but the cost of merging it again; the
// user meant something else (a typo, or ':override' on the first), so it is refused, not dropped.
void check_named_once(const std::vector<PresetRef>& refs) {
    for (std::size_t i = 0; i < refs.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (refs[i].name == refs[j].name)
                preset_error("preset '" + refs[i].name + "' named twice in one list (entries " + std::to_string(j + 1) +
                             " and " + std::to_string(i + 1) + ")");
}

void add_applied(std::vector<AppliedPreset>& applied, const Preset& preset, MergeStrategy strategy) {
    if (applied.size() == kMaxAppliedPresets)
        throw InputError(
            {preset.origin.file, preset.origin.line, "preset"},
            "more than " + std::to_string(kMaxAppliedPresets) + " presets in one submission (applied presets budget)");
    applied.push_back({&preset, strategy});
}

}  // namespace

std::vector<AppliedPreset> PresetResolver::resolve(const std::vector<PresetRef>& refs) const {
    check_named_once(refs);
    std::vector<AppliedPreset> applied;
    for (const auto& ref : refs) {
        if (ref.is_path()) {
            auto file = user_files_.find(ref.name);
            if (file == user_files_.end())
                preset_error("the text of preset file '" + ref.name + "' was not carried with the job");
            for (const auto& preset : file->second)
                add_applied(applied, preset, ref.strategy.value_or(preset.strategy));
            continue;
        }
        const Preset* preset = catalog_.find(ref.name);
        if (!preset) {
            auto names = catalog_.names();
            std::string message = "unknown preset '" + ref.name + "'";
            auto near = nearest_name(ref.name, names);
            if (near) message += "; did you mean '" + *near + "'?";
            if (names.empty()) message += "; no presets are available";
            else message += (near ? " available: " : "; available: ") + join(names, ", ");
            preset_error(message);
        }
        add_applied(applied, *preset, ref.strategy.value_or(preset->strategy));
    }
    return applied;
}

std::vector<AppliedPreset> PresetResolver::resolve(std::string_view preset_list) const {
    return resolve(parse_preset_list(preset_list));
}

}  // namespace fairway::presets
