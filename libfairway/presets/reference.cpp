#include "presets/reference.h"

#include <array>
#include <cstdio>

#include "presets/utf8.h"
#include "presets/values.h"

namespace fairway::presets {
namespace {

enum class Kind { allowed, control, line_separator, bidirectional, separator };

Kind kind_of(char32_t c) {
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return Kind::control;  // C0, DEL, C1 (NEL is a newline too)
    if (c == 0x2028 || c == 0x2029) return Kind::line_separator;
    if (c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
        return Kind::bidirectional;
    if (c < 0x80 && kRecordSeparators.find(static_cast<char>(c)) != std::string_view::npos) return Kind::separator;
    return Kind::allowed;
}

// A printable ASCII byte that is no record separator: Kind::allowed, decided by one table lookup.
constexpr std::array<bool, 128> kPlainAscii = [] {
    std::array<bool, 128> plain{};
    for (unsigned c = 0x20; c < 0x7f; ++c)
        plain[c] = kRecordSeparators.find(static_cast<char>(c)) == std::string_view::npos;
    return plain;
}();

bool is_plain_ascii(unsigned char byte) { return byte < 0x80 && kPlainAscii[byte]; }

const char* kind_name(Kind kind) {
    switch (kind) {
    case Kind::control: return "control character";
    case Kind::line_separator: return "line separator";
    case Kind::bidirectional: return "bidirectional control";
    case Kind::separator: return "separator";
    case Kind::allowed: break;
    }
    return "character";
}

std::string hex(unsigned value, int digits, const char* prefix) {
    char text[16];
    std::snprintf(text, sizeof text, "%s%0*x", prefix, digits, value);
    return text;
}

// One character as escape_for_message writes it; `bytes` is its UTF-8 encoding.
std::string escaped(char32_t c, std::string_view bytes) {
    switch (c) {
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '\r': return "\\r";
    default: break;
    }
    const Kind kind = kind_of(c);
    if (kind == Kind::control && c < 0x80) return hex(c, 2, "\\x");
    if (kind == Kind::control || kind == Kind::line_separator || kind == Kind::bidirectional) return hex(c, 4, "\\u");
    return std::string(bytes);
}

const std::string kRule =
    "preset names and paths may not contain control characters, line separators, bidirectional controls or any of "
    "; = , | # (see fairway-presets(5))";

[[noreturn]] void record_error(std::string_view entry, const std::string& problem) {
    throw InputError({"", 0, "preset"}, "cannot record preset '" + escape_for_message(entry) + "': " + problem);
}

}  // namespace

std::optional<std::string> reference_problem(std::string_view text) {
    std::size_t position = 1;
    for (std::size_t i = 0; i < text.size(); ++position) {
        if (is_plain_ascii(static_cast<unsigned char>(text[i]))) {  // most of every path: no decoding
            ++i;
            continue;
        }
        const auto code_point = decode_utf8(text, i);
        if (!code_point)
            return "byte " + hex(static_cast<unsigned char>(text[i]), 2, "\\x") + " that is not UTF-8 at position " +
                   std::to_string(position);
        const Kind kind = kind_of(code_point->value);
        const auto bytes = text.substr(i, code_point->length);
        if (kind != Kind::allowed)
            return std::string(kind_name(kind)) + " '" + escaped(code_point->value, bytes) + "' at position " +
                   std::to_string(position);
        i += code_point->length;
    }
    return std::nullopt;
}

void check_reference(std::string_view text, const SourceLocation& where) {
    const auto problem = reference_problem(text);
    if (!problem) return;
    const char* what = text.find('/') != std::string_view::npos ? "preset path" : "preset";
    throw InputError(
        where, std::string("invalid ") + what + " '" + escape_for_message(text) + "': " + *problem + "; " + kRule);
}

void check_record_entry(std::string_view entry) {
    const auto hash = entry.find('#');
    const auto reference = entry.substr(0, hash);
    if (reference.empty()) record_error(entry, "empty name");
    if (auto problem = reference_problem(reference)) record_error(entry, *problem);
    if (hash == std::string_view::npos) return;
    if (reference.find('/') == std::string_view::npos || !is_valid_name(entry.substr(hash + 1)))
        record_error(entry, "'#' may only join a file's path to the name of a preset in it");
}

std::string record_entry_for(std::string_view preset_name) {
    const auto slash = preset_name.rfind('/');
    if (slash == std::string_view::npos) return std::string(preset_name);
    const auto hash = preset_name.find('#', slash);
    auto file_name =
        preset_name.substr(slash + 1, hash == std::string_view::npos ? preset_name.npos : hash - slash - 1);
    if (file_name.size() > kMaxRecordedFileNameBytes) {
        std::size_t cut = kMaxRecordedFileNameBytes;
        while (cut > 0 && (static_cast<unsigned char>(file_name[cut]) & 0xC0) == 0x80) --cut;  // inside a character
        file_name = file_name.substr(0, cut);
    }
    std::string entry = ".../" + std::string(file_name);
    if (hash != std::string_view::npos) entry += preset_name.substr(hash);
    return entry;
}

void check_record_list(std::string_view list) {
    if (list.size() > kMaxRecordListBytes)
        record_error(list.substr(0, 64), "the record is longer than " + std::to_string(kMaxRecordListBytes) + " bytes");
    std::size_t entries = 0;
    for (std::size_t start = 0; !list.empty();) {
        if (++entries > kMaxAppliedPresets)
            record_error(list.substr(start, 64), "more than " + std::to_string(kMaxAppliedPresets) + " presets");
        const auto comma = list.find(',', start);
        check_record_entry(list.substr(start, comma == std::string_view::npos ? list.npos : comma - start));
        if (comma == std::string_view::npos) return;
        start = comma + 1;
    }
}

std::string escape_for_message(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto code_point = decode_utf8(text, i);
        if (!code_point) {
            out += hex(static_cast<unsigned char>(text[i++]), 2, "\\x");
            continue;
        }
        out += escaped(code_point->value, text.substr(i, code_point->length));
        i += code_point->length;
    }
    return out;
}

}  // namespace fairway::presets
