// The adapter behind the entry points: owns the configuration, the core's usage book, the
// calculation thread and the state file, and translates between Slurm's records and the core.
//
// Locking: Slurm's locks (slurmctld's, then assoc_mgr's) are always taken before state_mutex_,
// never while holding it; state_mutex_ is held only for short in-memory work.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fairshare/age_calendar.h"
#include "fairshare/association_tree.h"
#include "fairshare/fair_share.h"
#include "fairshare/usage_book.h"
#include "fairshare/usage_records.h"
#include "fairshare/walk_memo.h"
#include "priority/job_charges.h"
#include "priority/limits_usage.h"
#include "priority/periodic_thread.h"
#include "priority/settings.h"
#include "priority/slurmctld_symbols.h"
#include "priority/usage_recovery.h"

namespace fairway::priority {

// What sprio asked for (22.05; 24.11's sprio filters itself): null for no filter.
struct SprioFilter {
    list_t* job_ids = nullptr;         // of uint32_t
    list_t* user_ids = nullptr;        // of uint32_t
    const char* partitions = nullptr;  // comma-separated names
};

class Adapter {
public:
    Adapter() = default;
    Adapter(const Adapter&) = delete;
    Adapter& operator=(const Adapter&) = delete;

    int start();  // what init() may do: no slurmctld lock, no job list (24.11 calls it before loading them)
    void start_thread();
    void stop();
    uint32_t initial_priority(job_record_t* job);
    void reconfigure(bool assoc_clear);
    void refresh_assoc_usage(slurmdb_assoc_rec_t* assoc);
    double classic_fs_factor(long double usage_efctv, long double shares_norm);
    list_t* priority_factors(const SprioFilter& filter, uid_t uid);
    void job_ended(job_record_t* job);

private:
    struct CollectedUsage {
        std::vector<UsageCharge> charges;
        std::shared_ptr<const fairshare::AssociationTree> tree;
        std::vector<fairshare::AssocId> reset_by_admin;
        std::vector<fairshare::QosId> qos_reset_by_admin;
        std::optional<std::vector<fairshare::QosId>> existing_qos;  // ascending
        std::uint64_t association_inputs = 0;                       // AssociationScan::priority_inputs
    };

    std::shared_ptr<const Settings> current_settings();
    std::shared_ptr<const fairshare::FairShareResult> current_fair_share();
    void recover_saved_usage(const Settings& settings, time_t now);
    void rebuild_if_needed(const Settings& settings, time_t complete_until, time_t now);
    void charge_forgotten_runs(const Settings& settings, time_t complete_until, time_t now);
    bool usage_unknown();
    PartitionQos partition_qos_ids();
    void run_pass();
    // Usage from outside Slurm (external_usage.cpp).
    void ingest_external_usage(const Settings& settings, time_t now);
    void charge_record(const fairshare::UsageRecord& record,
                       const std::unordered_map<std::string, fairshare::AssocId>& ids);
    // job_list's content, valid under the job write lock.
    struct JobsByState {
        std::vector<job_record_t*> pending;  // pending and not completing: priorities only
        std::vector<job_record_t*> others;   // may accrue usage (may_accrue_usage)
    };

    // Where a pass's CPU time went, in milliseconds per step, for DebugFlags=Priority; pass thread only.
    struct StepTimes {
        double usage = 0;       // steps 2 and 3: the usage collected and charged
        double fair_share = 0;  // step 4: fair-share computed and published
        double limits = 0;      // step 4: the usage that limits read, published; the inputs fingerprinted
        double walk = 0;        // step 5
        double state = 0;       // step 6
    };

    // What a walk over the jobs did.
    struct Walk {
        size_t given = 0;      // jobs given to recompute
        int changed = 0;       // priorities changed
        bool complete = true;  // every job given was visited (no walk stopped early)
        bool all_jobs = true;  // it was given every job, not only those due (age_calendar_)
    };
    // What the last walk depended on (walk_memo.h); pass thread only, under the job write lock.
    struct RememberedWalk {
        fairshare::LastWalk walk;
        std::vector<uint32_t> may_accrue;  // ids of the jobs that still accrue usage (accrues_after_this_pass)
        std::shared_ptr<const fairshare::FairShareResult> fair_share;  // the factors it used
        std::shared_ptr<const Settings> settings;  // held, so that no later Settings reuses its address
    };

