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
#include "priority/adapter.h"
#include "priority/association_sync.h"
#include "priority/job_prioritizer.h"
#include "priority/list_walk.h"

namespace fairway::priority {
namespace {

fairshare::TimePoint time_point(time_t t) { return fairshare::TimePoint{Seconds{t}}; }

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

void Adapter::run_pass() {
    try {
        const auto started = std::chrono::steady_clock::now();
        const time_t now = time(nullptr);
        const auto settings = current_settings();
        if (!gpu_billing_checked_) {
            warn_if_gpus_unbilled();
            gpu_billing_checked_ = true;
        }
        if (with_accounting_) {
            const time_t complete_until =
                accounting_complete_until(*symbols_.acct_db_conn, now, accounting_complete_at_);
            rebuild_if_needed(*settings, complete_until, now);
        }
        if (usage_unknown()) {
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

void Adapter::log_pass(const CollectedUsage& usage, const std::optional<Walk>& walk, double total_ms) const {
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

// Steps 2 to 5; returns what the walk did (none: it was skipped) and leaves what was collected in
// `usage`.
std::optional<Adapter::Walk> Adapter::charge_and_reprioritize(const Settings& settings, time_t now,
                                                              CollectedUsage& usage) {
    SlurmctldLock locks(symbols_, {.job = WRITE_LOCK, .part = READ_LOCK});
    LapClock steps;
    const fairshare::WalkStamp seen = job_side_stamp();
    JobsByState jobs;
    // Every shortcut (walk_skip.cpp) hangs on this: without it, the whole list and every job.
    const bool no_job_started = settings.walk_shortcuts && jobs_of_last_walk_that_may_accrue(seen, now, jobs.others);
    if (!no_job_started) jobs = jobs_by_state(*symbols_.job_list);
    std::uint64_t association_inputs = 0;
    {
        // One hold from the copy of the association pointers to the publishing (see association_sync.h).
        AssocMgrLock assoc({.assoc = WRITE_LOCK, .qos = WRITE_LOCK, .tres = READ_LOCK});
        auto associations = association_pointers();
        usage = collect_usage(jobs.others, associations, now);
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
    const auto walk = plan_and_walk(jobs, no_job_started, seen, association_inputs, now);
    step_times_.walk = steps.lap();
    return walk;
}

std::optional<Adapter::Walk> Adapter::plan_and_walk(JobsByState& jobs, bool no_job_started,
                                                    const fairshare::WalkStamp& seen, std::uint64_t association_inputs,
                                                    time_t now) {
    Walk walk;
    switch (no_job_started ? plan_walk(seen, association_inputs, now) : fairshare::WalkPlan::all_jobs) {
    case fairshare::WalkPlan::none: return std::nullopt;
    case fairshare::WalkPlan::due_jobs: walk = reprioritize_due_jobs(now); break;
    case fairshare::WalkPlan::all_jobs:
        // With no job started, charging needed no job list: the walk reads each job's state itself.
        walk = no_job_started
                   ? reprioritize_jobs({list_items<job_record_t>(*symbols_.job_list, "job list copy"), {}}, now)
                   : reprioritize_jobs(jobs, now);
        break;
    }
    remember_walk(seen, association_inputs, walk, jobs.others);
    return walk;
}

// Pending jobs are most of the list and need only their priority; the others (running, ended,
// requeued while completing) are the only ones that can accrue usage. The list's nodes are chased
// once, for their pointers; the jobs' states are then read with the records of the jobs ahead
// already asked for, so their misses overlap.
Adapter::JobsByState Adapter::jobs_by_state(list_t* job_list) {
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
Adapter::CollectedUsage Adapter::collect_usage(const std::vector<job_record_t*>& jobs,
                                               std::vector<slurmdb_assoc_rec_t*>& associations, time_t now) {
    time_t last_pass;
    std::optional<fairshare::RebuildCoverage> rebuilt;
    {
        std::lock_guard<std::mutex> lock(state_mutex_);
        last_pass = last_pass_;
        rebuilt.swap(rebuilt_);
    }
    CollectedUsage usage;
    if (rebuilt) charges_.reset(std::move(*rebuilt));
    if (with_accounting_) usage.charges = charges_.collect(jobs, now, last_pass, symbols_);
    if (!with_accounting_ || !assoc_mgr_root_assoc) return usage;
    usage.qos_reset_by_admin = limits_.qos_reset_by_admin();
    usage.existing_qos = LimitsPublisher::existing_qos();
    try {
        AssociationScan scan = scan_associations(associations, hierarchy_.get(), current_fair_share().get());
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

std::optional<fairshare::AssociationTree> Adapter::charge_and_advance(const CollectedUsage& usage, time_t now) {
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (!book_) return std::nullopt;
    forget_reset_usage(usage, now);
    forget_removed_records(usage, now);
    book_changed_ = book_changed_ || !usage.charges.empty();
    for (const UsageCharge& charge : usage.charges) {
        try {
            book_->charge_span(charge.owners, charge.rates, charge.span.from, charge.span.to);
        } catch (const InputError& e) {
            error("priority/fairway: usage of association %u not charged: %s", charge.owners.association, e.what());
        }
    }
    book_->advance(time_point(now));
    last_pass_ = now;
    if (!usage.tree) return std::nullopt;
    return usage.tree->with_usage(book_->fair_share_usage(), time_point(now));
}

// Caller holds state_mutex_ (as for the two below). The book charges a forgotten owner nothing from
// before `now` again (fairshare/usage_resets.h): this pass's charges of it, from the last pass on,
// included, so that the live book and a rebuild from accounting agree.
void Adapter::forget_reset_usage(const CollectedUsage& usage, time_t now) {
    for (const fairshare::AssocId id : usage.reset_by_admin) {
        info("priority/fairway: RawUsage of association %u was reset; forgetting its usage", id);
        forget(fairshare::Owner::association, id, now);
    }
    for (const fairshare::QosId id : usage.qos_reset_by_admin) {
        info("priority/fairway: RawUsage of QOS %u was reset; forgetting its usage", id);
        forget(fairshare::Owner::qos, id, now);
    }
}

// A removed association or QOS loses its usage, as it does under multifactor (whose usage lives in
// the record): sacctmgr revives a removed record with its old id when it is added again, and it
// starts from zero then.
void Adapter::forget_removed_records(const CollectedUsage& usage, time_t now) {
    if (usage.tree) {
        for (const fairshare::AssocId id : book_->ids(fairshare::Owner::association)) {
            if (usage.tree->index_of(id)) continue;
            info("priority/fairway: association %u was removed; forgetting its usage", id);
            forget(fairshare::Owner::association, id, now);
        }
    }
    if (usage.existing_qos) {
        for (const fairshare::QosId id : book_->ids(fairshare::Owner::qos)) {
            if (std::binary_search(usage.existing_qos->begin(), usage.existing_qos->end(), id)) continue;
            info("priority/fairway: QOS %u was removed; forgetting its usage", id);
            forget(fairshare::Owner::qos, id, now);
        }
    }
}

void Adapter::forget(fairshare::Owner owner, std::uint32_t id, time_t now) {
    book_->forget(owner, id, time_point(now));
    book_changed_ = true;
}

// Writing the state file (serialise, write, fsync, rename) is most of an idle pass's cost. While
// nothing was charged or forgotten since the last write, the saved book differs from the current
// one only by its clock, which loading advances anyway (and a job that starts later is charged
// from its start), so the pass only moves the file's modification time: the sign of each pass
// that the cluster tests, and an admin, go by. A file that is gone, or one this process has not
// written yet, is written in full.
void Adapter::save_state_if_due() {
    bool changed;
    {
        std::lock_guard<std::mutex> lock(state_mutex_);
        changed = book_changed_;
    }
    const auto settings = current_settings();
    if (!changed && last_saved_to_ == settings->state_file && touch_file(settings->state_file)) return;
    save_state();
    last_saved_to_ = settings->state_file;
}

void Adapter::publish(const Settings& settings, const fairshare::AssociationTree& tree,
                      const std::vector<slurmdb_assoc_rec_t*>& associations) {
    auto result =
        std::make_shared<const fairshare::FairShareResult>(fairshare::compute_fair_share(tree, settings.fair_share));
    publish_fair_share(associations, *result);
    std::lock_guard<std::mutex> lock(state_mutex_);
    fair_share_ = std::move(result);
}

void Adapter::publish_limits(const std::shared_ptr<const fairshare::AssociationTree>& hierarchy,
                             const std::vector<slurmdb_assoc_rec_t*>& associations, time_t now) {
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (book_) limits_.publish(*book_, hierarchy, associations, time_point(now));
}

// Every job: `pending`, then `others` (or all in `pending`: the walk recomputes only the jobs the
// prioritizer wants, pending ones, and running ones with CALCULATE_RUNNING).
Adapter::Walk Adapter::reprioritize_jobs(const JobsByState& jobs, time_t now) {
    age_calendar_.clear();
    Walk walk = reprioritize(jobs.pending, jobs.others, now);
    walk.all_jobs = true;
    return walk;
}

// Only the jobs whose priority aging has changed since the last walk; the jobs that are gone or
// no longer pending are not found, or not wanted, and drop out of the calendar. A job filed again
// when slurmctld asked for its priority may be due twice: it is recomputed once.
Adapter::Walk Adapter::reprioritize_due_jobs(time_t now) {
    std::vector<uint32_t> ids = age_calendar_.take_due(time_point(now));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<job_record_t*> due;
    for (const uint32_t id : ids) {
        if (job_record_t* job = symbols_.find_job(id)) due.push_back(job);
    }
    Walk walk = reprioritize(due, {}, now);
    walk.all_jobs = false;
    return walk;
}

// Recomputes the jobs given, adding each to the calendar again while aging can change it.
Adapter::Walk Adapter::reprioritize(const std::vector<job_record_t*>& first, const std::vector<job_record_t*>& second,
                                    time_t now) {
    JobPrioritizer prioritizer(current_settings(), current_fair_share(), symbols_);
    // Lets a site_factor plugin refresh its values first, as multifactor does.
    site_factor_g_update();
    AssocMgrLock assoc({.assoc = READ_LOCK, .qos = READ_LOCK});
    int changed = 0;
    const auto update = [&](job_record_t* job) {
        try {
            changed += prioritizer.update(job, now, &age_calendar_) ? 1 : 0;
        } catch (const InputError& e) {
            error("priority/fairway: priority of %pJ not updated: %s", job, e.what());
        }
    };
    bool complete = visit_prefetching(first, "priority walk", prioritizer.prefetcher(), update);
    complete = visit_prefetching(second, "priority walk", prioritizer.prefetcher(), update) && complete;
    ages_as_of_ = now;
    // Only a real change makes the schedulers rebuild their queues.
    if (changed) mark_jobs_updated();
    return Walk{.given = first.size() + second.size(), .changed = changed, .complete = complete};
}

void Adapter::mark_jobs_updated() { *symbols_.last_job_update = time(nullptr); }

void Adapter::warn_if_gpus_unbilled() {
    if (!xstrcasestr(slurm_conf.gres_plugins, "gpu")) return;
    slurmdb_tres_rec_t gpu = {};
    gpu.type = const_cast<char*>("gres");
    gpu.name = const_cast<char*>("gpu");
    const int position = assoc_mgr_find_tres_pos(&gpu, false);
    bool billed = false;
    if (position >= 0) {
        SlurmctldLock partitions(symbols_, {.part = READ_LOCK});
        list_itr_t* it = list_iterator_create(*symbols_.part_list);
        while (auto* partition = static_cast<part_record_t*>(list_next(it)))
            billed = billed || (partition->billing_weights && partition->billing_weights[position] > 0);
        list_iterator_destroy(it);
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
