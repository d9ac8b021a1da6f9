// WindowedUsageLedger: per-association billable usage over a sliding window with half-life decay.
//
//   U(t) = sum over charges c younger than W of  u_c * 2^(-(t - t_c) / H)
//
// H = half-life (0 = no decay: a pure sliding-window sum); W = window (Seconds::max() = infinite:
// unbounded decay exactly like priority/multifactor). Charges are grouped in buckets of a fixed width
// aligned to the epoch; decay is exact per charge (not per bucket), only expiry is per bucket.
//
// Window edge (documented contract): a bucket [s, s + width) is dropped once s + width + W <= now.
// So a charge of age < W is always counted and a charge of age >= W + width never is.
//
// Cost: advance() visits each association once and pops expired buckets (each bucket is popped once
// in its life), so a pass is O(associations) and does not grow with W. A running decayed sum per
// association, anchored at a reference time that is rebased, keeps usage() O(1).
//
// Time: TimePoint (std::chrono::sys_seconds, i.e. Unix epoch seconds). Time never runs backwards
// inside the ledger: it keeps clock() = the latest time seen by charge() or advance(). A call with an
// earlier time is evaluated at clock() (ages are never negative, nothing expires twice); the ledger
// "freezes" until real time catches up. If a clock was far in the future and was corrected, the
// adapter should notice clock() > now and rebuild from accounting (see rebuild()).
//
// Errors: invalid arguments (negative/NaN/inf/huge amounts, times before 1970 or after year 3000,
// a bad configuration, corrupt serialized bytes) throw fairway::InputError whose key names the
// argument ("billing_seconds", "time", "window", "bucket", "half_life", "state").
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/slurm_time.h"

