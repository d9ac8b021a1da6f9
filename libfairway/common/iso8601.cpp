#include "common/iso8601.h"

#include <charconv>
#include <cstdio>

namespace fairway {
namespace {

// Reads exactly `width` decimal digits at `pos`, advancing it; false if they are not all digits.
bool read_digits(std::string_view text, size_t& pos, size_t width, int& value) {
    if (pos + width > text.size()) return false;
    value = 0;
    for (size_t i = 0; i < width; ++i) {
        char c = text[pos + i];
        if (c < '0' || c > '9') return false;
        value = value * 10 + (c - '0');
    }
    pos += width;
    return true;
}

bool expect_char(std::string_view text, size_t& pos, char wanted) {
    if (pos >= text.size() || text[pos] != wanted) return false;
    ++pos;
    return true;
}

// Returns the zone's offset east of UTC in seconds, or nullopt when the suffix is malformed.
std::optional<int> read_zone(std::string_view text, size_t pos) {
    if (pos == text.size()) return 0;
    if (text.substr(pos) == "Z" || text.substr(pos) == "z") return 0;
    int sign = text[pos] == '+' ? 1 : text[pos] == '-' ? -1 : 0;
    if (sign == 0) return std::nullopt;
    ++pos;
    int hours = 0, minutes = 0;
    if (!read_digits(text, pos, 2, hours)) return std::nullopt;
    if (pos < text.size() && text[pos] == ':') ++pos;
    if (!read_digits(text, pos, 2, minutes) || pos != text.size()) return std::nullopt;
    if (hours > 23 || minutes > 59) return std::nullopt;
    return sign * (hours * 3600 + minutes * 60);
}

}  // namespace

std::optional<UnixTime> parse_iso8601(std::string_view text) {
    using namespace std::chrono;
    size_t pos = 0;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    if (!read_digits(text, pos, 4, y) || !expect_char(text, pos, '-') || !read_digits(text, pos, 2, mo) ||
        !expect_char(text, pos, '-') || !read_digits(text, pos, 2, d))
        return std::nullopt;
    if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ')) return std::nullopt;
    ++pos;
    if (!read_digits(text, pos, 2, h) || !expect_char(text, pos, ':') || !read_digits(text, pos, 2, mi) ||
        !expect_char(text, pos, ':') || !read_digits(text, pos, 2, s))
        return std::nullopt;
    if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
        size_t digits_start = ++pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
        if (pos == digits_start) return std::nullopt;
    }
    std::optional<int> zone = read_zone(text, pos);
    year_month_day date{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
    if (!zone || !date.ok() || h > 23 || mi > 59 || s > 60) return std::nullopt;
    // A leap second (":60") is read as the first second of the next minute.
    return sys_days{date} + hours{h} + minutes{mi} + seconds{s} - seconds{*zone};
}

std::string format_iso8601(UnixTime instant) {
    using namespace std::chrono;
    sys_days day_start = floor<days>(instant);
    year_month_day date{day_start};
    hh_mm_ss<seconds> time{instant - day_start};
    char text[40];
    std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02ld:%02ld:%02ldZ", static_cast<int>(date.year()),
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                  static_cast<long>(time.hours().count()), static_cast<long>(time.minutes().count()),
                  static_cast<long>(time.seconds().count()));
    return text;
}

}  // namespace fairway
