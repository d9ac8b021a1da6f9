// One calculation pass of the "fairway_prio" thread, in numbered steps:
//   1. rebuild the usage book from accounting if it is missing or stale, or was rebuilt while
//      slurmctld had records queued for slurmdbd that are stored now (no Slurm lock held), and
//      charge the new usage records of the spool (external_usage.cpp: read with no Slurm lock held)
//   then, under slurmctld's job write lock, held from 2 to 5 so that one copy of the job list's
//   pointers serves both walks (the list's nodes are chased once, not twice):
//   2. collect the running jobs' new usage and the association tree (+ assoc write lock, held
//      to the end of step 4)
//   3. charge and advance the usage book (fairway's own mutex)
//   4. compute fair-share (core) and publish it, and the usage that limits read, to assoc_mgr
//   5. recompute pending jobs' priorities; mark jobs updated only if one changed (+ assoc read lock)
//   6. save the book atomically, with no Slurm lock held; a pass that charged nothing only moves
//      the file's modification time
// Until the usage is known (rebuilt from accounting, when there was no usable state file), passes
// stop after step 1: published usage and pending priorities stay as slurmctld restored them, not
// recomputed as if nobody had used the cluster.
// Both walks prefetch the records ahead of the job they work on (list_walk.h). When no job
// started since the last walk, step 2 takes the jobs that may accrue usage from the last walk
// instead of the whole list, and step 5 recomputes, unless something they all read changed, only
// the jobs whose priority aging changes since, or none at all (walk_skip.cpp).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>

#include "common/atomic_file.h"
#include "common/error.h"
#include "priority/association_sync.h"
#include "priority/calc_pass.h"
#include "priority/job_prioritizer.h"
#include "priority/list_walk.h"

namespace fairway::priority {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

// The calling thread's CPU milliseconds since the last lap (or since it was made): CPU, not wall
// time, because a step's wall time also holds the waits for locks and for the disk.
class LapClock {
public:
    double lap() {
        const double now = thread_cpu_ms();
        const double ms = now - last_;
        last_ = now;
        return ms;
    }

private:
    static double thread_cpu_ms() {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
    }

    double last_ = thread_cpu_ms();
};

}  // namespace

void CalcPass::run() {
    try {
        const auto started = std::chrono::steady_clock::now();
        const time_t now = time(nullptr);
        const auto settings = state_.settings();
        if (!gpu_billing_checked_) {
            warn_if_gpus_unbilled();
            gpu_billing_checked_ = true;
        }
        if (state_.env.with_accounting) {
            const time_t complete_until =
                accounting_complete_until(*symbols_.acct_db_conn, now, accounting_complete_at_);
            rebuild_if_needed(*settings, complete_until, now);
        }
        if (state_.usage_unknown()) {
            log_flag(PRIO,
                     "priority/fairway: pass skipped: the usage is not known until it is rebuilt from accounting");
            return;
        }
        ingest_external_usage(*settings, now);
        CollectedUsage usage;
        step_times_ = {};
        const std::optional<Walk> walk = charge_and_reprioritize(*settings, now, usage);
        LapClock saving;
        save_state_if_due();
        step_times_.state = saving.lap();
        log_pass(usage, walk, elapsed_ms(started));
    } catch (const std::exception& e) {
        error("priority/fairway: calculation pass failed: %s", e.what());
    } catch (...) {
        error("priority/fairway: calculation pass failed");
    }
}

void CalcPass::log_pass(const CollectedUsage& usage, const std::optional<Walk>& walk, double total_ms) const {
    const StepTimes& t = step_times_;
    if (walk)
        log_flag(PRIO,
                 "priority/fairway: pass charged %zu jobs, %s (%zu), changed %d priorities in %.3f ms "
                 "(CPU ms: usage %.3f, fair-share %.3f, limits %.3f, walk %.3f, state %.3f)",
                 usage.charges.size(), walk->all_jobs ? "walked all jobs" : "walked the jobs due by age", walk->given,
                 walk->changed, total_ms, t.usage, t.fair_share, t.limits, t.walk, t.state);
    else
        log_flag(PRIO,
                 "priority/fairway: pass charged %zu jobs, skipped the job walk (nothing changed) in %.3f ms "
                 "(CPU ms: usage %.3f, fair-share %.3f, limits %.3f, state %.3f)",
                 usage.charges.size(), total_ms, t.usage, t.fair_share, t.limits, t.state);
}

