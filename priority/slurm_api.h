// The one place where the adapter includes Slurm's internal (C) headers of the exact release it
// is built against. Everything Slurm-specific the adapter touches is declared through here.
#pragma once

extern "C" {
#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/site_factor.h"
#include "src/common/slurm_accounting_storage.h"
#include "src/common/slurm_mcs.h"
#include "src/common/slurm_priority.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
}

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0) || SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#error "priority/fairway's adapter targets the Slurm 22.05 priority API (src/common/slurm_priority.h)"
#endif
