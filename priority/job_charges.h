// Turns running and finished jobs into usage charges for the book (fairshare/usage_book.h): per
// second, TRES billing (TRESBillingWeights of the job's partition, via Slurm's own
// calc_job_billable_tres), wall time and each allocated TRES, all x QOS UsageFactor, for the job's
// association, its QOS and its partition's QOS, as multifactor charges them.
//
// Each job is charged for the time since it was last charged (fairshare/run_charges.h, the rule the
// rebuild and fairway-report follow too), so a job is never charged twice for the same second,
// whether the charge comes from a calculation pass or from priority_p_job_end (which Slurm calls
// only with AccountingStorageEnforce=limits).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fairshare/recorded_runs.h"
#include "fairshare/run_charges.h"
#include "fairshare/usage_book.h"
#include "priority/slurmctld_symbols.h"

namespace fairway::priority {

struct UsageCharge {
    fairshare::UsageOwners owners;
    fairshare::UsageRates rates;
    fairshare::ChargeSpan span;  // for UsageBook::charge_span
};

// What one second of `job` costs on each meter. Caller holds assoc_mgr's QOS and TRES read locks.
fairshare::UsageRates usage_rates(const job_record_t* job, double billing, int tres_count);
// The job's association, its QOS and its partition's QOS when that differs (assoc_mgr locks as above).
fairshare::UsageOwners usage_owners(const job_record_t* job);

// False for a pending job (not completing), which cannot accrue usage: most of a queue, told
// apart by the job's state alone (one cache line of its record).
bool may_accrue_usage(const job_record_t* job);
// False also for a job that has ended: a pass charges it up to its end, and it accrues nothing more
// while it stays in the job list for MinJobAge (thousands of records on a busy cluster).
bool accrues_after_this_pass(const job_record_t* job);

class JobChargeTracker {
public:
    // Charges of every job in `jobs` (all of job_list that may_accrue_usage) since it was last charged, or since
    // `last_pass` for jobs not seen before (after a restart: the time the saved usage was last
    // advanced to). Caller holds slurmctld's job write lock (billing is cached in the job record)
    // and assoc_mgr's QOS and TRES read locks.
    std::vector<UsageCharge> collect(const std::vector<job_record_t*>& jobs, time_t now, time_t last_pass,
                                     const SlurmctldSymbols& symbols);

    // Forgets what was charged: the ledger was rebuilt from accounting. The next collect() charges
    // each job from where `coverage` says the rebuild left it (a job accounting had not heard of
    // from its start); later ones never before coverage.rebuilt_at(). Same locks as collect().
    void reset(fairshare::RebuildCoverage coverage);

    // The final charge of one job that just ended; same locks as collect().
    std::optional<UsageCharge> final_charge(job_record_t* job, time_t now, time_t last_pass,
                                            const SlurmctldSymbols& symbols);

private:
    std::optional<UsageCharge> charge_job(job_record_t* job, time_t now, time_t last_pass,
                                          const SlurmctldSymbols& symbols,
                                          std::unordered_map<uint32_t, time_t>& still_running);

    // Up to when `job` counts as charged: by an earlier pass, else up to where the last pass or a
    // rebuild (coverage_) left it.
    time_t charged_up_to(const job_record_t* job, time_t last_pass) const;

    // Job id -> the time up to which it has been charged; only jobs still running.
    std::unordered_map<uint32_t, time_t> charged_until_;
    time_t accounted_until_ = 0;
    std::optional<fairshare::RebuildCoverage> coverage_;  // until the first collect() after a rebuild
};

// With AccountingStorageEnforce=limits, Slurm reserves each running job's TRES x time limit x
// UsageFactor in grp_used_tres_run_secs of its QOS, partition QOS and associations when it starts
// (GrpTRESRunMins); the priority plugin must give that back when the job ends. fairway returns it
// all at the end (it does not return it gradually as multifactor does).
// Caller holds assoc_mgr's assoc and QOS write locks and TRES read lock.
void release_reserved_run_seconds(const job_record_t* job, int tres_count);

}  // namespace fairway::priority