PartitionQos CalcPass::partition_qos_ids() {
    PartitionQos ids;
    SlurmctldLock partitions(symbols_, {.part = READ_LOCK});
    AssocMgrLock qos({.qos = READ_LOCK});
    walk_list<part_record_t>(*symbols_.part_list, "partitions' QOS", [&](const part_record_t* partition) {
        if (partition->name && partition->qos_ptr) ids.emplace(partition->name, partition->qos_ptr->id);
    });
    return ids;
}

// A rebuild made while slurmctld still had starts or ends queued for slurmdbd lacks them
// (fairshare/recorded_runs.h); it is made again once the queue has drained.
void CalcPass::rebuild_if_needed(const Settings& settings, time_t complete_until, time_t now) {
    charge_forgotten_runs(settings, complete_until, now);
    const bool complete = !fairshare::rebuild_is_provisional(fairshare::from_unix_seconds(complete_until),
                                                             fairshare::from_unix_seconds(now));
    fairshare::UsageResets resets;
    fairshare::ForgottenRuns forgotten;
    {
        const auto state = state_.usage.lock();
        if (!state->rebuild_pending && !(state->rebuilt_provisionally && complete)) return;
        if (state->book) resets = state->book->resets();  // recorded by this thread only: none come in between
        forgotten = state->forgotten_runs;                // likewise
    }
    const fairshare::LedgerConfig config = settings.fairshare.ledger_config();
    auto rebuilt = usage_from_accounting(symbols_, config, now, complete_until, state_.env.started_at,
                                         partition_qos_ids(), resets, forgotten);
    if (!rebuilt) {
        accounting_outage_.unanswered(now, "the usage is rebuilt once it answers");
        return;
    }
    const bool after_outage = accounting_outage_.end().has_value();
    last_walk_.reset();  // the next pass charges from the whole job list, not the last walk's jobs
    const auto state = state_.usage.lock();
    state->rebuilt_provisionally = !complete;
    state->forgotten_runs = std::move(forgotten);
    // Without a usable state file, passes were skipped from slurmctld's start until slurmdbd answered.
    const std::string unknown_for =
        after_outage && !state->usage_known
            ? "; the usage was unknown for " + std::to_string(now - state_.env.started_at) + " s"
            : "";
    info("priority/fairway: usage rebuilt from accounting: %zu associations, %zu meters%s%s",
         rebuilt->book.fair_share_usage().association_count(), rebuilt->book.meter_count(), unknown_for.c_str(),
         complete ? ""
                  : "; slurmctld still has records queued for slurmdbd, so it is rebuilt again once they are stored");
    state->book = std::move(rebuilt->book);
    state->book_changed = true;
    state->last_pass = now;
    state->rebuilt = std::move(rebuilt->coverage);
    state->rebuild_pending = false;
    state->usage_known = true;
}

// After recovering a saved state: jobs slurmctld forgot (it could not save its own state either,
// then was killed) ran after the save, and what the passes charged of them was lost with them.
// Their ends may still be on their way to slurmdbd (queued by the killed slurmctld and saved with
// its queue), so they are looked for once, when nothing was queued at some pass since this
// slurmctld started; a record still open then is charged up to that start (recorded_runs.h).
void CalcPass::charge_forgotten_runs(const Settings& settings, time_t complete_until, time_t now) {
    const time_t started_at = state_.env.started_at;
    std::optional<time_t> since;
    fairshare::ForgottenRuns forgotten;
    {
        const auto state = state_.usage.lock();
        since = state->look_for_forgotten_runs_since;
        if (!since || complete_until < started_at) return;  // every pass but one: copy nothing
        forgotten = state->forgotten_runs;                  // added to by this thread only
    }
    const auto charges = charges_of_forgotten_runs(symbols_, settings.fairshare.ledger_config(), *since, now,
                                                   complete_until, started_at, partition_qos_ids(), forgotten);
    if (!charges) {
        accounting_outage_.unanswered(now, "jobs slurmctld forgot are looked for once it answers");
        return;
    }
    if (const auto silent_since = accounting_outage_.end())
        info("priority/fairway: slurmdbd answers again, after %ld s", static_cast<long>(now - *silent_since));
    const auto state = state_.usage.lock();
    state->look_for_forgotten_runs_since.reset();
    state->forgotten_runs = std::move(forgotten);
    if (!state->book || charges->empty()) return;
    state->charge_all(*charges);
    info(
        "priority/fairway: charged %zu job runs that accounting recorded after the saved usage (%ld) and slurmctld "
        "does not know",
        charges->size(), static_cast<long>(*since));
}

