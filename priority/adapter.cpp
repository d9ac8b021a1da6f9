#include "priority/adapter.h"

#include <cmath>

namespace fairway::priority {

int Adapter::start()
{
    symbols_ = find_slurmctld_symbols();
    in_slurmctld_ = symbols_.complete();
    if (in_slurmctld_)
        info("priority/fairway: loaded in slurmctld");
    else
        debug("priority/fairway: loaded outside slurmctld (client mode: no thread, no state)");
    return SLURM_SUCCESS;
}

void Adapter::stop() {}

uint32_t Adapter::initial_priority(job_record_t* job)
{
    if (job->direct_set_prio && job->priority > 0)
        return job->priority;
    return 1;
}

void Adapter::reconfigure(bool) {}

void Adapter::refresh_assoc_usage(slurmdb_assoc_rec_t*) {}

double Adapter::classic_fs_factor(long double usage_efctv, long double shares_norm)
{
    if (shares_norm <= 0 || usage_efctv < 0)
        return 0.0;
    return std::pow(2.0, -static_cast<double>(usage_efctv / shares_norm));
}

List Adapter::priority_factors(priority_factors_request_msg_t*, uid_t)
{
    return nullptr;
}

void Adapter::job_ended(job_record_t*) {}

}  // namespace fairway::priority
