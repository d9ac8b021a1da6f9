#include "fairshare/recorded_runs.h"

#include <algorithm>

namespace fairway::fairshare {
namespace {

// Where a run's charge stops: its end as far as anyone knows it, else what accounting vouches for.
TimePoint charge_until(const RecordedRun& run, const LiveRun* live, TimePoint complete_until, TimePoint now) {
    if (run.end) return *run.end;
    if (live) return live->ended.value_or(now);
    return complete_until;
}

}  // namespace

std::optional<ChargeSpan> span_to_charge(const RecordedRun& run, const LiveRun* live, TimePoint since,
                                         TimePoint complete_until, TimePoint now) {
    if (!run.start || *run.start >= now) return std::nullopt;
    return uncharged_span(*run.start, std::min(charge_until(run, live, complete_until, now), now), std::nullopt, since);
}

TimePoint RebuildCoverage::charge_from(const RunId& run, TimePoint start) const {
    return std::max(start, covered_.contains(run) ? rebuilt_at_ : horizon_);
}

}  // namespace fairway::fairshare
