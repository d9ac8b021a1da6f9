// Every merge strategy against every field kind: the table in README.md and fairway-presets(5),
// checked field by field.
#include <gtest/gtest.h>

#include "presets/preset.h"

namespace fairway::presets {
namespace {

// Three distinct values per field; `variant` 1 = the job's, 2 and 3 = presets'.
void set_sample(JobRequest& r, Field field, int variant) {
    const auto n = static_cast<std::uint32_t>(variant);
    const std::string s = "v" + std::to_string(variant);
    switch (field) {
    case Field::partition: r.partition = s; break;
    case Field::qos: r.qos = s; break;
    case Field::time: r.time = Seconds(60 * variant); break;
    case Field::nodes: r.nodes = n; break;
    case Field::ntasks_per_node: r.ntasks_per_node = n; break;
    case Field::gpus: r.gpus = GpuCount{s, n}; break;
    case Field::gpus_per_node: r.gpus_per_node = GpuCount{"", n}; break;
    case Field::gpus_per_task: r.gpus_per_task = GpuCount{s, n}; break;
    case Field::cpus_per_gpu: r.cpus_per_gpu = n; break;
    case Field::mem_per_gpu: r.mem_per_gpu_mb = 1000 * n; break;
    case Field::constraint: r.constraint = s; break;
    case Field::exclusive: r.exclusive = variant % 2 == 1; break;
    case Field::env: r.env["X"] = s; break;
    case Field::gpu_binding: r.gpu_binding = GpuBinding{GpuBindingPolicy::per_rank, n}; break;
    case Field::distributed_env: r.distributed_env = variant % 2 == 1; break;
    case Field::requeue: r.requeue = variant % 2 == 0; break;
    case Field::signal: r.signal = WarnSignal{10, static_cast<std::uint16_t>(variant * 30), false}; break;
    }
}

JobRequest sample(Field field, int variant) {
    JobRequest r;
    set_sample(r, field, variant);
    return r;
}

void set_null(Preset& p, Field field) {
    if (field == Field::env) p.cleared_env.insert("X");
    else p.cleared.set(static_cast<std::size_t>(field));
}

enum class Job { unset, set };
enum class Given { absent, value, null };
enum class Result { unset, job, preset };

struct Row {
    MergeStrategy strategy;
    Job job;
    Given given;
    Result expected;
};

using S = MergeStrategy;
const Row kSinglePresetTable[] = {
    {S::defaults, Job::unset, Given::absent, Result::unset},  {S::defaults, Job::unset, Given::value, Result::preset},
    {S::defaults, Job::unset, Given::null, Result::unset},    {S::defaults, Job::set, Given::absent, Result::job},
    {S::defaults, Job::set, Given::value, Result::job},       {S::defaults, Job::set, Given::null, Result::job},
    {S::override_, Job::unset, Given::absent, Result::unset}, {S::override_, Job::unset, Given::value, Result::preset},
    {S::override_, Job::unset, Given::null, Result::unset},   {S::override_, Job::set, Given::absent, Result::job},
    {S::override_, Job::set, Given::value, Result::preset},   {S::override_, Job::set, Given::null, Result::unset},
    {S::replace, Job::unset, Given::absent, Result::unset},   {S::replace, Job::unset, Given::value, Result::preset},
    {S::replace, Job::unset, Given::null, Result::unset},     {S::replace, Job::set, Given::absent, Result::unset},
    {S::replace, Job::set, Given::value, Result::preset},     {S::replace, Job::set, Given::null, Result::unset},
};

class SinglePresetMerge : public ::testing::TestWithParam<std::tuple<Row, Field>> {};

TEST_P(SinglePresetMerge, FollowsTheStrategyTable) {
    const auto& [row, field] = GetParam();
    JobRequest job;
    if (row.job == Job::set) set_sample(job, field, 1);
    Preset preset;
    preset.strategy = row.strategy;
    if (row.given == Given::value) set_sample(preset.values, field, 2);
    if (row.given == Given::null) set_null(preset, field);

    const JobRequest expected = row.expected == Result::unset ? JobRequest{}
                                : row.expected == Result::job ? sample(field, 1)
                                                              : sample(field, 2);
    EXPECT_EQ(merge_preset(job, preset), expected) << strategy_name(row.strategy) << " " << field_key(field);
}

INSTANTIATE_TEST_SUITE_P(EveryStrategyAndField, SinglePresetMerge,
                         ::testing::Combine(::testing::ValuesIn(kSinglePresetTable),
                                            ::testing::ValuesIn(all_fields())));

// Two presets in a row: later presets override earlier presets, `defaults` never the job.
struct ChainRow {
    const char* what;
    Job job;
    S first;
    Given first_given;
    S second;
    Given second_given;
    int expected_variant;  // 0 unset, 1 job, 2 first preset, 3 second preset
};

const ChainRow kChainTable[] = {
    {"later defaults beats earlier defaults", Job::unset, S::defaults, Given::value, S::defaults, Given::value, 3},
    {"the job beats both defaults", Job::set, S::defaults, Given::value, S::defaults, Given::value, 1},
    {"earlier value kept when later absent", Job::unset, S::defaults, Given::value, S::defaults, Given::absent, 2},
    {"defaults null unsets an earlier preset's value", Job::unset, S::override_, Given::value, S::defaults, Given::null,
     0},
    {"defaults null leaves the job's value", Job::set, S::defaults, Given::absent, S::defaults, Given::null, 1},
    {"after override, later defaults may set", Job::set, S::override_, Given::value, S::defaults, Given::value, 3},
    {"after override null, later defaults may set", Job::set, S::override_, Given::null, S::defaults, Given::value, 3},
    {"after replace, later defaults may set", Job::set, S::replace, Given::absent, S::defaults, Given::value, 3},
    {"replace drops an earlier preset's value", Job::unset, S::defaults, Given::value, S::replace, Given::absent, 0},
    {"override after override", Job::set, S::override_, Given::value, S::override_, Given::value, 3},
    {"override null after defaults", Job::unset, S::defaults, Given::value, S::override_, Given::null, 0},
};

class TwoPresetMerge : public ::testing::TestWithParam<std::tuple<ChainRow, Field>> {};

TEST_P(TwoPresetMerge, ComposesLeftToRight) {
    const auto& [row, field] = GetParam();
    JobRequest job;
    if (row.job == Job::set) set_sample(job, field, 1);
    Preset first, second;
    if (row.first_given == Given::value) set_sample(first.values, field, 2);
    if (row.first_given == Given::null) set_null(first, field);
    if (row.second_given == Given::value) set_sample(second.values, field, 3);
    if (row.second_given == Given::null) set_null(second, field);

    auto merged = merge_presets(job, {{&first, row.first}, {&second, row.second}});
    const JobRequest expected = row.expected_variant == 0 ? JobRequest{} : sample(field, row.expected_variant);
    EXPECT_EQ(merged, expected) << row.what << " / " << field_key(field);
}

INSTANTIATE_TEST_SUITE_P(EveryChainAndField, TwoPresetMerge,
                         ::testing::Combine(::testing::ValuesIn(kChainTable), ::testing::ValuesIn(all_fields())));

TEST(PresetMerge, EnvMergesPerName) {
    JobRequest job;
    job.env = {{"A", "job"}, {"B", "job"}};
    Preset preset;
    preset.values.env = {{"B", "preset"}, {"C", "preset"}};
    preset.cleared_env = {"A"};

    preset.strategy = S::defaults;
    EXPECT_EQ(merge_preset(job, preset).env,
              (std::map<std::string, std::string>{{"A", "job"}, {"B", "job"}, {"C", "preset"}}));
    preset.strategy = S::override_;
    EXPECT_EQ(merge_preset(job, preset).env, (std::map<std::string, std::string>{{"B", "preset"}, {"C", "preset"}}));
    preset.strategy = S::replace;
    EXPECT_EQ(merge_preset(job, preset).env, (std::map<std::string, std::string>{{"B", "preset"}, {"C", "preset"}}));
}

TEST(PresetMerge, ReplaceDropsFieldsThePresetLeavesOut) {
    JobRequest job;
    job.partition = "debug";
    job.nodes = 2;
    Preset preset;
    preset.strategy = S::replace;
    preset.values.gpus = GpuCount{"a100", 4};
    JobRequest expected;
    expected.gpus = GpuCount{"a100", 4};
    EXPECT_EQ(merge_preset(job, preset), expected);
}

TEST(PresetMerge, AppliedStrategyOverridesThePresetsOwn) {
    JobRequest job;
    job.partition = "debug";
    Preset preset;
    preset.strategy = S::defaults;
    preset.values.partition = "gpu";
    EXPECT_EQ(merge_presets(job, {{&preset, S::override_}}).partition, "gpu");
    EXPECT_EQ(merge_presets(job, {{&preset, S::defaults}}).partition, "debug");
}

TEST(PresetMerge, NoPresetsLeavesTheJobAlone) {
    JobRequest job;
    job.qos = "high";
    job.env["X"] = "1";
    EXPECT_EQ(merge_presets(job, {}), job);
    EXPECT_TRUE(changed_fields(job, merge_presets(job, {})).none());
}

TEST(PresetMerge, ChangedFieldsNamesExactlyWhatDiffers) {
    JobRequest before, after;
    before.time = Seconds(60);
    after.time = Seconds(120);
    after.env["X"] = "1";
    auto changed = changed_fields(before, after);
    EXPECT_EQ(changed.count(), 2u);
    EXPECT_TRUE(changed.test(static_cast<std::size_t>(Field::time)));
    EXPECT_TRUE(changed.test(static_cast<std::size_t>(Field::env)));
}

TEST(PresetMerge, StrategyNamesRoundTrip) {
    for (auto s : {S::defaults, S::override_, S::replace}) EXPECT_EQ(strategy_from_name(strategy_name(s)), s);
    EXPECT_FALSE(strategy_from_name("merge"));
}

}  // namespace
}  // namespace fairway::presets

