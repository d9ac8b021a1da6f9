#include "fairshare/parameters.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

constexpr Seconds kWeek{7 * 86400};

TEST(FairshareParameters, EmptyTextGivesTheDefaults) {
    for (const char* text : {"", "   ", ",", " , "}) {
        const FairshareParameters params = parse_fairshare_parameters(text, kWeek);
        EXPECT_EQ(params.window, Seconds{14 * 86400}) << text;
        EXPECT_EQ(params.half_life, kWeek);
        const LedgerConfig config = params.ledger_config();
        EXPECT_EQ(config.bucket, Seconds{14 * 86400 / 100});
        EXPECT_EQ(config.half_life, kWeek);
    }
}

TEST(FairshareParameters, ReadsWindowAndBucketInSlurmTime) {
    struct Case {
        const char* text;
        Seconds window, bucket;
    };
    for (const Case& c : {Case{"window=14-0,bucket=2:00:00", Seconds{14 * 86400}, Seconds{7200}},
                          Case{"window=3", Seconds{180}, Seconds{1}},
                          Case{" Window = 7-0 , BUCKET=1:00:00 ", Seconds{7 * 86400}, Seconds{3600}},
                          Case{"window=90-0", Seconds{90 * 86400}, Seconds{90 * 864}},
                          Case{"window=infinite", kInfiniteWindow, Seconds{3600}},
                          Case{"window=UNLIMITED,bucket=5", kInfiniteWindow, Seconds{300}}}) {
        const LedgerConfig config = parse_fairshare_parameters(c.text, kWeek).ledger_config();
        EXPECT_EQ(config.window, c.window) << c.text;
        EXPECT_EQ(config.bucket, c.bucket) << c.text;
    }
}

TEST(FairshareParameters, ErrorsNameTheOffendingKey) {
    struct Case {
        const char* text;
        const char* key;
    };
    for (const Case& c : {Case{"windows=14-0", "windows"}, Case{"window=14-0,decay=1", "decay"},
                          Case{"window=abc", "window"}, Case{"window=0", "window"}, Case{"window=-5", "window"},
                          Case{"window=", "window"}, Case{"bucket=infinite", "bucket"}, Case{"bucket=0", "bucket"},
                          Case{"window=1:00:00,bucket=2:00:00", "bucket"}, Case{"window=100-0,bucket=1", "bucket"},
                          Case{"window=1-0,window=2-0", "window"}, Case{"window", "window"},
                          Case{"=5", "PriorityParameters"}, Case{"window=99999999-0", "window"}}) {
        try {
            parse_fairshare_parameters(c.text, kWeek);
            ADD_FAILURE() << c.text << " accepted";
        } catch (const InputError& error) {
            EXPECT_EQ(error.where().key, c.key) << c.text << ": " << error.what();
        }
    }
}

TEST(FairshareParameters, RejectsANegativeHalfLife) {
    try {
        parse_fairshare_parameters("window=1-0", Seconds{-1});
        ADD_FAILURE() << "accepted";
    } catch (const InputError& error) {
        EXPECT_EQ(error.where().key, "half_life");
    }
}

TEST(FairshareParameters, DescribeIsCanonicalAndReparses) {
    const FairshareParameters params = parse_fairshare_parameters("window=14-0", kWeek);
    EXPECT_EQ(params.describe(), "window=14-00:00:00,bucket=03:21:36");
    const FairshareParameters again = parse_fairshare_parameters(params.describe(), kWeek);
    EXPECT_EQ(again.ledger_config(), params.ledger_config());
    EXPECT_EQ(parse_fairshare_parameters("window=infinite", kWeek).describe(), "window=infinite,bucket=01:00:00");
}

TEST(FairshareParameters, DoubtsAHalfLifeAtOrAboveTheWindow) {
    EXPECT_TRUE(doubtful_settings(parse_fairshare_parameters("window=14-0", kWeek)).empty());
    EXPECT_TRUE(doubtful_settings(parse_fairshare_parameters("window=30:00", Seconds{0})).empty());
    EXPECT_TRUE(doubtful_settings(parse_fairshare_parameters("window=infinite", kWeek)).empty());
    const auto equal = doubtful_settings(parse_fairshare_parameters("window=30:00", Seconds{1800}));
    ASSERT_EQ(equal.size(), 1u);
    EXPECT_NE(equal[0].find("PriorityDecayHalfLife 00:30:00 is not shorter than the window 00:30:00"),
              std::string::npos)
        << equal[0];
    EXPECT_EQ(doubtful_settings(parse_fairshare_parameters("window=1-0", kWeek)).size(), 1u);
}

TEST(FairshareParameters, DoubtsAWindowOfMoreThanThreeYears) {
    EXPECT_TRUE(doubtful_settings(parse_fairshare_parameters("window=1095-0", kWeek)).empty());
    const auto doubts = doubtful_settings(parse_fairshare_parameters("window=1096-0", kWeek));
    ASSERT_EQ(doubts.size(), 1u);
    EXPECT_NE(doubts[0].find("the window 1096-00:00:00 is longer than 1095-00:00:00"), std::string::npos) << doubts[0];
}

// slurmctld's adapter reads calc_period and walk_shortcuts itself; fairway-report and fairway-bridge
// read the same text for the window and must not take them for unknown keys.
TEST(FairshareParameters, TheAdaptersKeysAreSplitOffBeforeTheFairSharePart) {
    const SplitPriorityParameters split = split_priority_parameters("window=1-0,calc_period=0:02,walk_shortcuts=yes");
    EXPECT_EQ(split.fair_share, "window=1-0");
    EXPECT_EQ(split.calc_period, "0:02");
    EXPECT_EQ(split.walk_shortcuts, "yes");
    EXPECT_EQ(fairshare_part_of("walk_shortcuts=no,window=1-0,calc_period=0:02", Seconds{3600}).window, Seconds{86400});
    EXPECT_EQ(split_priority_parameters("").fair_share, "");
    EXPECT_FALSE(split_priority_parameters("window=1-0").calc_period);
    EXPECT_THROW(fairshare_part_of("window=1-0,walkshortcuts=yes", Seconds{3600}), InputError);
}

}  // namespace
}  // namespace fairway::fairshare
