// What differs in libslurm's public API between the releases fairway-report builds for (22.05 and
// 24.11): the only place in tools/ that tests SLURM_VERSION_NUMBER.
#pragma once

#include <cstdint>
#include <type_traits>

// The list type names, shared with fairway-bridge.
#include "slurm_public/lists.h"

namespace fairway::report::compat {

// sprio's factors of one job, as slurmctld sends them: 22.05 asks for the listed job ids only; 24.11
// takes no filter (sprio filters itself), so every pending job comes back and the caller picks.
inline int load_job_factors(priority_factors_response_msg_t** response, std::uint32_t job_id) {
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
    list_t* ids = slurm_list_create(nullptr);
    slurm_list_append(ids, &job_id);
    int rc = slurm_load_job_prio(response, ids, nullptr, nullptr, 0);
    slurm_list_destroy(ids);
    return rc;
#else
    (void)job_id;
    return slurm_load_job_prio(response, 0);
#endif
}

// The weighted factors of one entry: the entry itself in 22.05; in 24.11 a struct of its own, null
// for a job whose priority an administrator set.
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
using JobFactors = priority_factors_object_t;
inline const JobFactors* factors_of(const priority_factors_object_t* entry) { return entry; }
#else
using JobFactors = priority_factors_t;
inline const JobFactors* factors_of(const priority_factors_object_t* entry) { return entry->prio_factors; }
#endif

}  // namespace fairway::report::compat
