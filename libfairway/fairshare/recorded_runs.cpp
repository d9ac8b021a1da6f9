#include "fairshare/recorded_runs.h"

#include <algorithm>

namespace fairway::fairshare {
namespace {

// Where a run's charge stops: its end as far as anyone knows it, else what accounting vouches for
// (a run slurmctld forgot did not run on past slurmctld's start), and not past its time limit.
TimePoint charge_until(const RecordedRun& run, const LiveRun* live, TimePoint complete_until, TimePoint now,
                       TimePoint slurmctld_start) {
    if (run.end) return *run.end;
    if (live) return live->ended.value_or(now);
    TimePoint until = complete_until;
    if (*run.start < slurmctld_start) until = std::min(until, slurmctld_start);
    if (run.longest) until = std::min(until, *run.start + *run.longest);
    return until;
}

}  // namespace

std::optional<Seconds> longest_run(std::optional<Seconds> time_limit, std::optional<Seconds> over_time_limit,
                                   Seconds kill_wait) {
    if (!time_limit || !over_time_limit) return std::nullopt;
    return *time_limit + *over_time_limit + kill_wait;
}

LiveRun held_run(bool running, std::int64_t start_time, std::int64_t end_time) {
    const std::int64_t ended = std::max(end_time, start_time);
    if (running || ended <= 0) return {};
    return {from_unix_seconds(ended)};
}

std::optional<ChargeSpan> span_to_charge(const RecordedRun& run, const LiveRun* live, TimePoint since,
                                         TimePoint complete_until, TimePoint now, TimePoint slurmctld_start) {
    if (!run.start || *run.start >= now) return std::nullopt;
    const TimePoint until = charge_until(run, live, complete_until, now, slurmctld_start);
    return uncharged_span(*run.start, std::min(until, now), std::nullopt, since);
}

TimePoint RebuildCoverage::charge_from(const RunId& run, TimePoint start) const {
    return std::max(start, covered_.contains(run) ? rebuilt_at_ : horizon_);
}

}  // namespace fairway::fairshare
