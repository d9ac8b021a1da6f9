// Computes job priorities with the core's formula from a job record and writes them back:
// job_ptr->priority, job_ptr->priority_array (multi-partition jobs) and job_ptr->prio_factors
// (weighted factors, which sprio prints).
#pragma once

#include <memory>

#include "common/pointer_table.h"

#include "fairshare/age_calendar.h"
#include "fairshare/fair_share.h"
#include "fairshare/job_priority.h"
#include "priority/settings.h"
#include "priority/slurmctld_symbols.h"

namespace fairway::priority {

// Lives for one pass or one request: it keeps facts of the associations and partitions it has
// seen (copied values, never dereferenced again) on the assumption that none is freed and
// reallocated meanwhile.
class JobPrioritizer {
public:
    // `fair_share` may be null (no association data yet): the fair-share factor is then 0.
    JobPrioritizer(std::shared_ptr<const Settings> settings,
                   std::shared_ptr<const fairshare::FairShareResult> fair_share, const SlurmctldSymbols& symbols);

    // Recomputes a pending job (or a running one with CALCULATE_RUNNING). Returns true when
    // job_ptr->priority or its priority_array changed. Held and directly set priorities are left
    // alone. When aging alone can change the result, the time it can is added to `calendar` (if
    // given). Caller holds the job write lock, the partition read lock and assoc_mgr's assoc and
    // QOS read locks.
    bool update(job_record_t* job, time_t now, fairshare::AgeCalendar* calendar = nullptr);

    // The priority for priority_p_set: computes factors and the array, returns the priority
    // (Slurm stores it), and files the job in `calendar` as update() does. Same locks as update()
    // except assoc_mgr's, which this takes itself.
    uint32_t initial(job_record_t* job, time_t now, fairshare::AgeCalendar* calendar = nullptr);

    // Weighted partition and TRES factors of a multi-partition job in one of its partitions (sprio
    // shows one line per partition). Needs the job and partition read locks and assoc_mgr's QOS
    // read lock; reads no association.
    void factors_in_partition(job_record_t* job, part_record_t* partition, time_t now, compat::JobFactors* out);

    bool wants(const job_record_t* job) const;

    // Requests the cache lines update() reads of a job record, and then of what the record points
    // to (details, prio_factors, TRES counts); the Prefetcher of walk_list_prefetching.
    struct Prefetcher {
        bool with_tres;
        void record(const job_record_t* job) const;
        void dependents(const job_record_t* job) const;
    };
    Prefetcher prefetcher() const { return {tres_count_ > 0}; }

private:
    // What a job's priority takes from its association, read once per association and pass.
    struct AssociationFacts {
        double fairshare_factor = 0;
        uint32_t priority = 0;
        double priority_norm = 0;
    };

    const AssociationFacts& association_facts(const slurmdb_assoc_rec_t* assoc);
    fairshare::JobPriority compute(job_record_t* job, time_t now);
    // Without `with_association`, the factors taken from the association are left 0.
    void fill_job_facts(const job_record_t* job, time_t now, bool with_association = true);
    void fill_partition_facts(job_record_t* job);
    void add_partition(const part_record_t* partition);
    void file_next_change(const job_record_t* job, const fairshare::JobPriority& priority, time_t now,
                          fairshare::AgeCalendar* calendar) const;
    void write_factors(job_record_t* job, const fairshare::JobPriority& priority) const;
    bool write_partition_priorities(job_record_t* job, const fairshare::JobPriority& priority) const;

    std::shared_ptr<const Settings> settings_;
    std::shared_ptr<const fairshare::FairShareResult> fair_share_;
    const SlurmctldSymbols& symbols_;
    fairshare::ClusterShape cluster_;
    int tres_count_ = 0;
    fairshare::JobFacts facts_;                       // reused across jobs to avoid allocating per job
    const part_record_t* facts_partition_ = nullptr;  // facts_.partitions is this one partition's
    PointerTable<slurmdb_assoc_rec_t, AssociationFacts> associations_;
};

}  // namespace fairway::priority
