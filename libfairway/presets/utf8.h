// Internal: UTF-8 decoding for the checks on text users write (preset files, preset references).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace fairway::presets {

struct CodePoint {
    char32_t value = 0;
    std::size_t length = 0;  // bytes in the text
};

// The code point whose encoding starts at text[i]; nullopt when the bytes there are not UTF-8
// (overlong forms, surrogates, code points above U+10FFFF and truncated sequences included).
std::optional<CodePoint> decode_utf8(std::string_view text, std::size_t i);

}  // namespace fairway::presets
