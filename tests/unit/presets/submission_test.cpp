// What job_submit/fairway decides, without slurmctld: preset choice, account defaults, user files,
// site errors; and the TRES text it writes.
#include <gtest/gtest.h>

#include "presets/carried.h"
#include "presets/slurm_tres.h"
#include "presets/submission.h"

namespace fairway::presets {
namespace {

SitePresets make_site() {
    SitePresets site;
    site.catalog =
        PresetCatalog(parse_presets("name: a100-train\npartition: gpu\ngpus: a100:4\ntime: 1-0\n"
                                    "---\nname: debug\nmerge: override\npartition: debug\n",
                                    "site.yaml", EnvPolicy{}));
    site.config.account_defaults = {{"physics", "a100-train"}};
    return site;
}

TEST(Submission, NoPresetNoDefaultLeavesTheJobAlone) {
    Submission submission;
    submission.account = "biology";
    EXPECT_FALSE(apply_presets_to_submission(make_site(), submission));
}

TEST(Submission, NamedPresetsApplyWithTheirStrategies) {
    Submission submission;
    submission.job.partition = "other";
    submission.preset_option = "a100-train,debug";
    auto applied = apply_presets_to_submission(make_site(), submission);
    ASSERT_TRUE(applied);
    EXPECT_EQ(applied->request.partition, "debug");  // override beats the job
    EXPECT_EQ(applied->request.gpus, (GpuCount{"a100", 4}));
    EXPECT_EQ(applied->applied, "a100-train,debug");
    EXPECT_EQ(applied->source, "--preset");
    EXPECT_EQ(preset_record(*applied), "fairway-presets=a100-train,debug");
}

TEST(Submission, AccountDefaultAppliesOnlyWhenNoneIsNamed) {
    Submission submission;
    submission.account = "physics";
    auto applied = apply_presets_to_submission(make_site(), submission);
    ASSERT_TRUE(applied);
    EXPECT_EQ(applied->applied, "a100-train");
    EXPECT_EQ(applied->source, "account default (physics)");
    submission.preset_option = "debug";
    EXPECT_EQ(apply_presets_to_submission(make_site(), submission)->applied, "debug");
}

// The steps' resolution is keyed by the list the steps apply: the --preset text as typed (strategy
// suffixes included), else the record; it carries the step fields only.
TEST(Submission, StepResolutionForTheListTheStepsApply) {
    SitePresets site = make_site();
    site.catalog =
        PresetCatalog(parse_presets("name: ddp\nenv: {NCCL_DEBUG: WARN}\ndistributed-env: true\n"
                                    "---\nname: quiet\nenv: {NCCL_DEBUG: ~}\n",
                                    "site.yaml", EnvPolicy{}));
    site.config.account_defaults = {{"physics", "ddp"}};
    Submission submission;
    submission.account = "physics";
    auto by_default = apply_presets_to_submission(site, submission);
    ASSERT_TRUE(by_default && by_default->step_presets);
    auto carried = decode_step_presets(*by_default->step_presets);
    EXPECT_EQ(carried.preset_list, "ddp");
    ASSERT_EQ(carried.presets.size(), 1U);
    EXPECT_EQ(carried.presets[0].values.env.at("NCCL_DEBUG"), "WARN");
    EXPECT_EQ(carried.presets[0].values.distributed_env, true);

    submission.preset_option = "ddp,quiet:override";
    carried = decode_step_presets(*apply_presets_to_submission(site, submission)->step_presets);
    EXPECT_EQ(carried.preset_list, "ddp,quiet:override");
    ASSERT_EQ(carried.presets.size(), 2U);
    EXPECT_EQ(carried.presets[1].strategy, MergeStrategy::override_);
    EXPECT_EQ(carried.presets[1].cleared_env, std::set<std::string>{"NCCL_DEBUG"});
}

TEST(Submission, UserFilesTravelEncoded) {
    Submission submission;
    submission.preset_option = "./mine.yaml:override";
    submission.user_presets_encoded = encode_user_presets({{"./mine.yaml", "qos: high\n"}});
    auto applied = apply_presets_to_submission(make_site(), submission);
    ASSERT_TRUE(applied);
    EXPECT_EQ(applied->request.qos, "high");
    EXPECT_EQ(applied->applied, ".../mine.yaml");  // the record names files, not paths
}

TEST(Submission, ErrorsAreClear) {
    Submission submission;
    submission.preset_option = "a100-trian";
    EXPECT_THROW(apply_presets_to_submission(make_site(), submission), InputError);
    submission.preset_option = "./mine.yaml";
    submission.user_presets_encoded = "garbage";
    EXPECT_THROW(apply_presets_to_submission(make_site(), submission), InputError);
    submission.user_presets_encoded = encode_user_presets({{"./mine.yaml", "env: {LD_PRELOAD: x}\n"}});
    try {
        apply_presets_to_submission(make_site(), submission);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("./mine.yaml:1: key 'env.LD_PRELOAD'"), std::string::npos) << e.what();
    }
}

TEST(Submission, BrokenSiteBlocksOnlyJobsThatNeedIt) {
    SitePresets broken;
    broken.load_error = "/etc/x/a.yaml:3: key 'gpus': invalid value";
    Submission submission;
    submission.account = "physics";
    EXPECT_FALSE(apply_presets_to_submission(broken, submission));
    submission.preset_option = "a100-train";
    try {
        apply_presets_to_submission(broken, submission);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("site presets unavailable: /etc/x/a.yaml:3"), std::string::npos);
    }
    submission.preset_option = "./mine.yaml";
    submission.user_presets_encoded = encode_user_presets({{"./mine.yaml", "gpus: 1\n"}});
    EXPECT_TRUE(apply_presets_to_submission(broken, submission));
}

