// priority/fairway: the priority_p_* entry points Slurm 22.05 calls. Each one only guards against
// exceptions (nothing may escape into slurmctld or sshare) and forwards to the Adapter.
#include "priority/slurm_api.h"

#include <exception>

#include "priority/adapter.h"

namespace {

using fairway::priority::Adapter;

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
        return adapter->start();
    });
}

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

List priority_p_get_priority_factors_list(priority_factors_request_msg_t* req_msg, uid_t uid) {
    return guarded("priority_p_get_priority_factors_list", List{nullptr},
                   [&] { return adapter ? adapter->priority_factors(req_msg, uid) : List{nullptr}; });
}

void priority_p_job_end(job_record_t* job_ptr) {
    guarded_void("priority_p_job_end", [&] {
        if (adapter) adapter->job_ended(job_ptr);
    });
}

}  // extern "C"
