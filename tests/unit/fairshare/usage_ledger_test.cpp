// WindowedUsageLedger with a fake clock: exact decay, the window edge, rollover, clock steps,
// rejected input, cost per pass, and a randomized comparison against a brute-force model.
#include "fairshare/usage_ledger.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kStart = 1'700'000'000;  // an arbitrary fake "now"

TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

LedgerConfig config(std::int64_t window, std::int64_t half_life, std::int64_t bucket = 0) {
    return LedgerConfig{window < 0 ? kInfiniteWindow : Seconds{window}, Seconds{half_life}, Seconds{bucket}};
}

double decayed(double amount, std::int64_t age, std::int64_t half_life) {
    return half_life == 0 ? amount : amount * std::exp2(-double(age) / double(half_life));
}

TEST(LedgerDecay, MatchesTheClosedFormForEveryAge) {
    WindowedUsageLedger ledger(config(-1, 3600));
    ledger.charge(7, 1000, at(kStart));
    for (std::int64_t age : {0L, 1L, 59L, 3600L, 7200L, 12345L, 10 * 3600L, 40 * 3600L, 200 * 3600L})
        EXPECT_NEAR(ledger.usage(7, at(kStart + age)), decayed(1000, age, 3600), 1e-12 * 1000) << age;
}

TEST(LedgerDecay, EachChargeDecaysFromItsOwnTimeNotItsBucket) {
    // Bucket width one day, half-life one hour: per-bucket decay would be hugely wrong.
    WindowedUsageLedger ledger(config(14 * kDay, 3600, kDay));
    ledger.charge(1, 100, at(kStart));
    ledger.charge(1, 50, at(kStart + 5000));
    const std::int64_t now = kStart + 9000;
    EXPECT_NEAR(ledger.usage(1, at(now)), decayed(100, 9000, 3600) + decayed(50, 4000, 3600), 1e-12);
}

TEST(LedgerDecay, StaysExactAcrossManyAnchorRebases) {
    // 1-minute half-life over two days of hourly passes forces many rebases of the decay anchor.
    WindowedUsageLedger ledger(config(-1, 60));
    std::int64_t t = kStart;
    for (int pass = 0; pass < 48; ++pass, t += 3600) {
        ledger.charge(3, 10, at(t));
        ledger.advance(at(t));
        EXPECT_NEAR(ledger.usage(3, at(t + 30)), decayed(10, 30, 60), 1e-12) << pass;
        EXPECT_TRUE(std::isfinite(ledger.usage(3, at(t + 30))));
    }
}

TEST(LedgerDecay, TinyHalfLifeWithWideBucketsNeverOverflows) {
    WindowedUsageLedger ledger(config(kDay, 1, kDay / 10));
    for (std::int64_t s = 0; s < kDay; s += 997) ledger.charge(1, 1e12, at(kStart + s));
    const double now = ledger.usage(1, at(kStart + kDay - 1));
    EXPECT_TRUE(std::isfinite(now));
    EXPECT_GE(now, 0);
    ledger.advance(at(kStart + 3 * kDay));
    EXPECT_EQ(ledger.usage(1, at(kStart + 3 * kDay)), 0);
}

// A charge at offset `offset` inside bucket [1000, 1010) of a 100 s window: counted while its bucket's
// end is younger than W, i.e. until 1110, whatever the offset.
TEST(LedgerWindowEdge, ChargeVanishesWhenItsBucketLeavesTheWindow) {
    for (std::int64_t offset : {0, 1, 5, 9}) {
        WindowedUsageLedger ledger(config(100, 0, 10));
        const std::int64_t charged = 1000 + offset;
        ledger.charge(1, 5, at(charged));
        EXPECT_EQ(ledger.usage(1, at(charged + 99)), 5) << offset;  // age < W: always counted
        EXPECT_EQ(ledger.usage(1, at(1109)), 5) << offset;
        EXPECT_EQ(ledger.usage(1, at(1110)), 0) << offset;  // age >= W + width: never
        ledger.advance(at(1109));
        EXPECT_EQ(ledger.bucket_count(), 1U);
        const AdvanceStats stats = ledger.advance(at(1110));
        EXPECT_EQ(stats.buckets_expired, 1U);
        EXPECT_EQ(ledger.association_count(), 0U);
    }
}

