// sprio's request: the priority factors of pending jobs, one entry per job and partition, filtered
// by PrivateData=jobs and, in 22.05, by the job ids, users and partitions sprio asked for (24.11's
// sprio filters itself).
#include <algorithm>
#include <optional>

#include "common/error.h"
#include "priority/adapter.h"
#include "priority/job_prioritizer.h"
#include "priority/list_walk.h"

namespace fairway::priority {
namespace {

// A filter of sprio's: null for none.
bool passes(list_t* filter, uint32_t value, const char* what) { return !filter || list_holds(filter, value, what); }

bool partition_wanted(list_t* wanted, part_record_t* partition) {
    if (!wanted) return true;
    return list_find_first(
        wanted, [](void* item, void* key) { return item == key ? 1 : 0; }, partition);
}

OwnedList partitions_named(const char* names, const SlurmctldSymbols& symbols) {
    if (!names) return nullptr;
    OwnedList found(list_create(nullptr));
    char* copy = xstrdup(names);
    char* save = nullptr;
    for (char* name = strtok_r(copy, ",", &save); name; name = strtok_r(nullptr, ",", &save)) {
        if (part_record_t* partition = symbols.find_part(name)) list_append(found.get(), partition);
    }
    xfree(copy);
    return found;
}

// A pass that recomputed only the jobs due by age (age_calendar.h) left the others' stored age
// factor at their last recomputation, though their integer priority is what a walk over all jobs
// would have stored. sprio shows their age as of the last pass, so that its sum is that priority.
// A job recomputed since (submitted or updated) keeps its own: with the same accrue time, an age
// factor only grows.
struct AgesAsOf {
    const fairshare::PriorityConfig& config;
    time_t when;  // the last walk; 0: none since slurmctld started, so the stored ones are current

    void bring_forward(const job_record_t* job, compat::JobFactors* factors) const {
        if (!factors || !when || !job->details) return;
        std::optional<fairshare::TimePoint> accrue;
        if (job->details->accrue_time) accrue = fairshare::TimePoint{Seconds{job->details->accrue_time}};
        const double age =
            fairshare::age_factor(config, accrue, fairshare::TimePoint{Seconds{when}}) * config.weights.age;
        factors->priority_age = std::max(factors->priority_age, age);
    }
};

priority_factors_object_t* factors_of(job_record_t* job, part_record_t* partition, const AgesAsOf& ages) {
    const char* qos = job->qos_ptr ? job->qos_ptr->name : nullptr;
    priority_factors_object_t* factors = compat::new_listing_entry(job, partition->name, qos);
    if (job->direct_set_prio) factors->direct_prio = job->priority;
    else ages.bring_forward(job, compat::listed_factors(factors));
    factors->job_id = job->job_id;
    factors->user_id = job->user_id;
    return factors;
}

// One entry for a single-partition job; one per wanted partition for a multi-partition job, whose
// partition and TRES factors differ by partition.
void append_factors(job_record_t* job, list_t* wanted_partitions, JobPrioritizer& prioritizer, const AgesAsOf& ages,
                    time_t now, list_t* out) {
    if (!job->part_ptr_list) {
        if (job->part_ptr && partition_wanted(wanted_partitions, job->part_ptr))
            list_append(out, factors_of(job, job->part_ptr, ages));
        return;
    }
    walk_list<part_record_t>(job->part_ptr_list, "sprio listing's partitions", [&](part_record_t* partition) {
        if (!partition_wanted(wanted_partitions, partition)) return;
        priority_factors_object_t* factors = factors_of(job, partition, ages);
        if (compat::JobFactors* listed = compat::listed_factors(factors))
            prioritizer.factors_in_partition(job, partition, now, listed);
        list_append(out, factors);
    });
}

}  // namespace

bool Adapter::may_see_job(const job_record_t* job, uid_t uid) const {
    const SlurmctldSymbols& symbols = state_.env.symbols;
    if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS) || job->user_id == uid || symbols.is_operator(uid)) return true;
    if (slurm_mcs_get_privatedata() == 1) return mcs_g_check_mcs_label(uid, job->mcs_label, false) == 0;
    return compat::is_account_coordinator(*symbols.acct_db_conn, uid, job->account);
}

namespace {

bool listed_for_sprio(const job_record_t* job, const Settings& settings, time_t now) {
    if ((!IS_JOB_PENDING(job) && !settings.calculate_running) || IS_JOB_REVOKED(job) || !job->details ||
        job->priority == 0 || !job->prio_factors)
        return false;
    // Not yet eligible (e.g. --begin in the future): sprio does not list it.
    const time_t eligible = settings.accrue_always ? job->details->submit_time : job->details->begin_time;
    return eligible && eligible <= now;
}

// What listed_for_sprio(), the filters and factors_of() read of each job (see list_walk.h).
struct ListingPrefetcher {
    bool accrue_always;
    void record(const job_record_t* job) const {
        prefetch(&job->details);
        prefetch(&job->job_id);
        prefetch(&job->job_state);
        prefetch(&job->part_ptr);
        prefetch(&job->priority);
        prefetch(&job->user_id);
    }
    void dependents(const job_record_t* job) const {
        if (job->details) {
            prefetch(accrue_always ? &job->details->submit_time : &job->details->begin_time);
            prefetch(&job->details->accrue_time);
        }
        prefetch_whole(job->prio_factors);
    }
};

}  // namespace

// The locks Slurm does not hold for the listing (24.11 holds them all; taking assoc_mgr's again,
// while a pass waits for them in their order, would deadlock).
struct ListingLocks {
    std::optional<JobReadLock> jobs;
    std::optional<AssocMgrLock> qos;
    JobReadLocked slurm_holds = JobReadLocked::held_by_slurm();  // the token when Slurm holds them
    explicit ListingLocks(const SlurmctldSymbols& symbols) {
        if (FAIRWAY_SPRIO_LISTING_LOCKED) return;
        jobs.emplace(symbols);
        qos.emplace(assoc_mgr_lock_t{.qos = READ_LOCK});
    }
    const JobReadLocked& token() const { return jobs ? jobs->token() : slurm_holds; }
};

list_t* Adapter::priority_factors(const SprioFilter& filter, uid_t uid) {
    const SlurmctldSymbols& symbols = state_.env.symbols;
    if (!state_.env.in_slurmctld) return nullptr;
    const auto settings = state_.settings();
    JobPrioritizer prioritizer(settings, state_.fair_share(), symbols);
    const ListingLocks locks(symbols);
    const time_t now = time(nullptr);
    const OwnedList wanted_partitions = partitions_named(filter.partitions, symbols);
    OwnedList out(list_create(slurm_destroy_priority_factors_object));
    const ListingPrefetcher prefetcher{settings->accrue_always};
    const AgesAsOf ages{settings->priority, state_.jobs.read(locks.token()).ages_as_of};
    const auto jobs = list_items<job_record_t>(*symbols.job_list, "sprio listing");
    visit_prefetching(jobs, "sprio listing", prefetcher, [&](job_record_t* job) {
        if (!listed_for_sprio(job, *settings, now) || !passes(filter.job_ids, job->job_id, "sprio's job ids") ||
            !passes(filter.user_ids, job->user_id, "sprio's users") || !may_see_job(job, uid))
            return;
        try {
            append_factors(job, wanted_partitions.get(), prioritizer, ages, now, out.get());
        } catch (const InputError& e) {
            error("priority/fairway: priority factors of %pJ not listed: %s", job, e.what());
        }
    });
    if (!list_count(out.get())) return nullptr;
    return out.release();
}

}  // namespace fairway::priority
