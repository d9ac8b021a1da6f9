#include "fairshare/usage_ledger.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

// Rebase the decay anchor once it lags this many half-lives behind the clock, so anchored sums
// stay far from overflow (2^64) while rebases (one multiply per association) stay rare.
constexpr double kRebaseHalfLives = 64;

[[noreturn]] void reject(const char* key, const std::string& problem) {
    throw InputError(SourceLocation{"", 0, key}, problem);
}

std::int64_t seconds_of(TimePoint t) { return t.time_since_epoch().count(); }

void check_duration(Seconds value, const char* key, bool allow_zero) {
    if (value.count() < 0 || (!allow_zero && value.count() == 0))
        reject(key, "must be " + std::string(allow_zero ? "zero or positive" : "positive") + ", got " +
                        std::to_string(value.count()) + " s");
    if (value.count() > kMaxEpochSeconds) reject(key, "is too large (" + std::to_string(value.count()) + " s)");
}

}  // namespace

void check_time(TimePoint at, const char* key) {
    const auto seconds = seconds_of(at);
    if (seconds < 0 || seconds > kMaxEpochSeconds)
        reject(key, "time " + std::to_string(seconds) + " is outside 1970..3000");
}

Seconds default_bucket_width(Seconds window) {
    if (window == kInfiniteWindow) return Seconds{3600};
    return std::max(Seconds{1}, window / 100);
}

LedgerConfig LedgerConfig::validated() const {
    LedgerConfig result = *this;
    check_duration(half_life, "half_life", true);
    if (window != kInfiniteWindow) check_duration(window, "window", false);
    if (bucket.count() == 0) result.bucket = default_bucket_width(window);
    check_duration(result.bucket, "bucket", false);
    if (window == kInfiniteWindow) return result;
    if (result.bucket > window)
        reject("bucket", "bucket width " + format_slurm_duration(result.bucket) + " exceeds the window " +
                             format_slurm_duration(window));
    if (window.count() / result.bucket.count() > kMaxBucketsPerWindow)
        reject("bucket", "bucket width " + format_slurm_duration(result.bucket) + " splits the window into more than " +
                             std::to_string(kMaxBucketsPerWindow) + " buckets");
    return result;
}

WindowedUsageLedger::WindowedUsageLedger(const LedgerConfig& config) : config_(config.validated()) {}

double WindowedUsageLedger::growth(double seconds) const {
    if (config_.half_life.count() == 0) return 1.0;
    return std::exp2(seconds / static_cast<double>(config_.half_life.count()));
}

double WindowedUsageLedger::half_lives_after_anchor(TimePoint t) const {
    if (config_.half_life.count() == 0) return 0;
    return double(seconds_of(t) - seconds_of(anchor_)) / double(config_.half_life.count());
}

// Buckets hold their charges relative to the bucket's END, so exponents are <= 0 and a bucket can
// never overflow whatever the ratio of bucket width to half-life.
double WindowedUsageLedger::bucket_weight_at_anchor(const Bucket& bucket) const {
    const auto end = (bucket.index + 1) * config_.bucket.count();
    return bucket.weight * growth(static_cast<double>(end - seconds_of(anchor_)));
}

bool WindowedUsageLedger::bucket_expired(const Bucket& bucket, TimePoint now) const {
    return (bucket.index + 1) * config_.bucket.count() + config_.window.count() <= seconds_of(now);
}

void WindowedUsageLedger::add_to_bucket(Account& account, std::int64_t index, double weight) {
    auto& buckets = account.buckets;
    if (buckets.empty() || buckets.back().index < index) {
        buckets.push_back(Bucket{index, weight});
        return;
    }
    auto at = std::lower_bound(buckets.begin(), buckets.end(), index,
                               [](const Bucket& b, std::int64_t i) { return b.index < i; });
    if (at != buckets.end() && at->index == index) at->weight += weight;
    else buckets.insert(at, Bucket{index, weight});
}