TEST(LedgerWindowEdge, DefaultBucketKeepsEdgeErrorWithinOnePercent) {
    for (std::int64_t window : {180L, 3600L, 14 * kDay, 90 * kDay, 365 * kDay}) {
        const LedgerConfig resolved = config(window, 0).validated();
        EXPECT_LE(resolved.bucket.count() * 100, window) << window;
        EXPECT_GE(resolved.bucket.count(), 1);
    }
    EXPECT_EQ(config(14 * kDay, 0).validated().bucket, Seconds{12096});
    EXPECT_EQ(config(50, 0).validated().bucket, Seconds{1});
}

TEST(LedgerBuckets, ChargesInOneBucketShareIt) {
    WindowedUsageLedger ledger(config(1000, 0, 10));
    for (std::int64_t s = 0; s < 35; ++s) ledger.charge(1, 1, at(kStart - kStart % 10 + s));
    EXPECT_EQ(ledger.bucket_count(), 4U);  // 10 + 10 + 10 + 5 seconds
    EXPECT_EQ(ledger.usage(1, at(kStart + 40)), 35);
}

TEST(LedgerBuckets, RolloverExpiresOneBucketPerWidth) {
    const std::int64_t base = 10000;
    WindowedUsageLedger ledger(config(100, 0, 10));
    for (std::int64_t s = 0; s < 100; ++s) ledger.charge(1, 1, at(base + s));
    EXPECT_EQ(ledger.bucket_count(), 10U);
    for (int k = 1; k <= 10; ++k) {
        const AdvanceStats stats = ledger.advance(at(base + 100 + 10 * k));
        EXPECT_EQ(stats.buckets_expired, 1U) << k;
        EXPECT_EQ(ledger.usage(1, at(base + 100 + 10 * k)), 100 - 10 * k) << k;
    }
}

TEST(LedgerBuckets, LateChargeLandsInItsOwnBucket) {
    WindowedUsageLedger ledger(config(100, 0, 10));
    ledger.charge(1, 1, at(1050));
    ledger.charge(1, 2, at(1012));  // older than the newest bucket
    EXPECT_EQ(ledger.bucket_count(), 2U);
    EXPECT_EQ(ledger.usage(1, at(1119)), 3);
    EXPECT_EQ(ledger.usage(1, at(1120)), 1);  // the late one leaves with its own bucket
}

TEST(LedgerBuckets, ChargeOlderThanTheWindowIsDropped) {
    WindowedUsageLedger ledger(config(100, 0, 10));
    ledger.advance(at(5000));
    EXPECT_FALSE(ledger.charge(1, 9, at(4000)));
    EXPECT_TRUE(ledger.charge(1, 9, at(4950)));
    EXPECT_EQ(ledger.usage(1, at(5000)), 9);
}

TEST(LedgerClock, BackwardStepFreezesTimeWithoutNegativeAgesOrDoubleExpiry) {
    WindowedUsageLedger ledger(config(100, 50, 10));
    ledger.charge(1, 8, at(1000));
    ledger.charge(1, 4, at(1050));
    ledger.advance(at(1115));  // the 1000 charge has left the window
    const double before = ledger.usage(1, at(1115));
    EXPECT_NEAR(before, decayed(4, 65, 50), 1e-12);
    const AdvanceStats back = ledger.advance(at(900));
    EXPECT_TRUE(back.clock_went_backwards);
    EXPECT_EQ(back.buckets_expired, 0U);
    EXPECT_EQ(ledger.clock(), at(1115));
    EXPECT_EQ(ledger.usage(1, at(900)), before);  // evaluated at clock(), not in the past
    ledger.advance(at(1115));
    EXPECT_EQ(ledger.usage(1, at(1115)), before);  // nothing expired twice
    // A charge stamped before clock() decays from its own time.
    ledger.charge(2, 10, at(1100));
    EXPECT_NEAR(ledger.usage(2, at(1000)), decayed(10, 15, 50), 1e-12);
}

