#include "priority/job_charges.h"

#include <algorithm>

namespace fairway::priority {
namespace {

bool has_ended(const job_record_t* job) { return IS_JOB_FINISHED(job) || IS_JOB_COMPLETING(job); }

}  // namespace

bool may_accrue_usage(const job_record_t* job) { return !IS_JOB_PENDING(job) || has_ended(job); }

bool accrues_after_this_pass(const job_record_t* job) { return !IS_JOB_PENDING(job) && !has_ended(job); }

namespace {

// A job accrues usage once it started and while it is not pending again (a requeued job keeps
// its old start time while it waits).
bool accrues_usage(const job_record_t* job) { return may_accrue_usage(job) && job->start_time && job->assoc_ptr; }

double usage_factor(const job_record_t* job) {
    const slurmdb_qos_rec_t* qos = job->qos_ptr;
    return (qos && qos->usage_factor >= 0) ? qos->usage_factor : 1.0;
}

void subtract_run_seconds(uint64_t* used, const std::vector<uint64_t>& reserved) {
    for (size_t i = 0; i < reserved.size(); ++i) used[i] = used[i] > reserved[i] ? used[i] - reserved[i] : 0;
}

}  // namespace

fairshare::UsageRates usage_rates(const job_record_t* job, double billing, int tres_count) {
    const double factor = usage_factor(job);
    fairshare::UsageRates rates{billing * factor, factor, {}};
    if (!job->tres_alloc_cnt || !assoc_mgr_tres_array) return rates;
    for (int i = 0; i < tres_count; ++i) {
        const uint64_t count = job->tres_alloc_cnt[i];
        // Energy is metered, not allocated; multifactor leaves it out of TRES usage too.
        if (i == TRES_ARRAY_ENERGY || !count || count == NO_CONSUME_VAL64 || !assoc_mgr_tres_array[i]) continue;
        rates.tres.emplace_back(assoc_mgr_tres_array[i]->id, static_cast<double>(count) * factor);
    }
    return rates;
}

fairshare::UsageOwners usage_owners(const job_record_t* job) {
    fairshare::UsageOwners owners;
    owners.association = job->assoc_ptr ? job->assoc_ptr->id : 0;
    const slurmdb_qos_rec_t* job_qos = job->qos_ptr;
    const slurmdb_qos_rec_t* partition_qos = job->part_ptr ? job->part_ptr->qos_ptr : nullptr;
    owners.qos[0] = job_qos ? job_qos->id : 0;
    owners.qos[1] = (partition_qos && partition_qos != job_qos) ? partition_qos->id : 0;
    return owners;
}

void release_reserved_run_seconds(const job_record_t* job, int tres_count) {
    if (!job->tres_alloc_cnt || tres_count <= 0) return;
    // The same integer arithmetic as acct_policy_job_begin, so the amounts cancel exactly.
    uint64_t seconds = static_cast<uint64_t>(job->time_limit) * 60;
    if (job->qos_ptr && job->qos_ptr->usage_factor >= 0)
        seconds = static_cast<uint64_t>(static_cast<double>(seconds) * job->qos_ptr->usage_factor);
    std::vector<uint64_t> reserved(tres_count, 0);
    for (int i = 0; i < tres_count; ++i) {
        if (i != TRES_ARRAY_ENERGY && job->tres_alloc_cnt[i] != NO_CONSUME_VAL64)
            reserved[i] = job->tres_alloc_cnt[i] * seconds;
    }
    slurmdb_qos_rec_t* job_qos = job->qos_ptr;
    if (job_qos && job_qos->usage) subtract_run_seconds(job_qos->usage->grp_used_tres_run_secs, reserved);
    slurmdb_qos_rec_t* partition_qos = job->part_ptr ? job->part_ptr->qos_ptr : nullptr;
    if (partition_qos && partition_qos != job_qos && partition_qos->usage)
        subtract_run_seconds(partition_qos->usage->grp_used_tres_run_secs, reserved);
    for (slurmdb_assoc_rec_t* assoc = job->assoc_ptr; assoc && assoc->usage; assoc = assoc->usage->parent_assoc_ptr)
        subtract_run_seconds(assoc->usage->grp_used_tres_run_secs, reserved);
}

std::optional<UsageCharge> JobChargeTracker::charge_job(job_record_t* job, time_t now, time_t last_pass,
                                                        const SlurmctldSymbols& symbols,
                                                        std::unordered_map<uint32_t, time_t>& still_running) {
    if (!accrues_usage(job)) return std::nullopt;
    const bool ended = has_ended(job);
    const time_t end = ended ? std::min(std::max(job->end_time, job->start_time), now) : now;
    // No horizon here: what a job is charged from is never older than the saved clock or a
    // rebuild's horizon (usage_horizon), and the book drops seconds that left the window.
    const fairshare::ChargeSpan span =
        fairshare::uncharged_span(fairshare::from_unix_seconds(job->start_time), fairshare::from_unix_seconds(end),
                                  fairshare::from_unix_seconds(charged_up_to(job, last_pass)), fairshare::TimePoint{});
    if (!ended) still_running[job->job_id] = span.to.time_since_epoch().count();
    if (span.empty()) return std::nullopt;
    const double billing = symbols.billable_tres(job, span.from.time_since_epoch().count(), true);
    return UsageCharge{usage_owners(job), usage_rates(job, billing > 0 ? billing : 0.0, *symbols.tres_count), span};
}

std::vector<UsageCharge> JobChargeTracker::collect(const std::vector<job_record_t*>& jobs, time_t now, time_t last_pass,
                                                   const SlurmctldSymbols& symbols) {
    std::vector<UsageCharge> charges;
    std::unordered_map<uint32_t, time_t> still_running;
    for (job_record_t* job : jobs) {
        if (auto charge = charge_job(job, now, last_pass, symbols, still_running)) charges.push_back(*charge);
    }
    charged_until_.swap(still_running);
    coverage_.reset();
    return charges;
}

time_t JobChargeTracker::charged_up_to(const job_record_t* job, time_t last_pass) const {
    const auto known = charged_until_.find(job->job_id);
    if (known != charged_until_.end()) return std::max(known->second, accounted_until_);
    if (!coverage_) return std::max(last_pass, accounted_until_);
    const fairshare::RunId run{job->job_id, job->details ? static_cast<std::int64_t>(job->details->submit_time) : 0};
    return coverage_->charge_from(run, fairshare::TimePoint{Seconds{job->start_time}}).time_since_epoch().count();
}

void JobChargeTracker::reset(fairshare::RebuildCoverage coverage) {
    charged_until_.clear();
    accounted_until_ = coverage.rebuilt_at().time_since_epoch().count();
    coverage_ = std::move(coverage);
}

std::optional<UsageCharge> JobChargeTracker::final_charge(job_record_t* job, time_t now, time_t last_pass,
                                                          const SlurmctldSymbols& symbols) {
    std::unordered_map<uint32_t, time_t> ignored;
    // Slurm calls this before the job is marked finished; treat it as ended at its end time.
    const time_t end = job->end_time ? std::min(job->end_time, now) : now;
    auto charge = charge_job(job, end, last_pass, symbols, ignored);
    charged_until_[job->job_id] = std::max(end, job->start_time);
    return charge;
}

}  // namespace fairway::priority
