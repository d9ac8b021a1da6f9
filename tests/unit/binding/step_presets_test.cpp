#include "binding/step_presets.h"
#include "common/error.h"
#include "presets/carried.h"
#include "presets/loader.h"

#include <gtest/gtest.h>

#include <map>

using namespace fairway::binding;
using fairway::InputError;

namespace {

const char* kSiteText = R"(name: ddp
gpu-binding: per-rank:1
distributed-env: true
env: {NCCL_DEBUG: INFO, OMP_NUM_THREADS: "4"}
---
name: ordered
gpu-binding: ordered
---
name: quiet
merge: override
env: {NCCL_DEBUG: WARN, OMP_NUM_THREADS: ~}
)";

// Site presets from text, and user files from a map; counts how often the site directory is read.
struct FakeSources {
    std::map<std::string, std::string> user_files;
    int site_loads = 0;
    PresetSources sources() {
        return {[this] {
                    ++site_loads;
                    return fairway::presets::parse_presets(kSiteText, "site.yaml", {});
                },
                [this](const std::string& path) {
                    auto file = user_files.find(path);
                    if (file == user_files.end()) throw InputError({path, 0, ""}, "no such file");
                    return file->second;
                }};
    }
};

StepPresetInputs step_with(std::optional<std::string> preset_option, std::map<std::string, std::string> env = {}) {
    StepPresetInputs inputs;
    inputs.preset_option = std::move(preset_option);
    inputs.step_env = [env](const std::string& name) -> std::optional<std::string> {
        auto value = env.find(name);
        return value == env.end() ? std::nullopt : std::optional(value->second);
    };
    return inputs;
}