TEST(LedgerClock, ForwardJumpExpiresEverythingOlderThanTheWindow) {
    WindowedUsageLedger ledger(config(14 * kDay, 7 * kDay));
    for (AssocId id = 1; id <= 50; ++id)
        for (int k = 0; k < 20; ++k) ledger.charge(id, 3, at(kStart + k * 3600));
    const std::size_t buckets = ledger.bucket_count();
    const AdvanceStats stats = ledger.advance(at(kStart + 10 * 365 * kDay));
    EXPECT_EQ(stats.buckets_expired, buckets);
    EXPECT_EQ(ledger.association_count(), 0U);
    EXPECT_EQ(ledger.usage(1, at(kStart + 10 * 365 * kDay)), 0);
    ledger.charge(1, 2, at(kStart + 10 * 365 * kDay));
    EXPECT_EQ(ledger.usage(1, at(kStart + 10 * 365 * kDay)), 2);
}

TEST(LedgerInput, RejectsHugeNegativeNanAndInfiniteUsage) {
    WindowedUsageLedger ledger(config(100, 10));
    ledger.charge(1, 5, at(1000));
    const std::string state = ledger.serialize();
    for (double bad : {-1.0, -0.0001, std::nan(""), std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity(), 1e19, std::numeric_limits<double>::max()}) {
        try {
            ledger.charge(1, bad, at(1000));
            ADD_FAILURE() << bad << " accepted";
        } catch (const InputError& error) {
            EXPECT_EQ(error.where().key, "billing_seconds");
        }
    }
    EXPECT_EQ(ledger.serialize(), state);  // unchanged
    EXPECT_TRUE(ledger.charge(1, 0, at(1000)));
    EXPECT_EQ(ledger.serialize(), state);
}

TEST(LedgerInput, RejectsTimesOutsideTheEpochRange) {
    WindowedUsageLedger ledger(config(100, 10));
    for (std::int64_t bad : {-1L, kMaxEpochSeconds + 1, std::numeric_limits<std::int64_t>::max()}) {
        EXPECT_THROW(ledger.charge(1, 1, at(bad)), InputError) << bad;
        EXPECT_THROW(ledger.advance(at(bad)), InputError) << bad;
    }
    EXPECT_EQ(ledger.association_count(), 0U);
}

TEST(LedgerInput, RejectsUnusableConfigurations) {
    struct Case {
        LedgerConfig config;
        const char* key;
    };
    for (const Case& c :
         {Case{config(0, 0), "window"}, Case{config(100, -1), "half_life"}, Case{config(100, 0, 101), "bucket"},
          Case{config(100, 0, -1), "bucket"}, Case{config(kMaxBucketsPerWindow * 2, 0, 1), "bucket"},
          Case{config(kMaxEpochSeconds + 1, 0), "window"}}) {
        try {
            WindowedUsageLedger ledger(c.config);
            ADD_FAILURE() << "accepted window " << c.config.window.count() << " bucket " << c.config.bucket.count();
        } catch (const InputError& error) {
            EXPECT_EQ(error.where().key, c.key) << error.what();
        }
    }
}

TEST(LedgerEquivalence, InfiniteWindowIsPureDecay) {
    WindowedUsageLedger ledger(config(-1, 7 * kDay));
    double expected_at_end = 0;
    const std::int64_t end = kStart + 400 * kDay;
    for (int k = 0; k < 400; ++k) {
        const std::int64_t t = kStart + k * kDay + 17;
        ledger.charge(9, 100 + k, at(t));
        ledger.advance(at(t));
        expected_at_end += decayed(100 + k, end - t, 7 * kDay);
    }
    EXPECT_NEAR(ledger.usage(9, at(end)), expected_at_end, 1e-9 * expected_at_end);
    EXPECT_EQ(ledger.bucket_count(), 0U);
}

TEST(LedgerEquivalence, ZeroHalfLifeIsThePlainWindowSum) {
    WindowedUsageLedger ledger(config(10 * kDay, 0, kDay));
    for (int k = 0; k < 30; ++k) {
        const std::int64_t t = k * kDay + 100;
        ledger.charge(2, k + 1, at(t));
        ledger.advance(at(t));
        // Buckets [j*day, (j+1)*day) with (j+1)*day + 10 days > t are live: j >= k - 10.
        double expected = 0;
        for (int j = std::max(0, k - 10); j <= k; ++j) expected += j + 1;
        EXPECT_EQ(ledger.usage(2, at(t)), expected) << k;
    }
}

