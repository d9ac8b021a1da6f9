// The adapter behind the entry points: owns the configuration, the core's usage ledger, the
// calculation thread and the state file. It translates between Slurm's records and the core.
#pragma once

#include "priority/slurm_api.h"
#include "priority/slurmctld_symbols.h"

namespace fairway::priority {

class Adapter {
public:
    Adapter() = default;
    Adapter(const Adapter&) = delete;
    Adapter& operator=(const Adapter&) = delete;

    int start();
    void stop();
    uint32_t initial_priority(job_record_t* job);
    void reconfigure(bool assoc_clear);
    void refresh_assoc_usage(slurmdb_assoc_rec_t* assoc);
    double classic_fs_factor(long double usage_efctv, long double shares_norm);
    List priority_factors(priority_factors_request_msg_t* request, uid_t uid);
    void job_ended(job_record_t* job);

private:
    SlurmctldSymbols symbols_;
    bool in_slurmctld_ = false;
};

}  // namespace fairway::priority
