#include <gtest/gtest.h>

#include <csignal>

#include "presets/loader.h"

namespace fairway::presets {
namespace {

const EnvPolicy kNoExtraEnv{};

Preset parse_one(const std::string& text) {
    auto presets = parse_presets(text, "site.yaml", kNoExtraEnv);
    EXPECT_EQ(presets.size(), 1u);
    return presets.at(0);
}

TEST(PresetLoader, ReadsEveryField) {
    auto preset = parse_one(R"(name: a100-train
description: four A100s for a day
merge: override
partition: gpu
qos: normal
time: 1-0
nodes: 2
ntasks-per-node: 4
gpus: a100:8
gpus-per-node: a100:4
gpus-per-task: 1
cpus-per-gpu: 8
mem-per-gpu: 16G
constraint: a100&ib
exclusive: true
env: {NCCL_IB_DISABLE: "0", NCCL_DEBUG: WARN}
gpu-binding: per-rank:1
distributed-env: yes
requeue: true
signal: USR1@120
)");
    EXPECT_EQ(preset.name, "a100-train");
    EXPECT_EQ(preset.description, "four A100s for a day");
    EXPECT_EQ(preset.strategy, MergeStrategy::override_);
    const auto& v = preset.values;
    EXPECT_EQ(v.partition, "gpu");
    EXPECT_EQ(v.qos, "normal");
    EXPECT_EQ(v.time, Seconds(86400));
    EXPECT_EQ(v.nodes, 2u);
    EXPECT_EQ(v.ntasks_per_node, 4u);
    EXPECT_EQ(v.gpus, (GpuCount{"a100", 8}));
    EXPECT_EQ(v.gpus_per_node, (GpuCount{"a100", 4}));
    EXPECT_EQ(v.gpus_per_task, (GpuCount{"", 1}));
    EXPECT_EQ(v.cpus_per_gpu, 8u);
    EXPECT_EQ(v.mem_per_gpu_mb, 16384u);
    EXPECT_EQ(v.constraint, "a100&ib");
    EXPECT_EQ(v.exclusive, true);
    EXPECT_EQ(v.env, (std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}, {"NCCL_IB_DISABLE", "0"}}));
    EXPECT_EQ(v.gpu_binding, (GpuBinding{GpuBindingPolicy::per_rank, 1}));
    EXPECT_EQ(v.distributed_env, true);
    EXPECT_EQ(v.requeue, true);
    EXPECT_EQ(v.signal, (WarnSignal{SIGUSR1, 120, false}));
    EXPECT_EQ(preset.origin.file, "site.yaml");
    EXPECT_EQ(preset.origin.line, 1);
}

TEST(PresetLoader, DefaultsAndNulls) {
    auto preset = parse_one("name: x\nqos: ~\nenv: {FOO: ~, BAR: baz}\ntime: infinite\n");
    EXPECT_EQ(preset.strategy, MergeStrategy::defaults);
    EXPECT_TRUE(preset.cleared.test(static_cast<std::size_t>(Field::qos)));
    EXPECT_FALSE(preset.values.qos);
    EXPECT_EQ(preset.cleared_env, (std::set<std::string>{"FOO"}));
    EXPECT_EQ(preset.values.env.at("BAR"), "baz");
    EXPECT_EQ(preset.values.time, Seconds::max());
}

TEST(PresetLoader, SeveralDocumentsPerFile) {
    auto presets = parse_presets("name: a\ngpus: 1\n---\nname: b\ngpus: 2\n---\n", "f.yaml", kNoExtraEnv);
    ASSERT_EQ(presets.size(), 2u);
    EXPECT_EQ(presets[0].name, "a");
    EXPECT_EQ(presets[1].name, "b");
    EXPECT_EQ(presets[1].origin.line, 4);
}

struct BadInput {
    const char* text;
    int line;
    const char* key;
    const char* message_part;
};

