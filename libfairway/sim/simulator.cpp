#include "sim/simulator.h"

#include <algorithm>
#include <stdexcept>

#include "common/error.h"
#include "fairshare/run_charges.h"

namespace fairway::sim {

using fairshare::TimePoint;

void SimObserver::job_started(const SimJob&, std::int64_t, bool, const std::vector<Piece>&) {}
void SimObserver::job_ended(const SimJob&, std::int64_t) {}
void SimObserver::reservation_made(const PassRecord&) {}

namespace {

TimePoint at(std::int64_t t) { return fairshare::from_unix_seconds(t); }

}  // namespace

Simulator::Simulator(const SimConfig& config, const PolicySpec& policy, const Population& population,
                     const StatisticsConfig& statistics, SimObserver* observer)
    : config_(config),
      policy_(policy),
      population_(population),
      observer_(observer),
      cluster_(config.cluster),
      statistics_(population, config.cluster, statistics) {
    if (config_.calc_period.count() <= 0) throw InputError({"", 0, "calc_period"}, "must be positive");
    const Need capacity = config_.cluster.capacity();
    shape_.nodes = config_.cluster.nodes;
    // Job size is relative to the cluster's CPUs; a GPU-only cluster counts GPUs instead.
    shape_.cpus =
        static_cast<std::uint32_t>(std::max<std::int64_t>(1, capacity.cores > 0 ? capacity.cores : capacity.gpus));
    if (fair_share()) book_ = std::make_unique<fairshare::UsageBook>(policy_.ledger_config());
}

double Simulator::billing_of(const Need& need) const {
    return config_.billing_per_core * static_cast<double>(need.cores) +
           config_.billing_per_gpu * static_cast<double>(need.gpus);
}

// ---- time

std::optional<std::int64_t> Simulator::next_event_time() const {
    std::optional<std::int64_t> next;
    if (!ends_.empty()) next = ends_.top().first;
    if (fair_share() && started_ && (!next || next_calc_ < *next)) next = next_calc_;
    return next;
}

void Simulator::advance_to(std::int64_t t) {
    for (;;) {
        std::optional<std::int64_t> next = next_event_time();
        if (pass_due_ && now_ < t && (!next || *next > now_)) {
            schedule_pass();
            continue;
        }
        if (!next || *next > t) break;
        now_ = *next;
        events_at(now_);
    }
    now_ = std::max(now_, t);
}

void Simulator::events_at(std::int64_t t) {
    while (!ends_.empty() && ends_.top().first == t) {
        std::uint64_t key = ends_.top().second;
        ends_.pop();
        end_job(key);
    }
    if (fair_share() && next_calc_ == t) {
        calc_pass();
        next_calc_ += config_.calc_period.count();
    }
}

void Simulator::submit(const SimJob& job) {
    if (started_ && job.submit < now_) throw std::invalid_argument("Simulator::submit: jobs must come in submit order");
    if (!started_) {
        started_ = true;
        now_ = job.submit;
        next_calc_ = job.submit;  // the first calc pass sets the factors every later job sees
        if (policy_.reset != ResetPeriod::none) next_reset_ = next_reset(policy_.reset, job.submit);
    }
    advance_to(job.submit);
    statistics_.submitted(job);
    Pending pending{job, 0, arrivals_++};
    pending.priority = priority_of(job);
    enqueue(std::move(pending));
    pass_due_ = true;
}

void Simulator::finish() {
    for (;;) {
        if (pass_due_) schedule_pass();
        if (ends_.empty()) break;
        advance_to(ends_.top().first);
    }
    if (!queue_.empty()) throw std::logic_error("Simulator::finish: jobs left pending on an idle cluster");
    statistics_.finish(now_);
}

// ---- jobs

void Simulator::end_job(std::uint64_t key) {
    auto found = running_.find(key);
    Running& job = found->second;
    cluster_.release(job.pieces);
    statistics_.ended(job.job, job.end, job.billing);
    if (observer_) observer_->job_ended(job.job, job.end);
    if (fair_share() && job.end > job.charged_to) unsettled_.push_back(std::move(job));
    running_.erase(found);
    pass_due_ = true;
}

void Simulator::start_job(const Pending& pending, bool backfilled) {
    Running job;
    job.job = pending.job;
    job.start = now_;
    job.end = now_ + pending.job.run;
    job.charged_to = now_;
    job.billing = billing_of(pending.job.need);
    job.pieces = cluster_.allocate(pending.job.need);
    statistics_.started(job.job, now_, job.billing, backfilled);
    if (observer_) observer_->job_started(job.job, now_, backfilled, job.pieces);
    std::uint64_t key = starts_++;
    ends_.push({job.end, key});
    running_.emplace(key, std::move(job));
}

std::vector<RunningSlot> Simulator::running_slots() const {
    std::vector<RunningSlot> slots;
    slots.reserve(running_.size());
    for (const auto& [key, job] : running_) slots.push_back({job.job.need, job.start + job.job.limit});
    return slots;
}

// ---- priorities

bool Simulator::before(const Pending& a, const Pending& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.job.submit != b.job.submit) return a.job.submit < b.job.submit;
    return a.arrival < b.arrival;
}

