#include "presets/text_guard.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cstdint>
#include <sstream>

#include "common/error.h"

namespace fairway::presets {
namespace {

// Length of the UTF-8 sequence starting at text[i], or 0 when it is malformed (overlong forms,
// surrogates and code points above U+10FFFF included).
std::size_t utf8_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
    const std::uint8_t lead = byte(i);
    std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > text.size()) return 0;
    std::uint32_t code = length == 1 ? lead : lead & (0x7f >> length);
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
        code = (code << 6) | (byte(i + k) & 0x3f);
    }
    static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
    return length;
}

bool is_forbidden_control(char c) {
    const auto byte = static_cast<std::uint8_t>(c);
    return (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') || byte == 0x7f;
}

// Ignores every event: only the number of documents matters here.
class DocumentSkipper : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

}  // namespace

void check_yaml_document_count(std::string_view text, const std::string& file, std::size_t max_documents) {
    std::istringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    DocumentSkipper skipper;
    for (std::size_t documents = 0; parser.HandleNextDocument(skipper);)
        if (++documents > max_documents)
            throw InputError({file, 0, ""}, "more than " + std::to_string(max_documents) +
                                                " YAML documents (a stray ',' outside [ ] or { } makes endless empty ones)");
}

void check_yaml_text(std::string_view text, const std::string& file) {
    int line = 1;
    for (std::size_t i = 0; i < text.size();) {
        if (is_forbidden_control(text[i]))
            throw InputError({file, line, ""}, "control character (byte " + std::to_string(static_cast<std::uint8_t>(text[i])) +
                                                   ") in the text; presets are plain YAML text");
        const std::size_t length = utf8_length(text, i);
        if (length == 0) throw InputError({file, line, ""}, "the text is not valid UTF-8");
        if (text[i] == '\n') ++line;
        i += length;
    }
}

}  // namespace fairway::presets
