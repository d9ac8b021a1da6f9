// What one submission may cost slurmctld: every user file is parsed once under a budget checked
// while it is read, and what the presets produce (applied list, merged environment, record) is
// bounded as it is produced. Each refusal names the budget, the file, the line and the key.
#include <gtest/gtest.h>

#include "presets/carried.h"
#include "presets/reference.h"
#include "presets/submission.h"

namespace fairway::presets {
namespace {

const EnvPolicy kNoExtraEnv{};

std::vector<Preset> parse_user(const std::string& text, const std::string& path = "./mine.yaml") {
    return parse_presets(text, path, kNoExtraEnv, false, path, kUserFileBudget);
}

// The InputError `parse` throws; a failure when it throws none.
template <class F>
InputError refusal_of(F&& parse) {
    try {
        parse();
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "accepted";
    return InputError({}, "");
}

std::string repeated(const std::string& piece, std::size_t times) {
    std::string text;
    for (std::size_t i = 0; i < times; ++i) text += piece;
    return text;
}

TEST(PresetBudget, AliasesAreRefusedWhereTheyAre) {
    // 15 KB of text, 128 aliases of 4 KB, once expanded to tens of megabytes by a merge; the same
    // shape within today's size limit: 64 aliases of 3 KB.
    std::string text = "description: &long \"" + std::string(3000, 'x') + "\"\nenv:\n";
    for (int i = 0; i < 64; ++i) text += "  V" + std::to_string(i) + ": *long\n";
    auto error = refusal_of([&] { parse_user(text); });
    EXPECT_EQ(error.where().file, "./mine.yaml");
    EXPECT_EQ(error.where().line, 3);
    EXPECT_NE(std::string(error.what()).find("aliases"), std::string::npos) << error.what();
    // Site files too: one rule for every preset file.
    EXPECT_THROW(parse_presets("name: a\ndescription: &d x\n---\nname: b\ndescription: *d\n", "s.yaml", kNoExtraEnv),
                 InputError);
    // An anchor alone copies nothing.
    EXPECT_EQ(parse_user("description: &d x\n").at(0).description, "x");
}

TEST(PresetBudget, DocumentsPerUserFile) {
    EXPECT_EQ(parse_user(repeated("---\n", 16)).size(), 0u);
    auto error = refusal_of([&] { parse_user(repeated("--- {}\n", 17)); });
    EXPECT_EQ(error.where().file, "./mine.yaml");
    EXPECT_EQ(error.where().line, 17);
    EXPECT_NE(std::string(error.what()).find("more than 16 YAML documents (user preset budget)"), std::string::npos)
        << error.what();
}

TEST(PresetBudget, StructuralCharactersAreCountedBeforeYamlCppSeesTheText) {
    // 16 KiB of "env: [a,a,...]" cost slurmctld tens of milliseconds in yaml-cpp; 4 KiB here.
    std::string text = "env: [" + repeated("a,", 2000) + "a]\n";
    auto error = refusal_of([&] { parse_user(text); });
    EXPECT_EQ(error.where().line, 0);
    EXPECT_NE(std::string(error.what()).find("structural characters"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("user preset budget"), std::string::npos) << error.what();
    EXPECT_EQ(count_structural_characters("a: [b, c]\n"), 5u);
}

TEST(PresetBudget, ValuesAreCountedAsYamlCppProducesThem) {
    // 270 values need only 271 structural characters.
    std::string text = "\n\nenv: [" + repeated("a,", 269) + "a]\n";
    auto error = refusal_of([&] { parse_user(text); });
    EXPECT_EQ(error.where().line, 3);
    EXPECT_NE(std::string(error.what()).find("more than 256 YAML values (user preset budget)"), std::string::npos)
        << error.what();
}

TEST(PresetBudget, NestingIsBounded) {
    auto error = refusal_of([&] { parse_user("env: " + std::string(40, '[') + std::string(40, ']') + "\n"); });
    EXPECT_NE(std::string(error.what()).find("nested more than 16 deep"), std::string::npos) << error.what();
    // "- - - x" nests block lists on one line.
    EXPECT_THROW(parse_user(repeated("- ", 30) + "x\n"), InputError);
}

TEST(PresetBudget, UserTextOverTheSitesByteLimit) {
    PresetCatalog catalog;
    PresetResolver resolver(catalog, kNoExtraEnv, 100);
    auto error = refusal_of([&] { resolver.add_user_file("./big.yaml", "description: " + std::string(100, 'x')); });
    EXPECT_EQ(error.where().file, "./big.yaml");
    EXPECT_NE(std::string(error.what()).find("more than 100 (user preset budget)"), std::string::npos) << error.what();
}

TEST(PresetBudget, APresetNamedTwiceIsRefused) {
    PresetCatalog catalog(parse_presets("name: a\ntime: 5\n---\nname: b\ntime: 6\n", "site.yaml", kNoExtraEnv));
    PresetResolver resolver(catalog, kNoExtraEnv);
    resolver.add_user_file("./x.yaml", "time: 7\n");
    for (const char* list : {"a,b,a", "a,b,a:override", "./x.yaml,./x.yaml"}) {
        auto error = refusal_of([&] { resolver.resolve(list); });
        EXPECT_NE(std::string(error.what()).find("named twice in one list"), std::string::npos) << error.what();
    }
    EXPECT_EQ(resolver.resolve("a,b,./x.yaml").size(), 3u);
}

TEST(PresetBudget, AtMost16PresetsPerSubmission) {
    PresetCatalog catalog(parse_presets("name: a\ntime: 5\n", "site.yaml", kNoExtraEnv));
    PresetResolver resolver(catalog, kNoExtraEnv);
    resolver.add_user_file("./many.yaml", repeated("--- {time: 5}\n", 16));
    EXPECT_EQ(resolver.resolve("./many.yaml").size(), 16u);
    auto error = refusal_of([&] { resolver.resolve("./many.yaml,a"); });
    EXPECT_EQ(error.where().file, "site.yaml");
    EXPECT_EQ(error.where().line, 1);
    EXPECT_NE(std::string(error.what()).find("more than 16 presets in one submission (applied presets budget)"),
              std::string::npos)
        << error.what();
}

TEST(PresetBudget, TheMergedEnvironmentIsBoundedWhereItGrows) {
    std::string site;
    for (int p = 0; p < 3; ++p) {
        site += "---\nname: p" + std::to_string(p) + "\nenv:\n";
        for (int v = 0; v < 60; ++v) site += "  V" + std::to_string(p) + "_" + std::to_string(v) + ": x\n";
    }
    PresetCatalog catalog(parse_presets(site, "site.yaml", kNoExtraEnv));
    PresetResolver resolver(catalog, kNoExtraEnv);
    EXPECT_EQ(merge_presets({}, resolver.resolve("p0,p1")).env.size(), 120u);
    auto error = refusal_of([&] { merge_presets({}, resolver.resolve("p0,p1,p2")); });
    EXPECT_EQ(error.where().file, "site.yaml");
    EXPECT_EQ(error.where().line, 128);         // p2 starts at its name
    EXPECT_EQ(error.where().key, "env.V2_16");  // the 129th variable, in name order
    EXPECT_NE(std::string(error.what()).find("more than 128 environment variables (merged environment budget)"),
              std::string::npos)
        << error.what();

    std::string big;
    for (int p = 0; p < 9; ++p)
        big += "---\nname: b" + std::to_string(p) + "\nenv: {B" + std::to_string(p) + ": " + std::string(4000, 'x') +
               "}\n";
    PresetCatalog big_catalog(parse_presets(big, "big.yaml", kNoExtraEnv));
    PresetResolver big_resolver(big_catalog, kNoExtraEnv);
    auto bytes = refusal_of([&] { merge_presets({}, big_resolver.resolve("b0,b1,b2,b3,b4,b5,b6,b7,b8")); });
    EXPECT_EQ(bytes.where().key, "env.B8");
    EXPECT_NE(std::string(bytes.what()).find("more than 32768 bytes of environment"), std::string::npos)
        << bytes.what();
}

TEST(PresetRecord, UserPresetsAreRecordedByFileNameNotPath) {
    EXPECT_EQ(record_entry_for("a100-train"), "a100-train");
    EXPECT_EQ(record_entry_for("./mine.yaml"), ".../mine.yaml");
    EXPECT_EQ(record_entry_for("/home/alice/exp/ddp.yaml#fast"), ".../ddp.yaml#fast");
    const std::string long_name = std::string(41, 'a') + "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9.yaml";
    // 48 bytes would cut the fourth 'é' in two: the cut goes back to a character boundary.
    EXPECT_EQ(record_entry_for("./" + long_name + "#x"), ".../" + std::string(41, 'a') + "\xc3\xa9\xc3\xa9\xc3\xa9#x");
}

TEST(PresetRecord, TheLongestRecordFitsTheDocumentedBound) {
    // The class that made a 4 MB AdminComment: many documents of a file at a 4,000-byte path.
    const std::string path = "./" + std::string(3990, 'd') + "/p.yaml";
    std::string text;
    for (int i = 0; i < 16; ++i) text += "---\nname: " + std::string(60, 'n') + std::to_string(i % 10) + "abc\n";
    Submission submission;
    submission.preset_option = path;
    submission.user_presets_encoded = encode_user_presets({{path, text}});
    SitePresets site;
    auto application = apply_presets_to_submission(site, submission);
    ASSERT_TRUE(application);
    EXPECT_LE(application->applied.size(), kMaxRecordListBytes);
    EXPECT_LE(preset_record(*application).size(), std::string("fairway-presets=").size() + kMaxRecordListBytes);
    EXPECT_EQ(application->applied.substr(0, 12), ".../p.yaml#n");
    EXPECT_EQ(kMaxRecordListBytes, 1887u);
    // Named twice: refused, not recorded twice.
    submission.preset_option = path + "," + path;
    EXPECT_THROW(apply_presets_to_submission(site, submission), InputError);
}

TEST(PresetRecord, ARecordOverItsBoundsIsRefused) {
    std::string list;
    for (int i = 0; i < 17; ++i) list += (list.empty() ? "" : ",") + std::string("p") + std::to_string(i);
    EXPECT_THROW(check_record_list(list), InputError);
    EXPECT_THROW(check_record_list(std::string(kMaxRecordListBytes + 1, 'a')), InputError);
}

TEST(SiteConfigBudget, MaxUserPresetBytesIsWithinWhatTheLoaderAccepts) {
    EXPECT_EQ(parse_site_config("max_user_preset_bytes: 65536\n", "c").max_user_preset_bytes, 65536u);
    EXPECT_THROW(parse_site_config("max_user_preset_bytes: 65537\n", "c"), InputError);
    EXPECT_THROW(parse_site_config("max_user_preset_bytes: 1048576\n", "c"), InputError);
}

TEST(SiteConfigBudget, AccountNamesMatchWhateverTheirCase) {
    auto config = parse_site_config("account_defaults: {Physics: a100-train}\n", "c");
    EXPECT_EQ(config.account_defaults.count("physics"), 1u);
    EXPECT_THROW(parse_site_config("account_defaults: {Physics: a, physics: b}\n", "c"), InputError);
}

}  // namespace
}  // namespace fairway::presets
