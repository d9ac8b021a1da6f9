#include "common/iso8601.h"

#include <gtest/gtest.h>

using fairway::format_iso8601;
using fairway::parse_iso8601;
using fairway::UnixTime;

namespace {
UnixTime at(long long seconds) { return UnixTime{std::chrono::seconds{seconds}}; }
}  // namespace

TEST(Iso8601, ReadsUtcAndOffsets) {
    struct Case {
        const char* text;
        long long epoch;
    };
    for (const Case& c : {Case{"1970-01-01T00:00:00Z", 0}, Case{"2026-12-02T17:10:05Z", 1796231405},
                          Case{"2026-12-02T17:10:05", 1796231405}, Case{"2026-12-02 17:10:05", 1796231405},
                          Case{"2026-12-02T19:10:05+02:00", 1796231405}, Case{"2026-12-02T12:10:05-0500", 1796231405},
                          Case{"2026-12-02T17:10:05.999Z", 1796231405}, Case{"2024-02-29T00:00:00Z", 1709164800},
                          Case{"1969-12-31T23:59:59Z", -1}})
        EXPECT_EQ(parse_iso8601(c.text), at(c.epoch)) << c.text;
}

TEST(Iso8601, RejectsMalformedAndImpossibleDates) {
    for (const char* bad :
         {"", "2026", "2026-12-02", "2026-12-02T17:10", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
          "2026-12-32T00:00:00Z", "2026-12-02T24:00:00Z", "2026-12-02T17:60:00Z", "2026-12-02T17:10:05ZZ",
          "2026-12-02T17:10:05+2", "2026-12-02T17:10:05.Z", "2026-12-02X17:10:05Z", "26-12-02T17:10:05Z",
          "2026-12-02T17:10:05 junk", "-026-12-02T17:10:05Z"})
        EXPECT_FALSE(parse_iso8601(bad).has_value()) << bad;
}

TEST(Iso8601, FormatsUtcAndRoundTrips) {
    EXPECT_EQ(format_iso8601(at(0)), "1970-01-01T00:00:00Z");
    EXPECT_EQ(format_iso8601(at(1796231405)), "2026-12-02T17:10:05Z");
    EXPECT_EQ(format_iso8601(at(-1)), "1969-12-31T23:59:59Z");
    for (long long t : {0LL, 86399LL, 951782400LL, 4102444800LL})
        EXPECT_EQ(parse_iso8601(format_iso8601(at(t))), at(t));
}
