#include "common/slurm_time.h"

#include <gtest/gtest.h>

using fairway::format_slurm_duration;
using fairway::parse_slurm_duration;
using fairway::parse_slurm_duration_or_infinite;
using fairway::Seconds;

TEST(SlurmDuration, ReadsEverySbatchTimeForm) {
    EXPECT_EQ(parse_slurm_duration("90"), Seconds(90 * 60));
    EXPECT_EQ(parse_slurm_duration("5:30"), Seconds(5 * 60 + 30));
    EXPECT_EQ(parse_slurm_duration("1:02:03"), Seconds(3723));
    EXPECT_EQ(parse_slurm_duration("14-0"), Seconds(14 * 86400));
    EXPECT_EQ(parse_slurm_duration("2-3"), Seconds(2 * 86400 + 3 * 3600));
    EXPECT_EQ(parse_slurm_duration("2-3:04"), Seconds(2 * 86400 + 3 * 3600 + 4 * 60));
    EXPECT_EQ(parse_slurm_duration("7-12:00:05"), Seconds(7 * 86400 + 12 * 3600 + 5));
    EXPECT_EQ(parse_slurm_duration(" 3 "), Seconds(180));
}

TEST(SlurmDuration, RejectsMalformedNegativeAndHugeText) {
    for (const char* bad : {"", "-", "abc", "1:2:3:4", "-5", "1--2", "1-a", "1.5", "99999999999999", "9999999-0",
                            "1-2-3", ":", "1:", "nan"})
        EXPECT_FALSE(parse_slurm_duration(bad).has_value()) << bad;
}

TEST(SlurmDuration, InfiniteOnlyWhereAllowed) {
    EXPECT_FALSE(parse_slurm_duration("infinite").has_value());
    EXPECT_EQ(parse_slurm_duration_or_infinite("INFINITE"), Seconds::max());
    EXPECT_EQ(parse_slurm_duration_or_infinite("unlimited"), Seconds::max());
    EXPECT_EQ(parse_slurm_duration_or_infinite("1-0"), Seconds(86400));
}

TEST(SlurmDuration, FormatsLikeSlurm) {
    EXPECT_EQ(format_slurm_duration(Seconds(3723)), "01:02:03");
    EXPECT_EQ(format_slurm_duration(Seconds(14 * 86400 + 5)), "14-00:00:05");
    EXPECT_EQ(format_slurm_duration(Seconds::max()), "infinite");
}
