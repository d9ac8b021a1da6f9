#include "fairshare/forecast.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

constexpr std::int64_t kGridSteps = 256;

Seconds default_horizon(const LedgerConfig& config) {
    if (config.window != kInfiniteWindow) return config.window + config.bucket;
    return config.half_life * 20;  // 2^-20: nothing left to recover; 0 when nothing ever decays
}

// Bucket expiries (the only instants a windowed usage drops in steps) and an even grid.
std::vector<TimePoint> probe_times(const LedgerConfig& config, TimePoint now, Seconds horizon) {
    std::vector<TimePoint> probes{now};
    const TimePoint end = now + horizon;
    const Seconds step = std::max(Seconds{1}, horizon / kGridSteps);
    for (TimePoint t = now + step; t < end; t += step) probes.push_back(t);
    probes.push_back(end);
    if (config.window != kInfiniteWindow) {
        const std::int64_t width = config.bucket.count();
        const std::int64_t first = (now - config.window).time_since_epoch().count() / width + 1;
        for (std::int64_t k = first;; ++k) {
            const TimePoint boundary{Seconds{k * width} + config.window};
            if (boundary > end) break;
            if (boundary > now) probes.push_back(boundary);
        }
    }
    std::sort(probes.begin(), probes.end());
    probes.erase(std::unique(probes.begin(), probes.end()), probes.end());
    return probes;
}

class FactorProbe {
public:
    FactorProbe(const WindowedUsageLedger& ledger, const AssociationTree& tree, const FairShareOptions& options,
                AssocId assoc)
        : ledger_(ledger), tree_(tree), options_(options), assoc_(assoc) {}
    double at(TimePoint t) const {
        return compute_fair_share(tree_.with_usage(ledger_, t), options_).job_factor(assoc_);
    }

private:
    const WindowedUsageLedger& ledger_;
    const AssociationTree& tree_;
    const FairShareOptions& options_;
    AssocId assoc_;
};

}  // namespace

RecoveryForecast forecast_recovery(const WindowedUsageLedger& ledger, const AssociationTree& tree,
                                   const FairShareOptions& options, const RecoveryQuery& query, TimePoint now) {
    if (!tree.index_of(query.assoc))
        throw InputError(SourceLocation{"", 0, "assoc"},
                         "association " + std::to_string(query.assoc) + " is not in the tree");
    if (!(query.target >= 0 && query.target <= 1))
        throw InputError(SourceLocation{"", 0, "target"}, "the fair-share level must be within 0..1");
    check_time(now, "time");
    const FactorProbe factor(ledger, tree, options, query.assoc);
    const Seconds horizon = query.horizon.count() > 0 ? query.horizon : default_horizon(ledger.config());
    RecoveryForecast forecast;
    forecast.factor_now = factor.at(now);
    const auto probes = probe_times(ledger.config(), now, horizon);
    TimePoint below = now;
    for (TimePoint probe : probes) {
        const double value = probe == now ? forecast.factor_now : factor.at(probe);
        if (value < query.target) {
            below = probe;
            continue;
        }
        // Bisect (below, probe] to the first second at or above the target.
        TimePoint high = probe;
        double high_value = value;
        while (probe != now && high - below > Seconds{1}) {
            const TimePoint mid = below + (high - below) / 2;
            const double mid_value = factor.at(mid);
            if (mid_value >= query.target) {
                high = mid;
                high_value = mid_value;
            } else {
                below = mid;
            }
        }
        forecast.reached = high;
        forecast.factor_at_reached = high_value;
        return forecast;
    }
    return forecast;
}

}  // namespace fairway::fairshare
