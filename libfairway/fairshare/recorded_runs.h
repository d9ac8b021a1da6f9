// Which runs of jobs that accounting (slurmdbd) recorded a rebuild of the usage book charges, and
// up to what time.
//
// Identity: a job id alone does not name a run. Ids start again from FirstJobId when slurmctld
// loses its job state and wrap at MaxJobId, and a requeued job runs again under its id; slurmdbd
// keeps each run as its own record, keyed by job id and submit time (a requeue gets a new submit
// time). So a run is (job id, submit time), and every record counts: the adapter must ask slurmdbd
// for all of them (JOBCOND_FLAG_DUP), not only the newest of each id.
//
// How far: slurmctld sends job starts and ends to slurmdbd through a queue. While slurmdbd is away
// the queue grows; after it returns, slurmctld sends the start of each job it still holds at once,
// out of that queue, and the queued end some seconds later. So a record without an end does not
// prove the job still runs, and a job may have no record yet. A record without an end is charged
//   - up to its end, when slurmctld (which ran it) holds the job and it has ended;
//   - up to now, when slurmctld holds it running (the passes charge it from there on);
//   - otherwise only up to the last time nothing was queued for slurmdbd ("complete until"):
//     every end before that time would be in the record; and, when it started before this
//     slurmctld did, not past that start either: slurmctld forgot it (it lost its job state), and
//     aborts a job it does not know when the job's node registers. Such a record stays open in
//     accounting (a runaway job) until an administrator fixes it;
//   - where a run was forgotten, the start that counts is that of the first slurmctld seen without
//     it (ForgottenRuns, kept in a file of its own that outlives the usage state): each later
//     restart of slurmctld moves "this slurmctld's start" on, and the record would be charged more
//     each time;
//   - and never past the longest its time limit lets it run (longest_run), for a run forgotten
//     before anyone could remember it. A job whose limit passed while no slurmctld ran (none
//     enforced it) ran on until one started; that part is not charged.
// A rebuild made while something was queued is provisional (what is queued is missing from it);
// the adapter makes it again once the queue has drained. Runs slurmctld holds that accounting has
// no record of yet are left to the passes, which charge them from their start (RebuildCoverage).
// Nothing is charged before `since` (the rebuild's horizon).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "fairshare/run_charges.h"
#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {

struct RunId {
    std::uint32_t job_id = 0;
    std::int64_t submit = 0;  // Unix seconds, as slurmdbd keeps it
    auto operator<=>(const RunId&) const = default;
};

struct RecordedRun {
    RunId id;
    std::optional<TimePoint> start;  // none: it never started
    std::optional<TimePoint> end;    // none: accounting has no end for it (yet)
    std::optional<Seconds> longest;  // longest_run of its time limit; none: no limit
};

// How long slurmctld lets a job run: its time limit, then OverTimeLimit, then KillWait between
// the signal and the kill. None when either limit is none (unlimited).
std::optional<Seconds> longest_run(std::optional<Seconds> time_limit, std::optional<Seconds> over_time_limit,
                                   Seconds kill_wait);

// What slurmctld knows of a run it still holds in its job list.
struct LiveRun {
    std::optional<TimePoint> ended;  // none: still running
};

// The LiveRun of slurmctld's record of a job: running (or suspended) goes on to now; otherwise it
// ended at its end time, or at its start when it has none (Unix seconds, 0: unset).
LiveRun held_run(bool running, std::int64_t start_time, std::int64_t end_time);

// The file, in slurmctld's StateSaveLocation, in which priority/fairway keeps its ForgottenRuns and
// from which fairway-report reads them.
inline constexpr const char* kForgottenRunsFileName = "fairway_priority_forgotten";

// Runs slurmctld forgot, each with the start of the first slurmctld seen without it: the run ended
// there (that slurmctld aborted it when its node registered), however often slurmctld starts again.
class ForgottenRuns {
public:
    // Remembers `run` as forgotten at `slurmctld_start` when it is one slurmctld forgot (accounting
    // has no end for it, slurmctld does not hold it, it started before slurmctld did) and is not
    // remembered yet. Returns whether it was added.
    bool note(const RecordedRun& run, const LiveRun* live, TimePoint slurmctld_start);
    // When `run` was first seen forgotten; none when it never was.
    std::optional<TimePoint> forgotten_at(const RunId& run) const;
    // Drops the runs forgotten before `horizon`: nothing of them is charged any more.
    void drop_before(TimePoint horizon);
    std::size_t size() const noexcept { return at_.size(); }

    // Versioned, CRC32-checked bytes; deserialize() throws InputError (key "state") on any defect.
    std::string serialize() const;
    static ForgottenRuns deserialize(std::string_view bytes);

    bool operator==(const ForgottenRuns&) const = default;

private:
    std::map<RunId, TimePoint> at_;
};

// The part of `run` to charge at `now` (rules above; run_charges.h's uncharged_span with the
// rebuild's horizon `since`); nullopt when it never started or starts
// at or after `now`. `live` is null when slurmctld does not hold the run; `slurmctld_start` is
// when the running slurmctld started; `forgotten` the runs seen forgotten before.
std::optional<ChargeSpan> span_to_charge(const RecordedRun& run, const LiveRun* live, TimePoint since,
                                         TimePoint complete_until, TimePoint now, TimePoint slurmctld_start,
                                         const ForgottenRuns& forgotten = ForgottenRuns{});

// True when accounting may lack something slurmctld still has queued for it, so that a rebuild
// made now must be made again once the queue has drained.
inline bool rebuild_is_provisional(TimePoint complete_until, TimePoint now) { return complete_until < now; }

// What a rebuild at `rebuilt_at` took from accounting, for the first pass after it: a run that
// slurmctld holds is charged by the passes from `rebuilt_at` when accounting had it (the rebuild
// charged the rest), else from its start, not before `horizon` (accounting did not know it yet).
class RebuildCoverage {
public:
    RebuildCoverage(TimePoint horizon, TimePoint rebuilt_at) : horizon_(horizon), rebuilt_at_(rebuilt_at) {}
    void add(const RunId& run) { covered_.insert(run); }
    TimePoint rebuilt_at() const { return rebuilt_at_; }
    // From when the passes charge `run`, which started at `start`.
    TimePoint charge_from(const RunId& run, TimePoint start) const;

private:
    TimePoint horizon_;
    TimePoint rebuilt_at_;
    std::set<RunId> covered_;
};

}  // namespace fairway::fairshare