const BadInput kBadInputs[] = {
    {"name: x\ngpu: 4\n", 2, "gpu", "did you mean 'gpus'"},
    {"name: x\ngpus: four\n", 2, "gpus", "expected a GPU count"},
    {"name: x\ntime: soon\n", 2, "time", "expected a Slurm time"},
    {"name: x\ntime: 0\n", 2, "time", "invalid value"},
    {"name: x\nnodes: 0\n", 2, "nodes", "positive integer"},
    {"name: x\nnodes: [1, 2]\n", 2, "nodes", "single value"},
    {"name: x\nmerge: combine\n", 2, "merge", "defaults, override or replace"},
    {"name: x\nexclusive: maybe\n", 2, "exclusive", "true or false"},
    {"name: x\ngpu-binding: spread\n", 2, "gpu-binding", "per-rank:N"},
    {"name: x\nsignal: USR1@later\n", 2, "signal", "USR1@120"},
    {"name: x\nmem-per-gpu: lots\n", 2, "mem-per-gpu", "memory size"},
    {"name: x\nconstraint: \"a;b\"\n", 2, "constraint", "feature"},
    {"name: x\npartition: \"gpu debug\"\n", 2, "partition", "partition name"},
    {"name: x\nenv: [A]\n", 2, "env", "mapping"},
    {"name: x\nenv:\n  LD_PRELOAD: /tmp/evil.so\n", 3, "env.LD_PRELOAD", "LD_*"},
    {"name: x\nenv:\n  SLURM_JOB_ID: 1\n", 3, "env.SLURM_JOB_ID", "SLURM_*"},
    {"name: x\nenv:\n  1BAD: 1\n", 3, "env.1BAD", "not a valid"},
    {"name: x\nenv: {A: {b: c}}\n", 2, "env.A", "single value"},
    {"name: x\ngpus: 1\ngpus: 2\n", 3, "gpus", "given twice"},
    {"gpus: 4\n", 1, "name", "needs a name"},
    {"name: \"bad name\"\n", 1, "name", "invalid preset name"},
    {"- name: x\n", 1, "", "mapping"},
    {"name: x\n  gpus: [\n", 2, "", "not valid YAML"},
    {"name: a\n---\nname: a\n", 3, "name", "defined twice"},
};

class PresetLoaderErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(PresetLoaderErrors, NameFileLineAndKey) {
    const auto& bad = GetParam();
    try {
        parse_presets(bad.text, "site.yaml", kNoExtraEnv);
        FAIL() << "accepted: " << bad.text;
    } catch (const InputError& e) {
        EXPECT_EQ(e.where().file, "site.yaml");
        EXPECT_EQ(e.where().line, bad.line) << e.what();
        EXPECT_EQ(e.where().key, bad.key) << e.what();
        EXPECT_NE(std::string(e.what()).find(bad.message_part), std::string::npos) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Table, PresetLoaderErrors, ::testing::ValuesIn(kBadInputs));

TEST(PresetLoader, SiteMayAllowDeniedEnvNames) {
    EnvPolicy policy{{"LD_LIBRARY_PATH", "SLURM_CPU_*"}};
    auto presets = parse_presets("name: x\nenv: {LD_LIBRARY_PATH: /opt/nccl, SLURM_CPU_BIND: none}\n", "f", policy);
    EXPECT_EQ(presets.at(0).values.env.size(), 2u);
    EXPECT_THROW(parse_presets("name: x\nenv: {LD_PRELOAD: x}\n", "f", policy), InputError);
}

TEST(PresetLoader, UserFilesMayOmitTheName) {
    auto presets = parse_presets("gpus: 2\n", "./mine.yaml", kNoExtraEnv, false, "./mine.yaml");
    EXPECT_EQ(presets.at(0).name, "./mine.yaml");
}

TEST(PresetLoader, EmptyTextHasNoPresets) {
    EXPECT_TRUE(parse_presets("", "f", kNoExtraEnv).empty());
    EXPECT_TRUE(parse_presets("# only a comment\n", "f", kNoExtraEnv).empty());
}

TEST(PresetLoader, HostileTextIsAnErrorNotACrash) {
    std::string deep(5000, '[');
    EXPECT_THROW(parse_presets(deep, "f", kNoExtraEnv), InputError);
    EXPECT_THROW(parse_presets(std::string(300 * 1024, 'a'), "f", kNoExtraEnv), InputError);
    EXPECT_THROW(parse_presets("name: x\nenv: {A: \"a\\0b\"}\n", "f", kNoExtraEnv), InputError);
}

TEST(PresetLoader, RefusesControlCharactersAndBrokenUtf8BeforeYamlSeesThem) {
    // Found by tests/fuzz: yaml-cpp 0.7 never returns on this input.
    const std::string hang(",\0\0\200\0\0\0\002NULL\0\0\261\377\377\377\002Ru", 21);
    EXPECT_THROW(parse_presets(hang, "f", kNoExtraEnv), InputError);
    EXPECT_THROW(parse_site_config(hang, "f"), InputError);
    struct Case {
        std::string text;
        int line;
    };
    for (const auto& c : {Case{"name: x\ndescription: \x01\n", 2}, Case{"name: x\n\n\ndescription: \xc3\n", 4},
                          Case{"name: \xed\xa0\x80\n", 1}, Case{"name: \xc0\xaf\n", 1}, Case{"\x7f", 1}}) {
        try {
            parse_presets(c.text, "f", kNoExtraEnv);
            ADD_FAILURE() << "accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(e.where().line, c.line) << e.what();
        }
    }
    auto presets =
        parse_presets("name: x\r\ndescription: \"caf\xc3\xa9 \xf0\x9f\x9a\x80\"\t# note\r\n", "f", kNoExtraEnv);
    EXPECT_EQ(presets.at(0).description, "caf\xc3\xa9 \xf0\x9f\x9a\x80");
}

TEST(PresetLoader, StrayCommaIsAnErrorNotAnEndlessLoop) {
    // Found by tests/fuzz: yaml-cpp 0.7's LoadAll never returns on these.
    for (const char* text : {",", "\n,", "# c\n,", "name: a\n---\n,", "\"x\"\n,", "name: a\n...\n,"}) {
        try {
            parse_presets(text, "f.yaml", kNoExtraEnv);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const InputError& e) {
            EXPECT_EQ(e.where().file, "f.yaml");
        }
    }
}

TEST(SiteConfig, ParsesEveryKey) {
    auto config = parse_site_config(R"(presets_dir: /srv/presets
allow_env: [LD_LIBRARY_PATH, "NCCL_*"]
max_user_preset_bytes: 8192
account_defaults:
  physics: a100-train
  biology: "cpu-small,nccl-ib:override"
)",
                                    "presets.conf");
    EXPECT_EQ(config.presets_dir, "/srv/presets");
    EXPECT_EQ(config.allow_env, (std::vector<std::string>{"LD_LIBRARY_PATH", "NCCL_*"}));
    EXPECT_EQ(config.max_user_preset_bytes, 8192u);
    EXPECT_EQ(config.account_defaults.at("biology"), "cpu-small,nccl-ib:override");
    EXPECT_EQ(parse_site_config("", "c").presets_dir, "/etc/slurm/fairway/presets.d");
}

TEST(SiteConfig, ErrorsNameLineAndKey) {
    struct Case {
        const char* text;
        int line;
        const char* key;
    };
    for (const auto& c :
         {Case{"presets_dir: relative\n", 1, "presets_dir"}, Case{"presets_dir: /x\npresetsdir: /y\n", 2, "presetsdir"},
          Case{"account_defaults:\n  physics: ./mine.yaml\n", 2, "account_defaults.physics"},
          Case{"account_defaults:\n  physics: \"a,,b\"\n", 2, "account_defaults.physics"},
          Case{"allow_env: [\"1X\"]\n", 1, "allow_env"},
          Case{"max_user_preset_bytes: 0\n", 1, "max_user_preset_bytes"}}) {
        try {
            parse_site_config(c.text, "presets.conf");
            ADD_FAILURE() << "accepted: " << c.text;
        } catch (const InputError& e) {
            EXPECT_EQ(e.where().file, "presets.conf") << e.what();
            EXPECT_EQ(e.where().line, c.line) << e.what();
            EXPECT_EQ(e.where().key, c.key) << e.what();
        }
    }
}

}  // namespace
}  // namespace fairway::presets