namespace fairway::presets {
namespace {

// The table of examples in fairway-presets(5) and libfairway/presets/README.md, row by row.
struct DocExample {
    const char* row;
    std::optional<long> job_time_min;
    std::vector<std::tuple<std::optional<long>, bool /*null*/, MergeStrategy>> presets;
    std::optional<long> expected_min;
};

TEST(PresetMerge, DocumentedExamples) {
    using S = MergeStrategy;
    const std::vector<DocExample> rows = {
        {"fills unset", std::nullopt, {{60, false, S::defaults}}, 60},
        {"never overrides the user", 5, {{60, false, S::defaults}}, 5},
        {"override wins", 5, {{60, false, S::override_}}, 60},
        {"replace", 5, {{60, false, S::replace}}, 60},
        {"later preset wins", std::nullopt, {{60, false, S::defaults}, {90, false, S::defaults}}, 90},
        {"but not over the user", 5, {{60, false, S::defaults}, {90, false, S::defaults}}, 5},
        {"null under override deletes", 5, {{std::nullopt, true, S::override_}}, std::nullopt},
        {"null under defaults keeps the user's", 5, {{std::nullopt, true, S::defaults}}, 5},
        {"null under defaults deletes a preset's",
         std::nullopt,
         {{60, false, S::defaults}, {std::nullopt, true, S::defaults}},
         std::nullopt},
        {"after override no longer the user's", 5, {{60, false, S::override_}, {90, false, S::defaults}}, 90},
    };
    for (const auto& row : rows) {
        JobRequest job;
        if (row.job_time_min) job.time = Seconds(*row.job_time_min * 60);
        std::vector<Preset> presets(row.presets.size());
        std::vector<AppliedPreset> applied;
        for (std::size_t i = 0; i < row.presets.size(); ++i) {
            const auto& [minutes, null, strategy] = row.presets[i];
            if (minutes) presets[i].values.time = Seconds(*minutes * 60);
            if (null) presets[i].cleared.set(static_cast<std::size_t>(Field::time));
            applied.push_back({&presets[i], strategy});
        }
        std::optional<Seconds> expected;
        if (row.expected_min) expected = Seconds(*row.expected_min * 60);
        EXPECT_EQ(merge_presets(job, applied).time, expected) << row.row;
    }
    JobRequest job;  // replace drops what the preset leaves out
    job.time = Seconds(300);
    job.qos = "x";
    Preset p;
    p.values.time = Seconds(3600);
    auto merged = merge_presets(job, {{&p, S::replace}});
    EXPECT_EQ(merged.time, Seconds(3600));
    EXPECT_FALSE(merged.qos);
    job = {};  // env merges per name
    job.env = {{"A", "1"}};
    p = {};
    p.values.env = {{"A", "2"}, {"B", "3"}};
    EXPECT_EQ(merge_preset(job, p).env, (std::map<std::string, std::string>{{"A", "1"}, {"B", "3"}}));
}

}  // namespace
}  // namespace fairway::presets