    // Steps of a pass (calc_pass.cpp).
    std::optional<Walk> charge_and_reprioritize(const Settings& settings, time_t now, CollectedUsage& usage);
    std::optional<Walk> plan_and_walk(JobsByState& jobs, bool no_job_started, const fairshare::WalkStamp& seen,
                                      std::uint64_t association_inputs, time_t now);
    void log_pass(const CollectedUsage& usage, const std::optional<Walk>& walk, double total_ms) const;
    static JobsByState jobs_by_state(list_t* job_list);
    CollectedUsage collect_usage(const std::vector<job_record_t*>& jobs,
                                 std::vector<slurmdb_assoc_rec_t*>& associations, time_t now);
    std::optional<fairshare::AssociationTree> charge_and_advance(const CollectedUsage& usage, time_t now);
    void forget_reset_usage(const CollectedUsage& usage, time_t now);
    void forget_removed_records(const CollectedUsage& usage, time_t now);
    void forget(fairshare::Owner owner, std::uint32_t id, time_t now);
    void publish(const Settings& settings, const fairshare::AssociationTree& tree,
                 const std::vector<slurmdb_assoc_rec_t*>& associations);
    void publish_limits(const std::shared_ptr<const fairshare::AssociationTree>& hierarchy,
                        const std::vector<slurmdb_assoc_rec_t*>& associations, time_t now);
    Walk reprioritize_jobs(const JobsByState& jobs, time_t now);
    Walk reprioritize_due_jobs(time_t now);
    Walk reprioritize(const std::vector<job_record_t*>& first, const std::vector<job_record_t*>& second, time_t now);
    void mark_jobs_updated();
    // Skipping the walk when it would change nothing (walk_skip.cpp).
    fairshare::WalkStamp job_side_stamp();
    bool jobs_of_last_walk_that_may_accrue(const fairshare::WalkStamp& seen, time_t now,
                                           std::vector<job_record_t*>& jobs) const;
    static std::uint64_t association_side_inputs(const CollectedUsage& usage);
    fairshare::WalkPlan plan_walk(const fairshare::WalkStamp& seen, std::uint64_t association_inputs, time_t now);
    void remember_walk(const fairshare::WalkStamp& seen, std::uint64_t association_inputs, const Walk& walk,
                       const std::vector<job_record_t*>& may_accrue);
    void warn_if_gpus_unbilled();
    void save_state();
    void save_state_if_due();
    bool may_see_job(const job_record_t* job, uid_t uid) const;

    SlurmctldSymbols symbols_;
    bool in_slurmctld_ = false;
    bool with_accounting_ = false;
    uint16_t client_dampening_ = 1;
    JobChargeTracker charges_;           // guarded by slurmctld's job write lock
    std::string last_saved_to_;          // where the pass thread last wrote the state file; pass thread only
    time_t accounting_complete_at_ = 0;  // last time nothing was queued for slurmdbd; pass thread only
    time_t started_at_ = 0;              // when this slurmctld loaded the plugin; set before the pass thread starts
    std::shared_ptr<const fairshare::AssociationTree> hierarchy_;  // the last pass's; pass thread only
    std::optional<RememberedWalk> last_walk_;
    // When the walked jobs' priorities next change by aging alone; under the job write lock. Filled
    // by a walk over all jobs, drawn from and topped up by one over those due, and by
    // initial_priority() with each job slurmctld asks about.
    fairshare::AgeCalendar age_calendar_;
    // The time of the last walk: the jobs it did not recompute (not due) keep an older age factor,
    // which sprio's listing brings forward to this time. Written under the job write lock, read
    // under the job read lock.
    time_t ages_as_of_ = 0;
    LimitsPublisher limits_;  // pass thread only
    StepTimes step_times_;    // the current pass's; pass thread only
    PeriodicThread thread_;

    std::mutex state_mutex_;  // guards everything below
    std::shared_ptr<const Settings> settings_;
    std::shared_ptr<const fairshare::FairShareResult> fair_share_;
    std::optional<fairshare::UsageBook> book_;
    time_t last_pass_ = 0;                // time the book was last advanced to
    bool book_changed_ = true;            // charged or forgotten since the state file was last written
    bool rebuild_pending_ = false;        // rebuild the book from accounting at the next pass
    bool rebuilt_provisionally_ = false;  // the last rebuild lacked what was queued for slurmdbd: not saved,
                                          // rebuilt again once that is stored
    bool usage_known_ = false;            // book_ came from the state file or a rebuild
    std::optional<fairshare::RebuildCoverage> rebuilt_;  // set by a rebuild; tells charges_ where usage starts
    // Set when the book came from a state file saved then: accounting's runs slurmctld does not
    // hold are charged from then on at the next pass (charges_of_forgotten_runs).
    std::optional<time_t> look_for_forgotten_runs_since_;
    fairshare::UsageResets saved_resets_;  // what the resets file holds
    bool gpu_billing_checked_ = false;
    std::size_t external_charged_ = 0;  // charges of usage records, since start (under state_mutex_)
    std::size_t external_refused_ = 0;  // records and charges refused, since start
};

}  // namespace fairway::priority
