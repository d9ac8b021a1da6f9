#include "fairshare/recorded_runs.h"

#include <algorithm>

namespace fairway::fairshare {
namespace {

// Where a run's charge stops: its end as far as anyone knows it, else what accounting vouches for
// (a run slurmctld forgot did not run on past slurmctld's start).
TimePoint charge_until(const RecordedRun& run, const LiveRun* live, TimePoint complete_until, TimePoint now,
                       TimePoint slurmctld_start) {
    if (run.end) return *run.end;
    if (live) return live->ended.value_or(now);
    if (*run.start < slurmctld_start) return std::min(complete_until, slurmctld_start);
    return complete_until;
}

}  // namespace

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
