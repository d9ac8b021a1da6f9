// slurmctld's own globals and functions, looked up at run time.
//
// Why not reference them directly: the plugin is also dlopen()ed by sshare (classic fair-share),
// where these symbols do not exist. Linked with -z now, a direct reference would make that load
// fail; and with only plugin_* symbols exported, a local fallback definition would shadow
// slurmctld's real variable. Looking them up also tells us whether we run inside slurmctld.
#pragma once

#include "priority/slurm_api.h"

namespace fairway::priority {

struct SlurmctldSymbols {
    list_t** job_list = nullptr;
    list_t** part_list = nullptr;
    time_t* last_job_update = nullptr;
    uint32_t* cluster_cpus = nullptr;
    int* tres_count = nullptr;
    void** acct_db_conn = nullptr;
    void (*lock)(slurmctld_lock_t) = nullptr;
    void (*unlock)(slurmctld_lock_t) = nullptr;
    part_record_t* (*find_part)(char*) = nullptr;
    job_record_t* (*find_job)(uint32_t) = nullptr;
    bool (*is_operator)(uid_t) = nullptr;
    double (*billable_tres)(job_record_t*, time_t, bool) = nullptr;
    const diag_stats_t* diag_stats = nullptr;  // optional: sdiag's statistics (backfill's cycles)

    // True when every required symbol was found, i.e. the plugin was loaded by slurmctld.
    bool complete() const;
};

// Looks every symbol up in the process; missing ones stay null.
SlurmctldSymbols find_slurmctld_symbols();

// RAII holder for slurmctld's ordered job/node/partition locks.
class SlurmctldLock {
public:
    SlurmctldLock(const SlurmctldSymbols& symbols, slurmctld_lock_t levels);
    ~SlurmctldLock();
    SlurmctldLock(const SlurmctldLock&) = delete;
    SlurmctldLock& operator=(const SlurmctldLock&) = delete;

private:
    const SlurmctldSymbols& symbols_;
    slurmctld_lock_t levels_;
};

// RAII holder for assoc_mgr's locks; always taken after (inside) SlurmctldLock, as Slurm requires.
class AssocMgrLock {
public:
    explicit AssocMgrLock(assoc_mgr_lock_t levels) : levels_(levels) { assoc_mgr_lock(&levels_); }
    ~AssocMgrLock() { assoc_mgr_unlock(&levels_); }
    AssocMgrLock(const AssocMgrLock&) = delete;
    AssocMgrLock& operator=(const AssocMgrLock&) = delete;

private:
    assoc_mgr_lock_t levels_;
};

}  // namespace fairway::priority