// Steps 2 to 5; returns what the walk did (none: it was skipped) and leaves what was collected in
// `usage`.
std::optional<CalcPass::Walk> CalcPass::charge_and_reprioritize(const Settings& settings, time_t now,
                                                                CollectedUsage& usage) {
    const JobWriteLock locks(symbols_);
    const JobWriteLocked& locked = locks.token();
    LapClock steps;
    const fairshare::WalkStamp seen = job_side_stamp(locked);
    JobsByState jobs;
    // Every shortcut (walk_skip.cpp) hangs on this: without it, the whole list and every job.
    const bool no_job_started =
        settings.walk_shortcuts && jobs_of_last_walk_that_may_accrue(locked, seen, now, jobs.others);
    if (!no_job_started) jobs = jobs_by_state(*symbols_.job_list);
    std::uint64_t association_inputs = 0;
    {
        // One hold from the copy of the association pointers to the publishing (see association_sync.h).
        AssocMgrLock assoc({.assoc = WRITE_LOCK, .qos = WRITE_LOCK, .tres = READ_LOCK});
        auto associations = association_pointers();
        usage = collect_usage(locked, jobs.others, associations, now);
        const auto tree = charge_and_advance(usage, now);
        step_times_.usage = steps.lap();
        if (tree) {
            publish(settings, *tree, associations);
            step_times_.fair_share = steps.lap();
            publish_limits(usage.tree, associations, now);
        }
        association_inputs = association_side_inputs(usage);
        step_times_.limits = steps.lap();
    }
    const auto walk = plan_and_walk(locked, jobs, no_job_started, seen, association_inputs, now);
    step_times_.walk = steps.lap();
    return walk;
}

std::optional<CalcPass::Walk> CalcPass::plan_and_walk(const JobWriteLocked& locked, JobsByState& jobs,
                                                      bool no_job_started, const fairshare::WalkStamp& seen,
                                                      std::uint64_t association_inputs, time_t now) {
    Walk walk;
    switch (no_job_started ? plan_walk(locked, seen, association_inputs, now) : fairshare::WalkPlan::all_jobs) {
    case fairshare::WalkPlan::none: return std::nullopt;
    case fairshare::WalkPlan::due_jobs: walk = reprioritize_due_jobs(locked, now); break;
    case fairshare::WalkPlan::all_jobs:
        // With no job started, charging needed no job list: the walk reads each job's state itself.
        walk = no_job_started
                   ? reprioritize_jobs(locked, {list_items<job_record_t>(*symbols_.job_list, "job list copy"), {}}, now)
                   : reprioritize_jobs(locked, jobs, now);
        break;
    }
    remember_walk(locked, seen, association_inputs, walk, jobs.others);
    return walk;
}

// Pending jobs are most of the list and need only their priority; the others (running, ended,
// requeued while completing) are the only ones that can accrue usage. The list's nodes are chased
// once, for their pointers; the jobs' states are then read with the records of the jobs ahead
// already asked for, so their misses overlap.
CalcPass::JobsByState CalcPass::jobs_by_state(list_t* job_list) {
    struct StatePrefetcher {
        void record(const job_record_t* job) const { prefetch(&job->job_state); }
        void dependents(const job_record_t*) const {}
    };
    const std::vector<job_record_t*> all = list_items<job_record_t>(job_list, "job list copy");
    JobsByState jobs;
    jobs.pending.reserve(all.size());
    visit_prefetching(all, "job states", StatePrefetcher{},
                      [&](job_record_t* job) { (may_accrue_usage(job) ? jobs.others : jobs.pending).push_back(job); });
    return jobs;
}

