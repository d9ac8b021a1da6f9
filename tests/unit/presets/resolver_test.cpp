#include <gtest/gtest.h>

#include "presets/resolver.h"

namespace fairway::presets {
namespace {

PresetCatalog make_catalog() {
    return PresetCatalog(
        parse_presets("name: a100-train\ngpus: a100:4\n---\nname: nccl-ib\nenv: {NCCL_IB_DISABLE: \"0\"}\n"
                      "---\nname: cpu-small\nmerge: override\nnodes: 1\n",
                      "site.yaml", EnvPolicy{}));
}

TEST(PresetList, ParsesNamesPathsAndStrategies) {
    auto refs = parse_preset_list("a100,nccl-ib:override,./mine.yaml,/abs/x.yaml:replace,odd:name.yaml/x:y");
    ASSERT_EQ(refs.size(), 5u);
    EXPECT_EQ(refs[0], (PresetRef{"a100", std::nullopt}));
    EXPECT_EQ(refs[1], (PresetRef{"nccl-ib", MergeStrategy::override_}));
    EXPECT_TRUE(refs[2].is_path());
    EXPECT_EQ(refs[3], (PresetRef{"/abs/x.yaml", MergeStrategy::replace}));
    EXPECT_EQ(refs[4].name, "odd:name.yaml/x:y");
}

TEST(PresetList, RejectsMalformedLists) {
    for (const char* bad : {"", "a,,b", "a,", "bad name", "a:merge", ":override"})
        EXPECT_THROW(parse_preset_list(bad), InputError) << bad;
    std::string many;
    for (int i = 0; i < 17; ++i) many += (i ? ",p" : "p") + std::to_string(i);
    EXPECT_THROW(parse_preset_list(many), InputError);
}

TEST(PresetResolver, ResolvesInOrderWithStrategies) {
    auto catalog = make_catalog();
    PresetResolver resolver(catalog, EnvPolicy{});
    auto applied = resolver.resolve("nccl-ib,a100-train:replace,cpu-small");
    ASSERT_EQ(applied.size(), 3u);
    EXPECT_EQ(applied[0].preset->name, "nccl-ib");
    EXPECT_EQ(applied[1].strategy, MergeStrategy::replace);
    EXPECT_EQ(applied[2].strategy, MergeStrategy::override_);
    EXPECT_EQ(describe_applied(applied), "nccl-ib,a100-train,cpu-small");
}

TEST(PresetResolver, UnknownNameListsAvailableAndNearest) {
    auto catalog = make_catalog();
    PresetResolver resolver(catalog, EnvPolicy{});
    try {
        resolver.resolve("a100-trian");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.where().key, "preset");
        EXPECT_STREQ(e.what(),
                     "key 'preset': unknown preset 'a100-trian'; did you mean 'a100-train'? "
                     "available: a100-train, cpu-small, nccl-ib");
    }
    try {
        resolver.resolve("zzzzzzzzzzzzzz");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
    }
}

TEST(PresetResolver, UserFilesAreParsedAndNamedAfterThePath) {
    auto catalog = make_catalog();
    PresetResolver resolver(catalog, EnvPolicy{});
    resolver.add_user_file("./mine.yaml", "gpus: 2\n---\nname: a100-train\ntime: 60\n");
    auto applied = resolver.resolve("./mine.yaml:override");
    ASSERT_EQ(applied.size(), 2u);
    EXPECT_EQ(applied[0].preset->name, "./mine.yaml");
    EXPECT_EQ(applied[1].preset->name, "./mine.yaml#a100-train");
    EXPECT_EQ(applied[1].strategy, MergeStrategy::override_);
    EXPECT_THROW(resolver.resolve("./other.yaml"), InputError);
}

TEST(PresetResolver, UserFilesObeyLimitsAndEnvPolicy) {
    auto catalog = make_catalog();
    PresetResolver resolver(catalog, EnvPolicy{}, 64);
    EXPECT_THROW(resolver.add_user_file("./big.yaml", std::string(65, '#')), InputError);
    try {
        resolver.add_user_file("./evil.yaml", "env:\n  LD_PRELOAD: /tmp/x.so\n");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.where().file, "./evil.yaml");
        EXPECT_EQ(e.where().line, 2);
        EXPECT_EQ(e.where().key, "env.LD_PRELOAD");
    }
}

TEST(EditDistance, Basics) {
    EXPECT_EQ(edit_distance("", ""), 0u);
    EXPECT_EQ(edit_distance("a100", "a10"), 1u);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
    EXPECT_EQ(nearest_name("nccl", {"nccl-ib", "a100"}), "nccl-ib");
    EXPECT_FALSE(nearest_name("x", {}));
}

}  // namespace
}  // namespace fairway::presets
