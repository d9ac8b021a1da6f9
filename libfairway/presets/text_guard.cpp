#include "presets/text_guard.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cstdint>
#include <sstream>

#include "common/error.h"
#include "presets/utf8.h"

namespace fairway::presets {
namespace {

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
            throw InputError({file, 0, ""},
                             "more than " + std::to_string(max_documents) +
                                 " YAML documents (a stray ',' outside [ ] or { } makes endless empty ones)");
}

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
