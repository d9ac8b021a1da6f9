#include "fairshare/age_calendar.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace fairway::fairshare {
namespace {

// The value at which a sum's clamped priority next changes: its next whole number; 2 from below 2,
// since everything under 2 is clamped to 1. None at the top of the range, where clamping holds it.
std::optional<double> next_step(double sum) {
    if (std::isnan(sum) || sum >= 4294967295.0) return std::nullopt;
    return sum < 2 ? 2.0 : std::floor(sum) + 1;
}

// How far below the exact step a computed sum may already reach it. compute_job_priority adds a
// dozen terms, each addition rounded to a relative 2^-53 of the partial sum, which no term's
// magnitude (or their sum, taken absolutely) exceeds; 1e-12 of that covers it many times over.
double rounding_allowance(const JobPriority& computed) {
    const PriorityFactors& w = computed.weighted;
    double magnitude = std::fabs(w.age) + std::fabs(w.assoc) + std::fabs(w.fairshare) + std::fabs(w.job_size) +
                       std::fabs(w.partition) + std::fabs(w.qos) + std::fabs(static_cast<double>(w.site)) +
                       std::fabs(static_cast<double>(w.nice));
    for (const double tres : w.tres) magnitude += std::fabs(tres);
    double largest_partition_sum = 0;  // the terms that differ by partition are in it
    for (const double sum : computed.partition_sum)
        largest_partition_sum = std::max(largest_partition_sum, std::fabs(sum));
    return 1e-12 * std::max(1.0, magnitude + largest_partition_sum);
}

// The order of the calendar's min-heap.
bool later(const AgeCalendar::Entry& a, const AgeCalendar::Entry& b) { return a.due > b.due; }

}  // namespace

std::optional<TimePoint> next_priority_change(const PriorityConfig& config, const JobFacts& job,
                                              const JobPriority& computed, TimePoint now) {
    if (config.weights.age == 0) return std::nullopt;
    const Seconds one{1};
    if (!job.accrue_time || job.accrue_time->time_since_epoch().count() == 0) return now + one;
    if (config.max_age.count() <= 0) return std::nullopt;  // the factor is 1 from the first second of accruing
    const TimePoint settled = *job.accrue_time + config.max_age;
    if (now >= settled) return std::nullopt;
    // The computed sums are monotone in the age (IEEE rounding is), and linear in it before the
    // rounding: at this rate per second from `growing` until `settled`.
    const double rate = static_cast<double>(config.weights.age) / static_cast<double>(config.max_age.count());
    const TimePoint growing = std::max(now, *job.accrue_time);
    const double allowance = rounding_allowance(computed);
    std::optional<TimePoint> due;
    const auto consider = [&](double sum) {
        const auto step = next_step(sum);
        if (!step) return;
        const double seconds = (*step - allowance - sum) / rate;
        if (seconds > static_cast<double>((settled - growing).count())) return;  // the age factor reaches 1 first
        const TimePoint reached = growing + Seconds{static_cast<std::int64_t>(std::floor(std::max(0.0, seconds)))};
        due = due ? std::min(*due, reached) : reached;
    };
    consider(computed.sum);
    for (const double sum : computed.partition_sum) consider(sum);
    if (!due) return std::nullopt;
    return std::max(*due, now + one);
}

// A walk over all jobs adds them all: appended, and made a heap once at the next take_due (linear)
// rather than sifted in one by one.
void AgeCalendar::add(std::uint32_t job_id, TimePoint due) {
    entries_.push_back({due.time_since_epoch().count(), job_id});
    is_heap_ = false;
}

std::vector<std::uint32_t> AgeCalendar::take_due(TimePoint now) {
    if (!is_heap_) {
        std::make_heap(entries_.begin(), entries_.end(), later);
        is_heap_ = true;
    }
    const std::int64_t limit = now.time_since_epoch().count();
    std::vector<std::uint32_t> due;
    while (!entries_.empty() && entries_.front().due <= limit) {
        due.push_back(entries_.front().job_id);
        std::pop_heap(entries_.begin(), entries_.end(), later);
        entries_.pop_back();
    }
    return due;
}

}  // namespace fairway::fairshare