TEST(SlurmTres, ReadsGpuEntries) {
    EXPECT_EQ(gpus_in_tres("gres:gpu:a100:4"), (GpuCount{"a100", 4}));
    EXPECT_EQ(gpus_in_tres("gres:mps:10,gres:gpu:2"), (GpuCount{"", 2}));
    EXPECT_EQ(gpus_in_tres("gres:gpu"), (GpuCount{"", 1}));
    EXPECT_EQ(gpus_in_tres("gres:gpu:h100"), (GpuCount{"h100", 1}));
    EXPECT_FALSE(gpus_in_tres("gres:gpudirect:1"));
    EXPECT_FALSE(gpus_in_tres(""));
    EXPECT_TRUE(has_gpu_entry("gres:gpu:a100:x"));
    EXPECT_FALSE(gpus_in_tres("gres:gpu:a100:x"));
}

TEST(SlurmTres, WritesGpuEntriesKeepingOthers) {
    EXPECT_EQ(with_gpus_in_tres("", GpuCount{"a100", 4}), "gres:gpu:a100:4");
    EXPECT_EQ(with_gpus_in_tres("gres:mps:10,gres:gpu:2", GpuCount{"", 8}), "gres:mps:10,gres:gpu:8");
    EXPECT_EQ(with_gpus_in_tres("gres:gpu:2,gres:mps:10", std::nullopt), "gres:mps:10");
    EXPECT_EQ(with_gpus_in_tres("gres:gpu:2", std::nullopt), "");
    EXPECT_EQ(with_per_gpu_amount_in_tres("", 8), "gres:gpu:8");
    EXPECT_EQ(per_gpu_amount_in_tres("gres:gpu:16384"), 16384u);
    EXPECT_EQ(with_per_gpu_amount_in_tres("gres:gpu:8", std::nullopt), "");
}

TEST(Plugstack, FindsThePresetsDirectory) {
    EXPECT_EQ(presets_dir_from_plugstack(
                  "# c\noptional /usr/lib/slurm/spank_fairway.so presets_dir=/srv/p master_port_range=1-2\n"),
              "/srv/p");
    EXPECT_EQ(presets_dir_from_plugstack("required spank_fairway.so  presets_dir=/x # note\n"), "/x");
    EXPECT_FALSE(presets_dir_from_plugstack("optional /usr/lib/spank_other.so presets_dir=/x\n"));
    EXPECT_FALSE(presets_dir_from_plugstack("# optional spank_fairway.so presets_dir=/x\n"));
    EXPECT_FALSE(presets_dir_from_plugstack("optional spank_fairway.so\n"));
    EXPECT_EQ(site_config_path_for("/etc/slurm/slurm.conf"), "/etc/slurm/fairway/presets.conf");
    EXPECT_EQ(site_config_path_for("slurm.conf"), "./fairway/presets.conf");
}

}  // namespace
}  // namespace fairway::presets