void WindowedUsageLedger::rebase_anchor(TimePoint now) {
    const double factor = growth(static_cast<double>(seconds_of(anchor_) - seconds_of(now)));
    for (auto& [id, account] : accounts_) account.anchored *= factor;
    anchor_ = now;
}

void check_charge(double billing_seconds, TimePoint at) {
    if (!std::isfinite(billing_seconds) || billing_seconds < 0 || billing_seconds > kMaxChargeBillingSeconds)
        reject("billing_seconds", "usage must be a finite number in 0.." + std::to_string(kMaxChargeBillingSeconds) +
                                      ", got " + std::to_string(billing_seconds));
    check_time(at, "time");
}

bool WindowedUsageLedger::charge(AssocId assoc, double billing_seconds, TimePoint at) {
    check_charge(billing_seconds, at);
    if (billing_seconds == 0) return true;
    if (!accepts(at)) return false;
    if (accounts_.empty() && clock_ == TimePoint{}) anchor_ = at;
    const std::int64_t width = config_.bucket.count();
    const Bucket target{seconds_of(at) / width, 0};
    clock_ = std::max(clock_, at);
    if (half_lives_after_anchor(at) > kRebaseHalfLives) rebase_anchor(at);
    Account& account = accounts_[assoc];
    account.anchored += billing_seconds * growth(static_cast<double>(seconds_of(at) - seconds_of(anchor_)));
    if (windowed()) {
        const auto end = (target.index + 1) * width;
        add_to_bucket(account, target.index, billing_seconds * growth(static_cast<double>(seconds_of(at) - end)));
    }
    return true;
}

double WindowedUsageLedger::span_weight(double rate, TimePoint from, TimePoint to, TimePoint reference) const {
    const double length = static_cast<double>(seconds_of(to) - seconds_of(from));
    if (config_.half_life.count() == 0) return rate * length;
    // H/ln2 * (2^((to - ref)/H) - 2^((from - ref)/H)), with expm1 so short spans keep their digits.
    const double h = static_cast<double>(config_.half_life.count());
    return rate * (h / std::numbers::ln2) * growth(static_cast<double>(seconds_of(from) - seconds_of(reference))) *
           std::expm1(length * std::numbers::ln2 / h);
}

bool WindowedUsageLedger::charge_within_bucket(Account& account, double rate, TimePoint from, TimePoint to) {
    const std::int64_t width = config_.bucket.count();
    const Bucket target{seconds_of(from) / width, 0};
    if (windowed() && bucket_expired(target, std::max(clock_, to))) return false;
    clock_ = std::max(clock_, to);
    if (half_lives_after_anchor(to) > kRebaseHalfLives) rebase_anchor(to);
    account.anchored += span_weight(rate, from, to, anchor_);
    if (windowed()) {
        const TimePoint end{Seconds{(target.index + 1) * width}};
        add_to_bucket(account, target.index, span_weight(rate, from, to, end));
    }
    return true;
}

TimePoint WindowedUsageLedger::bucket_end_after(TimePoint t) const {
    const std::int64_t width = config_.bucket.count();
    return TimePoint{Seconds{(seconds_of(t) / width + 1) * width}};
}

TimePoint WindowedUsageLedger::oldest_live_second(TimePoint now) const {
    const std::int64_t width = config_.bucket.count();
    const std::int64_t since = seconds_of(now) - config_.window.count();
    const std::int64_t index = since >= 0 ? since / width : -((-since + width - 1) / width);
    return TimePoint{Seconds{std::max<std::int64_t>(0, index * width)}};
}

