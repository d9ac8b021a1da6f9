// Forecasts for fairway-report: how a fair-share factor evolves with no new usage (only decay and
// window expiry act), using the ledger's usage() at future times.
#pragma once

#include <optional>

#include "fairshare/fair_share.h"
#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {

struct RecoveryQuery {
    AssocId assoc = 0;    // the association whose factor is watched
    double target = 0.5;  // the level to reach (job_factor() >= target)
    Seconds horizon{0};   // how far to look; 0 = W + bucket (windowed) or 20 half-lives (infinite)
};

struct RecoveryForecast {
    std::optional<TimePoint> reached;  // earliest time found (now if already there); none within horizon
    double factor_now = 0;
    double factor_at_reached = 0;
};

// The tree's own_usage values are ignored: usage comes from the ledger at each probe time. Probes
// every bucket expiry boundary and a grid of (horizon / 256), then bisects to the second between
// the last probe below the target and the first at or above it. Throws InputError (key "assoc")
// when the association is not in the tree, (key "target") when target is not in [0, 1].
RecoveryForecast forecast_recovery(const WindowedUsageLedger& ledger, const AssociationTree& tree,
                                   const FairShareOptions& options, const RecoveryQuery& query, TimePoint now);

}  // namespace fairway::fairshare
