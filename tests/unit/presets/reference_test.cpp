// What a preset reference (--preset NAME or PATH) may contain: every name and path becomes part of
// job_submit's record of applied presets (AdminComment, FAIRWAY_APPLIED_PRESETS, slurmctld's log),
// so nothing a user writes may forge an entry, a line or an `sacct -P` field there.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "presets/carried.h"
#include "presets/reference.h"
#include "presets/resolver.h"
#include "presets/submission.h"

namespace fairway::presets {
namespace {

// The path that would forge a second record and a log line of its own.
const std::string kForgingPath = "./x; fairway-presets=a100-train\nFAKE LOG LINE/y.yaml";

SitePresets make_site() {
    SitePresets site;
    site.catalog = PresetCatalog(parse_presets("name: a100-train\ngpus: a100:4\n", "site.yaml", EnvPolicy{}));
    return site;
}

std::string message_of(const std::string& list) {
    try {
        parse_preset_list(list);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(accepted)";
}

// A message goes to a terminal and to slurmctld's log: one line, nothing a terminal interprets.
bool is_one_plain_line(const std::string& text) {
    for (unsigned char c : text)
        if (c < 0x20 || c == 0x7f) return false;
    return text.find("\xc2\x85") == std::string::npos && text.find("\xe2\x80\xa8") == std::string::npos;
}

TEST(PresetReference, TheForgingPathIsRefusedNamingCharacterAndPosition) {
    EXPECT_EQ(message_of(kForgingPath),
              "key 'preset': invalid preset path './x; fairway-presets=a100-train\\nFAKE LOG LINE/y.yaml': "
              "separator ';' at position 4; preset names and paths may not contain control characters, line "
              "separators, bidirectional controls or any of ; = , | # (see fairway-presets(5))");
}

TEST(PresetReference, RefusesEveryControlCharacter) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"\n", "control character '\\n'"},
        {"\r", "control character '\\r'"},
        {"\t", "control character '\\t'"},
        {std::string(1, '\0'), "control character '\\x00'"},
        {"\x01", "control character '\\x01'"},
        {"\x1b", "control character '\\x1b'"},
        {"\x1f", "control character '\\x1f'"},
        {"\x7f", "control character '\\x7f'"},
        {"\xc2\x80", "control character '\\u0080'"},
        {"\xc2\x85", "control character '\\u0085'"},
        {"\xc2\x9f", "control character '\\u009f'"},
        {"\xe2\x80\xa8", "line separator '\\u2028'"},
        {"\xe2\x80\xa9", "line separator '\\u2029'"},
        {"\xe2\x80\xae", "bidirectional control '\\u202e'"},
        {"\xe2\x81\xa6", "bidirectional control '\\u2066'"},
    };
    for (const auto& [character, named] : cases) {
        for (const std::string& entry : {"./a" + character + "b/y.yaml", "ab" + character + "c"}) {
            auto message = message_of(entry);
            EXPECT_NE(message.find(named + (entry[0] == '.' ? " at position 4" : " at position 3")), std::string::npos)
                << message;
            EXPECT_TRUE(is_one_plain_line(message)) << message;
        }
    }
}

TEST(PresetReference, RefusesTheRecordsSeparators) {
    for (char separator : std::string(";=|#")) {
        const std::string path = std::string("./a") + separator + "b.yaml";
        EXPECT_NE(message_of(path).find(std::string("separator '") + separator + "' at position 4"), std::string::npos)
            << message_of(path);
        EXPECT_NE(message_of(std::string("a") + separator + "b:override").find("at position 2"), std::string::npos);
    }
    // ',' already ends an entry of the list; a carried file or a record entry may still hold one.
    EXPECT_THROW(decode_user_presets(encode_user_presets({{"./a,b.yaml", "time: 5\n"}})), InputError);
}

TEST(PresetReference, RefusesTextThatIsNotUtf8) {
    EXPECT_NE(message_of("./a\xff/b.yaml").find("byte \\xff that is not UTF-8 at position 4"), std::string::npos)
        << message_of("./a\xff/b.yaml");
    EXPECT_THROW(parse_preset_list("./a\xc0\xaf/b.yaml"), InputError);      // overlong '/'
    EXPECT_THROW(parse_preset_list("./a\xed\xa0\x80/b.yaml"), InputError);  // surrogate
}

TEST(PresetReference, PositionsCountCharactersNotBytes) {
    const auto message = message_of("./é;/x.yaml");
    EXPECT_NE(message.find("separator ';' at position 4"), std::string::npos) << message;
}

