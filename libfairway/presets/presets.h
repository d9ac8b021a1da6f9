// Umbrella header of the presets core (see README.md): schema, loading, merging, resolving.
#pragma once

#include "presets/carried.h"
#include "presets/env_policy.h"
#include "presets/job_request.h"
#include "presets/loader.h"
#include "presets/preset.h"
#include "presets/resolver.h"
#include "presets/site_cache.h"
#include "presets/slurm_tres.h"
#include "presets/submission.h"