void Simulator::enqueue(Pending pending) {
    auto position = std::upper_bound(queue_.begin(), queue_.end(), pending, before);
    candidates_.insert(candidates_.begin() + (position - queue_.begin()),
                       Candidate{pending.job.need, pending.job.limit});
    queue_.insert(position, std::move(pending));
}

std::uint32_t Simulator::priority_of(const SimJob& job) const {
    if (!fair_share()) return 0;  // FCFS: submit order decides
    fairshare::JobFacts facts;
    facts.accrue_time = at(job.submit);
    facts.fairshare_factor = fair_share_.job_factor(population_.tree().node(job.association).id);
    facts.cpus = static_cast<std::uint32_t>(job.need.cores > 0 ? job.need.cores : job.need.gpus);
    const std::int64_t per_node = config_.cluster.cores_per_node > 0 ? config_.cluster.cores_per_node : 1;
    facts.min_nodes = static_cast<std::uint32_t>(std::max<std::int64_t>(1, (job.need.cores + per_node - 1) / per_node));
    facts.time_limit_minutes = static_cast<std::uint32_t>((job.limit + 59) / 60);
    facts.partitions.push_back({});
    return fairshare::compute_job_priority(config_.priority, shape_, facts, at(now_)).priority;
}

// By the plugin's rule (fairshare/run_charges.h): what a job ran since it was last charged, up to
// its end or now, each second decayed from its own time.
void Simulator::charge_usage() {
    const TimePoint horizon = fairshare::usage_horizon(book_->config(), at(now_));
    const auto charge = [&](Running& job) {
        const fairshare::ChargeSpan span =
            fairshare::uncharged_span(at(job.start), at(std::min(job.end, now_)), at(job.charged_to), horizon);
        job.charged_to = std::min(job.end, now_);
        if (span.empty() || job.billing <= 0) return;
        const fairshare::AssocId association = population_.tree().node(job.job.association).id;
        book_->charge_span({association, {}}, {job.billing, 0, {}}, span.from, span.to);
    };
    for (Running& ended : unsettled_) charge(ended);
    unsettled_.clear();
    for (auto& [key, job] : running_) charge(job);
}

void Simulator::calc_pass() {
    ++calc_passes_;
    if (now_ >= next_reset_) {
        book_ = std::make_unique<fairshare::UsageBook>(policy_.ledger_config());
        next_reset_ = next_reset(policy_.reset, now_);
    }
    charge_usage();
    book_->advance(at(now_));
    fair_share_ = fairshare::compute_fair_share(population_.tree().with_usage(book_->fair_share_usage(), at(now_)),
                                                config_.fair_share);
    statistics_.factors(now_, fair_share_);
    reprioritize();
}

void Simulator::reprioritize() {
    if (queue_.empty()) return;
    for (Pending& pending : queue_) pending.priority = priority_of(pending.job);
    std::sort(queue_.begin(), queue_.end(), before);
    for (std::size_t i = 0; i < queue_.size(); ++i) candidates_[i] = {queue_[i].job.need, queue_[i].job.limit};
    pass_due_ = true;
}

// ---- scheduling

void Simulator::schedule_pass() {
    pass_due_ = false;
    const Need free = cluster_.free();
    if (queue_.empty() || (free.cores <= 0 && free.gpus <= 0)) return;
    PassPlan plan = plan_easy_pass(
        free, [this] { return running_slots(); }, candidates_, now_, config_.backfill_depth);
    std::vector<bool> leaves(queue_.size(), false);
    for (std::size_t i = 0; i < plan.started.size(); ++i) {
        start_job(queue_[plan.started[i]], plan.backfilled[i]);
        leaves[plan.started[i]] = true;
    }
    PassRecord record;
    if (observer_ && plan.reservation) {
        const Pending& head = queue_[plan.reservation->head];
        record = {now_, head.job.id, head.job.need, plan.reservation->shadow_time, cluster_.free(), running_slots()};
    }
    if (!plan.started.empty()) {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < queue_.size(); ++i) {
            if (leaves[i]) continue;
            queue_[kept] = std::move(queue_[i]);
            candidates_[kept] = candidates_[i];
            ++kept;
        }
        queue_.resize(kept);
        candidates_.resize(kept);
    }
    if (observer_ && plan.reservation) observer_->reservation_made(record);
}

}  // namespace fairway::sim