TEST(PresetReference, PathsWithSpacesUnicodeColonsAndBackslashesAreFine) {
    const std::string path = "./my presets/träin 日本:v2\\x.yaml";
    auto refs = parse_preset_list(path + ":override,a100-train");
    ASSERT_EQ(refs.size(), 2u);
    EXPECT_EQ(refs[0].name, path);
    auto site = make_site();
    PresetResolver resolver(site.catalog, EnvPolicy{});
    resolver.add_user_file(path, "time: 5\n---\nname: second\ntime: 6\n");
    auto applied = resolver.resolve(refs);
    const std::string file = ".../träin 日本:v2\\x.yaml";  // the record names the file, not the path
    EXPECT_EQ(describe_applied(applied), file + "," + file + "#second,a100-train");
}

TEST(PresetReference, TheMessageEscapesBackslashesSoItStaysUnambiguous) {
    const auto message = message_of("./a\\n\n/b.yaml");  // a backslash and an 'n', then a newline
    EXPECT_NE(message.find("'./a\\\\n\\n/b.yaml'"), std::string::npos) << message;
}

TEST(PresetReference, TheRuleItself) {
    EXPECT_EQ(reference_problem("a100-train"), std::nullopt);
    EXPECT_EQ(reference_problem("./my presets/träin.yaml"), std::nullopt);
    EXPECT_EQ(reference_problem("./a,b"), "separator ',' at position 4");
    // A lone C1 byte is Latin-1, not UTF-8: refused all the same.
    EXPECT_EQ(reference_problem("./a\x85"), "byte \\x85 that is not UTF-8 at position 4");
    EXPECT_NO_THROW(check_record_list("a100-train,./mine.yaml#second,./my file.yaml"));
    EXPECT_THROW(check_record_list("a100-train,"), InputError);
    EXPECT_THROW(check_record_entry("a100#second"), InputError);  // '#' only after a path
}

TEST(PresetReference, EscapingForMessages) {
    EXPECT_EQ(escape_for_message("./träin 日本;=,|#.yaml"), "./träin 日本;=,|#.yaml");
    EXPECT_EQ(escape_for_message("a\\b\n\t\r\x01\x7f"), "a\\\\b\\n\\t\\r\\x01\\x7f");
    EXPECT_EQ(escape_for_message("\xc2\x85\xe2\x80\xa8\xe2\x80\xae\xff"), "\\u0085\\u2028\\u202e\\xff");
}

TEST(PresetReference, SubmissionRefusesTheForgingPathEvenWithItsTextCarried) {
    Submission submission;
    submission.preset_option = kForgingPath;
    submission.user_presets_encoded = encode_user_presets({{kForgingPath, "time: 5\n"}});
    try {
        apply_presets_to_submission(make_site(), submission);
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("separator ';' at position 4"), std::string::npos) << e.what();
        EXPECT_TRUE(is_one_plain_line(e.what())) << e.what();
    }
}

// A raw submitter may carry files nobody names; their paths appear in parse errors all the same.
TEST(PresetReference, CarriedFilesWithHostilePathsAreRefused) {
    const std::string hostile = "./z\nFAKE LOG LINE";
    try {
        decode_user_presets(encode_user_presets({{hostile, "time: [\n"}}));
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.where().key, kUserPresetsVar);
        EXPECT_NE(std::string(e.what()).find("control character '\\n' at position 4"), std::string::npos) << e.what();
    }
    auto site = make_site();
    PresetResolver resolver(site.catalog, EnvPolicy{});
    try {
        resolver.add_user_file(hostile, "time: [\n");
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_TRUE(is_one_plain_line(e.what())) << e.what();
    }
}

// Defence in depth: whatever reaches the record builders is checked there too.
TEST(PresetReference, RecordBuildersRefuseWhatWouldForgeEntries) {
    PresetApplication application;
    application.applied = "a100-train,./mine.yaml,./mine.yaml#second";
    EXPECT_EQ(preset_record(application), "fairway-presets=a100-train,./mine.yaml,./mine.yaml#second");
    application.applied = "";
    EXPECT_EQ(preset_record(application), "fairway-presets=");
    for (const char* forged : {"./x; fairway-presets=a100-train", "./x\nFAKE", "a|b", "a,,b", "./a#b#c", "./a#b c"}) {
        application.applied = forged;
        EXPECT_THROW(preset_record(application), InputError) << forged;
    }
    Preset preset;
    preset.name = "./x\nFAKE LOG LINE";
    EXPECT_THROW(describe_applied({{&preset, MergeStrategy::defaults}}), InputError);
}

// slurmstepd logs the names it decodes from the user-controlled FAIRWAY_STEP_PRESETS.
TEST(PresetReference, CarriedStepPresetsWithHostileNamesAreRefused) {
    Preset preset;
    preset.name = "./x\nFAKE LOG LINE";
    auto encoded = encode_step_presets("./x.yaml", {{&preset, MergeStrategy::defaults}});
    ASSERT_TRUE(encoded);
    EXPECT_THROW(decode_step_presets(*encoded), InputError);
}

}  // namespace
}  // namespace fairway::presets
