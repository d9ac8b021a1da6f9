// Simulator: one policy replaying a job stream on one cluster, event by event. Pure and
// deterministic: time is the jobs' own, nothing is read or written, and the same jobs give the same
// schedule. Memory holds only the jobs in flight (pending or running) and the statistics.
//
// Events at one instant happen in this order: jobs end, then the calc pass (a fair-share policy,
// every calc period: charge, decay, factors, every pending job's priority), then jobs submitted at
// that instant join the queue, then one scheduling pass (plan_easy_pass). A pass runs at every
// instant something changed. A job's priority is computed when it is submitted and at each calc
// pass, never in between, as multifactor does.
//
// Charging follows the plugin's rule (fairshare/run_charges.h): at each calc pass every job that ran
// since the last pass is charged billing for each second it ran since then, each second decayed from
// its own time and filed in its bucket, to its own association.
// Reset policies forget all usage at the first calc pass at or after each reset boundary, before
// charging (PriorityUsageResetPeriod).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "fairshare/fair_share.h"
#include "fairshare/usage_book.h"
#include "sim/cluster.h"
#include "sim/easy_backfill.h"
#include "sim/policy.h"
#include "sim/population.h"
#include "sim/statistics.h"
#include "sim/workload.h"

namespace fairway::sim {

// What a pass left: the head's reservation, and every job running once the pass started its jobs.
struct PassRecord {
    std::int64_t now = 0;
    std::int64_t head_job = 0;  // SimJob::id of the reserved job
    Need head_need;
    std::int64_t shadow_time = 0;
    Need free;                         // after the pass
    std::vector<RunningSlot> running;  // after the pass
};

// Sees the schedule as it is made (tests: invariants; tools: nothing).
class SimObserver {
public:
    virtual ~SimObserver() = default;
    virtual void job_started(const SimJob& job, std::int64_t start, bool backfilled, const std::vector<Piece>& pieces);
    virtual void job_ended(const SimJob& job, std::int64_t end);
    // Called after each pass that left a reservation.
    virtual void reservation_made(const PassRecord& pass);
};

class Simulator {
public:
    // `population` must outlive the simulator. Throws InputError for an unusable configuration.
    Simulator(const SimConfig& config, const PolicySpec& policy, const Population& population,
              const StatisticsConfig& statistics, SimObserver* observer = nullptr);

    const PolicySpec& policy() const noexcept { return policy_; }
    // Adds a job; jobs must come in non-decreasing submit order (std::invalid_argument otherwise).
    // Everything before the job's submit time happens first.
    void submit(const SimJob& job);
    // Runs until every job has ended, then closes the statistics.
    void finish();

    const PolicyStatistics& statistics() const noexcept { return statistics_; }
    std::int64_t now() const noexcept { return now_; }
    std::size_t pending() const noexcept { return queue_.size(); }
    std::size_t running() const noexcept { return running_.size(); }
    std::uint64_t calc_passes() const noexcept { return calc_passes_; }
    // The last calc pass's fair-share figures (sshare's columns); empty before the first pass and
    // under FCFS.
    const fairshare::FairShareResult& fair_share_figures() const noexcept { return fair_share_; }

private:
    struct Pending {
        SimJob job;
        std::uint32_t priority = 0;
        std::uint64_t arrival = 0;  // submission order, the last tie-break
    };
    struct Running {
        SimJob job;
        std::int64_t start = 0;
        std::int64_t end = 0;
        std::int64_t charged_to = 0;  // usage charged up to here
        double billing = 0;
        std::vector<Piece> pieces;
    };

    bool fair_share() const noexcept { return policy_.kind == PolicyKind::fair_share; }
    std::optional<std::int64_t> next_event_time() const;
    // Everything before `t`, and at `t` everything but the scheduling pass.
    void advance_to(std::int64_t t);
    void events_at(std::int64_t t);
    void end_job(std::uint64_t key);
    void calc_pass();
    void charge_usage();
    void reprioritize();
    std::uint32_t priority_of(const SimJob& job) const;
    static bool before(const Pending& a, const Pending& b);
    void enqueue(Pending pending);
    void schedule_pass();
    void start_job(const Pending& pending, bool backfilled);
    std::vector<RunningSlot> running_slots() const;
    double billing_of(const Need& need) const;

    SimConfig config_;
    PolicySpec policy_;
    const Population& population_;
    SimObserver* observer_;
    fairshare::ClusterShape shape_;
    Cluster cluster_;
    PolicyStatistics statistics_;

    std::int64_t now_ = 0;
    bool started_ = false;
    bool pass_due_ = false;
    std::uint64_t arrivals_ = 0, starts_ = 0, calc_passes_ = 0;
    std::vector<Pending> queue_;                              // priority order
    std::vector<Candidate> candidates_;                       // queue_'s needs and limits, same order
    std::map<std::uint64_t, Running> running_;                // by start order
    using EndEvent = std::pair<std::int64_t, std::uint64_t>;  // (end, start order)
    std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<>> ends_;
    std::vector<Running> unsettled_;  // ended since the last calc pass, not charged to their end yet

    // Fair-share policies only.
    std::unique_ptr<fairshare::UsageBook> book_;
    fairshare::FairShareResult fair_share_;
    std::int64_t next_calc_ = 0;
    std::int64_t next_reset_ = INT64_MAX;
};

}  // namespace fairway::sim
