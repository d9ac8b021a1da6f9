// What differs between the Slurm releases the adapter builds for (22.05 and 24.11): the only place
// in priority/ that tests SLURM_VERSION_NUMBER. Everything else uses the names defined here.
#pragma once

#include <string>
#include <type_traits>

extern "C" {
#include "slurm/slurm_version.h"
}

#define FAIRWAY_SLURM_AT_LEAST(a, b) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, 0))

#if FAIRWAY_SLURM_AT_LEAST(24, 11) && !FAIRWAY_SLURM_AT_LEAST(24, 12)
// 23.02 moved the plugin interfaces from src/common/ to src/interfaces/. 24.11's job record
// (src/common/extra_constraints.h) names a field `operator`, a C++ keyword: renamed while included,
// after the C library headers they use, which must keep the word.
#include <pthread.h>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#define operator slurm_operator
extern "C" {
#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/accounting_storage.h"
#include "src/interfaces/mcs.h"
#include "src/interfaces/priority.h"
#include "src/interfaces/site_factor.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
}
#undef operator
// Slurm calls priority_p_thread_start() once read_slurm_conf() has loaded the jobs; init() runs
// before that, with the main thread holding the configuration write lock.
#define FAIRWAY_SLURM_STARTS_THREAD 1
// sprio's request carries no filter (sprio filters itself), and Slurm holds the job, node and
// partition read locks and assoc_mgr's QOS read lock while the plugin lists.
#define FAIRWAY_SPRIO_LISTING_LOCKED 1
#elif FAIRWAY_SLURM_AT_LEAST(22, 5) && !FAIRWAY_SLURM_AT_LEAST(23, 2)
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
#define FAIRWAY_SLURM_STARTS_THREAD 0
#define FAIRWAY_SPRIO_LISTING_LOCKED 0
// 23.02 renamed List and ListIterator; the adapter uses the new names.
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#else
#error "priority/fairway's adapter builds for Slurm 22.05 and 24.11 (priority/slurm_compat.h)"
#endif

namespace fairway::priority::compat {

// Whether walk_skip.cpp's shortcuts rest on this release's behaviour, read from its source (the
// header of walk_skip.cpp lists what they rest on): 22.05's and 24.11's. On any other release every
// pass walks every job unless PriorityParameters=walk_shortcuts=yes.
inline constexpr bool kWalkShortcutsEstablished =
    !FAIRWAY_SLURM_AT_LEAST(23, 2) || (FAIRWAY_SLURM_AT_LEAST(24, 11) && !FAIRWAY_SLURM_AT_LEAST(24, 12));

// Whether slurmctld moves the job's QOS without asking for its priority: in 24.11 the schedulers set
// job_ptr->qos_ptr of a job with several QOS to each in turn (job_scheduler.c:
// _build_job_queue_for_qos, schedule) and acct_policy.c to the highest (_set_highest_prio_qos_ptr),
// while its priority is computed with its current QOS.
inline bool qos_moves_unasked(const job_record_t* job) {
#if FAIRWAY_SLURM_AT_LEAST(23, 2)
    return job->qos_list != nullptr;
#else
    (void)job;
    return false;
#endif
}

// The factors slurmctld keeps per job (job_ptr->prio_factors): priority_factors_object_t in 22.05,
// priority_factors_t in 24.11, with the same field names.
using JobFactors = std::remove_pointer_t<decltype(job_record_t::prio_factors)>;
// struct job_details in 22.05, an unnamed struct (job_details_t) in 24.11.
using JobDetails = std::remove_pointer_t<decltype(job_record_t::details)>;

inline int site_factor_init() {
#if FAIRWAY_SLURM_AT_LEAST(23, 2)
    return site_factor_g_init();
#else
    return site_factor_plugin_init();
#endif
}

inline void site_factor_fini() {
#if FAIRWAY_SLURM_AT_LEAST(23, 2)
    site_factor_g_fini();
#else
    site_factor_plugin_fini();
#endif
}

// Whether uid coordinates the account; assoc_mgr's locks are not held by the caller.
inline bool is_account_coordinator(void* db_conn, uid_t uid, char* account) {
#if FAIRWAY_SLURM_AT_LEAST(23, 2)
    return assoc_mgr_is_user_acct_coord(db_conn, uid, account, false);
#else
    return assoc_mgr_is_user_acct_coord(db_conn, uid, account);
#endif
}

// One entry of sprio's listing: a copy of the job's factors, and its names. 24.11's destructor
// (slurm_destroy_priority_factors_object) frees account, partition and qos, so they are copied;
// 22.05's frees none of them, and the packer copies them while the locks are held.
inline priority_factors_object_t* new_listing_entry(const job_record_t* job, const char* partition, const char* qos) {
    auto* entry = static_cast<priority_factors_object_t*>(xmalloc(sizeof(priority_factors_object_t)));
#if FAIRWAY_SLURM_AT_LEAST(23, 2)
    if (!job->direct_set_prio && job->prio_factors) {
        entry->prio_factors = static_cast<priority_factors_t*>(xmalloc(sizeof(priority_factors_t)));
        slurm_copy_priority_factors(entry->prio_factors, job->prio_factors);
    }
    entry->account = xstrdup(job->account);
    entry->partition = xstrdup(partition);
    entry->qos = xstrdup(qos);
#else
    (void)qos;
    if (!job->direct_set_prio && job->prio_factors) slurm_copy_priority_factors_object(entry, job->prio_factors);
    entry->partition = const_cast<char*>(partition);
#endif
    return entry;
}

// The factors inside a listing entry (null for a job whose priority was set directly in 24.11).
inline JobFactors* listed_factors(priority_factors_object_t* entry) {
#if FAIRWAY_SLURM_AT_LEAST(23, 2)
    return entry->prio_factors;
#else
    return entry;
#endif
}

// The per-partition priorities of a multi-partition job, `count` of them in part_ptr_list's order,
// allocated on first use: job_ptr->priority_array in 22.05; in 24.11 job_ptr->part_prio, which also
// names the partitions (as part_list_to_xstr does) for the schedulers and squeue.
// Null where the adapter leaves them unset: in 24.11, a job with several QOS, whose array Slurm
// indexes by partition and QOS (the schedulers then use the job's one priority). names(): the
// job's partitions' names, comma-separated, in the array's order (24.11 stores them with it).
template <typename PartitionNames>
uint32_t* partition_priorities(job_record_t* job, size_t count, const PartitionNames& names) {
#if FAIRWAY_SLURM_AT_LEAST(23, 2)
    if (job->qos_list) return nullptr;
    if (!job->part_prio) job->part_prio = static_cast<priority_mult_t*>(xmalloc(sizeof(priority_mult_t)));
    priority_mult_t* prio = job->part_prio;
    if (!prio->priority_array) {
        prio->priority_array = static_cast<uint32_t*>(xcalloc(count, sizeof(uint32_t)));
        xfree(prio->priority_array_names);
        const std::string joined = names();
        if (!joined.empty()) prio->priority_array_names = xstrdup(joined.c_str());
        prio->last_update = time(nullptr);
    }
    return prio->priority_array;
#else
    (void)names;
    if (!job->priority_array) job->priority_array = static_cast<uint32_t*>(xcalloc(count + 1, sizeof(uint32_t)));
    return job->priority_array;
#endif
}

}  // namespace fairway::priority::compat
