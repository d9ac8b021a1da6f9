// UsageBook: one charge reaches every meter of its owners, meters share the window, a bad charge
// changes nothing, and the saved state round-trips and rejects corruption. Also the tree's
// subtree sums that turn per-association usage into Slurm's propagated figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "common/error.h"
#include "fairshare/association_tree.h"
#include "fairshare/usage_book.h"
#include "tests/unit/fairshare/state_bytes.h"

namespace fairway::fairshare {
namespace {

TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

constexpr TresId kCpu = 1;
constexpr TresId kGpu = 1001;
const LedgerConfig kConfig{Seconds{3600}, Seconds{0}, Seconds{60}};  // 1 h window, no decay

// 4 CPUs and 2 GPUs billed 20, QOS UsageFactor 1.
UsageRates job_rates(double usage_factor = 1.0) {
    return UsageRates{20 * usage_factor, usage_factor, {{kCpu, 4 * usage_factor}, {kGpu, 2 * usage_factor}}};
}

double usage_of(const UsageBook& book, const Meter& meter, std::uint32_t id, TimePoint now) {
    const WindowedUsageLedger* ledger = book.find(meter);
    return ledger ? ledger->usage(id, now) : 0.0;
}

TEST(UsageBook, OneChargeReachesEveryMeterOfItsOwners) {
    UsageBook book(kConfig);
    ASSERT_TRUE(book.charge(UsageOwners{7, {3, 4}}, job_rates(), 100, at(10000)));
    const TimePoint now = at(10000);
    EXPECT_DOUBLE_EQ(book.fair_share_usage().usage(7, now), 2000);
    EXPECT_DOUBLE_EQ(usage_of(book, Meter::wall(Owner::association), 7, now), 100);
    EXPECT_DOUBLE_EQ(usage_of(book, Meter::tres(Owner::association, kCpu), 7, now), 400);
    EXPECT_DOUBLE_EQ(usage_of(book, Meter::tres(Owner::association, kGpu), 7, now), 200);
    for (QosId qos : {3U, 4U}) {
        for (Owner owner : {Owner::qos, Owner::qos_undecayed}) {
            EXPECT_DOUBLE_EQ(usage_of(book, Meter::billing(owner), qos, now), 2000) << qos;
            EXPECT_DOUBLE_EQ(usage_of(book, Meter::wall(owner), qos, now), 100) << qos;
            EXPECT_DOUBLE_EQ(usage_of(book, Meter::tres(owner, kCpu), qos, now), 400) << qos;
            EXPECT_DOUBLE_EQ(usage_of(book, Meter::tres(owner, kGpu), qos, now), 200) << qos;
        }
    }
    // Association ids and QOS ids are separate spaces.
    EXPECT_EQ(book.fair_share_usage().usage(3, now), 0);
    EXPECT_EQ(book.meters().size(), 12U);
}

TEST(UsageBook, NoQosAndZeroRatesMakeNoMeters) {
    UsageBook book(kConfig);
    UsageRates rates = job_rates();
    rates.tres.push_back({2, 0});  // a TRES the job did not get
    book.charge(UsageOwners{7, {0, 0}}, rates, 10, at(10000));
    for (const Meter& meter : book.meters()) EXPECT_EQ(meter.owner, Owner::association);
    EXPECT_EQ(book.find(Meter::tres(Owner::association, 2)), nullptr);
    EXPECT_EQ(book.meters().size(), 4U);
}

TEST(UsageBook, UsageFactorScalesEveryMeter) {
    UsageBook book(kConfig);
    book.charge(UsageOwners{7, {3, 0}}, job_rates(0.5), 100, at(10000));
    EXPECT_DOUBLE_EQ(book.fair_share_usage().usage(7, at(10000)), 1000);
    EXPECT_DOUBLE_EQ(usage_of(book, Meter::wall(Owner::qos), 3, at(10000)), 50);
    EXPECT_DOUBLE_EQ(usage_of(book, Meter::tres(Owner::qos, kCpu), 3, at(10000)), 200);
}

TEST(UsageBook, UndecayedQosUsageKeepsItsValueUntilItLeavesTheWindow) {
    UsageBook book(LedgerConfig{Seconds{3600}, Seconds{600}, Seconds{60}});  // half-life 10 min
    book.charge(UsageOwners{7, {3, 0}}, job_rates(), 100, at(10000));
    book.advance(at(10600));
    const TimePoint later = at(10600);
    EXPECT_DOUBLE_EQ(book.fair_share_usage().usage(7, later), 1000) << "one half-life later";
    EXPECT_DOUBLE_EQ(usage_of(book, Meter::billing(Owner::qos), 3, later), 1000);
    EXPECT_DOUBLE_EQ(usage_of(book, Meter::billing(Owner::qos_undecayed), 3, later), 2000);
    EXPECT_DOUBLE_EQ(usage_of(book, Meter::tres(Owner::qos_undecayed, kCpu), 3, later), 400);
    book.advance(at(10000 + 3600 + 60));
    EXPECT_EQ(book.meters().size(), 0U) << "both leave the window together";
}

TEST(UsageBook, ABadChargeChangesNothing) {
    UsageBook book(kConfig);
    book.charge(UsageOwners{7, {3, 0}}, job_rates(), 10, at(10000));
    const std::string before = book.serialize();
    for (double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity(), 1e30}) {
        UsageRates rates = job_rates();
        rates.tres.back().second = bad;  // only the last meter's amount is wrong
        EXPECT_THROW(book.charge(UsageOwners{7, {3, 0}}, rates, 10, at(10010)), InputError) << bad;
        EXPECT_THROW(book.charge(UsageOwners{7, {3, 0}}, job_rates(), bad, at(10010)), InputError) << bad;
    }
    EXPECT_THROW(book.charge(UsageOwners{7, {3, 0}}, job_rates(), 10, at(-5)), InputError);
    EXPECT_EQ(book.serialize(), before);
}

TEST(UsageBook, EveryMeterLeavesTheWindowTogether) {
    UsageBook book(kConfig);
    book.charge(UsageOwners{7, {3, 0}}, job_rates(), 60, at(7200));
    book.charge(UsageOwners{8, {0, 0}}, job_rates(), 60, at(9000));
    book.advance(at(7200 + 3600 + 60));  // the first charge's bucket has left
    EXPECT_EQ(book.fair_share_usage().usage(7, book.clock()), 0);
    EXPECT_EQ(book.find(Meter::billing(Owner::qos)), nullptr) << "an empty meter is dropped";
    EXPECT_EQ(book.find(Meter::tres(Owner::association, kGpu))->usage(7, book.clock()), 0);
    EXPECT_DOUBLE_EQ(book.find(Meter::tres(Owner::association, kGpu))->usage(8, book.clock()), 120);
    book.advance(at(9000 + 3600 + 60));
    EXPECT_EQ(book.meters().size(), 0U);
    EXPECT_EQ(book.fair_share_usage().association_count(), 0U) << "the fair-share meter stays, empty";
}

TEST(UsageBook, AChargeOlderThanTheWindowIsDroppedByEveryMeter) {
    UsageBook book = UsageBook::starting_at(kConfig, at(100000));
    EXPECT_FALSE(book.charge(UsageOwners{7, {3, 0}}, job_rates(), 60, at(100000 - 3600 - 120)));
    EXPECT_TRUE(book.meters().empty());
    EXPECT_TRUE(book.charge(UsageOwners{7, {3, 0}}, job_rates(), 60, at(100000 - 1800)));
    // A meter made after the clock moved still drops what the others drop.
    EXPECT_FALSE(book.charge(UsageOwners{9, {5, 0}}, UsageRates{0, 0, {{77, 1}}}, 60, at(100000 - 3600 - 120)));
    EXPECT_EQ(book.find(Meter::tres(Owner::qos, 77)), nullptr);
}

TEST(UsageBook, ForgetClearsOneOwnerOnEveryMeter) {
    UsageBook book(kConfig);
    book.charge(UsageOwners{7, {3, 0}}, job_rates(), 60, at(10000));
    book.charge(UsageOwners{8, {3, 0}}, job_rates(), 60, at(10000));
    book.forget(Owner::association, 7, at(10000));
    for (const Meter& meter : book.meters()) {
        if (meter.owner != Owner::association) continue;
        EXPECT_EQ(book.find(meter)->usage(7, at(10000)), 0);
        EXPECT_GT(book.find(meter)->usage(8, at(10000)), 0);
    }
    EXPECT_EQ(book.ids(Owner::association), (std::vector<std::uint32_t>{8}));
    EXPECT_EQ(book.ids(Owner::qos), (std::vector<std::uint32_t>{3}));
    EXPECT_EQ(book.ids(Owner::qos_undecayed), (std::vector<std::uint32_t>{3})) << "either QOS kind";
    book.forget(Owner::qos, 3, at(10000));
    EXPECT_TRUE(book.ids(Owner::qos).empty());
    EXPECT_EQ(usage_of(book, Meter::wall(Owner::qos), 3, at(10000)), 0);
    EXPECT_EQ(usage_of(book, Meter::wall(Owner::qos_undecayed), 3, at(10000)), 0);
    EXPECT_GT(book.fair_share_usage().usage(8, at(10000)), 0);
}

// A rebuild charges accounting records in whatever order slurmdbd returns them.
TEST(UsageBookRebuild, ChargesInAnyOrderEqualChargesInTimeOrder) {
    struct Record {
        UsageOwners owners;
        TimePoint end;
        double seconds;
    };
    constexpr std::int64_t kDay = 86400, kStart = 1700000000;
    std::vector<Record> records;
    std::mt19937_64 random(42);
    std::uniform_int_distribution<std::int64_t> when(kStart - 20 * kDay, kStart);
    std::uniform_int_distribution<AssocId> who(1, 20);
    std::uniform_int_distribution<QosId> qos(0, 3);
    for (int i = 0; i < 2000; ++i)
        records.push_back({UsageOwners{who(random), {qos(random), 0}}, at(when(random)), double(i % 97)});
    const LedgerConfig config{Seconds{14 * kDay}, Seconds{3 * kDay}, Seconds{0}};
    UsageBook rebuilt = UsageBook::starting_at(config, at(kStart));
    for (const Record& record : records) rebuilt.charge(record.owners, job_rates(), record.seconds, record.end);
    rebuilt.advance(at(kStart));
    std::sort(records.begin(), records.end(), [](const Record& a, const Record& b) { return a.end < b.end; });
    UsageBook in_order(config);
    for (const Record& record : records) in_order.charge(record.owners, job_rates(), record.seconds, record.end);
    in_order.advance(at(kStart));
    ASSERT_EQ(rebuilt.meters(), in_order.meters());
    for (const Meter& meter : in_order.meters()) {
        EXPECT_EQ(rebuilt.find(meter)->associations(), in_order.find(meter)->associations());
        for (AssocId id = 0; id <= 20; ++id) {
            const double want = in_order.find(meter)->usage(id, at(kStart));
            EXPECT_NEAR(rebuilt.find(meter)->usage(id, at(kStart)), want, 1e-9 * (1 + want)) << id;
        }
    }
}

TEST(UsageBookState, RoundTripKeepsEveryMeter) {
    for (Seconds window : {Seconds{3600}, kInfiniteWindow}) {
        UsageBook book(LedgerConfig{window, Seconds{600}, Seconds{60}});
        book.charge(UsageOwners{7, {3, 4}}, job_rates(), 100, at(10000));
        book.charge(UsageOwners{8, {3, 0}}, job_rates(2), 50, at(10100));
        book.advance(at(10200));
        const UsageBook copy = UsageBook::deserialize(book.serialize());
        EXPECT_EQ(copy.config(), book.config());
        EXPECT_EQ(copy.clock(), book.clock());
        ASSERT_EQ(copy.meters(), book.meters());
        for (const Meter& meter : book.meters())
            for (std::uint32_t id : {3U, 4U, 7U, 8U})
                EXPECT_DOUBLE_EQ(copy.find(meter)->usage(id, at(10300)), book.find(meter)->usage(id, at(10300)));
        // (Bytes may differ in the last bit: loading recomputes windowed sums from the buckets.)
    }
}

using testing::resealed;
void expect_state_error(std::string_view bytes, const std::string& what) {
    testing::expect_state_error<UsageBook>(bytes, what);
}

TEST(UsageBookState, EveryCorruptionIsRejected) {
    UsageBook book(kConfig);
    book.charge(UsageOwners{7, {3, 0}}, job_rates(), 100, at(10000));
    const std::string good = book.serialize();
    for (std::size_t i = 0; i < good.size(); ++i) {
        std::string flipped = good;
        flipped[i] = static_cast<char>(flipped[i] ^ 0x10);
        expect_state_error(flipped, "bit flip at " + std::to_string(i));
    }
    for (std::size_t size = 0; size < good.size(); size += 7) expect_state_error(good.substr(0, size), "truncated");
    std::string version = good;
    version[4] = 3;
    expect_state_error(resealed(version), "version 3");
    std::string owner = good;
    owner[4 + 2 + 2 + 8 + 4] = 9;  // the first meter's owner
    expect_state_error(resealed(owner), "unknown owner");
    expect_state_error(resealed(good + std::string(4, '\0')), "trailing bytes");
}

std::uint64_t read_le(const std::string& bytes, std::size_t offset, int size) {
    std::uint64_t value = 0;
    for (int i = 0; i < size; ++i) value |= std::uint64_t{static_cast<std::uint8_t>(bytes[offset + i])} << (8 * i);
    return value;
}

// The saved meters as (offset, owner, what, whole length including the meter's own header).
struct SavedMeter {
    std::size_t offset;
    int owner;
    std::int64_t what;
    std::size_t length;
};
std::vector<SavedMeter> saved_meters(const std::string& bytes) {
    std::vector<SavedMeter> meters;
    std::size_t offset = 4 + 2 + 2 + 8 + 4;
    const auto count = read_le(bytes, offset - 4, 4);
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto length = static_cast<std::size_t>(read_le(bytes, offset + 12, 4));
        meters.push_back(
            {offset, bytes[offset], static_cast<std::int64_t>(read_le(bytes, offset + 4, 8)), 16 + length});
        offset += 16 + length;
    }
    return meters;
}

