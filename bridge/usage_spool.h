// The bridge's side of the usage spool (priority/fairway reads it, see bridge/README.md): every
// usage.record_seconds it lists the Workloads (Volcano: PodGroups), asks the meter (quota/usage_meter.h) what is owed
// and writes it as the next record of its source, atomically (temporary file, fsync, rename,
// directory fsync), so that the plugin sees a record whole or not at all. At start it reads its own
// records back: the next sequence and up to when each reservation was charged. It deletes its
// records once all their charges are older than usage.keep_days, and counts what the plugin
// refused (moved to refused/) for its metrics.
#pragma once

#include <string>

#include "bridge/k8s/kube_api.h"
#include "quota/bridge_config.h"
#include "quota/usage_meter.h"

namespace fairway::bridge {

struct UsageTotals {
    long records_written = 0;
    long charges_written = 0;
    long write_failures = 0;
    long refused = 0;  // records the plugin moved to refused/
    double gpu_seconds_written = 0;
};

class UsageSpool {
public:
    // Reads back this source's records. Throws std::runtime_error when the spool cannot be made or read.
    UsageSpool(const quota::BridgeConfig& config, fairshare::TimePoint now);
    // Whether `usage` names this spool and source: then reconfigure() suits it.
    bool writes_as(const quota::UsageSettings& usage) const {
        return usage.spool == config_.usage.spool && usage.source == config_.usage.source;
    }
    void reconfigure(const quota::BridgeConfig& config) {
        config_ = config;
        meter_.reconfigure(config);
    }

    // Meters and writes a record when one is due at `now` (`wall_now`: Unix time); lists the
    // Workloads only then. Logs and counts failures; a failed list or write charges nothing.
    void cycle(KubeApi& kube, fairshare::TimePoint now);
    const UsageTotals& totals() const { return totals_; }
    std::string metrics() const;

private:
    void read_back(fairshare::TimePoint now);
    bool write(std::vector<fairshare::ExternalCharge> charges);
    void prune(fairshare::TimePoint now);

    quota::BridgeConfig config_;
    quota::UsageMeter meter_;
    std::uint64_t sequence_ = 0;  // the last one written
    std::optional<fairshare::TimePoint> last_flush_;
    std::map<std::uint64_t, fairshare::TimePoint> latest_end_;  // per record written: its last charge's end
    UsageTotals totals_;
};

}  // namespace fairway::bridge