bool WindowedUsageLedger::charge_span(AssocId assoc, double rate, TimePoint from, TimePoint to) {
    if (!std::isfinite(rate) || rate < 0)
        reject("billing_seconds", "usage rate must be a finite number >= 0, got " + std::to_string(rate));
    check_time(from, "time");
    check_charge(rate * static_cast<double>(std::max<std::int64_t>(0, seconds_of(to) - seconds_of(from))), to);
    if (rate == 0 || to <= from) return true;
    bool all_counted = true;
    if (windowed()) {  // seconds in buckets that already left the window are skipped, not walked
        const TimePoint oldest = oldest_live_second(std::max(clock_, to));
        all_counted = from >= oldest;
        from = std::max(from, oldest);
        if (from >= to) return false;
    }
    if (accounts_.empty() && clock_ == TimePoint{}) anchor_ = to;
    Account& account = accounts_[assoc];
    // Only bucket boundaries cut the span (an infinite window has none), so where passes or
    // restarts cut it before changes nothing.
    for (TimePoint piece = from; piece < to;) {
        const TimePoint piece_end = windowed() ? std::min(to, bucket_end_after(piece)) : to;
        all_counted = charge_within_bucket(account, rate, piece, piece_end) && all_counted;
        piece = piece_end;
    }
    if (windowed() && account.buckets.empty()) accounts_.erase(assoc);  // every second was too old
    return all_counted;
}

bool WindowedUsageLedger::accepts(TimePoint at) const {
    const Bucket target{seconds_of(at) / config_.bucket.count(), 0};
    return !windowed() || !bucket_expired(target, std::max(clock_, at));
}

double WindowedUsageLedger::usage(AssocId assoc, TimePoint now) const {
    const auto found = accounts_.find(assoc);
    if (found == accounts_.end()) return 0;
    const TimePoint t = effective(now);
    const Account& account = found->second;
    double anchored = account.anchored;
    if (windowed()) {
        std::size_t live = account.buckets.size();
        for (const Bucket& bucket : account.buckets) {
            if (!bucket_expired(bucket, t)) break;
            anchored -= bucket_weight_at_anchor(bucket);
            --live;
        }
        if (live == 0) return 0;
    }
    return std::max(0.0, anchored) * growth(static_cast<double>(seconds_of(anchor_) - seconds_of(t)));
}

std::size_t WindowedUsageLedger::expire(Account& account, TimePoint now) {
    std::size_t expired = 0;
    while (!account.buckets.empty() && bucket_expired(account.buckets.front(), now)) {
        account.anchored -= bucket_weight_at_anchor(account.buckets.front());
        account.buckets.pop_front();
        ++expired;
    }
    // Subtraction leaves rounding residue; an empty window is exactly zero.
    if (account.buckets.empty() || account.anchored < 0) account.anchored = 0;
    return expired;
}

AdvanceStats WindowedUsageLedger::advance(TimePoint now) {
    check_time(now, "time");
    AdvanceStats stats;
    if (now < clock_) stats.clock_went_backwards = true;
    else clock_ = now;
    if (accounts_.empty()) anchor_ = clock_;
    if (half_lives_after_anchor(clock_) > kRebaseHalfLives) rebase_anchor(clock_);
    for (auto it = accounts_.begin(); it != accounts_.end();) {
        ++stats.associations_visited;
        stats.buckets_expired += windowed() ? expire(it->second, clock_) : 0;
        const bool empty = windowed()
                               ? it->second.buckets.empty()
                               : it->second.anchored * growth(double(seconds_of(anchor_) - seconds_of(clock_))) == 0;
        it = empty ? accounts_.erase(it) : std::next(it);
    }
    return stats;
}

std::vector<AssocId> WindowedUsageLedger::associations() const {
    std::vector<AssocId> ids;
    ids.reserve(accounts_.size());
    for (const auto& [id, account] : accounts_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::size_t WindowedUsageLedger::bucket_count() const noexcept {
    std::size_t total = 0;
    for (const auto& [id, account] : accounts_) total += account.buckets.size();
    return total;
}

void WindowedUsageLedger::forget(AssocId assoc) { accounts_.erase(assoc); }

}  // namespace fairway::fairshare
