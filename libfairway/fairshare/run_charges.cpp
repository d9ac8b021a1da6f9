#include "fairshare/run_charges.h"

#include <algorithm>

namespace fairway::fairshare {

TimePoint usage_horizon(const LedgerConfig& config, TimePoint now) {
    const LedgerConfig resolved = config.validated();
    const TimePoint epoch{};
    const auto back_to = [&](Seconds span) { return now - epoch > span ? now - span : epoch; };
    if (resolved.window != kInfiniteWindow) return back_to(resolved.window + resolved.bucket);
    if (resolved.half_life.count() > 0) return back_to(40 * resolved.half_life);
    return epoch;
}

ChargeSpan uncharged_span(TimePoint start, TimePoint end, std::optional<TimePoint> charged_until, TimePoint horizon) {
    const TimePoint from = std::max({start, charged_until.value_or(start), horizon});
    return ChargeSpan{from, std::max(from, end)};
}

}  // namespace fairway::fairshare
