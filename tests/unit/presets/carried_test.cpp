#include <gtest/gtest.h>

#include "presets/carried.h"

namespace fairway::presets {
namespace {

TEST(CarriedUserPresets, RoundTrip) {
    UserPresetTexts files = {
        {"./a.yaml", "gpus: 2\n"}, {"./b:c.yaml", std::string("x\x01\xff,:=", 6)}, {"./empty.yaml", ""}};
    auto encoded = encode_user_presets(files);
    EXPECT_EQ(encoded.find_first_of(" \t\n;\"'"), std::string::npos);  // safe in an environment entry
    EXPECT_EQ(decode_user_presets(encoded), files);
    for (std::size_t n = 0; n < 7; ++n) {
        UserPresetTexts one = {{"p/" + std::to_string(n), std::string(n, 'z')}};
        EXPECT_EQ(decode_user_presets(encode_user_presets(one)), one) << n;
    }
}

TEST(CarriedUserPresets, EnforcesTheSizeLimit) {
    UserPresetTexts big = {{"./a.yaml", std::string(100, 'a')}};
    EXPECT_THROW(encode_user_presets(big, 99), InputError);
    auto encoded = encode_user_presets(big, 100);
    EXPECT_THROW(decode_user_presets(encoded, 99), InputError);
}

TEST(CarriedUserPresets, RejectsMalformedEncodings) {
    for (const char* bad :
         {"abc", "YQ==", "YQ==:Y", "YQ==:YQ=a", "!!!!:YQ==", "YQ==:YQ==,", ":YQ==", "YQ==:YQ==,,YQ==:YQ=="})
        EXPECT_THROW(decode_user_presets(bad), InputError) << bad;
    EXPECT_TRUE(decode_user_presets("").empty());
}

Preset step_preset(std::string name, MergeStrategy strategy) {
    Preset preset;
    preset.name = std::move(name);
    preset.strategy = strategy;
    return preset;
}

std::string describe(const StepPresets& carried) {
    std::string text = carried.preset_list;
    for (const auto& entry : carried.applied()) {
        const Preset& p = *entry.preset;
        text += " | " + p.name + " " + std::string(strategy_name(entry.strategy));
        for (const auto& [name, value] : p.values.env) text += " " + name + "=" + value;
        for (const auto& name : p.cleared_env) text += " " + name + "=~";
        if (p.values.gpu_binding) text += " bind=" + format_gpu_binding(*p.values.gpu_binding);
        if (p.values.distributed_env) text += *p.values.distributed_env ? " dist=1" : " dist=0";
        text += " cleared=" + p.cleared.to_string();
    }
    return text;
}

TEST(CarriedStepPresets, RoundTripOfTheStepFields) {
    Preset full = step_preset("a100-train", MergeStrategy::defaults);
    full.values.env = {{"NCCL_DEBUG", "WARN"}, {"ODD", std::string("x,y:z=\x01\xff ", 9)}, {"EMPTY", ""}};
    full.cleared_env = {"OMP_NUM_THREADS"};
    full.values.gpu_binding = GpuBinding{GpuBindingPolicy::per_rank, 2};
    full.values.distributed_env = false;
    Preset cleared = step_preset("./mine.yaml#x", MergeStrategy::replace);
    cleared.cleared.set(static_cast<std::size_t>(Field::gpu_binding));
    cleared.cleared.set(static_cast<std::size_t>(Field::distributed_env));
    std::vector<AppliedPreset> applied{{&full, MergeStrategy::override_}, {&cleared, MergeStrategy::replace}};
    auto encoded = encode_step_presets("a100-train:override,./mine.yaml", applied);
    ASSERT_TRUE(encoded.has_value());
    EXPECT_EQ(encoded->find_first_of(" \t\n;\"'"), std::string::npos);  // safe in an environment entry
    StepPresets expected{"a100-train:override,./mine.yaml", {full, cleared}, std::nullopt};
    expected.presets[0].strategy = MergeStrategy::override_;  // the strategy in force travels
    EXPECT_EQ(describe(decode_step_presets(*encoded)), describe(expected));
    EXPECT_EQ(describe(decode_step_presets(*encode_step_presets("x", {}))), "x");
}

TEST(CarriedStepPresets, AnAccountsDefaultsSayWhichAccount) {
    Preset preset = step_preset("ddp", MergeStrategy::defaults);
    preset.values.env["NCCL_DEBUG"] = "INFO";
    auto decoded =
        decode_step_presets(*encode_step_presets("ddp", {{&preset, preset.strategy}}, kMaxStepPresetsBytes, "physics"));
    EXPECT_EQ(decoded.account, "physics");
    EXPECT_EQ(describe(decoded), "ddp | ddp defaults NCCL_DEBUG=INFO cleared=" + preset.cleared.to_string());
    auto none = decode_step_presets(*encode_step_presets("", {}, kMaxStepPresetsBytes, "biology"));  // no defaults
    EXPECT_EQ(none.account, "biology");
    EXPECT_EQ(none.preset_list, "");
    EXPECT_TRUE(none.presets.empty());
    EXPECT_EQ(decode_step_presets(*encode_step_presets("ddp", {})).account, std::nullopt);
    // Empty, with a blank or a control character, or after a preset: refused.
    for (const char* bad : {"fw1,L:,A:", "fw1,L:,A:YSBi", "fw1,L:,A:YQk=", "fw1,L:,A:!!!!",
                            "fw1,L:,A:YQ==:YQ==", "fw1,L:YQ==,P:YQ==:defaults,A:YQ=="})
        EXPECT_THROW(decode_step_presets(bad), InputError) << bad;
}

TEST(CarriedStepPresets, OnlyStepFieldsTravel) {
    Preset preset = step_preset("p", MergeStrategy::defaults);
    preset.values.partition = "gpu";
    preset.values.time = Seconds(60);
    preset.cleared.set(static_cast<std::size_t>(Field::qos));
    auto decoded = decode_step_presets(*encode_step_presets("p", {{&preset, preset.strategy}}));
    ASSERT_EQ(decoded.presets.size(), 1U);
    EXPECT_EQ(decoded.presets[0].values, JobRequest{});
    EXPECT_TRUE(decoded.presets[0].cleared.none());
}

TEST(CarriedStepPresets, EnforcesTheSizeLimit) {
    Preset big = step_preset("big", MergeStrategy::defaults);
    for (int i = 0; i < 20; ++i) big.values.env["V" + std::to_string(i)] = std::string(4096, 'v');
    EXPECT_EQ(encode_step_presets("big", {{&big, big.strategy}}), std::nullopt);
    EXPECT_THROW(decode_step_presets("fw1,L:YQ==" + std::string(kMaxStepPresetsBytes, ',')), InputError);
}

TEST(CarriedStepPresets, RejectsMalformedText) {
    for (const char* bad : {"", "fw1", "fw2,L:YQ==", "fw1,X:YQ==", "fw1,L:YQ=", "fw1,L:YQ==,E:QQ==:Qg==",
                            "fw1,L:YQ==,P:YQ==", "fw1,L:YQ==,P:YQ==:sideways", "fw1,L:YQ==,P:YQ==:defaults,",
                            "fw1,L:YQ==,P:YQ==:defaults,E:MUE=:Qg==", "fw1,L:YQ==,P:YQ==:defaults,E:QQ==",
                            "fw1,L:YQ==,P:YQ==:defaults,B:bmVhcmVzdA==", "fw1,L:YQ==,P:YQ==:defaults,D:2",
                            "fw1,L:YQ==,P:YQ==:defaults,X:qos", "fw1,L:YQ==,P:YQ==:defaults,Q:YQ=="})
        EXPECT_THROW(decode_step_presets(bad), InputError) << bad;
    // An env value over the loader's 4096 bytes.
    Preset long_value = step_preset("p", MergeStrategy::defaults);
    long_value.values.env["A"] = std::string(4097, 'a');
    EXPECT_THROW(decode_step_presets(*encode_step_presets("p", {{&long_value, long_value.strategy}})), InputError);
}

}  // namespace
}  // namespace fairway::presets
