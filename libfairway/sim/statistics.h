// What a replay measures under one policy, accumulated as jobs start and end, so memory grows with
// the users, accounts and share windows, never with the jobs.
//
//   wait      start - submit
//   slowdown  bounded slowdown: max(1, (wait + run) / max(run, threshold)), threshold 10 s
//   utilization  core-seconds (GPU-seconds) run / (capacity x (last end - first submit))
//   shares    per top-level entity, over sliding windows (default 7 days, one every day):
//             delivered = its billing-seconds run in the window / everyone's;
//             entitled  = its raw shares / the shares of the entities that were active in the window
//                         (a job of theirs pending or running at some moment of it); 0 when inactive.
//             Jain's index of a window: (sum x)^2 / (n sum x^2) over the n active entities with
//             shares, x = delivered / entitled; windows in which nothing ran are left out.
//   recovery  see RecoveryTracker.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fairshare/fair_share.h"
#include "sim/cluster.h"
#include "sim/population.h"
#include "sim/quantile_sketch.h"
#include "sim/workload.h"

namespace fairway::sim {

struct StatisticsConfig {
    std::int64_t share_window = 7 * 86400;
    std::int64_t share_step = 86400;  // share_window must be a multiple
    double recovery_level = 0.5;
    double slowdown_threshold = 10;
    std::vector<std::size_t> tracked_entities;  // whose share series are kept (for plots)
    // Throws InputError (key "share_window", "share_step", "recovery_level", "slowdown_threshold").
    void validate() const;
};

struct WaitFigures {
    std::uint64_t jobs = 0;
    double wait_sum = 0, slowdown_sum = 0;
    QuantileSketch wait, slowdown;

    void add(double wait_seconds, double slowdown_value);
    double mean_wait() const { return jobs ? wait_sum / static_cast<double>(jobs) : 0; }
    double mean_slowdown() const { return jobs ? slowdown_sum / static_cast<double>(jobs) : 0; }
};

struct ShareSample {
    std::int64_t end = 0;  // the window is (end - share_window, end]
    double delivered = 0;
    double entitled = 0;
};

struct EntityShareFigures {
    std::uint64_t active_windows = 0;  // windows in which the entity was active
    double delivered_sum = 0;          // over those windows
    double entitled_sum = 0;
    double mean_delivered() const { return active_windows ? delivered_sum / static_cast<double>(active_windows) : 0; }
    double mean_entitled() const { return active_windows ? entitled_sum / static_cast<double>(active_windows) : 0; }
};

// Delivered against entitled shares over sliding windows, integrated exactly from job starts and ends.
class ShareWindows {
public:
    ShareWindows(std::vector<double> shares, const StatisticsConfig& config);

    void submitted(std::size_t entity, std::int64_t t);
    void started(std::size_t entity, std::int64_t t, double billing);
    void ended(std::size_t entity, std::int64_t t, double billing);
    // Closes every complete step up to `t` (the end of the replay).
    void close(std::int64_t t);

    const std::vector<EntityShareFigures>& entities() const noexcept { return figures_; }
    // One Jain index per window in which something ran, and its window's end.
    const std::vector<std::pair<std::int64_t, double>>& jain() const noexcept { return jain_; }
    double mean_jain() const;
    // The series of tracked entity i (StatisticsConfig::tracked_entities[i]).
    const std::vector<std::vector<ShareSample>>& tracked() const noexcept { return series_; }

private:
    struct Entity {
        double rate = 0;              // billing of its running jobs
        std::int64_t flushed_to = 0;  // usage is integrated up to here
        int in_flight = 0;            // jobs pending or running
        int running = 0;
        std::vector<double> usage;  // per step of the current window (a ring)
        std::vector<char> active;
    };
    void advance(std::int64_t t);  // closes the steps that end at or before t
    void flush(Entity& entity, std::int64_t t);
    void close_step();
    void record_window(std::int64_t end);

