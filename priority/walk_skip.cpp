// Skipping a pass's walk over the jobs when it would write what the last walk wrote, or narrowing
// it to the jobs whose priority aging changes (the rules are the core's, fairshare/walk_memo.h and
// age_calendar.h; this file gathers what slurmctld shows of the inputs).
//
// What a walk reads, and how a change of it is seen without visiting the jobs:
// - the jobs themselves: in Slurm 22.05 and 24.11 a job's submission (job_mgr.c: job_allocate), every
//   update of a job that is not held (_update_job, also when it fails) and its release
//   (_update_job, _release_job_rec) end in set_job_prio(), which asks priority_p_set: the job is
//   recomputed and filed in the age calendar right then (CalcPass::initial_priority); so does a
//   requeue in 24.11 (batch_requeue_fini). The changes that do not ask (a start, an end, a purge,
//   an array task split off as it starts) leave pending priorities alone, but a start makes a job
//   accrue usage: slurmctld's start count (sdiag's statistics, counted at every start in
//   node_scheduler.c: select_nodes and _end_null_job) tells, and a pass after a start looks at
//   every job. A requeued job is one of the last walk's running jobs that is pending again, and
//   makes the pass look at every job too. In 24.11 the schedulers move the QOS of a job with
//   several QOS without asking (compat::qos_moves_unasked): such a job is due at every pass.
// - partitions, QOS, associations (priorities, shares, records), the cluster's size, fairway's
//   settings: a fingerprint of them, taken every pass; 24.11's reconfigure re-executes slurmctld
//   (controller.c: _try_to_reconfig), whose first pass walks every job;
// - fair-share factors: compared with the ones the last walk used;
// - ages: a job's age grows with no change stamped anywhere, so when only time went by, the jobs
//   recomputed are those the age calendar says are due (jobs that do not accrue age yet are due
//   every pass), and the walk is skipped only when the calendar is empty;
// - a site_factor plugin may change any job when it updates: no skip with one configured.
// Nothing else (no job pointer, only ids) is kept between passes, so a change that slips past all
// of this (`scontrol top`, which sets priorities itself; an array task split off before it starts,
// for a burst buffer or, in 24.11, an aftercorr dependency: job_scheduler.c:
// _split_job_on_schedule; the one priority of a job with several partitions, computed for its
// current partition, which the schedulers move without asking, build_job_queue, while they read
// its per-partition priorities) is only postponed, to the walk over all jobs made at least every
// kLongestSkip. All of this rests on 22.05's and 24.11's behaviour: PriorityParameters=
// walk_shortcuts=no turns every shortcut off (calc_pass.cpp: each pass takes the whole job list and
// walks every job), and that is the default on the releases it was not checked against
// (compat::kWalkShortcutsEstablished).
#include <cstring>

#include "priority/calc_pass.h"
#include "priority/list_walk.h"

