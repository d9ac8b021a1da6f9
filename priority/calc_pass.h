// The "fairway_prio" thread's calculation pass (calc_pass.cpp, the steps; walk_skip.cpp, when a
// walk over the jobs can be narrowed or skipped) and what only that thread touches: its members
// are private, so nothing else can reach them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fairshare/association_tree.h"
#include "fairshare/walk_memo.h"
#include "priority/adapter_state.h"
#include "priority/external_usage.h"
#include "priority/limits_usage.h"
#include "priority/usage_recovery.h"

namespace fairway::priority {

class CalcPass {
public:
    explicit CalcPass(AdapterState& state) : state_(state) {}
    CalcPass(const CalcPass&) = delete;
    CalcPass& operator=(const CalcPass&) = delete;

    void run();  // one pass; logs what fails

private:
    struct CollectedUsage {
        std::vector<UsageCharge> charges;
        std::shared_ptr<const fairshare::AssociationTree> tree;
        std::vector<fairshare::AssocId> reset_by_admin;
        std::vector<fairshare::QosId> qos_reset_by_admin;
        std::optional<std::vector<fairshare::QosId>> existing_qos;  // ascending
        std::uint64_t association_inputs = 0;                       // AssociationScan::priority_inputs
    };
    // job_list's content, valid under the job write lock.
    struct JobsByState {
        std::vector<job_record_t*> pending;  // pending and not completing: priorities only
        std::vector<job_record_t*> others;   // may accrue usage (may_accrue_usage)
    };
    // Where a pass's CPU time went, in milliseconds per step, for DebugFlags=Priority.
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
        bool all_jobs = true;  // it was given every job, not only those due (the age calendar)
    };
    // What the last walk depended on (walk_memo.h).
    struct RememberedWalk {
        fairshare::LastWalk walk;
        std::vector<uint32_t> may_accrue;  // ids of the jobs that still accrue usage (accrues_after_this_pass)
        std::shared_ptr<const fairshare::FairShareResult> fair_share;  // the factors it used
        std::shared_ptr<const Settings> settings;  // held, so that no later Settings reuses its address
    };

    // Step 1: the book from accounting (no Slurm lock held).
    void rebuild_if_needed(const Settings& settings, time_t complete_until, time_t now);
    void charge_forgotten_runs(const Settings& settings, time_t complete_until, time_t now);
    PartitionQos partition_qos_ids();
    // Step 1 too: usage from outside Slurm (external_usage.cpp).
    void ingest_external_usage(const Settings& settings, time_t now);
    void charge_record(UsageState& usage_state, const fairshare::UsageRecord& record, const AssociationIds& ids);
    // Steps 2 to 5, under the job write lock.
    std::optional<Walk> charge_and_reprioritize(const Settings& settings, time_t now, CollectedUsage& usage);
    std::optional<Walk> plan_and_walk(const JobWriteLocked& locked, JobsByState& jobs, bool no_job_started,
                                      const fairshare::WalkStamp& seen, std::uint64_t association_inputs, time_t now);
    void log_pass(const CollectedUsage& usage, const std::optional<Walk>& walk, double total_ms) const;
    static JobsByState jobs_by_state(list_t* job_list);
    CollectedUsage collect_usage(const JobWriteLocked& locked, const std::vector<job_record_t*>& jobs,
                                 std::vector<slurmdb_assoc_rec_t*>& associations, time_t now);
    std::optional<fairshare::AssociationTree> charge_and_advance(const CollectedUsage& usage, time_t now);
    static void forget_reset_usage(UsageState& usage_state, const CollectedUsage& usage, time_t now);
    static void forget_removed_records(UsageState& usage_state, const CollectedUsage& usage, time_t now);
    void publish(const Settings& settings, const fairshare::AssociationTree& tree,
                 const std::vector<slurmdb_assoc_rec_t*>& associations);
    void publish_limits(const std::shared_ptr<const fairshare::AssociationTree>& hierarchy,
                        const std::vector<slurmdb_assoc_rec_t*>& associations, time_t now);
    Walk reprioritize_jobs(const JobWriteLocked& locked, const JobsByState& jobs, time_t now);
    Walk reprioritize_due_jobs(const JobWriteLocked& locked, time_t now);
    Walk reprioritize(const JobWriteLocked& locked, const std::vector<job_record_t*>& first,
                      const std::vector<job_record_t*>& second, time_t now);
    void mark_jobs_updated();
    // Skipping the walk when it would change nothing (walk_skip.cpp).
    fairshare::WalkStamp job_side_stamp(const JobWriteLocked& locked);
    bool jobs_of_last_walk_that_may_accrue(const JobWriteLocked& locked, const fairshare::WalkStamp& seen, time_t now,
                                           std::vector<job_record_t*>& jobs) const;
    static std::uint64_t association_side_inputs(const CollectedUsage& usage);
    fairshare::WalkPlan plan_walk(const JobWriteLocked& locked, const fairshare::WalkStamp& seen,
                                  std::uint64_t association_inputs, time_t now);
    void remember_walk(const JobWriteLocked& locked, const fairshare::WalkStamp& seen, std::uint64_t association_inputs,
                       const Walk& walk, const std::vector<job_record_t*>& may_accrue);
    // Step 6.
    void save_state_if_due();
    void warn_if_gpus_unbilled();

    AdapterState& state_;
    const SlurmctldSymbols& symbols_ = state_.env.symbols;
    std::string last_saved_to_;                                    // where this thread last wrote the state file
    time_t accounting_complete_at_ = 0;                            // last time nothing was queued for slurmdbd
    std::shared_ptr<const fairshare::AssociationTree> hierarchy_;  // the last pass's
    std::optional<RememberedWalk> last_walk_;
    AccountingOutage accounting_outage_;
    LimitsPublisher limits_;
    StepTimes step_times_;  // the current pass's
    bool gpu_billing_checked_ = false;
    std::size_t external_charged_ = 0;  // charges of usage records, since start
    std::size_t external_refused_ = 0;  // records and charges refused, since start
};

}  // namespace fairway::priority