// Leaves in `associations` those of the hierarchy (scan_associations).
CalcPass::CollectedUsage CalcPass::collect_usage(const JobWriteLocked& locked, const std::vector<job_record_t*>& jobs,
                                                 std::vector<slurmdb_assoc_rec_t*>& associations, time_t now) {
    time_t last_pass;
    std::optional<fairshare::RebuildCoverage> rebuilt;
    {
        const auto state = state_.usage.lock();
        last_pass = state->last_pass;
        rebuilt.swap(state->rebuilt);
    }
    CollectedUsage usage;
    JobChargeTracker& charges = state_.jobs.write(locked).charges;
    if (rebuilt) charges.reset(std::move(*rebuilt));
    const bool with_accounting = state_.env.with_accounting;
    if (with_accounting) usage.charges = charges.collect(jobs, now, last_pass, symbols_);
    if (!with_accounting || !assoc_mgr_root_assoc) return usage;
    usage.qos_reset_by_admin = limits_.qos_reset_by_admin();
    usage.existing_qos = LimitsPublisher::existing_qos();
    try {
        AssociationScan scan = scan_associations(associations, hierarchy_.get(), state_.fair_share().get());
        usage.reset_by_admin = std::move(scan.reset_by_admin);
        usage.association_inputs = scan.priority_inputs;
        // Validating and indexing a hierarchy is most of what its tree costs, and it rarely changes.
        if (scan.changed_hierarchy)
            hierarchy_ = std::make_shared<const fairshare::AssociationTree>(std::move(*scan.changed_hierarchy));
        usage.tree = hierarchy_;
    } catch (const InputError& e) {
        error("priority/fairway: association hierarchy not usable this pass: %s", e.what());
    }
    return usage;
}

std::optional<fairshare::AssociationTree> CalcPass::charge_and_advance(const CollectedUsage& usage, time_t now) {
    const auto state = state_.usage.lock();
    if (!state->book) return std::nullopt;
    forget_reset_usage(*state, usage, now);
    forget_removed_records(*state, usage, now);
    state->charge_all(usage.charges);
    state->book->advance(fairshare::from_unix_seconds(now));
    state->last_pass = now;
    if (!usage.tree) return std::nullopt;
    return usage.tree->with_usage(state->book->fair_share_usage(), fairshare::from_unix_seconds(now));
}

// The book charges a forgotten owner nothing from before `now` again (fairshare/usage_resets.h):
// this pass's charges of it, from the last pass on, included, so that the live book and a rebuild
// from accounting agree.
void CalcPass::forget_reset_usage(UsageState& state, const CollectedUsage& usage, time_t now) {
    for (const fairshare::AssocId id : usage.reset_by_admin) {
        info("priority/fairway: RawUsage of association %u was reset; forgetting its usage", id);
        state.forget(fairshare::Owner::association, id, now);
    }
    for (const fairshare::QosId id : usage.qos_reset_by_admin) {
        info("priority/fairway: RawUsage of QOS %u was reset; forgetting its usage", id);
        state.forget(fairshare::Owner::qos, id, now);
    }
}

// A removed association or QOS loses its usage, as it does under multifactor (whose usage lives in
// the record): sacctmgr revives a removed record with its old id when it is added again, and it
// starts from zero then.
void CalcPass::forget_removed_records(UsageState& state, const CollectedUsage& usage, time_t now) {
    if (usage.tree) {
        for (const fairshare::AssocId id : state.book->ids(fairshare::Owner::association)) {
            if (usage.tree->index_of(id)) continue;
            info("priority/fairway: association %u was removed; forgetting its usage", id);
            state.forget(fairshare::Owner::association, id, now);
        }
    }
    if (usage.existing_qos) {
        for (const fairshare::QosId id : state.book->ids(fairshare::Owner::qos)) {
            if (std::binary_search(usage.existing_qos->begin(), usage.existing_qos->end(), id)) continue;
            info("priority/fairway: QOS %u was removed; forgetting its usage", id);
            state.forget(fairshare::Owner::qos, id, now);
        }
    }
}

// Writing the state file (serialise, write, fsync, rename) is most of an idle pass's cost. While
// nothing was charged or forgotten since the last write, the saved book differs from the current
// one only by its clock, which loading advances anyway (and a job that starts later is charged
// from its start), so the pass only moves the file's modification time: the sign of each pass
// that the cluster tests, and an admin, go by. A file that is gone, or one this process has not
// written yet, is written in full.
void CalcPass::save_state_if_due() {
    const bool changed = state_.usage.lock()->book_changed;
    const auto settings = state_.settings();
    if (!changed && last_saved_to_ == settings->state_file && touch_file(settings->state_file)) return;
    state_.save_state();
    last_saved_to_ = settings->state_file;
}

void CalcPass::publish(const Settings& settings, const fairshare::AssociationTree& tree,
                       const std::vector<slurmdb_assoc_rec_t*>& associations) {
    auto result =
        std::make_shared<const fairshare::FairShareResult>(fairshare::compute_fair_share(tree, settings.fair_share));
    publish_fair_share(associations, *result);
    state_.usage.lock()->fair_share = std::move(result);
}