std::string without_meter(const std::string& bytes, const SavedMeter& meter) {
    std::string out = bytes.substr(0, meter.offset) + bytes.substr(meter.offset + meter.length);
    out[4 + 2 + 2 + 8] = static_cast<char>(out[4 + 2 + 2 + 8] - 1);  // one meter fewer
    return resealed(out);
}

TEST(UsageBookState, ABookWithoutFairShareUsageIsRejected) {
    UsageBook book(kConfig);
    book.charge(UsageOwners{7, {3, 0}}, job_rates(), 100, at(10000));
    const std::string bytes = book.serialize();
    const std::vector<SavedMeter> meters = saved_meters(bytes);
    ASSERT_EQ(meters.size(), book.meter_count());
    for (const SavedMeter& meter : meters) {
        const bool fair_share = meter.owner == 0 && meter.what == Meter::kBilling;
        if (fair_share) expect_state_error(without_meter(bytes, meter), "no fair-share meter");
        else EXPECT_NO_THROW(UsageBook::deserialize(without_meter(bytes, meter))) << meter.owner << "/" << meter.what;
    }
}

TEST(UsageBookState, MetersKeptWithAnotherWindowAreRejected) {
    UsageBook one(kConfig);
    UsageBook other(LedgerConfig{Seconds{7200}, Seconds{0}, Seconds{60}});
    one.charge(UsageOwners{7, {0, 0}}, UsageRates{1, 0, {}}, 100, at(10000));
    other.charge(UsageOwners{7, {3, 0}}, UsageRates{0, 1, {}}, 100, at(10000));
    const std::string a = one.serialize(), b = other.serialize();
    const SavedMeter fair_share = saved_meters(a).front();
    const std::vector<SavedMeter> others = saved_meters(b);
    const SavedMeter qos_wall =
        *std::find_if(others.begin(), others.end(), [](const SavedMeter& m) { return m.owner == 1; });
    std::string mixed = a.substr(0, fair_share.offset + fair_share.length) +
                        b.substr(qos_wall.offset, qos_wall.length) + a.substr(a.size() - 8);  // no deliveries, CRC
    mixed[4 + 2 + 2 + 8] = 2;
    expect_state_error(resealed(mixed), "mixed windows");
}

