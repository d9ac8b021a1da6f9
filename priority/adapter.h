// The adapter behind the entry points (plugin.cpp): what each priority_p_* call does. Its state
// (adapter_state.h) is grouped by the lock that guards it; the calculation thread's passes, and
// what only they touch, are CalcPass's (calc_pass.h).
#pragma once

#include <cstdint>

#include "priority/adapter_state.h"
#include "priority/calc_pass.h"
#include "priority/periodic_thread.h"

namespace fairway::priority {

// What sprio asked for (22.05; 24.11's sprio filters itself): null for no filter.
struct SprioFilter {
    list_t* job_ids = nullptr;         // of uint32_t
    list_t* user_ids = nullptr;        // of uint32_t
    const char* partitions = nullptr;  // comma-separated names
};

class Adapter {
public:
    Adapter() = default;
    Adapter(const Adapter&) = delete;
    Adapter& operator=(const Adapter&) = delete;

    int start();  // what init() may do: no slurmctld lock, no job list (24.11 calls it before loading them)
    void start_thread();
    void stop();
    // Slurm holds the job write lock for these two (priority_p_set, priority_p_job_end).
    uint32_t initial_priority(job_record_t* job);
    void job_ended(job_record_t* job);
    void reconfigure(bool assoc_clear);
    void refresh_assoc_usage(slurmdb_assoc_rec_t* assoc);
    double classic_fs_factor(long double usage_efctv, long double shares_norm);
    list_t* priority_factors(const SprioFilter& filter, uid_t uid);  // factors_listing.cpp

private:
    void recover_saved_usage(const Settings& settings, time_t now);
    bool may_see_job(const job_record_t* job, uid_t uid) const;

    AdapterState state_;
    CalcPass pass_{state_};
    PeriodicThread thread_;
};

}  // namespace fairway::priority