std::string error_of(const std::function<void()>& body) {
    try {
        body();
    } catch (const std::exception& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST(ClientRequest, SiteNamesNeedNoCarriedText) {
    FakeSources fake;
    EXPECT_EQ(check_client_request("ddp,ordered", std::nullopt, fake.sources(), {}).user_presets, std::nullopt);
    EXPECT_EQ(fake.site_loads, 1);
}

TEST(ClientRequest, UnknownNameListsAvailableAndNearest) {
    FakeSources fake;
    auto message = error_of([&] { check_client_request("dpp", std::nullopt, fake.sources(), {}); });
    EXPECT_NE(message.find("unknown preset 'dpp'"), std::string::npos) << message;
    EXPECT_NE(message.find("did you mean 'ddp'"), std::string::npos) << message;
    EXPECT_NE(message.find("available: ddp, ordered, quiet"), std::string::npos) << message;
}

TEST(ClientRequest, UserFilesTravelEncodedAndFileOnlyListsSkipTheSiteDirectory) {
    FakeSources fake;
    fake.user_files["./mine.yaml"] = "gpu-binding: closest\n";
    auto encoded = check_client_request("./mine.yaml", std::nullopt, fake.sources(), {}).user_presets;
    ASSERT_TRUE(encoded.has_value());
    EXPECT_EQ(fake.site_loads, 0);
    auto files = fairway::presets::decode_user_presets(*encoded);
    EXPECT_EQ(files.at("./mine.yaml"), "gpu-binding: closest\n");
}

TEST(ClientRequest, MalformedUserFileNamesFileLineAndKey) {
    FakeSources fake;
    fake.user_files["./bad.yaml"] = "env: {A: b}\ngpu-binding: per-rank:x\n";
    auto message = error_of([&] { check_client_request("./bad.yaml", std::nullopt, fake.sources(), {}); });
    EXPECT_NE(message.find("./bad.yaml:2"), std::string::npos) << message;
    EXPECT_NE(message.find("gpu-binding"), std::string::npos) << message;
}

TEST(ClientRequest, OversizedUserFileIsRefused) {
    FakeSources fake;
    fake.user_files["./big.yaml"] = "env: {A: \"" + std::string(2000, 'x') + "\"}\n";
    PluginConfig config;
    config.user_preset_max_bytes = 1000;
    EXPECT_THROW(check_client_request("./big.yaml", std::nullopt, fake.sources(), config), InputError);
}

TEST(ClientRequest, ChecksTheGpuPolicyOption) {
    FakeSources fake;
    auto request = check_client_request(std::nullopt, "per-rank:2", fake.sources(), {});
    EXPECT_EQ(request.user_presets, std::nullopt);
    EXPECT_EQ(request.step_presets, std::nullopt);
    EXPECT_THROW(check_client_request(std::nullopt, "nearest", fake.sources(), {}), InputError);
    EXPECT_EQ(fake.site_loads, 0);
}

TEST(StepSettings, NoPresetsChangeNothingAndReadNothing) {
    FakeSources fake;
    auto settings = resolve_step_settings(step_with(std::nullopt), fake.sources(), {});
    EXPECT_EQ(settings.gpu_policy.policy, PolicyKind::none);
    EXPECT_FALSE(settings.distributed_env);
    EXPECT_TRUE(settings.env_changes.empty());
    EXPECT_EQ(fake.site_loads, 0);
}

TEST(StepSettings, PresetEnvBindingAndTrainingSwitch) {
    FakeSources fake;
    auto settings = resolve_step_settings(step_with("ddp"), fake.sources(), {});
    EXPECT_EQ(settings.applied, "ddp");
    EXPECT_EQ(to_string(settings.gpu_policy), "per-rank:1");
    EXPECT_TRUE(settings.distributed_env);
    std::vector<EnvChange> expected{{"NCCL_DEBUG", "INFO"}, {"OMP_NUM_THREADS", "4"}};
    EXPECT_EQ(settings.env_changes, expected);
}

TEST(StepSettings, DefaultsNeverOverrideWhatTheUserExported) {
    FakeSources fake;
    auto settings = resolve_step_settings(step_with("ddp", {{"NCCL_DEBUG", "TRACE"}}), fake.sources(), {});
    std::vector<EnvChange> expected{{"NCCL_DEBUG", "TRACE"}, {"OMP_NUM_THREADS", "4"}};
    EXPECT_EQ(settings.env_changes, expected);
}

TEST(StepSettings, OverrideWinsAndNullUnsets) {
    FakeSources fake;
    auto settings = resolve_step_settings(step_with("ddp,quiet", {{"NCCL_DEBUG", "TRACE"}, {"OMP_NUM_THREADS", "8"}}),
                                          fake.sources(), {});
    std::vector<EnvChange> expected{{"NCCL_DEBUG", "WARN"}, {"OMP_NUM_THREADS", std::nullopt}};
    EXPECT_EQ(settings.env_changes, expected);
    EXPECT_EQ(to_string(settings.gpu_policy), "per-rank:1");
}

TEST(StepSettings, LaterPresetsOverrideEarlierPresetsPolicy) {
    FakeSources fake;
    EXPECT_EQ(to_string(resolve_step_settings(step_with("ddp,ordered"), fake.sources(), {}).gpu_policy), "ordered");
}

TEST(StepSettings, OptionBeatsTheAppliedRecordWhichBringsAccountDefaults) {
    FakeSources fake;
    auto inputs = step_with(std::nullopt);
    inputs.applied_presets = "ordered";
    EXPECT_EQ(to_string(resolve_step_settings(inputs, fake.sources(), {}).gpu_policy), "ordered");
    inputs.preset_option = "ddp";
    EXPECT_EQ(to_string(resolve_step_settings(inputs, fake.sources(), {}).gpu_policy), "per-rank:1");
}

TEST(StepSettings, GpuPolicyOptionOverridesPresets) {
    FakeSources fake;
    auto inputs = step_with("ddp");
    inputs.gpu_policy_option = "round-robin";
    auto settings = resolve_step_settings(inputs, fake.sources(), {});
    EXPECT_EQ(to_string(settings.gpu_policy), "round-robin");
    EXPECT_TRUE(settings.distributed_env);
}

TEST(StepSettings, UserFilesComeFromTheCarriedText) {
    FakeSources fake;
    auto inputs = step_with("ddp,./mine.yaml");
    inputs.user_presets = fairway::presets::encode_user_presets({{"./mine.yaml", "gpu-binding: closest\n"}});
    EXPECT_EQ(to_string(resolve_step_settings(inputs, fake.sources(), {}).gpu_policy), "closest");
    inputs.user_presets.reset();
    EXPECT_THROW(resolve_step_settings(inputs, fake.sources(), {}), InputError);
    inputs.user_presets = "not base64 at all!";
    EXPECT_THROW(resolve_step_settings(inputs, fake.sources(), {}), InputError);
}

TEST(StepSettings, RefusedEnvNamesNeedTheSitesPermission) {
    FakeSources fake;
    auto inputs = step_with("./mine.yaml");
    inputs.user_presets = fairway::presets::encode_user_presets({{"./mine.yaml", "env: {LD_PRELOAD: /x.so}\n"}});
    EXPECT_THROW(resolve_step_settings(inputs, fake.sources(), {}), InputError);
    PluginConfig config;
    config.allow_env = {"LD_PRELOAD"};
    auto settings = resolve_step_settings(inputs, fake.sources(), config);
    EXPECT_EQ(settings.env_changes, (std::vector<EnvChange>{{"LD_PRELOAD", "/x.so"}}));
}

namespace {

// A step of `list` whose client carried what it resolved (and the user files it read).
StepPresetInputs carried_step(FakeSources& fake, const std::string& list, std::map<std::string, std::string> env = {}) {
    auto request = check_client_request(list, std::nullopt, fake.sources(), {});
    auto inputs = step_with(list, std::move(env));
    inputs.user_presets = request.user_presets;
    inputs.step_presets = request.step_presets;
    return inputs;
}

std::string describe(const StepSettings& settings) {
    std::string text =
        settings.applied + " " + to_string(settings.gpu_policy) + (settings.distributed_env ? " dist" : "");
    for (const auto& [name, value] : settings.env_changes) text += " " + name + "=" + value.value_or("<unset>");
    return text;
}

fairway::presets::EnvPolicy no_site_policy_expected() {
    ADD_FAILURE() << "presets.conf consulted for names the default policy allows";
    return {};
}

}  // namespace

TEST(CarriedStepSettings, EqualResolvingTheListInTheStep) {
    FakeSources fake;
    fake.user_files["./mine.yaml"] =
        "merge: replace\nenv: {NCCL_DEBUG: ~, EXTRA: \"a b,c:d\"}\ngpu-binding: ~\n---\nname: two\ndistributed-env: "
        "~\n";
    const std::map<std::string, std::string> exported{{"NCCL_DEBUG", "TRACE"}, {"OMP_NUM_THREADS", "8"}};
    for (const char* list : {"ddp", "ddp,quiet", "ddp,ordered", "quiet:replace,ddp", "ordered,ddp:override",
                             "ddp,./mine.yaml", "./mine.yaml:defaults,quiet"}) {
        for (const auto& env : {std::map<std::string, std::string>{}, exported}) {
            auto inputs = carried_step(fake, list, env);
            ASSERT_TRUE(inputs.step_presets.has_value()) << list;
            auto carried = carried_step_settings(inputs, no_site_policy_expected);
            ASSERT_TRUE(carried.has_value()) << list;
            EXPECT_EQ(describe(*carried), describe(resolve_step_settings(inputs, fake.sources(), {}))) << list;
        }
    }
}

TEST(CarriedStepSettings, ReadNoPresetFile) {
    FakeSources fake;
    auto inputs = carried_step(fake, "ddp,quiet");
    int loads_after_client = fake.site_loads;
    ASSERT_TRUE(carried_step_settings(inputs, no_site_policy_expected).has_value());
    EXPECT_EQ(fake.site_loads, loads_after_client);
}

TEST(CarriedStepSettings, OnlyForTheListTheStepResolves) {
    FakeSources fake;
    auto inputs = carried_step(fake, "ddp");
    inputs.preset_option = "ordered";  // e.g. inherited from an outer srun or sbatch
    EXPECT_EQ(carried_step_settings(inputs, no_site_policy_expected), std::nullopt);
    inputs.preset_option.reset();
    inputs.applied_presets = "ddp";  // job_submit's record, as in a batch step
    EXPECT_TRUE(carried_step_settings(inputs, no_site_policy_expected).has_value());
    inputs.applied_presets.reset();
    EXPECT_EQ(carried_step_settings(inputs, no_site_policy_expected), std::nullopt);
}

TEST(CarriedStepSettings, MalformedOrAbsentMeansResolveInTheStep) {
    FakeSources fake;
    auto inputs = carried_step(fake, "ddp");
    for (const char* bad : {"", "fw1", "fw2,L:ZGRw", "fw1,L:ZGRw,E:QQ==:Qg==", "fw1,L:ZGRw,P:ZGRw:sideways"}) {
        inputs.step_presets = bad;
        EXPECT_EQ(carried_step_settings(inputs, no_site_policy_expected), std::nullopt) << bad;
    }
    inputs.step_presets.reset();
    EXPECT_EQ(carried_step_settings(inputs, no_site_policy_expected), std::nullopt);
}

TEST(CarriedStepSettings, GpuPolicyOptionStillWins) {
    FakeSources fake;
    auto inputs = carried_step(fake, "ddp");
    inputs.gpu_policy_option = "round-robin";
    EXPECT_EQ(to_string(carried_step_settings(inputs, no_site_policy_expected)->gpu_policy), "round-robin");
    inputs.gpu_policy_option = "nearest";
    EXPECT_THROW(carried_step_settings(inputs, no_site_policy_expected), InputError);
}

// The user controls srun's environment, hence the carried text: a forged LD_PRELOAD must not pass
// unless the site allows it, exactly as if a preset file had said so.
TEST(CarriedStepSettings, RefusedEnvNamesNeedTheSitesPermission) {
    fairway::presets::Preset forged;
    forged.name = "ddp";
    forged.values.env["LD_PRELOAD"] = "/tmp/evil.so";
    forged.cleared_env.insert("SLURM_CPU_BIND");
    auto inputs = step_with("ddp");
    inputs.step_presets = fairway::presets::encode_step_presets("ddp", {{&forged, forged.strategy}});
    int site_reads = 0;
    auto site_allowing = [&site_reads](std::vector<std::string> allowed) {
        return [&site_reads, allowed] {
            ++site_reads;
            return fairway::presets::EnvPolicy{allowed};
        };
    };
    EXPECT_EQ(carried_step_settings(inputs, site_allowing({})), std::nullopt);
    EXPECT_EQ(carried_step_settings(inputs, site_allowing({"LD_PRELOAD"})), std::nullopt);  // SLURM_CPU_BIND
    auto allowed = carried_step_settings(inputs, site_allowing({"LD_PRELOAD", "SLURM_*"}));
    ASSERT_TRUE(allowed.has_value());
    EXPECT_EQ(describe(*allowed), "ddp none LD_PRELOAD=/tmp/evil.so SLURM_CPU_BIND=<unset>");
    EXPECT_EQ(site_reads, 3);  // once per call, not once per name
}

namespace {

// A step that names no preset and carries no record, whose srun resolved `account`'s defaults.
StepPresetInputs account_step(const std::string& account, const std::optional<std::string>& carried) {
    auto inputs = step_with(std::nullopt);
    inputs.account = account;
    inputs.step_presets = carried;
    inputs.applied_presets = carried_account_default(inputs.step_presets, inputs.account);
    return inputs;
}

}  // namespace

TEST(AccountDefaults, ResolvedOnceBySrunForTheStepsOfThatAccount) {
    FakeSources fake;
    auto carried = account_step_presets("physics", "ddp,quiet", fake.sources(), {});
    EXPECT_EQ(fake.site_loads, 1);
    auto inputs = account_step("physics", carried);
    ASSERT_EQ(inputs.applied_presets, "ddp,quiet");
    auto settings = carried_step_settings(inputs, no_site_policy_expected);
    ASSERT_TRUE(settings.has_value());
    EXPECT_EQ(describe(*settings), describe(resolve_step_settings(inputs, fake.sources(), {})));
    EXPECT_EQ(describe(*settings), "ddp,quiet per-rank:1 dist NCCL_DEBUG=WARN OMP_NUM_THREADS=<unset>");
}

TEST(AccountDefaults, NoDefaultsTravelAsAnEmptyListWithoutReadingTheSiteDirectory) {
    FakeSources fake;
    for (const std::optional<std::string>& none : {std::optional<std::string>{}, std::optional<std::string>{""}}) {
        auto carried = account_step_presets("biology", none, fake.sources(), {});
        EXPECT_EQ(carried_account_default(carried, "biology"), "");
    }
    EXPECT_EQ(fake.site_loads, 0);
}

// An inherited or forged value for another account says nothing about this one: the step looks
// its own account's defaults up, and does not use the value even when the lists happen to match.
TEST(AccountDefaults, OnlyForTheAccountTheyWereResolvedFor) {
    FakeSources fake;
    auto carried = account_step_presets("physics", "ddp", fake.sources(), {});
    EXPECT_EQ(carried_account_default(carried, "biology"), std::nullopt);
    EXPECT_EQ(carried_account_default(carried, std::nullopt), std::nullopt);
    auto inputs = account_step("biology", carried);
    EXPECT_EQ(inputs.applied_presets, std::nullopt);
    inputs.applied_presets = "ddp";  // biology's default, as presets.conf says
    EXPECT_EQ(carried_step_settings(inputs, no_site_policy_expected), std::nullopt);
    inputs.account = "physics";
    EXPECT_TRUE(carried_step_settings(inputs, no_site_policy_expected).has_value());
}

// What srun resolved for --preset, and job_submit for a batch job, is no account's default.
TEST(AccountDefaults, AResolutionOfANamedListIsNone) {
    FakeSources fake;
    auto request = check_client_request("ddp", std::nullopt, fake.sources(), {});
    EXPECT_EQ(carried_account_default(request.step_presets, "physics"), std::nullopt);
    EXPECT_EQ(carried_account_default("fw1,L:ZGRw,A:!!!!", "physics"), std::nullopt);
    EXPECT_EQ(carried_account_default(std::nullopt, "physics"), std::nullopt);
}
