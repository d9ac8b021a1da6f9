// What differs in libslurm's public API between the releases the bridge builds for (22.05 and
// 24.11): the only place in bridge/ that tests SLURM_VERSION_NUMBER.
#pragma once

// The list type names, shared with fairway-report.
#include "slurm_public/lists.h"
