#include "sim/statistics.h"

#include <algorithm>
#include <stdexcept>

#include "common/error.h"

namespace fairway::sim {

void StatisticsConfig::validate() const {
    if (share_step <= 0) throw InputError({"", 0, "share_step"}, "must be positive");
    if (share_window <= 0 || share_window % share_step != 0)
        throw InputError({"", 0, "share_window"}, "must be a positive multiple of the share step");
    if (!(recovery_level > 0 && recovery_level <= 1)) throw InputError({"", 0, "recovery_level"}, "must be in (0, 1]");
    if (!(slowdown_threshold > 0)) throw InputError({"", 0, "slowdown_threshold"}, "must be positive");
}

void WaitFigures::add(double wait_seconds, double slowdown_value) {
    ++jobs;
    wait_sum += wait_seconds;
    slowdown_sum += slowdown_value;
    wait.add(wait_seconds);
    slowdown.add(slowdown_value);
}

// ---- ShareWindows

ShareWindows::ShareWindows(std::vector<double> shares, const StatisticsConfig& config)
    : shares_(std::move(shares)),
      step_(config.share_step),
      steps_per_window_(config.share_window / config.share_step),
      tracked_(config.tracked_entities) {
    config.validate();
    Entity blank;
    blank.usage.assign(static_cast<std::size_t>(steps_per_window_), 0.0);
    blank.active.assign(static_cast<std::size_t>(steps_per_window_), 0);
    entities_.assign(shares_.size(), blank);
    figures_.assign(shares_.size(), {});
    series_.assign(tracked_.size(), {});
    for (std::size_t entity : tracked_)
        if (entity >= shares_.size()) throw std::out_of_range("ShareWindows: tracked entity out of range");
}

void ShareWindows::flush(Entity& entity, std::int64_t t) {
    std::size_t slot = steps_closed_ % static_cast<std::size_t>(steps_per_window_);
    entity.usage[slot] += entity.rate * static_cast<double>(t - entity.flushed_to);
    entity.flushed_to = t;
}

// The first event fixes the steps' origin; every later one first closes the steps it passed. Steps
// are (start, end]: an event at a step's end belongs to that step, so a job that ends exactly there
// leaves the next step idle.
void ShareWindows::advance(std::int64_t t) {
    if (!started_) {
        started_ = true;
        step_end_ = t + step_;
        for (Entity& entity : entities_) entity.flushed_to = t;
        return;
    }
    while (step_end_ < t) close_step();
}

void ShareWindows::close_step() {
    for (Entity& entity : entities_) flush(entity, step_end_);
    ++steps_closed_;
    if (steps_closed_ >= static_cast<std::size_t>(steps_per_window_)) record_window(step_end_);
    std::size_t slot = steps_closed_ % static_cast<std::size_t>(steps_per_window_);
    for (Entity& entity : entities_) {
        entity.usage[slot] = 0;
        entity.active[slot] = entity.in_flight > 0;
    }
    step_end_ += step_;
}

void ShareWindows::record_window(std::int64_t end) {
    const std::size_t n = entities_.size();
    std::vector<double> delivered(n, 0.0);
    std::vector<bool> active(n, false);
    double total = 0, active_shares = 0;
    for (std::size_t e = 0; e < n; ++e) {
        for (std::int64_t s = 0; s < steps_per_window_; ++s) {
            delivered[e] += entities_[e].usage[static_cast<std::size_t>(s)];
            active[e] = active[e] || entities_[e].active[static_cast<std::size_t>(s)];
        }
        total += delivered[e];
        if (active[e]) active_shares += shares_[e];
    }
    if (total <= 0) return;  // nothing ran: nothing was shared
    double x_sum = 0, x_square_sum = 0;
    std::size_t counted = 0;
    for (std::size_t e = 0; e < n; ++e) {
        if (!active[e]) continue;
        double share = delivered[e] / total;
        double entitled = active_shares > 0 ? shares_[e] / active_shares : 0;
        figures_[e].active_windows += 1;
        figures_[e].delivered_sum += share;
        figures_[e].entitled_sum += entitled;
        if (entitled <= 0) continue;
        double x = share / entitled;
        x_sum += x;
        x_square_sum += x * x;
        ++counted;
    }
    if (counted > 0 && x_square_sum > 0)
        jain_.emplace_back(end, x_sum * x_sum / (static_cast<double>(counted) * x_square_sum));
    for (std::size_t i = 0; i < tracked_.size(); ++i) {
        std::size_t e = tracked_[i];
        series_[i].push_back(
            {end, delivered[e] / total, active[e] && active_shares > 0 ? shares_[e] / active_shares : 0.0});
    }
}

void ShareWindows::submitted(std::size_t entity, std::int64_t t) {
    advance(t);
    Entity& e = entities_.at(entity);
    ++e.in_flight;
    e.active[steps_closed_ % static_cast<std::size_t>(steps_per_window_)] = 1;
}

void ShareWindows::started(std::size_t entity, std::int64_t t, double billing) {
    advance(t);
    Entity& e = entities_.at(entity);
    flush(e, t);
    e.rate += billing;
    ++e.running;
}

void ShareWindows::ended(std::size_t entity, std::int64_t t, double billing) {
    advance(t);
    Entity& e = entities_.at(entity);
    flush(e, t);
    // Back to exactly 0 when nothing runs, so rounding never leaves a residue that counts as usage.
    e.rate = --e.running == 0 ? 0.0 : e.rate - billing;
    --e.in_flight;
}

void ShareWindows::close(std::int64_t t) {
    if (!started_) return;
    while (step_end_ <= t) close_step();
}

double ShareWindows::mean_jain() const {
    if (jain_.empty()) return 0;
    double sum = 0;
    for (const auto& [end, index] : jain_) sum += index;
    return sum / static_cast<double>(jain_.size());
}

// ---- RecoveryTracker

RecoveryTracker::RecoveryTracker(const Population& population, double level) : population_(population), level_(level) {
    state_of_node_.assign(population.tree().size(), 0);
    for (std::size_t node : population.user_associations()) {
        state_of_node_[node] = states_.size();
        states_.emplace_back();
    }
    users_.assign(population.users().size(), {});
}

void RecoveryTracker::started(std::size_t node) { ++states_[state_of_node_.at(node)].running; }

void RecoveryTracker::ended(std::size_t node, std::int64_t t) {
    State& state = states_[state_of_node_.at(node)];
    if (--state.running == 0) state.idle_since = t;
}

void RecoveryTracker::recovered(RecoveryFigures& figures, const State& state, std::int64_t now) {
    if (state.running > 0 || !state.idle_since) {
        ++figures.untimed;
        return;
    }
    double seconds = static_cast<double>(now - *state.idle_since);
    ++figures.recovered;
    figures.seconds_sum += seconds;
    figures.seconds_max = std::max(figures.seconds_max, seconds);
    figures.seconds.add(seconds);
}

void RecoveryTracker::factors(std::int64_t now, const fairshare::FairShareResult& fair_share) {
    const fairshare::AssociationTree& tree = population_.tree();
    for (std::size_t node : population_.user_associations()) {
        State& state = states_[state_of_node_[node]];
        bool penalized = fair_share.job_factor(tree.node(node).id) < level_;
        if (penalized == state.penalized) continue;
        std::size_t user = population_.user_slot(node);
        for (RecoveryFigures* figures : {&users_[user], &overall_}) {
            if (penalized) ++figures->stretches;
            else recovered(*figures, state, now);
        }
        state.penalized = penalized;
    }
}

void RecoveryTracker::finish() {
    for (std::size_t node : population_.user_associations()) {
        State& state = states_[state_of_node_[node]];
        if (!state.penalized) continue;
        ++users_[population_.user_slot(node)].unrecovered;
        ++overall_.unrecovered;
        state.penalized = false;
    }
}

// ---- PolicyStatistics

PolicyStatistics::PolicyStatistics(const Population& population, const ClusterSpec& cluster,
                                   const StatisticsConfig& config)
    : population_(population),
      cluster_(cluster),
      slowdown_threshold_(config.slowdown_threshold),
      users_(population.users().size()),
      accounts_(population.accounts().size()),
      shares_(population.entity_shares(), config),
      recovery_(population, config.recovery_level) {}

void PolicyStatistics::submitted(const SimJob& job) {
    if (!first_submit_) first_submit_ = job.submit;
    if (auto entity = population_.entity_of(job.association)) shares_.submitted(*entity, job.submit);
}

void PolicyStatistics::started(const SimJob& job, std::int64_t start, double billing, bool backfilled) {
    const auto wait = static_cast<double>(start - job.submit);
    const auto run = static_cast<double>(job.run);
    const double slowdown = std::max(1.0, (wait + run) / std::max(run, slowdown_threshold_));
    overall_.add(wait, slowdown);
    users_[population_.user_slot(job.association)].add(wait, slowdown);
    accounts_[population_.account_slot(job.association)].add(wait, slowdown);
    backfilled_ += backfilled ? 1 : 0;
    core_seconds_ += static_cast<double>(job.need.cores) * run;
    gpu_seconds_ += static_cast<double>(job.need.gpus) * run;
    if (auto entity = population_.entity_of(job.association)) shares_.started(*entity, start, billing);
    recovery_.started(job.association);
}

void PolicyStatistics::ended(const SimJob& job, std::int64_t end, double billing) {
    last_end_ = std::max(last_end_, end);
    if (auto entity = population_.entity_of(job.association)) shares_.ended(*entity, end, billing);
    recovery_.ended(job.association, end);
}

void PolicyStatistics::factors(std::int64_t now, const fairshare::FairShareResult& fair_share) {
    factors_seen_ = true;
    recovery_.factors(now, fair_share);
}

void PolicyStatistics::finish(std::int64_t end) {
    last_end_ = std::max(last_end_, end);
    shares_.close(last_end_);
    recovery_.finish();
}

double PolicyStatistics::core_utilization() const {
    const double span = static_cast<double>(last_end_ - first_submit());
    const double capacity = static_cast<double>(cluster_.capacity().cores) * span;
    return capacity > 0 ? core_seconds_ / capacity : 0;
}

double PolicyStatistics::gpu_utilization() const {
    const double span = static_cast<double>(last_end_ - first_submit());
    const double capacity = static_cast<double>(cluster_.capacity().gpus) * span;
    return capacity > 0 ? gpu_seconds_ / capacity : 0;
}

}  // namespace fairway::sim
