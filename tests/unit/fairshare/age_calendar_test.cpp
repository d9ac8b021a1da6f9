// When aging alone changes a job's priority (age_calendar.h), checked second by second against
// the formula itself: the predicted time is never late, and early by at most two seconds.
#include "fairshare/age_calendar.h"

#include <gtest/gtest.h>

#include <random>

namespace fairway::fairshare {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;
TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

struct Scenario {
    PriorityConfig config;
    JobFacts job;
};

bool same_priorities(const JobPriority& a, const JobPriority& b) {
    return a.priority == b.priority && a.partition_priority == b.partition_priority;
}

// The first second after `now`, up to `horizon`, at which the formula gives other priorities.
std::optional<std::int64_t> first_change(const Scenario& s, std::int64_t horizon) {
    const JobPriority before = compute_job_priority(s.config, {}, s.job, at(kNow));
    for (std::int64_t t = kNow + 1; t <= horizon; ++t) {
        if (!same_priorities(before, compute_job_priority(s.config, {}, s.job, at(t)))) return t;
    }
    return std::nullopt;
}

std::optional<std::int64_t> predicted(const Scenario& s) {
    const JobPriority now = compute_job_priority(s.config, {}, s.job, at(kNow));
    const auto due = next_priority_change(s.config, s.job, now, at(kNow));
    if (!due) return std::nullopt;
    return due->time_since_epoch().count();
}

Scenario random_scenario(std::mt19937& random) {
    const auto pick = [&](std::initializer_list<std::int64_t> values) {
        std::uniform_int_distribution<std::size_t> index(0, values.size() - 1);
        return *(values.begin() + index(random));
    };
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Scenario s;
    s.config.weights.age = static_cast<std::uint32_t>(pick({1, 7, 100, 1000, 65535, 1000000}));
    s.config.weights.fairshare = static_cast<std::uint32_t>(pick({0, 1000, 100000}));
    s.config.weights.partition = static_cast<std::uint32_t>(pick({0, 1000}));
    s.config.max_age = Seconds{pick({60, 601, 3600})};
    std::uniform_int_distribution<std::int64_t> accrued_ago(-120, s.config.max_age.count() + 30);
    s.job.accrue_time = at(kNow - accrued_ago(random));
    s.job.fairshare_factor = unit(random);
    s.job.nice = pick({0, 0, 37, -500, 100000000});
    s.job.site_factor = pick({0, 3});
    s.job.partitions.push_back(PartitionFacts{"a", 10, unit(random), 60, {}});
    if (unit(random) < 0.3) s.job.partitions.push_back(PartitionFacts{"b", 5, unit(random), 60, {}});
    return s;
}

// Several hundred random jobs (age weights from 1 to a million over one minute to an hour,
// accrue times in the future, ageing or settled, sums below 2, extra partitions): the formula
// never changes before the predicted second, and changes within two seconds of it. Where the
// sum reaches its next whole number right at PriorityMaxAge, the allowance for rounding may
// predict a change that the exact sums miss: then only in the last seconds of ageing.
TEST(AgeCalendar, PredictsTheFirstSecondThePriorityChanges) {
    std::mt19937 random(20261203);
    int changing = 0;
    for (int i = 0; i < 400; ++i) {
        const Scenario s = random_scenario(random);
        const std::int64_t horizon = kNow + s.config.max_age.count() + 200;
        const auto truth = first_change(s, horizon);
        const auto due = predicted(s);
        SCOPED_TRACE("scenario " + std::to_string(i) + ": age weight " + std::to_string(s.config.weights.age) +
                     ", max age " + std::to_string(s.config.max_age.count()) + ", accrued " +
                     std::to_string(kNow - s.job.accrue_time->time_since_epoch().count()) + " s ago, fs " +
                     std::to_string(s.config.weights.fairshare) + "x" + std::to_string(s.job.fairshare_factor) +
                     ", nice " + std::to_string(s.job.nice) + ", partitions " +
                     std::to_string(s.job.partitions.size()) + " sum " +
                     std::to_string(compute_job_priority(s.config, {}, s.job, at(kNow)).sum));
        const std::int64_t settled = s.job.accrue_time->time_since_epoch().count() + s.config.max_age.count();
        if (!truth) {
            if (due) {
                EXPECT_GE(*due, settled - 2) << "predicted a change at +" << (*due - kNow) << " s that never comes";
            }
            continue;
        }
        ++changing;
        ASSERT_TRUE(due) << "the priority changes at +" << (*truth - kNow) << " s, unpredicted";
        EXPECT_LE(*due, *truth);
        EXPECT_GE(*due, *truth - 2);
        EXPECT_GT(*due, kNow);
    }
    EXPECT_GT(changing, 100);  // the sample exercises the interesting case
}

TEST(AgeCalendar, NoAgeWeightOrASettledAgeNeverComesDue) {
    Scenario s;
    s.config.max_age = Seconds{600};
    s.job.partitions.push_back(PartitionFacts{"a", 10, 1.0, 60, {}});
    s.job.accrue_time = at(kNow - 100);
    EXPECT_FALSE(predicted(s));  // age weight 0
    s.config.weights.age = 1000;
    s.job.accrue_time = at(kNow - 600);
    EXPECT_FALSE(predicted(s));  // at PriorityMaxAge
    s.config.max_age = Seconds{0};
    s.job.accrue_time = at(kNow - 1);
    EXPECT_FALSE(predicted(s));  // no PriorityMaxAge: the factor is 1 at once
}

// slurmctld sets the accrue time when the job becomes eligible, stamping no change: such a job is
// looked at every pass.
TEST(AgeCalendar, AJobNotAccruingYetIsDueAtTheNextSecond) {
    Scenario s;
    s.config.weights.age = 1000;
    s.config.max_age = Seconds{600};
    s.job.partitions.push_back(PartitionFacts{"a", 10, 1.0, 60, {}});
    EXPECT_EQ(predicted(s), kNow + 1);
    s.job.accrue_time = TimePoint{};  // 0: "not accruing" in Slurm
    EXPECT_EQ(predicted(s), kNow + 1);
}

// At the top of the range the clamp holds the priority whatever the age adds.
TEST(AgeCalendar, ASumClampedAtTheTopNeverComesDue) {
    Scenario s;
    s.config.weights.age = 1000;
    s.config.max_age = Seconds{600};
    s.job.site_factor = 4294967295LL;
    s.job.accrue_time = at(kNow - 10);
    s.job.partitions.push_back(PartitionFacts{"a", 10, 1.0, 60, {}});
    EXPECT_FALSE(predicted(s));
}

TEST(AgeCalendar, HandsOutTheDueJobsEarliestFirstAndKeepsTheRest) {
    AgeCalendar calendar;
    calendar.add(7, at(130));
    calendar.add(3, at(110));
    calendar.add(9, at(200));
    calendar.add(5, at(120));
    calendar.add(4, at(110));
    EXPECT_EQ(calendar.size(), 5U);
    EXPECT_TRUE(calendar.take_due(at(100)).empty());
    const auto due = calendar.take_due(at(120));
    ASSERT_EQ(due.size(), 3U);
    EXPECT_EQ(due[2], 5U);
    EXPECT_TRUE((due[0] == 3 && due[1] == 4) || (due[0] == 4 && due[1] == 3));
    EXPECT_EQ(calendar.size(), 2U);
    calendar.add(5, at(125));
    EXPECT_EQ(calendar.take_due(at(1000)), (std::vector<std::uint32_t>{5, 7, 9}));
    EXPECT_TRUE(calendar.empty());
}

}  // namespace
}  // namespace fairway::fairshare
