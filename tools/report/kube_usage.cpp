#include "tools/report/kube_usage.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "common/error.h"
#include "fairshare/usage_records.h"

namespace fairway::report {
namespace {

// One charge as the plugin charges it: its billing per second over [start, end), from the
// association's last reset on, cut at "now".
UsageSample sample_of(const fairshare::ExternalCharge& charge, TimePoint from, TimePoint now) {
    const TimePoint end = std::min(charge.end, now);
    const double seconds = static_cast<double>(std::max<std::int64_t>(0, (end - from).count()));
    return UsageSample{.account = charge.account,
                       .user = charge.user,
                       .start = from,
                       .end = end,
                       .billing_seconds = charge.billing_rate * seconds,
                       .gpu_seconds = static_cast<double>(charge.gpus) * seconds,
                       .cpu_seconds = 0,
                       .kubernetes = true};
}

void add_record(const fairshare::UsageRecord& record, const std::string& file, ReportModel& model,
                const CountsFrom& counts_from, KubernetesReading& reading) {
    const TimePoint now = model.settings().now;
    for (const fairshare::ExternalCharge& charge : record.charges) {
        if (!model.find(charge.account, charge.user)) {
            ++reading.unknown;
            continue;
        }
        const UsageSample sample = sample_of(charge, counts_from(charge.account, charge.user, charge.start), now);
        if (sample.end > *sample.start) model.add(sample, {file, charge.line, "charge"});
    }
    ++reading.records;
}

}  // namespace

KubernetesReading add_kubernetes_usage(const std::string& spool, uid_t owner, ReportModel& model,
                                       const CountsFrom& counts_from) {
    namespace fs = std::filesystem;
    KubernetesReading reading;
    std::error_code error;
    if (!fs::exists(spool, error) && !error) return reading;  // no fairway-bridge: nothing to count
    // Stepped with the error code: a read error midway ends the listing with the note below, as one
    // at the start does, instead of escaping as an exception.
    for (fs::directory_iterator it(spool, error), end; !error && it != end; it.increment(error)) {
        const fs::directory_entry& entry = *it;
        const std::string file = entry.path().filename().string();
        if (!fairshare::parse_usage_record_name(file)) continue;
        try {
            const std::string text = fairshare::read_trusted_record(entry.path().string(), owner);
            add_record(fairshare::parse_usage_record(text, file, model.settings().now), file, model, counts_from,
                       reading);
        } catch (const InputError& e) {
            std::fprintf(stderr, "fairway-report: note: usage record %s refused: %s\n", file.c_str(), e.what());
            ++reading.refused;
        }
    }
    if (error)
        std::fprintf(stderr, "fairway-report: note: Kubernetes usage not read from %s: %s\n", spool.c_str(),
                     error.message().c_str());
    if (reading.unknown > 0)
        std::fprintf(stderr, "fairway-report: note: %zu Kubernetes charge(s) of unknown associations were skipped\n",
                     reading.unknown);
    return reading;
}

}  // namespace fairway::report
