// priority/fairway: the priority_p_* entry points Slurm 22.05 and 24.11 call. Each one only guards
// against exceptions (nothing may escape into slurmctld or sshare) and forwards to the Adapter.
#include "priority/slurm_api.h"

#include <exception>

#include "priority/adapter.h"

namespace {

using fairway::priority::Adapter;
using fairway::priority::SprioFilter;

// The plugin's single piece of mutable file-scope state.
Adapter* adapter = nullptr;

// Runs an entry point body; any exception is logged and turned into the given fallback result.
template <typename Result, typename Body>
Result guarded(const char* entry, Result fallback, Body&& body) noexcept {
    try {
        return body();
    } catch (const std::exception& e) {
        error("priority/fairway: %s: %s", entry, e.what());
    } catch (...) {
        error("priority/fairway: %s: unknown exception", entry);
    }
    return fallback;
}

template <typename Body>
void guarded_void(const char* entry, Body&& body) noexcept {
    guarded(entry, 0, [&] {
        body();
        return 0;
    });
}

}  // namespace

extern "C" {

extern const char plugin_name[] = "Priority FAIRWAY plugin (windowed fair-share)";
extern const char plugin_type[] = "priority/fairway";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void) {
    return guarded("init", SLURM_ERROR, [] {
        if (!adapter) adapter = new Adapter();
        const int rc = adapter->start();
        if (!FAIRWAY_SLURM_STARTS_THREAD && rc == SLURM_SUCCESS) adapter->start_thread();
        return rc;
    });
}

// 24.11: called once the jobs are loaded (22.05 has no such call; init() starts the thread there).
void priority_p_thread_start(void) {
    guarded_void("priority_p_thread_start", [] {
        if (adapter) adapter->start_thread();
    });
}

// 24.11: called after the job state is loaded, to boost the recovered jobs' priorities; fairway's
// priorities stand as saved, and the first pass recomputes them.
uint32_t priority_p_recover(uint32_t) { return 0; }

int fini(void) {
    return guarded("fini", SLURM_ERROR, [] {
        if (adapter) adapter->stop();
        delete adapter;
        adapter = nullptr;
        return SLURM_SUCCESS;
    });
}

uint32_t priority_p_set(uint32_t last_prio, job_record_t* job_ptr) {
    return guarded("priority_p_set", uint32_t{1},
                   [&] { return adapter ? adapter->initial_priority(job_ptr) : uint32_t{1}; });
}

void priority_p_reconfig(bool assoc_clear) {
    guarded_void("priority_p_reconfig", [&] {
        if (adapter) adapter->reconfigure(assoc_clear);
    });
}

void priority_p_set_assoc_usage(slurmdb_assoc_rec_t* assoc) {
    guarded_void("priority_p_set_assoc_usage", [&] {
        if (adapter) adapter->refresh_assoc_usage(assoc);
    });
}

double priority_p_calc_fs_factor(long double usage_efctv, long double shares_norm) {
    return guarded("priority_p_calc_fs_factor", 0.0,
                   [&] { return adapter ? adapter->classic_fs_factor(usage_efctv, shares_norm) : 0.0; });
}

#if FAIRWAY_SPRIO_LISTING_LOCKED
list_t* priority_p_get_priority_factors_list(uid_t uid) {
    const SprioFilter filter;  // sprio filters what it asked for itself
#else
list_t* priority_p_get_priority_factors_list(priority_factors_request_msg_t* req_msg, uid_t uid) {
    if (!req_msg) return nullptr;
    const SprioFilter filter{req_msg->job_id_list, req_msg->uid_list, req_msg->partitions};
#endif
    return guarded("priority_p_get_priority_factors_list", static_cast<list_t*>(nullptr),
                   [&] { return adapter ? adapter->priority_factors(filter, uid) : static_cast<list_t*>(nullptr); });
}

void priority_p_job_end(job_record_t* job_ptr) {
    guarded_void("priority_p_job_end", [&] {
        if (adapter) adapter->job_ended(job_ptr);
    });
}

}  // extern "C"
