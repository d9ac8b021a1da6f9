// The one place where the adapter includes Slurm's internal (C) headers of the exact release it
// is built against (slurm_compat.h picks them). Everything Slurm-specific the adapter touches is
// declared through here.
#pragma once

#include "priority/slurm_compat.h"
