// Policy specifications, their names, and PriorityUsageResetPeriod's boundaries.
#include <gtest/gtest.h>

#include "common/error.h"
#include "sim/policy.h"

using namespace fairway::sim;

TEST(PolicySpec, ParsesEachKindAndNamesIt) {
    EXPECT_EQ(parse_policy("fcfs").name(), "fcfs");
    EXPECT_EQ(parse_policy("multifactor").name(), "multifactor H=7-0");
    EXPECT_EQ(parse_policy("multifactor:half_life=1-0").name(), "multifactor H=1-0");
    PolicySpec fairway = parse_policy("fairway:window=14-0,half_life=12:00:00");
    EXPECT_EQ(fairway.kind, PolicyKind::fair_share);
    EXPECT_EQ(fairway.window, std::chrono::seconds{14 * 86400});
    EXPECT_EQ(fairway.half_life, std::chrono::seconds{43200});
    EXPECT_EQ(fairway.name(), "fairway W=14-0 H=12:00:00");
    EXPECT_EQ(parse_policy("fairway:W=7-0,H=0").name(), "fairway W=7-0 H=0-0");
    PolicySpec reset = parse_policy("reset:period=monthly,half_life=0");
    EXPECT_EQ(reset.reset, ResetPeriod::monthly);
    EXPECT_EQ(reset.window, fairway::fairshare::kInfiniteWindow);
    EXPECT_EQ(reset.name(), "reset=monthly H=0-0");
}

TEST(PolicySpec, RejectsWhatItCannotUse) {
    for (const char* text : {"lottery", "fcfs:window=1-0", "fairway", "fairway:window=soon", "multifactor:window=1-0",
                             "reset:period=hourly", "reset", "fairway:window=14-0,", "fairway:window=10,bucket=1"}) {
        EXPECT_THROW(parse_policy(text), fairway::InputError) << text;
    }
    try {
        parse_policy("reset:period=hourly");
    } catch (const fairway::InputError& error) {
        EXPECT_EQ(error.where().key, "policy");
        EXPECT_NE(std::string(error.what()).find("hourly"), std::string::npos);
    }
}

TEST(NextReset, FollowsTheCalendarInUtc) {
    // 1996-09-23T14:00:31Z was a Monday.
    const std::int64_t monday = 843487231;
    EXPECT_EQ(next_reset(ResetPeriod::daily, monday), 843523200);      // 1996-09-24T00:00:00Z
    EXPECT_EQ(next_reset(ResetPeriod::weekly, monday), 843955200);     // Sunday 1996-09-29
    EXPECT_EQ(next_reset(ResetPeriod::monthly, monday), 844128000);    // 1996-10-01
    EXPECT_EQ(next_reset(ResetPeriod::quarterly, monday), 844128000);  // 1996-10-01
    EXPECT_EQ(next_reset(ResetPeriod::yearly, monday), 852076800);     // 1997-01-01
    // A boundary itself: the next one is a whole period later.
    EXPECT_EQ(next_reset(ResetPeriod::weekly, 843955200), 843955200 + 7 * 86400);
    EXPECT_EQ(next_reset(ResetPeriod::monthly, 844128000), 846806400);    // 1996-11-01
    EXPECT_EQ(next_reset(ResetPeriod::quarterly, 844128000), 852076800);  // 1997-01-01
}
