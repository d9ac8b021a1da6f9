// Slurm's internal headers job_submit/fairway uses, for the release it is built against (22.05 or
// 24.11): the only place in jobsubmit/ that tests SLURM_VERSION_NUMBER.
#pragma once

// 24.11's job record (src/common/extra_constraints.h) names a field `operator`, a C++ keyword: it
// is renamed while Slurm's headers are read, after the C library headers they use.
#include <pthread.h>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#define operator slurm_operator
extern "C" {
#include "slurm/slurm_errno.h"
#include "slurm/slurm_version.h"
// First of Slurm's internal headers: it maps their function names to libslurm's slurm_* exports
// (error -> slurm_error); a block of its own keeps the formatter from moving it.
#include "src/common/slurm_xlator.h"

#include "src/common/assoc_mgr.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
}
#undef operator

// 23.02 gave job_modify() an error message for the user.
#define FAIRWAY_JOB_MODIFY_HAS_ERR_MSG (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0))

namespace fairway::jobsubmit::compat {
// What separates "gres" from the GRES name in a descriptor's TRES strings (tres_per_node, ...):
// "gres/gpu:a100:2" since 23.02 (src/common/slurm_opt.c), "gres:gpu:a100:2" in 22.05.
inline constexpr char kGresSeparator = SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0) ? '/' : ':';
}  // namespace fairway::jobsubmit::compat
