// libFuzzer target: every input the presets core reads from users (preset YAML, the carried
// user-preset encoding, the carried step resolution, preset lists, site config) must either parse
// or throw InputError;
// anything else (crash, leak, other exception, sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "presets/presets.h"
#include "small_stack.h"

namespace presets = fairway::presets;

namespace {

template <class F>
void expect_input_error_or_success(F&& parse) {
    try {
        parse();
    } catch (const fairway::InputError&) {}
}

void exercise(std::string_view text) {
    const presets::EnvPolicy policy{};
    expect_input_error_or_success([&] {
        auto parsed = presets::parse_presets(text, "fuzz.yaml", policy, false, "./fuzz.yaml");
        std::vector<presets::AppliedPreset> applied;
        for (const auto& preset : parsed) applied.push_back({&preset, preset.strategy});
        presets::merge_presets(presets::JobRequest{}, applied);
    });
    expect_input_error_or_success([&] { presets::parse_site_config(text, "presets.conf"); });
    expect_input_error_or_success([&] { presets::decode_user_presets(text); });
    expect_input_error_or_success([&] {  // slurmstepd (root) decodes and merges what srun carried
        auto carried = presets::decode_step_presets(text);
        presets::merge_presets(presets::JobRequest{}, carried.applied());
    });
    expect_input_error_or_success([&] { presets::parse_preset_list(text); });
    expect_input_error_or_success([&] {
        presets::PresetCatalog catalog;
        presets::PresetResolver resolver(catalog, policy);
        resolver.add_user_file("./fuzz.yaml", text);
        resolver.resolve("./fuzz.yaml");
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fairway::fuzz::on_small_stack([&] { exercise(std::string_view(reinterpret_cast<const char*>(data), size)); });
    return 0;
}