    std::vector<double> shares_;
    std::int64_t step_, steps_per_window_;
    std::vector<std::size_t> tracked_;
    bool started_ = false;
    std::int64_t step_end_ = 0;
    std::size_t steps_closed_ = 0;
    std::vector<Entity> entities_;
    std::vector<EntityShareFigures> figures_;
    std::vector<std::pair<std::int64_t, double>> jain_;
    std::vector<std::vector<ShareSample>> series_;
};

struct RecoveryFigures {
    std::uint64_t stretches = 0;    // times the factor fell below the level
    std::uint64_t recovered = 0;    // ... and came back with nothing running (timed)
    std::uint64_t untimed = 0;      // ... came back while it had jobs running, or it never ran
    std::uint64_t unrecovered = 0;  // ... still below at the end of the replay
    double seconds_sum = 0, seconds_max = 0;
    QuantileSketch seconds;
    double mean_seconds() const { return recovered ? seconds_sum / static_cast<double>(recovered) : 0; }
};

// Recovery after a burst. At each calc pass, a user association whose fair-share factor is below
// the level is penalized; a stretch is a run of passes in which it is. Its burst ended when the
// user's running jobs last dropped to none (before or during the stretch). When the factor is back
// at or above the level at pass P with nothing running, the recovery time is P - burst end; back
// with jobs running, or without any usage of its own, the stretch is counted as untimed.
// Figures are per user (summed over the user's associations).
class RecoveryTracker {
public:
    RecoveryTracker(const Population& population, double level);

    void started(std::size_t node);
    void ended(std::size_t node, std::int64_t t);
    void factors(std::int64_t now, const fairshare::FairShareResult& fair_share);
    void finish();

    const std::vector<RecoveryFigures>& users() const noexcept { return users_; }
    // Every user's stretches together.
    const RecoveryFigures& overall() const noexcept { return overall_; }

private:
    struct State {
        int running = 0;
        bool penalized = false;
        std::optional<std::int64_t> idle_since;  // when its running jobs last dropped to none
    };
    void recovered(RecoveryFigures& figures, const State& state, std::int64_t now);

    const Population& population_;
    double level_;
    std::vector<std::size_t> state_of_node_;  // node index -> index in states_
    std::vector<State> states_;
    std::vector<RecoveryFigures> users_;
    RecoveryFigures overall_;
};

class PolicyStatistics {
public:
    PolicyStatistics(const Population& population, const ClusterSpec& cluster, const StatisticsConfig& config);

    void submitted(const SimJob& job);
    void started(const SimJob& job, std::int64_t start, double billing, bool backfilled);
    void ended(const SimJob& job, std::int64_t end, double billing);
    void factors(std::int64_t now, const fairshare::FairShareResult& fair_share);
    void finish(std::int64_t end);

    const WaitFigures& overall() const noexcept { return overall_; }
    const std::vector<WaitFigures>& users() const noexcept { return users_; }        // by Population::users()
    const std::vector<WaitFigures>& accounts() const noexcept { return accounts_; }  // by Population::accounts()
    const ShareWindows& shares() const noexcept { return shares_; }
    const RecoveryTracker& recovery() const noexcept { return recovery_; }
    bool factors_seen() const noexcept { return factors_seen_; }

    std::uint64_t jobs() const noexcept { return overall_.jobs; }
    std::uint64_t backfilled() const noexcept { return backfilled_; }
    std::int64_t first_submit() const noexcept { return first_submit_.value_or(0); }
    std::int64_t last_end() const noexcept { return last_end_; }
    double core_utilization() const;
    double gpu_utilization() const;

private:
    const Population& population_;
    ClusterSpec cluster_;
    double slowdown_threshold_;
    WaitFigures overall_;
    std::vector<WaitFigures> users_, accounts_;
    ShareWindows shares_;
    RecoveryTracker recovery_;
    bool factors_seen_ = false;
    std::uint64_t backfilled_ = 0;
    std::optional<std::int64_t> first_submit_;
    std::int64_t last_end_ = 0;
    double core_seconds_ = 0, gpu_seconds_ = 0;
};

}  // namespace fairway::sim
