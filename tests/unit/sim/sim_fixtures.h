// Helpers for the simulator's tests: populations, jobs, and an observer that records the schedule
// and checks its invariants as it is made.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace fairway::sim::testing {

// Users "u1".."uN", each alone in account "gI".
inline Population population_of(int users) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (int i = 1; i <= users; ++i) pairs.emplace_back("g" + std::to_string(i), "u" + std::to_string(i));
    return Population::derived(pairs);
}

inline SimJob job(const Population& population, int user, std::int64_t id, std::int64_t submit, std::int64_t cores,
                  std::int64_t run, std::int64_t limit) {
    SimJob j;
    j.id = id;
    j.submit = submit;
    j.run = run;
    j.limit = limit;
    j.need = {cores, 0};
    j.association = *population.association("g" + std::to_string(user), "u" + std::to_string(user));
    return j;
}

inline SimConfig one_node(std::int64_t cores) {
    SimConfig config;
    config.cluster = {1, cores, 0};
    return config;
}

// The schedule as it is made, checked on the way: no resource holds more than its capacity, no job
// starts before its submit time, and no pass leaves its head unable to start by its shadow time.
class Recorder : public SimObserver {
public:
    explicit Recorder(const ClusterSpec& cluster) : cluster_(cluster), used_(cluster.nodes) {}

    void job_started(const SimJob& job, std::int64_t start, bool backfilled,
                     const std::vector<Piece>& pieces) override {
        EXPECT_GE(start, job.submit) << "job " << job.id;
        EXPECT_FALSE(starts.count(job.id)) << "job " << job.id << " started twice";
        starts[job.id] = start;
        if (backfilled) backfilled_jobs.push_back(job.id);
        Need given;
        for (const Piece& piece : pieces) {
            used_.at(piece.node) += Need{piece.cores, piece.gpus};
            given += Need{piece.cores, piece.gpus};
            EXPECT_TRUE(used_[piece.node].fits_in({cluster_.cores_per_node, cluster_.gpus_per_node}))
                << "node " << piece.node << " overcommitted at " << start << " by job " << job.id;
        }
        EXPECT_EQ(given, job.need) << "job " << job.id;
        pieces_[job.id] = pieces;
        transcript << "start " << job.id << " " << start << (backfilled ? " bf" : "") << "\n";
    }
    void job_ended(const SimJob& job, std::int64_t end) override {
        EXPECT_EQ(end, starts.at(job.id) + job.run) << "job " << job.id;
        for (const Piece& piece : pieces_.at(job.id)) used_.at(piece.node) -= Need{piece.cores, piece.gpus};
        pieces_.erase(job.id);
        ++ended;
        transcript << "end " << job.id << " " << end << "\n";
    }
    void reservation_made(const PassRecord& pass) override {
        ++reservations;
        EXPECT_FALSE(pass.head_need.fits_in(pass.free)) << "the head could have started at " << pass.now;
        // Reference: release the running jobs by expected end until the head fits.
        std::vector<RunningSlot> running = pass.running;
        std::sort(running.begin(), running.end(),
                  [](const RunningSlot& a, const RunningSlot& b) { return a.expected_end < b.expected_end; });
        Need free = pass.free;
        std::int64_t fits_at = -1;
        for (const RunningSlot& slot : running) {
            free += slot.need;
            if (pass.head_need.fits_in(free)) {
                fits_at = slot.expected_end;
                break;
            }
        }
        EXPECT_NE(fits_at, -1) << "the head never fits after the pass at " << pass.now;
        EXPECT_LE(fits_at, pass.shadow_time) << "a backfilled job delays job " << pass.head_job << " at " << pass.now;
    }

    std::map<std::int64_t, std::int64_t> starts;  // job id -> start
    std::vector<std::int64_t> backfilled_jobs;
    std::size_t ended = 0, reservations = 0;
    std::ostringstream transcript;

private:
    ClusterSpec cluster_;
    std::vector<Need> used_;
    std::map<std::int64_t, std::vector<Piece>> pieces_;
};

// Replays `jobs` (in submit order) under one policy and returns the recorder.
inline void replay(Simulator& simulator, const std::vector<SimJob>& jobs) {
    for (const SimJob& j : jobs) simulator.submit(j);
    simulator.finish();
}

}  // namespace fairway::sim::testing
