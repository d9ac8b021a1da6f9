// UsageResets and the book's rule on them: an owner whose usage was reset is charged nothing from
// before the reset again, whether the charge comes from a pass, from a rebuild from accounting or
// from a job slurmctld forgot, and the resets round-trip through their saved format.
#include <gtest/gtest.h>

#include <algorithm>

#include "fairshare/run_charges.h"
#include "fairshare/usage_book.h"
#include "fairshare/usage_resets.h"
#include "tests/unit/fairshare/state_bytes.h"

namespace fairway::fairshare {
namespace {

TimePoint at(std::int64_t seconds) { return TimePoint{Seconds{seconds}}; }

const LedgerConfig kConfig{Seconds{3600}, Seconds{0}, Seconds{60}};  // 1 h window, no decay
const UsageRates kRates{10, 1, {{1, 2}}};                            // billing 10, 2 CPUs
const UsageOwners kAlice{7, {3, 0}};

double billing(const UsageBook& book, std::uint32_t assoc, TimePoint now) {
    return book.fair_share_usage().usage(assoc, now);
}

TEST(UsageResets, KeepTheLatestResetPerOwner) {
    UsageResets resets;
    resets.record(ResetOwner::association, 7, at(2000));
    resets.record(ResetOwner::association, 7, at(1000));
    resets.record(ResetOwner::qos, 7, at(500));
    EXPECT_EQ(resets.counts_from(ResetOwner::association, 7, at(100)), at(2000));
    EXPECT_EQ(resets.counts_from(ResetOwner::association, 7, at(3000)), at(3000));
    EXPECT_EQ(resets.counts_from(ResetOwner::qos, 7, at(100)), at(500)) << "an association and a QOS may share an id";
    EXPECT_EQ(resets.counts_from(ResetOwner::association, 8, at(100)), at(100));
    resets.drop_before(at(1000));
    EXPECT_EQ(resets.all(), (std::vector<UsageReset>{{ResetOwner::association, 7, at(2000)}}));
}

TEST(UsageResets, RoundTripAndEveryCorruptionIsRejected) {
    UsageResets resets;
    resets.record(ResetOwner::association, 7, at(2000));
    resets.record(ResetOwner::qos, 3, at(1500));
    const std::string bytes = resets.serialize();
    EXPECT_EQ(UsageResets::deserialize(bytes), resets);
    EXPECT_TRUE(UsageResets::deserialize(UsageResets().serialize()).empty());

    using testing::expect_state_error;
    using testing::put_u32;
    using testing::put_u64;
    using testing::resealed;
    std::string flipped = bytes;
    flipped[14] ^= 1;
    expect_state_error<UsageResets>(flipped, "checksum");
    expect_state_error<UsageResets>(bytes.substr(0, bytes.size() - 5), "truncated");
    std::string version = bytes;
    version[4] = 9;
    expect_state_error<UsageResets>(resealed(version), "version");
    std::string count = bytes;
    put_u32(count, 8, 3);
    expect_state_error<UsageResets>(resealed(count), "count beyond the data");
    std::string owner = bytes;
    owner[12] = 5;
    expect_state_error<UsageResets>(resealed(owner), "unknown owner");
    std::string time = bytes;
    put_u64(time, 20, static_cast<std::uint64_t>(-1));
    expect_state_error<UsageResets>(resealed(time), "time out of range");
    std::string order = bytes;  // entries swapped: QOS 3 before association 7
    std::rotate(order.begin() + 12, order.begin() + 28, order.begin() + 44);
    expect_state_error<UsageResets>(resealed(order), "out of order");
    expect_state_error<UsageResets>(resealed(bytes + std::string(4, '\0')), "trailing bytes");
    expect_state_error<UsageResets>(UsageBook(kConfig).serialize(), "a usage book is not resets");
}

// The live pass forgets at the reset; a job running across it is charged only its seconds after.
TEST(UsageBookResets, NothingBeforeAResetIsChargedAgain) {
    UsageBook book = UsageBook::starting_at(kConfig, at(10000));
    book.charge_span(kAlice, kRates, at(10000), at(10100));
    book.forget(Owner::association, 7, at(10100));
    EXPECT_EQ(billing(book, 7, at(10100)), 0);
    book.charge_span(kAlice, kRates, at(10050), at(10200));  // a late charge straddling the reset
    EXPECT_DOUBLE_EQ(billing(book, 7, at(10200)), 10 * 100);
    EXPECT_DOUBLE_EQ(book.find(Meter::tres(Owner::association, 1))->usage(7, at(10200)), 2 * 100);
    EXPECT_DOUBLE_EQ(book.find(Meter::billing(Owner::qos))->usage(3, at(10200)), 10 * (100 + 150))
        << "the QOS was not reset";
    book.charge(kAlice, kRates, 30, at(10090));
    EXPECT_DOUBLE_EQ(billing(book, 7, at(10200)), 10 * 100) << "a charge dated before the reset";
}

// A rebuild from accounting starts from an empty book and reads every record again: with the
// resets adopted it leaves what the live book left, without them it brings the reset usage back.
TEST(UsageBookResets, ARebuildWithTheResetsLeavesWhatTheLiveBookLeft) {
    UsageBook live = UsageBook::starting_at(kConfig, at(10000));
    live.charge_span(kAlice, kRates, at(10000), at(10100));
    live.forget(Owner::association, 7, at(10100));
    live.forget(Owner::qos, 3, at(10100));
    live.charge_span(kAlice, kRates, at(10100), at(10300));
    live.advance(at(10300));

    const auto rebuild = [&](const UsageResets& resets) {
        UsageBook rebuilt = UsageBook::starting_at(kConfig, at(10300));
        rebuilt.adopt_resets(resets);
        rebuilt.charge_span(kAlice, kRates, at(10000), at(10300));  // the record, read whole
        return rebuilt;
    };
    const UsageBook with = rebuild(live.resets());
    EXPECT_DOUBLE_EQ(billing(with, 7, at(10300)), billing(live, 7, at(10300)));
    EXPECT_DOUBLE_EQ(with.find(Meter::wall(Owner::qos_undecayed))->usage(3, at(10300)), 200);
    EXPECT_DOUBLE_EQ(billing(rebuild(UsageResets()), 7, at(10300)), 10 * 300) << "reset usage comes back";
}

// The resets file is written before the usage state: a crash between the two leaves a saved book
// from before the reset, which forgets on adopting it; one saved after it keeps its usage.
TEST(UsageBookResets, AdoptingForgetsOnlyInABookSavedBeforeTheReset) {
    UsageResets resets;
    resets.record(ResetOwner::association, 7, at(10100));
    UsageBook older = UsageBook::starting_at(kConfig, at(10000));
    older.charge_span(kAlice, kRates, at(9900), at(10000));
    older.adopt_resets(resets);
    EXPECT_EQ(billing(older, 7, at(10000)), 0);
    EXPECT_EQ(older.resets(), resets);

    UsageBook newer = UsageBook::starting_at(kConfig, at(10100));
    newer.charge_span(kAlice, kRates, at(10100), at(10200));
    newer.adopt_resets(resets);
    EXPECT_DOUBLE_EQ(billing(newer, 7, at(10200)), 10 * 100);
}

// A reset older than the look-back horizon limits nothing more and is not kept forever.
TEST(UsageBookResets, AResetLeavesWithTheWindow) {
    UsageBook book = UsageBook::starting_at(kConfig, at(10000));
    book.forget(Owner::association, 7, at(10000));
    book.advance(at(10000 + 3600));
    EXPECT_FALSE(book.resets().empty());
    book.advance(at(10000 + 3600 + 61));
    EXPECT_LT(at(10000), usage_horizon(kConfig, at(10000 + 3600 + 61)));
    EXPECT_TRUE(book.resets().empty());
}

}  // namespace
}  // namespace fairway::fairshare
