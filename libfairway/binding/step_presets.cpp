#include "binding/step_presets.h"

#include "common/error.h"
#include "presets/carried.h"
#include "presets/resolver.h"

namespace fairway::binding {
namespace {

presets::EnvPolicy env_policy(const PluginConfig& config) { return presets::EnvPolicy{config.allow_env}; }

bool names_site_presets(const std::vector<presets::PresetRef>& refs) {
    for (const auto& ref : refs)
        if (!ref.is_path()) return true;
    return false;
}

// A catalog loaded only when the list names a site preset (a file-only list needs no directory).
presets::PresetCatalog catalog_for(const std::vector<presets::PresetRef>& refs, const PresetSources& sources) {
    if (!names_site_presets(refs)) return presets::PresetCatalog{};
    return presets::PresetCatalog{sources.site_presets()};
}

// Resolves `list` in the step (site directory, carried user files) and hands the applied presets
// to `use` while the resolver, which owns the user files' presets, lives.
template <typename Use>
auto with_resolved(const std::string& list, const std::optional<std::string>& user_presets,
                   const PresetSources& sources, const PluginConfig& config, Use use) {
    auto refs = presets::parse_preset_list(list);
    auto catalog = catalog_for(refs, sources);
    presets::PresetResolver resolver(catalog, env_policy(config), config.user_preset_max_bytes);
    if (user_presets)
        for (const auto& [path, text] : presets::decode_user_presets(*user_presets, config.user_preset_max_bytes))
            resolver.add_user_file(path, text);
    return use(resolver.resolve(refs));
}

}  // namespace

ClientRequest check_client_request(const std::optional<std::string>& preset_list,
                                   const std::optional<std::string>& gpu_policy_option, const PresetSources& sources,
                                   const PluginConfig& config) {
    if (gpu_policy_option) parse_gpu_policy(*gpu_policy_option);
    if (!preset_list) return {};
    auto refs = presets::parse_preset_list(*preset_list);
    auto catalog = catalog_for(refs, sources);
    presets::PresetResolver resolver(catalog, env_policy(config), config.user_preset_max_bytes);
    presets::UserPresetTexts files;
    for (const auto& ref : refs)
        if (ref.is_path() && !files.count(ref.name)) {
            files[ref.name] = sources.read_user_file(ref.name);
            resolver.add_user_file(ref.name, files[ref.name]);
        }
    ClientRequest request;
    request.step_presets = presets::encode_step_presets(*preset_list, resolver.resolve(refs));
    if (!files.empty()) request.user_presets = presets::encode_user_presets(files, config.user_preset_max_bytes);
    return request;
}

std::optional<std::string> account_step_presets(const std::string& account,
                                                const std::optional<std::string>& default_list,
                                                const PresetSources& sources, const PluginConfig& config) {
    auto encode = [&account](const std::string& list, const std::vector<presets::AppliedPreset>& applied) {
        return presets::encode_step_presets(list, applied, presets::kMaxStepPresetsBytes, account);
    };
    if (!default_list || default_list->empty()) return encode("", {});
    return with_resolved(*default_list, std::nullopt, sources, config,
                         [&](const auto& applied) { return encode(*default_list, applied); });
}

StepSettings resolve_step_settings(const StepPresetInputs& inputs, const PresetSources& sources,
                                   const PluginConfig& config) {
    const auto& list = step_preset_list(inputs);
    if (!list || list->empty()) return step_settings_from({}, inputs);
    return with_resolved(*list, inputs.user_presets, sources, config,
                         [&inputs](const auto& applied) { return step_settings_from(applied, inputs); });
}

std::string resolve_step_presets(const std::string& preset_list, const std::optional<std::string>& user_presets,
                                 const PresetSources& sources, const PluginConfig& config) {
    return with_resolved(preset_list, user_presets, sources, config, [&preset_list](const auto& applied) {
        auto encoded = presets::encode_step_presets(preset_list, applied, presets::kMaxLocalStepPresetsBytes);
        if (!encoded) throw InputError({"", 0, "preset"}, "the presets' step settings exceed 64 MiB");
        return *encoded;
    });
}

}  // namespace fairway::binding
