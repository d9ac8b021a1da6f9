// Live mode: the association tree and the window's accounting from slurmdbd through libslurmdb
// (sacct --parsable2 and sacctmgr as a fallback), streamed into a ReportModel with bounded memory,
// plus a pending job's own priority factors from slurmctld for `explain JOBID`.
#pragma once

#include <ostream>

#include "report/cli_options.h"
#include "report/report_model.h"

namespace fairway::report {

// Loads settings from slurm.conf (PriorityDecayHalfLife, PriorityParameters window/bucket,
// PriorityFlags, FairShareDampeningFactor, PriorityWeightFairshare), the association tree and the
// usage records of the window. Throws std::runtime_error naming what was unreachable.
void load_live(const Options& options, ReportModel& model);

// explain JOBID: the job's factors as slurmctld computed them (like sprio -l), then the fair-share
// explanation of its association.
int explain_live_job(const Options& options, const ReportModel& model, std::ostream& out);

}  // namespace fairway::report
