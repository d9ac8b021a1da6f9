#include "fairshare/recorded_runs.h"

#include <algorithm>

#include "fairshare/byte_codec.h"

namespace fairway::fairshare {
namespace {

bool forgotten_by_slurmctld(const RecordedRun& run, const LiveRun* live, TimePoint slurmctld_start) {
    return !run.end && !live && run.start && *run.start < slurmctld_start;
}

// Where a run's charge stops: its end as far as anyone knows it, else what accounting vouches for
// (a run slurmctld forgot did not run on past the first slurmctld start without it), and not past
// its time limit.
TimePoint charge_until(const RecordedRun& run, const LiveRun* live, TimePoint complete_until, TimePoint now,
                       TimePoint slurmctld_start, const ForgottenRuns& forgotten) {
    if (run.end) return *run.end;
    if (live) return live->ended.value_or(now);
    TimePoint until = complete_until;
    if (forgotten_by_slurmctld(run, live, slurmctld_start))
        until = std::min(until, forgotten.forgotten_at(run.id).value_or(slurmctld_start));
    if (run.longest) until = std::min(until, *run.start + *run.longest);
    return until;
}

}  // namespace

bool ForgottenRuns::note(const RecordedRun& run, const LiveRun* live, TimePoint slurmctld_start) {
    if (!forgotten_by_slurmctld(run, live, slurmctld_start)) return false;
    check_time(slurmctld_start, "time");
    return at_.emplace(run.id, slurmctld_start).second;
}

std::optional<TimePoint> ForgottenRuns::forgotten_at(const RunId& run) const {
    const auto found = at_.find(run);
    if (found == at_.end()) return std::nullopt;
    return found->second;
}

void ForgottenRuns::drop_before(TimePoint horizon) {
    std::erase_if(at_, [&](const auto& entry) { return entry.second < horizon; });
}

// ---- State format: magic, version, reserved, count; per run: job id, 4 reserved, submit, time ----

namespace {

constexpr char kMagic[4] = {'F', 'W', 'F', 'G'};
constexpr std::uint16_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 4 + 2 + 2 + 4;
constexpr std::size_t kRunBytes = 4 + 4 + 8 + 8;

}  // namespace

std::string ForgottenRuns::serialize() const {
    codec::Writer out;
    codec::write_preamble(out, kMagic, kVersion);
    out.little(static_cast<std::uint32_t>(at_.size()));
    for (const auto& [run, at] : at_) {
        out.little(run.job_id);
        out.bytes("\0\0\0\0", 4);
        out.little(run.submit);
        out.little(at.time_since_epoch().count());
    }
    codec::seal(out);
    return out.take();
}

ForgottenRuns ForgottenRuns::deserialize(std::string_view bytes) {
    codec::Reader in(codec::unseal(bytes, kMagic, kHeaderBytes));
    if (codec::read_preamble(in) != kVersion) codec::corrupt("unsupported version");
    const auto count = codec::read_count(in, kRunBytes, "run");
    ForgottenRuns runs;
    for (std::uint32_t i = 0; i < count; ++i) {
        RunId run;
        run.job_id = in.little<std::uint32_t>();
        in.take(4);
        run.submit = in.little<std::int64_t>();
        const auto seconds = in.little<std::int64_t>();
        if (seconds < 0 || seconds > kMaxEpochSeconds) codec::corrupt("a time is out of range");
        if (!runs.at_.empty() && !(std::prev(runs.at_.end())->first < run))
            codec::corrupt("runs out of order or repeated");
        runs.at_.emplace(run, TimePoint{Seconds{seconds}});
    }
    if (in.remaining() != 0) codec::corrupt("trailing bytes");
    return runs;
}

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
                                         TimePoint complete_until, TimePoint now, TimePoint slurmctld_start,
                                         const ForgottenRuns& forgotten) {
    if (!run.start || *run.start >= now) return std::nullopt;
    const TimePoint until = charge_until(run, live, complete_until, now, slurmctld_start, forgotten);
    return uncharged_span(*run.start, std::min(until, now), std::nullopt, since);
}

TimePoint RebuildCoverage::charge_from(const RunId& run, TimePoint start) const {
    return std::max(start, covered_.contains(run) ? rebuilt_at_ : horizon_);
}

}  // namespace fairway::fairshare
