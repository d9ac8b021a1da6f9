#include "priority/slurmctld_symbols.h"

#include <dlfcn.h>

namespace fairway::priority {
namespace {

template <typename T>
void look_up(T& target, const char* name) {
    target = reinterpret_cast<T>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

bool SlurmctldSymbols::complete() const {
    return job_list && part_list && last_job_update && cluster_cpus && tres_count && acct_db_conn && lock && unlock &&
           find_part && find_job && is_operator && billable_tres;
}

SlurmctldSymbols find_slurmctld_symbols() {
    SlurmctldSymbols symbols;
    look_up(symbols.job_list, "job_list");
    look_up(symbols.part_list, "part_list");
    look_up(symbols.last_job_update, "last_job_update");
    look_up(symbols.cluster_cpus, "cluster_cpus");
    look_up(symbols.tres_count, "slurmctld_tres_cnt");
    look_up(symbols.acct_db_conn, "acct_db_conn");
    look_up(symbols.lock, "lock_slurmctld");
    look_up(symbols.unlock, "unlock_slurmctld");
    look_up(symbols.find_part, "find_part_record");
    look_up(symbols.find_job, "find_job_record");
    look_up(symbols.is_operator, "validate_operator");
    look_up(symbols.billable_tres, "calc_job_billable_tres");
    look_up(symbols.diag_stats, "slurmctld_diag_stats");
    return symbols;
}

SlurmctldLock::SlurmctldLock(const SlurmctldSymbols& symbols, slurmctld_lock_t levels)
    : symbols_(symbols), levels_(levels) {
    symbols_.lock(levels_);
}

SlurmctldLock::~SlurmctldLock() { symbols_.unlock(levels_); }

}  // namespace fairway::priority
