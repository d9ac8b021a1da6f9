#include "presets/submission.h"

#include <algorithm>

#include "presets/carried.h"
#include "presets/reference.h"

namespace fairway::presets {
namespace {

// The preset list in force and where it came from; nullopt when the job gets no presets.
std::optional<std::pair<std::string, std::string>> chosen_list(const SitePresets& site, const Submission& submission) {
    if (submission.preset_option && !submission.preset_option->empty())
        return std::make_pair(*submission.preset_option, std::string("--preset"));
    auto fallback = site.config.account_defaults.find(submission.account);
    if (submission.account.empty() || fallback == site.config.account_defaults.end()) return std::nullopt;
    return std::make_pair(fallback->second, "account default (" + submission.account + ")");
}

void add_carried_user_files(PresetResolver& resolver, const SitePresets& site, const Submission& submission) {
    if (!submission.user_presets_encoded) return;
    for (const auto& [path, text] :
         decode_user_presets(*submission.user_presets_encoded, site.config.max_user_preset_bytes))
        resolver.add_user_file(path, text);
}

}  // namespace

std::optional<PresetApplication> apply_presets_to_submission(const SitePresets& site, const Submission& submission) {
    auto list = chosen_list(site, submission);
    if (!list) return std::nullopt;
    auto refs = parse_preset_list(list->first);
    bool needs_site = std::any_of(refs.begin(), refs.end(), [](const PresetRef& ref) { return !ref.is_path(); });
    if (needs_site && !site.ok()) throw InputError({}, "site presets unavailable: " + site.load_error);

    PresetResolver resolver(site.catalog, site.config.env_policy(), site.config.max_user_preset_bytes);
    add_carried_user_files(resolver, site, submission);
    auto applied = resolver.resolve(refs);
    PresetApplication application{merge_presets(submission.job, applied), describe_applied(applied), list->second, {}};
    // Steps apply the --preset text when there is one, else the record (slurmstepd's rule).
    const bool option = submission.preset_option && !submission.preset_option->empty();
    application.step_presets = encode_step_presets(option ? *submission.preset_option : application.applied, applied);
    return application;
}

// Checked here too, whoever filled in `applied`: the record goes where users may not write.
std::string preset_record(const PresetApplication& application) {
    check_record_list(application.applied);
    return "fairway-presets=" + application.applied;
}

}  // namespace fairway::presets
