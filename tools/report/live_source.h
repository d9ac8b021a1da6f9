// Live mode: the association tree and the window's accounting from slurmdbd through libslurmdb
// (sacct --parsable2 and sacctmgr as a fallback), streamed into a ReportModel with bounded memory,
// plus a pending job's own priority factors from slurmctld for `explain JOBID`.
#pragma once

#include <ctime>
#include <functional>
#include <ostream>
#include <string>

#include "tools/report/cli_options.h"
#include "tools/report/report_model.h"

namespace fairway::report {

// Loads settings from slurm.conf (PriorityDecayHalfLife, PriorityParameters window/bucket,
// PriorityFlags, FairShareDampeningFactor, PriorityWeightFairshare), the association tree and the
// usage records of the window, each charged as priority/fairway's rebuild charges it: up to what
// slurmctld knows of a record without an end, and under priority/fairway nothing from before its
// association's last RawUsage reset (report/controller_view.h). Throws std::runtime_error naming
// what was unreachable.
void load_live(const Options& options, ReportModel& model);

// One run of a job as slurmdbd recorded it (every run of a requeued job is its own record).
struct AccountedJob {
    std::string id, account, user, qos;
    std::time_t submit = 0, start = 0, end = 0;  // 0: not (yet) started, still running
    double elapsed = 0;                          // seconds
    std::int64_t time_limit = 0;                 // seconds; 0: none (unlimited or unknown)
    double billing = 0, cpus = 0, gpus = 0;      // AllocTRES
    std::uint32_t assoc_id = 0;                  // slurmdbd's id of its association
};

// What the site's accounting holds for a period: the jobs ending in [from, to] and those running
// at `to` (never started ones are handed over too, with start 0), read the way load_live reads them.
struct AccountingQuery {
    TimePoint from, to;
    bool use_sacct = false;       // sacct/sacctmgr instead of libslurmdb
    std::string sacct = "sacct";  // the sacct command
};

// Reads slurm.conf's settings and the association tree (handed to `on_header` first), then
// streams every job record of the query to `on_job`, never holding more than one slice of them.
// Records of deleted associations are skipped; returns how many were. Throws std::runtime_error
// naming what was unreachable.
std::size_t read_accounting(const AccountingQuery& query, const std::function<void(const InputHeader&)>& on_header,
                            const std::function<void(const AccountedJob&)>& on_job);

// explain JOBID: the job's factors as slurmctld computed them (like sprio -l), then the fair-share
// explanation of its association.
int explain_live_job(const Options& options, const ReportModel& model, std::ostream& out);

}  // namespace fairway::report
