// libFuzzer target: what job_submit/fairway decides for one submission inside slurmctld
// (apply_presets_to_submission) and the record it writes where users may not (preset_record:
// AdminComment, FAIRWAY_APPLIED_PRESETS, the slurmctld log). The input is the submitter's: the
// --preset text, the account and the carried user files (a raw libslurm client sets them all).
// Each must apply or throw InputError; an applied record must hold no control character and no
// line break, and the resolution carried to the steps must decode.
//   input: MODE OPTION '\0' ACCOUNT '\0' REST. An even MODE byte makes REST the text of every user
//   file the --preset list names (a path may hold anything a user can type, newlines included);
//   an odd one makes REST the encoded FAIRWAY_USER_PRESETS itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "presets/presets.h"
#include "small_stack.h"

namespace presets = fairway::presets;
using fairway::fuzz::require;

namespace {

const presets::SitePresets& site() {
    static const presets::SitePresets loaded = [] {
        presets::SitePresets site;
        site.config = presets::parse_site_config("account_defaults:\n  physics: a100-train,nccl\n", "presets.conf");
        site.catalog = presets::PresetCatalog(presets::parse_presets(
            "name: a100-train\npartition: gpu\ngpus-per-node: a100:4\ntime: 2:00:00\nenv: {NCCL_DEBUG: WARN}\n"
            "---\nname: nccl\nmerge: override\nenv: {NCCL_IB_DISABLE: \"0\"}\ngpu-binding: per-rank:1\n"
            "distributed-env: true\n",
            "site.yaml", site.config.env_policy()));
        return site;
    }();
    return loaded;
}

std::string_view next_field(std::string_view& text) {
    auto end = text.find('\0');
    auto field = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    return field;
}

// REST as the text of each user file the list names; nothing when the list is malformed.
std::string user_files(const std::string& option, std::string_view text) {
    presets::UserPresetTexts files;
    try {
        for (const auto& ref : presets::parse_preset_list(option))
            if (ref.is_path()) files[ref.name] = std::string(text);
    } catch (const fairway::InputError&) {}
    return presets::encode_user_presets(files);
}

bool has_control(std::string_view text) {
    for (unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return true;
    return false;
}

void exercise(std::string_view input) {
    if (input.empty()) return;
    bool as_files = static_cast<unsigned char>(input[0]) % 2 == 0;
    input.remove_prefix(1);
    presets::Submission submission;
    auto option = next_field(input);
    if (!option.empty()) submission.preset_option = std::string(option);
    submission.account = std::string(next_field(input));
    try {
        submission.user_presets_encoded = as_files ? user_files(std::string(option), input) : std::string(input);
    } catch (const fairway::InputError&) {
        return;  // too large to carry: the client refuses it
    }
    try {
        auto application = presets::apply_presets_to_submission(site(), submission);
        if (!application) return;
        auto record = presets::preset_record(*application);
        require(!has_control(record), "the applied record holds a control character");
        if (application->step_presets) {
            try {
                presets::decode_step_presets(*application->step_presets);
            } catch (const fairway::InputError&) {
                require(false, "the resolution carried to the steps does not decode");
            }
        }
    } catch (const fairway::InputError& error) {
        require(std::string_view(error.what()).find('\n') == std::string_view::npos,
                "a refusal message holds a line break");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fairway::fuzz::on_small_stack([&] { exercise(std::string_view(reinterpret_cast<const char*>(data), size)); });
    return 0;
}
