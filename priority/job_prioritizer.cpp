#include "priority/job_prioritizer.h"

#include <algorithm>
#include <string>

#include "priority/list_walk.h"

namespace fairway::priority {
namespace {

uint32_t job_cpus(const job_record_t* job) {
    if (job->total_cpus) return job->total_cpus;
    if (job->details->max_cpus != NO_VAL) return job->details->max_cpus;
    return job->details->min_cpus;
}

// Slurm leaves "no priority" as NO_VAL or INFINITE in association and QOS records.
uint32_t set_or_zero(uint32_t value) { return (value == NO_VAL || value == INFINITE) ? 0 : value; }

uint64_t tres_value(const job_record_t* job, int index) {
    if (job->tres_alloc_cnt && job->tres_alloc_cnt[index] != NO_CONSUME_VAL64) return job->tres_alloc_cnt[index];
    return job->tres_req_cnt ? job->tres_req_cnt[index] : 0;
}

}  // namespace

JobPrioritizer::JobPrioritizer(std::shared_ptr<const Settings> settings,
                               std::shared_ptr<const fairshare::FairShareResult> fair_share,
                               const SlurmctldSymbols& symbols)
    : settings_(std::move(settings)), fair_share_(std::move(fair_share)), symbols_(symbols) {
    cluster_.nodes = std::max<uint32_t>(1, static_cast<uint32_t>(node_record_count));
    cluster_.cpus = std::max<uint32_t>(1, *symbols_.cluster_cpus);
    tres_count_ = settings_->priority.weights.tres.empty() ? 0 : *symbols_.tres_count;
}

bool JobPrioritizer::wants(const job_record_t* job) const {
    if (job->priority == 0 || !job->details || IS_JOB_POWER_UP_NODE(job)) return false;
    if (job->direct_set_prio) return false;
    return IS_JOB_PENDING(job) || (settings_->calculate_running && !IS_JOB_FINISHED(job));
}

// The fields named here are the ones wants(), fill_job_facts(), fill_partition_facts() and
// write_factors() read; several share a cache line, which costs a redundant hint, not a miss.
void JobPrioritizer::Prefetcher::record(const job_record_t* job) const {
    prefetch(&job->assoc_ptr);
    prefetch(&job->details);
    prefetch(&job->job_state);
    prefetch(&job->part_ptr);
    prefetch(&job->part_ptr_list);
    prefetch(&job->priority);
    prefetch(&job->qos_ptr);
    prefetch(&job->site_factor);
    prefetch(&job->time_limit);
    prefetch(&job->total_cpus);
    if (with_tres) prefetch(&job->tres_req_cnt);
}

void JobPrioritizer::Prefetcher::dependents(const job_record_t* job) const {
    if (const compat::JobDetails* details = job->details) {
        prefetch(&details->accrue_time);
        prefetch(&details->max_cpus);
        prefetch(&details->nice);
    }
    prefetch_whole(job->prio_factors);  // write_factors() compares it, and rarely writes
    if (with_tres && job->tres_req_cnt) prefetch(job->tres_req_cnt);
}

// Associations lie scattered over slurmctld's heap, and a pass reads the same three facts of each
// once per job: a miss per read. Copied into a small table they stay in cache for the whole pass.
const JobPrioritizer::AssociationFacts& JobPrioritizer::association_facts(const slurmdb_assoc_rec_t* assoc) {
    if (const AssociationFacts* known = associations_.find(assoc)) return *known;
    AssociationFacts facts;
    if (fair_share_ && settings_->priority.weights.fairshare)
        facts.fairshare_factor = fair_share_->job_factor(assoc->id);
    facts.priority = set_or_zero(assoc->priority);
    facts.priority_norm = assoc->usage ? assoc->usage->priority_norm : 0.0;
    return associations_.insert(assoc, facts);
}

void JobPrioritizer::fill_job_facts(const job_record_t* job, time_t, bool with_association) {
    const compat::JobDetails* details = job->details;
    facts_.accrue_time.reset();
    if (details->accrue_time) facts_.accrue_time = fairshare::from_unix_seconds(details->accrue_time);
    const AssociationFacts association =
        (with_association && job->assoc_ptr) ? association_facts(job->assoc_ptr) : AssociationFacts{};
    facts_.fairshare_factor = association.fairshare_factor;
    facts_.assoc_priority = association.priority;
    facts_.assoc_priority_norm = association.priority_norm;
    facts_.cpus = job_cpus(job);
    facts_.min_nodes = details->min_nodes;
    facts_.time_limit_minutes.reset();
    if (job->time_limit != NO_VAL) facts_.time_limit_minutes = job->time_limit;
    const slurmdb_qos_rec_t* qos = job->qos_ptr;
    facts_.qos_priority = qos ? set_or_zero(qos->priority) : 0;
    facts_.qos_priority_norm = (qos && qos->usage) ? qos->usage->norm_priority : 0.0;
    facts_.site_factor = static_cast<int64_t>(job->site_factor) - NICE_OFFSET;
    facts_.nice = static_cast<int64_t>(details->nice) - NICE_OFFSET;
    facts_.tres_count.resize(tres_count_);
    for (int i = 0; i < tres_count_; ++i) facts_.tres_count[i] = tres_value(job, i);
}

void JobPrioritizer::add_partition(const part_record_t* partition) {
    fairshare::PartitionFacts& facts = facts_.partitions.emplace_back();
    facts.name = partition->name ? partition->name : "";
    facts.priority_job_factor = partition->priority_job_factor;
    facts.norm_priority = partition->norm_priority;
    facts.max_time_minutes = partition->max_time;
    facts.tres_total.clear();
    if (partition->tres_cnt && tres_count_ > 0)
        facts.tres_total.assign(partition->tres_cnt, partition->tres_cnt + tres_count_);
}

void JobPrioritizer::fill_partition_facts(job_record_t* job) {
    // Most jobs in a walk share their one partition with the job before: keep its facts (the
    // partition read lock, held for the whole walk, keeps them current).
    if (!job->part_ptr_list && job->part_ptr && job->part_ptr == facts_partition_) return;
    facts_.partitions.clear();
    facts_partition_ = job->part_ptr_list ? nullptr : job->part_ptr;
    if (job->part_ptr) add_partition(job->part_ptr);
    if (job->part_ptr_list) {
        // Same order as multifactor's priority_array: by partition PriorityTier.
        list_sort(job->part_ptr_list, priority_sort_part_tier);
        walk_list<part_record_t>(job->part_ptr_list, "job's partitions",
                                 [&](const part_record_t* partition) { add_partition(partition); });
    }
}

fairshare::JobPriority JobPrioritizer::compute(job_record_t* job, time_t now) {
    fill_job_facts(job, now);
    fill_partition_facts(job);
    return fairshare::compute_job_priority(settings_->priority, cluster_, facts_, fairshare::from_unix_seconds(now));
}

namespace {

// A pass rewrites the factors of every pending job, and most are what they were: a store of an
// equal value would still dirty the cache line, which then costs a write back to memory.
template <typename T>
void store_if_changed(T& field, T value) {
    if (field != value) field = value;
}

template <typename T>
void store_if_changed(T* fields, const std::vector<T>& values) {
    if (!std::equal(values.begin(), values.end(), fields)) std::copy(values.begin(), values.end(), fields);
}

}  // namespace

void JobPrioritizer::write_factors(job_record_t* job, const fairshare::JobPriority& priority) const {
    if (!job->prio_factors) job->prio_factors = static_cast<compat::JobFactors*>(xmalloc(sizeof(compat::JobFactors)));
    compat::JobFactors* out = job->prio_factors;
    const fairshare::PriorityFactors& weighted = priority.weighted;
    store_if_changed(out->priority_age, weighted.age);
    store_if_changed(out->priority_assoc, weighted.assoc);
    store_if_changed(out->priority_fs, weighted.fairshare);
    store_if_changed(out->priority_js, weighted.job_size);
    store_if_changed(out->priority_part, weighted.partition);
    store_if_changed(out->priority_qos, weighted.qos);
    store_if_changed(out->priority_site, job->site_factor);
    store_if_changed(out->nice, job->details ? job->details->nice : static_cast<uint32_t>(NICE_OFFSET));
    if (tres_count_ == 0 || weighted.tres.size() != static_cast<size_t>(tres_count_)) return;
    if (!out->priority_tres) {
        out->priority_tres = static_cast<double*>(xcalloc(tres_count_, sizeof(double)));
        out->tres_weights = static_cast<double*>(xcalloc(tres_count_, sizeof(double)));
        out->tres_cnt = tres_count_;
    }
    store_if_changed(out->priority_tres, weighted.tres);
    store_if_changed(out->tres_weights, settings_->priority.weights.tres);
}

bool JobPrioritizer::write_partition_priorities(job_record_t* job, const fairshare::JobPriority& priority) const {
    if (!job->part_ptr_list) return false;
    const size_t count = list_count(job->part_ptr_list);
    // partition_priority[0] is for job->part_ptr; the rest follow part_ptr_list's order.
    if (priority.partition_priority.size() != count + 1) return false;
    uint32_t* stored = compat::partition_priorities(job, count, [job] {
        std::string names;
        walk_list<part_record_t>(job->part_ptr_list, "job's partition names", [&](const part_record_t* partition) {
            names += (names.empty() ? "" : ",") + std::string(partition->name);
        });
        return names;
    });
    if (!stored) return false;
    bool changed = false;
    for (size_t i = 0; i < count; ++i) {
        const uint32_t value = priority.partition_priority[i + 1];
        if (stored[i] == value || (settings_->incr_only && stored[i] > value)) continue;
        stored[i] = value;
        changed = true;
    }
    return changed;
}

// Files the job under the time aging next changes `priority`, its priority computed at `now` (facts_
// are still the job's), unless aging cannot change it any more. A job whose QOS slurmctld moves
// unasked is due at every pass, as the walk over all jobs would recompute it.
void JobPrioritizer::file_next_change(const job_record_t* job, const fairshare::JobPriority& priority, time_t now,
                                      fairshare::AgeCalendar* calendar) const {
    if (!calendar) return;
    if (compat::qos_moves_unasked(job)) {
        calendar->add(job->job_id, fairshare::from_unix_seconds(now + 1));
        return;
    }
    if (const auto due =
            fairshare::next_priority_change(settings_->priority, facts_, priority, fairshare::from_unix_seconds(now)))
        calendar->add(job->job_id, *due);
}

bool JobPrioritizer::update(job_record_t* job, time_t now, fairshare::AgeCalendar* calendar) {
    if (!wants(job)) return false;
    const fairshare::JobPriority priority = compute(job, now);
    file_next_change(job, priority, now, calendar);
    write_factors(job, priority);
    bool changed = write_partition_priorities(job, priority);
    if (job->priority != priority.priority && !(settings_->incr_only && job->priority > priority.priority)) {
        job->priority = priority.priority;
        changed = true;
    }
    return changed;
}

uint32_t JobPrioritizer::initial(job_record_t* job, time_t now, fairshare::AgeCalendar* calendar) {
    if (job->direct_set_prio && job->priority > 0) return job->priority;
    if (!job->details) return 1;
    AssocMgrLock locks({.assoc = READ_LOCK, .qos = READ_LOCK});
    const fairshare::JobPriority priority = compute(job, now);
    file_next_change(job, priority, now, calendar);
    write_factors(job, priority);
    write_partition_priorities(job, priority);
    return priority.priority;
}

void JobPrioritizer::factors_in_partition(job_record_t* job, part_record_t* partition, time_t now,
                                          compat::JobFactors* out) {
    fill_job_facts(job, now, false);
    facts_.partitions.clear();
    facts_partition_ = nullptr;
    add_partition(partition);
    const fairshare::JobPriority priority =
        fairshare::compute_job_priority(settings_->priority, cluster_, facts_, fairshare::from_unix_seconds(now));
    out->priority_part = priority.weighted.partition;
    if (out->priority_tres && priority.weighted.tres.size() == out->tres_cnt)
        std::copy(priority.weighted.tres.begin(), priority.weighted.tres.end(), out->priority_tres);
}

}  // namespace fairway::priority