namespace fairway::priority {
namespace {

constexpr std::chrono::seconds kLongestSkip{300};

bool site_factor_plugin_configured() {
    const char* plugin = slurm_conf.site_factor_plugin;
    return plugin && *plugin && strcmp(plugin, "site_factor/none") != 0;
}

void add_partition(fairshare::Fingerprint& inputs, const part_record_t* partition, int tres_count) {
    inputs.add(partition).add(partition->priority_job_factor).add(partition->priority_tier);
    inputs.add(partition->norm_priority).add(partition->max_time);
    for (int i = 0; partition->tres_cnt && i < tres_count; ++i) inputs.add(partition->tres_cnt[i]);
}

// Caller holds assoc_mgr's QOS read lock.
std::uint64_t qos_inputs() {
    fairshare::Fingerprint inputs;
    if (assoc_mgr_qos_list)
        walk_list<slurmdb_qos_rec_t>(assoc_mgr_qos_list, "QOS fingerprint", [&](const slurmdb_qos_rec_t* qos) {
            inputs.add(qos).add(qos->priority).add(qos->usage ? qos->usage->norm_priority : 0.0);
        });
    return inputs.value();
}

}  // namespace

// The job-side stamp: slurmctld's start count and a fingerprint of the partitions, the cluster and
// the settings. Caller holds the job write lock and the partition read lock.
fairshare::WalkStamp CalcPass::job_side_stamp(const JobWriteLocked&) {
    fairshare::Fingerprint inputs;
    inputs.add(state_.settings().get()).add(node_record_count).add(*symbols_.cluster_cpus).add(*symbols_.tres_count);
    walk_list<part_record_t>(*symbols_.part_list, "partition fingerprint", [&](const part_record_t* partition) {
        add_partition(inputs, partition, *symbols_.tres_count);
    });
    fairshare::WalkStamp stamp{.seen_at = time(nullptr), .starts = std::nullopt, .fingerprint = inputs.value()};
    if (const diag_stats_t* stats = symbols_.diag_stats)
        stamp.starts =
            fairshare::StartCounts{.started = static_cast<std::uint32_t>(stats->jobs_started),
                                   .submitted = static_cast<std::uint32_t>(stats->jobs_submitted),
                                   .schedule_cycles = static_cast<std::uint32_t>(stats->schedule_cycle_counter)};
    return stamp;
}

// While no job started, the jobs that may accrue usage are the last walk's; looked up by id
// (slurmctld's hash), so a job that is gone is not found. False: take them from the whole list.
bool CalcPass::jobs_of_last_walk_that_may_accrue(const JobWriteLocked&, const fairshare::WalkStamp& seen, time_t now,
                                                 std::vector<job_record_t*>& jobs) const {
    if (!last_walk_ || site_factor_plugin_configured() ||
        !fairshare::no_job_started(last_walk_->walk, seen, now, kLongestSkip))
        return false;
    jobs.clear();
    for (const uint32_t id : last_walk_->may_accrue) {
        job_record_t* job = symbols_.find_job(id);
        if (!job || !may_accrue_usage(job)) return false;
        jobs.push_back(job);
    }
    return true;
}

// Caller holds assoc_mgr's QOS read lock; `usage` comes from this pass's association scan.
std::uint64_t CalcPass::association_side_inputs(const CollectedUsage& usage) {
    return fairshare::Fingerprint().add(usage.association_inputs).add(qos_inputs()).value();
}

fairshare::WalkPlan CalcPass::plan_walk(const JobWriteLocked& locked, const fairshare::WalkStamp& seen,
                                        std::uint64_t association_inputs, time_t now) {
    if (!last_walk_) return fairshare::WalkPlan::all_jobs;
    const auto fair_share = state_.fair_share();
    const auto& used = last_walk_->fair_share;
    const bool same_fair_share = fair_share && used ? fair_share->same_job_factors(*used) : fair_share == used;
    const bool no_job_due = state_.jobs.read(locked).age_calendar.empty();
    return fairshare::plan_walk(last_walk_->walk, seen, association_inputs, same_fair_share, no_job_due, now,
                                kLongestSkip);
}

// Called at the end of a walk, still under the locks `seen` was read under. A walk that stopped
// early leaves nothing to go by.
void CalcPass::remember_walk(const JobWriteLocked&, const fairshare::WalkStamp& seen, std::uint64_t association_inputs,
                             const Walk& walk, const std::vector<job_record_t*>& may_accrue) {
    if (!walk.complete) {
        last_walk_.reset();
        return;
    }
    const std::int64_t full_walk_at = walk.all_jobs ? seen.seen_at : last_walk_->walk.full_walk_at;
    RememberedWalk remembered{.walk = {seen, association_inputs, full_walk_at},
                              .may_accrue = {},
                              .fair_share = state_.fair_share(),
                              .settings = state_.settings()};
    remembered.may_accrue.reserve(may_accrue.size());
    for (const job_record_t* job : may_accrue) {
        if (accrues_after_this_pass(job)) remembered.may_accrue.push_back(job->job_id);
    }
    last_walk_ = std::move(remembered);
}

}  // namespace fairway::priority