TEST(LedgerCost, WorkPerPassIsFlatInTheWindow) {
    // Same workload (200 associations charged hourly for three windows), W = 7 days vs 90 days.
    struct Work {
        std::size_t max_visited = 0, max_expired = 0, max_buckets = 0;
    };
    auto run = [](std::int64_t window) {
        WindowedUsageLedger ledger(config(window, 7 * kDay));
        Work work;
        for (std::int64_t t = kStart; t < kStart + 3 * window; t += 3600) {
            for (AssocId id = 1; id <= 200; ++id) ledger.charge(id, 1, at(t));
            const AdvanceStats stats = ledger.advance(at(t));
            work.max_visited = std::max(work.max_visited, stats.associations_visited);
            work.max_expired = std::max(work.max_expired, stats.buckets_expired);
            work.max_buckets = std::max(work.max_buckets, ledger.bucket_count());
        }
        return work;
    };
    const Work week = run(7 * kDay), quarter = run(90 * kDay);
    EXPECT_EQ(week.max_visited, 200U);
    EXPECT_EQ(quarter.max_visited, 200U);
    EXPECT_LE(quarter.max_expired, week.max_expired);  // wider buckets: never more per pass
    EXPECT_LE(week.max_expired, 200U);                 // at most one bucket each per hourly pass
    EXPECT_LE(week.max_buckets, 200U * 102);           // W/width + 2 buckets per association
    EXPECT_LE(quarter.max_buckets, 200U * 102);
}

TEST(LedgerForget, DropsOneAssociation) {
    WindowedUsageLedger ledger(config(100, 0, 10));
    ledger.charge(1, 1, at(1000));
    ledger.charge(2, 1, at(1000));
    ledger.forget(1);
    ledger.forget(99);
    EXPECT_EQ(ledger.associations(), std::vector<AssocId>{2});
    EXPECT_EQ(ledger.usage(1, at(1000)), 0);
}

// Brute force: every charge kept individually, the documented rules applied literally.
class ReferenceLedger {
public:
    explicit ReferenceLedger(LedgerConfig config) : config_(config.validated()) {}
    void charge(AssocId id, double amount, std::int64_t t) {
        if (amount == 0) return;
        const std::int64_t clock = std::max(clock_, t);
        if (expired(t, clock)) return;
        clock_ = clock;
        charges_.push_back({id, amount, t});
    }
    void advance(std::int64_t t) { clock_ = std::max(clock_, t); }
    double usage(AssocId id, std::int64_t now) const {
        now = std::max(now, clock_);
        double sum = 0;
        for (const auto& c : charges_)
            if (c.id == id && !expired(c.t, now)) sum += decayed(c.amount, now - c.t, config_.half_life.count());
        return sum;
    }

private:
    bool expired(std::int64_t t, std::int64_t now) const {
        if (config_.window == kInfiniteWindow) return false;
        const std::int64_t width = config_.bucket.count();
        return (t / width + 1) * width + config_.window.count() <= now;
    }
    struct Charge {
        AssocId id;
        double amount;
        std::int64_t t;
    };
    LedgerConfig config_;
    std::int64_t clock_ = 0;
    std::vector<Charge> charges_;
};

TEST(LedgerProperty, RandomScheduleMatchesBruteForce) {
    std::mt19937_64 random(7);
    for (const LedgerConfig& cfg :
         {config(3000, 600, 100), config(3000, 0, 7), config(-1, 900), config(500, 20, 50), config(86400, 86400)}) {
        WindowedUsageLedger ledger(cfg);
        ReferenceLedger reference(cfg);
        std::int64_t t = kStart;
        for (int step = 0; step < 3000; ++step) {
            const auto action = random() % 10;
            const auto id = AssocId(random() % 5);
            if (action < 6) {
                const std::int64_t when = t - std::int64_t(random() % 200);  // some backdated
                const double amount = double(random() % 1000) / 7.0;
                ledger.charge(id, amount, at(when));
                reference.charge(id, amount, when);
            } else if (action < 9) {
                t += std::int64_t(random() % 120);
                ledger.advance(at(t));
                reference.advance(t);
            } else {
                const std::int64_t jump = std::int64_t(random() % 400) - 200;  // either direction
                ledger.advance(at(t + jump));
                reference.advance(t + jump);
            }
            const std::int64_t probe = t + std::int64_t(random() % 300);
            const double expected = reference.usage(id, probe);
            ASSERT_NEAR(ledger.usage(id, at(probe)), expected, 1e-9 * (1 + expected))
                << "window " << cfg.window.count() << " step " << step;
        }
    }
}

}  // namespace
}  // namespace fairway::fairshare