TEST(UsageBookState, TheLedgerAloneIsToldApart) {
    WindowedUsageLedger ledger(kConfig);
    ledger.charge(7, 10, at(10000));
    const std::string old = ledger.serialize();
    EXPECT_TRUE(UsageBook::is_single_ledger(old));
    EXPECT_FALSE(UsageBook::is_single_ledger(UsageBook(kConfig).serialize()));
    expect_state_error(old, "a bare ledger");
}

// root(1) -> physics(2) -> alice(4), bob(5); root -> chem(3) -> carol(6)
AssociationTree small_tree() {
    auto account = [](AssocId id, AssocId parent, std::string name) {
        return AssociationNode{id, parent, std::move(name), "", Shares::of(1), 0};
    };
    auto user = [](AssocId id, AssocId parent, std::string account, std::string name) {
        return AssociationNode{id, parent, std::move(account), std::move(name), Shares::of(1), 0};
    };
    return AssociationTree({account(1, kNoParent, "root"), account(2, 1, "physics"), account(3, 1, "chem"),
                            user(4, 2, "physics", "alice"), user(5, 2, "physics", "bob"), user(6, 3, "chem", "carol")});
}

TEST(SubtreeUsage, SumsEachAssociationIntoEveryAncestor) {
    WindowedUsageLedger ledger(kConfig);
    ledger.charge(4, 10, at(10000));
    ledger.charge(5, 5, at(10000));
    ledger.charge(6, 1, at(10000));
    ledger.charge(99, 1000, at(10000));  // not in the tree (deleted association): left out
    const std::vector<double> totals = small_tree().subtree_usage(ledger, at(10000));
    EXPECT_EQ(totals, (std::vector<double>{16, 15, 1, 10, 5, 1}));
}

TEST(SubtreeUsage, UsageChargedToAnAccountCountsForItAndAbove) {
    WindowedUsageLedger ledger(kConfig);
    ledger.charge(2, 3, at(10000));
    EXPECT_EQ(small_tree().subtree_usage(ledger, at(10000)), (std::vector<double>{3, 3, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace fairway::fairshare
