// The ledger's state format: round trip, and every corruption rejected (never a crash).
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "common/error.h"
#include "fairshare/crc32.h"
#include "fairshare/usage_ledger.h"
#include "tests/unit/fairshare/state_bytes.h"

namespace fairway::fairshare {
namespace {

TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

WindowedUsageLedger sample(Seconds window) {
    WindowedUsageLedger ledger(LedgerConfig{window, Seconds{600}, Seconds{60}});
    ledger.charge(3, 12.5, at(100000));
    ledger.charge(3, 1.25, at(100200));
    ledger.charge(70000, 99, at(100150));
    ledger.advance(at(100300));
    return ledger;
}

using testing::put_u32;
using testing::put_u64;
using testing::resealed;
void expect_state_error(std::string_view bytes, const std::string& what) {
    testing::expect_state_error<WindowedUsageLedger>(bytes, what);
}

TEST(LedgerState, Crc32MatchesTheStandardCheckValue) {
    EXPECT_EQ(crc32("123456789"), 0xCBF43926U);
    EXPECT_EQ(crc32(""), 0U);
}

TEST(LedgerState, RoundTripKeepsEveryValue) {
    for (Seconds window : {Seconds{3600}, kInfiniteWindow}) {
        const WindowedUsageLedger original = sample(window);
        const std::string bytes = original.serialize();
        const WindowedUsageLedger copy = WindowedUsageLedger::deserialize(bytes);
        EXPECT_EQ(copy.config(), original.config());
        EXPECT_EQ(copy.clock(), original.clock());
        EXPECT_EQ(copy.associations(), original.associations());
        for (AssocId id : original.associations())
            for (std::int64_t t : {100300, 101000, 103000, 200000})
                EXPECT_DOUBLE_EQ(copy.usage(id, at(t)), original.usage(id, at(t))) << id << "@" << t;
        // Loading recomputes windowed running sums from the buckets (drops drift): stable after one trip.
        const std::string again = copy.serialize();
        EXPECT_EQ(WindowedUsageLedger::deserialize(again).serialize(), again);
        if (window == kInfiniteWindow) {
            EXPECT_EQ(again, bytes);
        }
    }
}

TEST(LedgerState, EmptyLedgerRoundTrips) {
    const WindowedUsageLedger empty;
    EXPECT_EQ(WindowedUsageLedger::deserialize(empty.serialize()).association_count(), 0U);
}

TEST(LedgerState, EveryFlippedByteIsRejected) {
    for (Seconds window : {Seconds{3600}, kInfiniteWindow}) {
        const std::string bytes = sample(window).serialize();
        for (std::size_t i = 0; i < bytes.size(); ++i)
            for (unsigned char mask : {0x01, 0x80, 0xFF}) {
                std::string damaged = bytes;
                damaged[i] = static_cast<char>(damaged[i] ^ mask);
                expect_state_error(damaged, "byte " + std::to_string(i));
            }
    }
}

TEST(LedgerState, EveryTruncationAndExtensionIsRejected) {
    const std::string bytes = sample(Seconds{3600}).serialize();
    for (std::size_t length = 0; length < bytes.size(); ++length)
        expect_state_error(std::string_view(bytes).substr(0, length), "truncated");
    expect_state_error(bytes + '\0', "extended");
    expect_state_error(resealed(bytes + std::string(5, '\0')), "resealed with trailing bytes");
}

TEST(LedgerState, RandomGarbageIsRejected) {
    std::mt19937 random(1);
    for (int trial = 0; trial < 2000; ++trial) {
        std::string garbage(random() % 200, '\0');
        for (char& c : garbage) c = static_cast<char>(random());
        if (trial % 2) garbage.replace(0, std::min<std::size_t>(4, garbage.size()), "FWLG");
        expect_state_error(trial % 4 == 1 && garbage.size() >= 4 ? resealed(garbage) : garbage, "garbage");
    }
}

// Offsets in the format (see README.md): magic 0, version 4, window 8, half-life 16, bucket 24,
// clock 32, anchor 40, count 48, first association at 52 (id, sum 56, buckets 64, index 68, weight 76).
TEST(LedgerState, WellSealedButInvalidContentIsRejected) {
    const std::string good = sample(Seconds{3600}).serialize();
    struct Case {
        const char* what;
        std::size_t offset;
        std::uint64_t value;
        int width;
    };
    const std::vector<Case> cases = {
        {"version", 4, 2, 2},
        {"zero bucket", 24, 0, 8},
        {"bucket wider than window", 24, 7200, 8},
        {"negative half-life", 16, std::uint64_t(-5), 8},
        {"negative clock", 32, std::uint64_t(-1), 8},
        {"huge count", 48, 0xFFFFFFFF, 4},
        {"one association too many", 48, 3, 4},
        {"huge bucket count", 64, 0xFFFFFFFF, 4},
        {"zero buckets in a window", 64, 0, 4},
        {"negative weight", 76, std::bit_cast<std::uint64_t>(-1.0), 8},
        {"NaN weight", 76, std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN()), 8},
        {"infinite weight", 76, std::bit_cast<std::uint64_t>(std::numeric_limits<double>::infinity()), 8},
        {"negative bucket index", 68, std::uint64_t(-3), 8},
    };
    for (const Case& c : cases) {
        std::string bytes = good;
        if (c.width == 2) {
            bytes[c.offset] = static_cast<char>(c.value);
            bytes[c.offset + 1] = 0;
        } else if (c.width == 4) {
            put_u32(bytes, c.offset, static_cast<std::uint32_t>(c.value));
        } else {
            put_u64(bytes, c.offset, c.value);
        }
        expect_state_error(resealed(bytes), c.what);
    }
}

TEST(LedgerState, DuplicateAndUnorderedContentIsRejected) {
    WindowedUsageLedger ledger(LedgerConfig{Seconds{3600}, Seconds{0}, Seconds{60}});
    ledger.charge(5, 1, at(100000));
    ledger.charge(6, 1, at(100000));
    std::string bytes = ledger.serialize();
    std::string duplicate = bytes;
    put_u32(duplicate, 52 + 4 + 8 + 4 + 16, 5);  // second association's id := first's
    expect_state_error(resealed(duplicate), "duplicate association");

    WindowedUsageLedger two_buckets(LedgerConfig{Seconds{3600}, Seconds{0}, Seconds{60}});
    two_buckets.charge(5, 1, at(100000));
    two_buckets.charge(5, 1, at(100100));
    std::string unordered = two_buckets.serialize();
    put_u64(unordered, 68 + 16, 100000 / 60);  // second bucket index := first's
    expect_state_error(resealed(unordered), "buckets out of order");
}

}  // namespace
}  // namespace fairway::fairshare
