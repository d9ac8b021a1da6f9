// What slurmctld knows that accounting may not: the jobs it holds, when it started, whether it
// still has records queued for slurmdbd, and priority/fairway's RawUsage resets in its state
// directory. With them the report charges each job record as the plugin's rebuild charges it
// (fairshare/recorded_runs.h, fairshare/usage_resets.h), so that it agrees with sshare where
// accounting alone would not: after a reset, while an end is still queued, for a runaway record.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fairshare/recorded_runs.h"
#include "fairshare/usage_resets.h"

namespace fairway::report {

// priority/fairway's resets, from StateSaveLocation/fairway_priority_resets: none when the file
// does not exist (nothing was reset); none, after a note on stderr saying that usage reset with
// sacctmgr is counted, when it cannot be read (only root and SlurmUser may) or is corrupt.
fairshare::UsageResets read_usage_resets(const std::string& state_save_location);
// priority/fairway's forgotten runs, from StateSaveLocation/fairway_priority_forgotten, likewise:
// a runaway record is charged up to the first slurmctld start seen without it.
fairshare::ForgottenRuns read_forgotten_runs(const std::string& state_save_location);

// slurmctld's view of the records accounting holds without an end, asked for once, at the first
// such record (a report of finished jobs only needs no slurmctld).
class ControllerView {
public:
    explicit ControllerView(fairshare::TimePoint now) : now_(now) {}
    // The part of `run` to charge at now, nothing before `since` (fairshare::span_to_charge); an
    // open record no longer than slurmctld lets a job with `time_limit` run (none: no limit).
    std::optional<fairshare::ChargeSpan> span_to_charge(fairshare::RecordedRun run, std::optional<Seconds> time_limit,
                                                        fairshare::TimePoint since);
    // How many records slurmctld has queued for slurmdbd (sdiag), asked once; a note on stderr when
    // some are: accounting lacks them, so the report is provisional. 0 when slurmctld does not say.
    std::uint32_t queued_for_slurmdbd();

private:
    void ask_slurmctld();
    bool load_jobs();

    fairshare::TimePoint now_;
    bool asked_ = false;
    // Until slurmctld answers otherwise: accounting is trusted up to now (an open record runs on).
    fairshare::TimePoint started_ = now_;
    fairshare::TimePoint complete_until_ = now_;
    std::optional<Seconds> over_time_limit_;  // none: UNLIMITED
    Seconds kill_wait_{0};
    std::map<fairshare::RunId, fairshare::LiveRun> held_;
    fairshare::ForgottenRuns forgotten_;  // priority/fairway's, read with slurmctld's answer
    std::optional<std::uint32_t> queued_;
};

}  // namespace fairway::report