namespace fairway::fairshare {

using TimePoint = std::chrono::sys_seconds;
using AssocId = std::uint32_t;

// A time_t (Unix seconds) as a TimePoint.
inline TimePoint from_unix_seconds(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

// Largest single charge accepted (billing-seconds): far above any real job (1e6 billing x 30 years).
inline constexpr double kMaxChargeBillingSeconds = 1e18;
// Latest accepted time: 3000-01-01T00:00:00Z. Earliest: the epoch.
inline constexpr std::int64_t kMaxEpochSeconds = 32503680000;
// Most buckets one window may be split into (bounds memory per association).
inline constexpr std::int64_t kMaxBucketsPerWindow = 100000;

inline constexpr Seconds kInfiniteWindow = Seconds::max();

struct LedgerConfig {
    Seconds window{14 * 86400};    // W; kInfiniteWindow for unbounded decay
    Seconds half_life{7 * 86400};  // H; 0 = no decay
    Seconds bucket{0};             // 0 = default_bucket_width(window)

    // Throws InputError(key "window"/"half_life"/"bucket") when not usable. Returns a copy with the
    // bucket width resolved.
    LedgerConfig validated() const;
    bool operator==(const LedgerConfig&) const = default;
};

// Default bucket width: W/100 rounded down (at least 1 s), so the window-edge error is <= 1% of W.
// For an infinite window buckets are unused; returns 1 hour.
Seconds default_bucket_width(Seconds window);

// Work done by the last advance(), for tests and the benchmark (counts, not time).
struct AdvanceStats {
    std::size_t associations_visited = 0;
    std::size_t buckets_expired = 0;
    bool clock_went_backwards = false;
};

class WindowedUsageLedger {
public:
    // Throws InputError when the configuration is unusable.
    explicit WindowedUsageLedger(const LedgerConfig& config = {});

    const LedgerConfig& config() const noexcept { return config_; }
    // Latest time seen (epoch when nothing was seen yet).
    TimePoint clock() const noexcept { return clock_; }

    // Adds usage for one association at time `at`. Zero is accepted and ignored. A charge older than
    // the window relative to clock() is dropped (returns false); otherwise returns true.
    // Throws InputError (key "billing_seconds" or "time") for negative, NaN, inf, huge or
    // out-of-range input; the ledger is unchanged then.
    bool charge(AssocId assoc, double billing_seconds, TimePoint at);
    // Adds `rate` per second over every second of [from, to) (run_charges.h): each second decays
    // from its own time (the integral of the rate, not the sum charged at `to`) and is filed in the
    // bucket that holds it, so charging [a, b) and then [b, c) leaves exactly what charging [a, c)
    // does, to rounding. Seconds older than the window are dropped (returns false when any was).
    // Throws InputError as charge() for a bad rate x length or time; the ledger is unchanged then.
    bool charge_span(AssocId assoc, double rate, TimePoint from, TimePoint to);
    // False when a charge at `at` would be dropped as older than the window (see charge()).
    bool accepts(TimePoint at) const;

    // Windowed, decayed usage U(now) of one association (0 for unknown ids). Does not modify the
    // ledger; buckets that expired since the last advance() are already excluded. `now` earlier than
    // clock() is treated as clock(). Any future `now` gives the usage with no new charges (forecast).
    double usage(AssocId assoc, TimePoint now) const;

    // Moves the clock to `now`: expires buckets that left the window and rebases the decay anchor.
    // O(associations) per call plus each expired bucket once. Associations whose usage became
    // exactly zero (no live buckets) are forgotten.
    AdvanceStats advance(TimePoint now);

    // Every association that currently holds usage, in ascending id order.
    std::vector<AssocId> associations() const;
    std::size_t association_count() const noexcept { return accounts_.size(); }
    // Total live buckets across associations (memory; tests).
    std::size_t bucket_count() const noexcept;

    // Forgets all usage of one association (e.g. it was deleted). No-op for unknown ids.
    void forget(AssocId assoc);

    // Compact, versioned, CRC32-checked little-endian byte string holding config, clock and all
    // buckets. deserialize() validates everything (magic, version, lengths, checksum, finite
    // non-negative values, ordering, config) and throws InputError (key "state") on any defect;
    // it never reads out of bounds on garbage.
    std::string serialize() const;
    static WindowedUsageLedger deserialize(std::string_view bytes);

private:
    struct Bucket {
        std::int64_t index = 0;  // bucket start = index * width (epoch seconds)
        double weight = 0;       // sum of u * 2^((t - start) / H): decay-free within the bucket
    };
    struct Account {
        double anchored = 0;         // sum of live charges as u * 2^((t - anchor_) / H)
        std::deque<Bucket> buckets;  // ascending index; empty when the window is infinite
    };

    bool windowed() const noexcept { return config_.window != kInfiniteWindow; }
    double growth(double seconds) const;  // 2^(seconds / H), 1 when H == 0
    double half_lives_after_anchor(TimePoint t) const;
    double bucket_weight_at_anchor(const Bucket& bucket) const;
    bool bucket_expired(const Bucket& bucket, TimePoint now) const;
    TimePoint effective(TimePoint now) const noexcept { return now < clock_ ? clock_ : now; }
    void add_to_bucket(Account& account, std::int64_t index, double weight);
    // rate x the integral of 2^((t - reference) / H) over [from, to): the span's weight relative to `reference`.
    double span_weight(double rate, TimePoint from, TimePoint to, TimePoint reference) const;
    TimePoint bucket_end_after(TimePoint t) const;
    // The start of the oldest bucket still in the window at `now`.
    TimePoint oldest_live_second(TimePoint now) const;
    // Charges [from, to), which lies inside one bucket; false when that bucket left the window.
    bool charge_within_bucket(Account& account, double rate, TimePoint from, TimePoint to);
    void rebase_anchor(TimePoint now);
    std::size_t expire(Account& account, TimePoint now);
    void restore_account(AssocId assoc, double anchored, const std::vector<std::pair<std::int64_t, double>>& buckets);

    LedgerConfig config_;
    TimePoint clock_{};
    TimePoint anchor_{};
    std::unordered_map<AssocId, Account> accounts_;
};

// Validates a time argument (epoch .. year 3000); throws InputError(key) otherwise.
void check_time(TimePoint at, const char* key);
// Validates what charge() takes: an amount in 0..kMaxChargeBillingSeconds (key "billing_seconds")
// and a time (key "time"); throws InputError otherwise.
void check_charge(double billing_seconds, TimePoint at);

}  // namespace fairway::fairshare
