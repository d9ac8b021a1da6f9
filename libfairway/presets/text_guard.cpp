#include "presets/text_guard.h"

#include <cstdint>

#include "common/error.h"
#include "presets/utf8.h"

namespace fairway::presets {
namespace {

bool is_forbidden_control(char c) {
    const auto byte = static_cast<std::uint8_t>(c);
    return (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') || byte == 0x7f;
}

}  // namespace

void check_yaml_text(std::string_view text, const std::string& file) {
    int line = 1;
    for (std::size_t i = 0; i < text.size();) {
        if (is_forbidden_control(text[i]))
            throw InputError({file, line, ""}, "control character (byte " +
                                                   std::to_string(static_cast<std::uint8_t>(text[i])) +
                                                   ") in the text; presets are plain YAML text");
        const auto code_point = decode_utf8(text, i);
        if (!code_point) throw InputError({file, line, ""}, "the text is not valid UTF-8");
        if (text[i] == '\n') ++line;
        i += code_point->length;
    }
}

}  // namespace fairway::presets
