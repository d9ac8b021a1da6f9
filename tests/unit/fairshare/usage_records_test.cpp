#include "fairshare/usage_records.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "fairshare/usage_book.h"

namespace fairway::fairshare {
namespace {

const TimePoint kNow = from_unix_seconds(1'700'000'000);

UsageRecord sample() {
    ExternalCharge charge{.account = "physics",
                          .user = "alice",
                          .start = kNow - Seconds{600},
                          .end = kNow - Seconds{300},
                          .gpus = 4,
                          .billing_rate = 32,
                          .workload = "team-a/job-1@1699999000"};
    return UsageRecord{.source = "bridge.a", .sequence = 7, .charges = {charge}};
}

std::string name_of(const UsageRecord& record) { return usage_record_name(record.source, record.sequence); }

std::string with_charge(const std::string& charge) {
    return "fairway-usage 1\nsource=bridge.a\nsequence=7\ncharge=" + charge + "\n";
}

std::string refusal(const std::string& text, const std::string& file = "bridge.a-00000000000000000007.usage") {
    try {
        parse_usage_record(text, file, kNow);
    } catch (const InputError& e) {
        return e.where().key + ": " + e.problem();
    }
    return "accepted";
}

TEST(UsageRecords, FormatAndParseRoundTrip) {
    const UsageRecord record = sample();
    const UsageRecord read = parse_usage_record(format_usage_record(record), name_of(record), kNow);
    ASSERT_EQ(read.charges.size(), 1u);
    const ExternalCharge& c = read.charges[0];
    EXPECT_EQ(read.source, "bridge.a");
    EXPECT_EQ(read.sequence, 7u);
    EXPECT_EQ(c.association(), "physics/alice");
    EXPECT_EQ(c.start, record.charges[0].start);
    EXPECT_EQ(c.end, record.charges[0].end);
    EXPECT_EQ(c.gpus, 4);
    EXPECT_DOUBLE_EQ(c.billing_seconds(), 32.0 * 300);
    EXPECT_EQ(c.workload, "team-a/job-1@1699999000");
    EXPECT_EQ(c.line, 4);
}

TEST(UsageRecords, NamesSortInSequenceOrderAndParseBack) {
    EXPECT_EQ(usage_record_name("b", 42), "b-00000000000000000042.usage");
    EXPECT_LT(usage_record_name("b", 9), usage_record_name("b", 10));
    const auto name = parse_usage_record_name("host_1.x-00000000000000000042.usage");
    ASSERT_TRUE(name);
    EXPECT_EQ(name->source, "host_1.x");
    EXPECT_EQ(name->sequence, 42u);
    for (const char* bad :
         {"b-42.usage", "b-00000000000000000042.tmp", "-00000000000000000042.usage", "b c-00000000000000000042.usage",
          "b-00000000000000000000.usage", ".b-0000000000000000004x.usage"})
        EXPECT_FALSE(parse_usage_record_name(bad)) << bad;
}

TEST(UsageRecords, MalformedAndAbsurdChargesAreRefusedNamingTheKey) {
    const std::string start = std::to_string((kNow - Seconds{600}).time_since_epoch().count());
    const std::string end = std::to_string((kNow - Seconds{300}).time_since_epoch().count());
    const std::string future = std::to_string((kNow + Seconds{3600}).time_since_epoch().count());
    EXPECT_EQ(refusal(with_charge("physics " + start + " " + end + " 4 32 w")), "accepted");
    EXPECT_EQ(refusal(with_charge("physics " + end + " " + start + " 4 32 w")), "charge.end: ends before it starts");
    EXPECT_EQ(refusal(with_charge("physics " + start + " " + future + " 4 32 w")), "charge.end: ends in the future");
    EXPECT_EQ(refusal(with_charge("physics 0 " + end + " 4 32 w")), "charge.end: spans more than 366 days");
    EXPECT_EQ(refusal(with_charge("physics " + start + " " + end + " -4 32 w")).substr(0, 12), "charge.gpus:");
    EXPECT_EQ(refusal(with_charge("physics " + start + " " + end + " 0 32 w")).substr(0, 12), "charge.gpus:");
    EXPECT_EQ(refusal(with_charge("physics " + start + " " + end + " 4 1e300 w")).substr(0, 15), "charge.billing:");
    EXPECT_EQ(refusal(with_charge("physics " + start + " " + end + " 4 nan w")).substr(0, 15), "charge.billing:");
    EXPECT_EQ(refusal(with_charge("physics " + start + " " + end + " 4 -1 w")).substr(0, 15), "charge.billing:");
    EXPECT_EQ(refusal(with_charge("a/b/c " + start + " " + end + " 4 32 w")).substr(0, 19), "charge.association:");
    EXPECT_EQ(refusal(with_charge("physics " + start + " " + end + " 4 32")).substr(0, 7), "charge:");
    EXPECT_EQ(refusal(with_charge("physics x " + end + " 4 32 w")).substr(0, 13), "charge.start:");
}

TEST(UsageRecords, ForgedHeadersAndTruncationAreRefused) {
    const std::string good = format_usage_record(sample());
    EXPECT_EQ(refusal(good), "accepted");
    EXPECT_EQ(refusal(good.substr(0, good.size() - 3)), ": incomplete (no final newline)");
    EXPECT_EQ(refusal("fairway-usage 2\n"), ": not a fairway usage record (first line)");
    EXPECT_EQ(refusal(good, "other-00000000000000000007.usage"), "source: does not match the file name");
    EXPECT_EQ(refusal(good, "bridge.a-00000000000000000008.usage"), "sequence: does not match the file name");
    EXPECT_EQ(refusal(good, "whatever.txt"), ": not a usage record's file name");
    EXPECT_EQ(refusal(good + "gpus=4\n"), "gpus: unknown key");
    EXPECT_EQ(refusal(good + "garbage\n"), ": expected key=value");
    EXPECT_EQ(refusal(good + std::string(kMaxUsageRecordBytes, 'x') + "\n").substr(0, 13), ": larger than");
}

TEST(UsageRecords, OnlyRecordsAboveTheWatermarkAreNewInSequenceOrder) {
    const DeliveryWatermarks marks{{"a", 2}};
    const auto names =
        new_records({"a-00000000000000000003.usage", "b-00000000000000000001.usage", "a-00000000000000000002.usage",
                     "a-00000000000000000010.usage", "junk", "a-00000000000000000001.usage"},
                    marks);
    ASSERT_EQ(names.size(), 3u);
    EXPECT_EQ(names[0].source, "a");
    EXPECT_EQ(names[0].sequence, 3u);
    EXPECT_EQ(names[1].sequence, 10u);
    EXPECT_EQ(names[2].source, "b");
}

TEST(UsageRecords, TheBookSavesItsWatermarksWithItsUsage) {
    UsageBook book(LedgerConfig{Seconds{14 * 86400}, Seconds{7 * 86400}, Seconds{0}});
    book.charge_span(UsageOwners{5, {}}, UsageRates{.billing = 32, .wall = 0, .tres = {}}, kNow - Seconds{600},
                     kNow - Seconds{300});
    book.set_delivered("bridge.a", 7);
    book.set_delivered("bridge.b", 3);
    const UsageBook copy = UsageBook::deserialize(book.serialize());
    EXPECT_EQ(copy.delivered(), book.delivered());
    EXPECT_DOUBLE_EQ(copy.fair_share_usage().usage(5, kNow), book.fair_share_usage().usage(5, kNow));
}

}  // namespace
}  // namespace fairway::fairshare