void CalcPass::publish_limits(const std::shared_ptr<const fairshare::AssociationTree>& hierarchy,
                              const std::vector<slurmdb_assoc_rec_t*>& associations, time_t now) {
    const auto state = state_.usage.lock();
    if (state->book) limits_.publish(*state->book, hierarchy, associations, fairshare::from_unix_seconds(now));
}

// Every job: `pending`, then `others` (or all in `pending`: the walk recomputes only the jobs the
// prioritizer wants, pending ones, and running ones with CALCULATE_RUNNING).
CalcPass::Walk CalcPass::reprioritize_jobs(const JobWriteLocked& locked, const JobsByState& jobs, time_t now) {
    state_.jobs.write(locked).age_calendar.clear();
    Walk walk = reprioritize(locked, jobs.pending, jobs.others, now);
    walk.all_jobs = true;
    return walk;
}

// Only the jobs whose priority aging has changed since the last walk; the jobs that are gone or
// no longer pending are not found, or not wanted, and drop out of the calendar. A job filed again
// when slurmctld asked for its priority may be due twice: it is recomputed once.
CalcPass::Walk CalcPass::reprioritize_due_jobs(const JobWriteLocked& locked, time_t now) {
    std::vector<uint32_t> ids = state_.jobs.write(locked).age_calendar.take_due(fairshare::from_unix_seconds(now));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<job_record_t*> due;
    for (const uint32_t id : ids) {
        if (job_record_t* job = symbols_.find_job(id)) due.push_back(job);
    }
    Walk walk = reprioritize(locked, due, {}, now);
    walk.all_jobs = false;
    return walk;
}

// Recomputes the jobs given, adding each to the calendar again while aging can change it.
CalcPass::Walk CalcPass::reprioritize(const JobWriteLocked& locked, const std::vector<job_record_t*>& first,
                                      const std::vector<job_record_t*>& second, time_t now) {
    JobSide& job_side = state_.jobs.write(locked);
    JobPrioritizer prioritizer(state_.settings(), state_.fair_share(), symbols_);
    // Lets a site_factor plugin refresh its values first, as multifactor does.
    site_factor_g_update();
    AssocMgrLock assoc({.assoc = READ_LOCK, .qos = READ_LOCK});
    int changed = 0;
    const auto update = [&](job_record_t* job) {
        try {
            changed += prioritizer.update(job, now, &job_side.age_calendar) ? 1 : 0;
        } catch (const InputError& e) {
            error("priority/fairway: priority of %pJ not updated: %s", job, e.what());
        }
    };
    bool complete = visit_prefetching(first, "priority walk", prioritizer.prefetcher(), update);
    complete = visit_prefetching(second, "priority walk", prioritizer.prefetcher(), update) && complete;
    job_side.ages_as_of = now;
    // Only a real change makes the schedulers rebuild their queues.
    if (changed) mark_jobs_updated();
    return Walk{.given = first.size() + second.size(), .changed = changed, .complete = complete};
}

void CalcPass::mark_jobs_updated() { *symbols_.last_job_update = time(nullptr); }

void CalcPass::warn_if_gpus_unbilled() {
    if (!xstrcasestr(slurm_conf.gres_plugins, "gpu")) return;
    slurmdb_tres_rec_t gpu = {};
    gpu.type = const_cast<char*>("gres");
    gpu.name = const_cast<char*>("gpu");
    const int position = assoc_mgr_find_tres_pos(&gpu, false);
    bool billed = false;
    if (position >= 0) {
        SlurmctldLock partitions(symbols_, {.part = READ_LOCK});
        walk_list<part_record_t>(*symbols_.part_list, "partitions' billing", [&](const part_record_t* partition) {
            billed = billed || (partition->billing_weights && partition->billing_weights[position] > 0);
        });
    }
    if (!billed)
        info(
            "priority/fairway: warning: GPUs carry no billing weight (%s), so GPU jobs are charged only for their "
            "CPUs; add gres/gpu to AccountingStorageTRES and a weight to the partitions' TRESBillingWeights, "
            "e.g. TRESBillingWeights=\"CPU=1.0,GRES/gpu=8.0\"",
            position < 0 ? "gres/gpu is not in AccountingStorageTRES"
                         : "no partition's TRESBillingWeights has GRES/gpu");
}

}  // namespace fairway::priority
