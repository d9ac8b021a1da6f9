// Internal: what text may reach yaml-cpp. yaml-cpp 0.7 loops forever on some inputs with NUL bytes
// or broken UTF-8 (found by tests/fuzz), and YAML forbids control characters anyway, so such text
// is refused before parsing: slurmctld parses user presets and must never hang.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fairway::presets {

// Throws InputError naming `file` and the line when `text` has a control character other than
// tab, LF or CR, or is not valid UTF-8.
void check_yaml_text(std::string_view text, const std::string& file);

// yaml-cpp 0.7 turns a stray ',' where a document may start (",", "a: 1\n---\n,") into an endless
// stream of empty documents, so YAML::LoadAll never returns. This walks the documents with
// yaml-cpp's event parser first and throws InputError once there are more than `max_documents`.
// yaml-cpp's own exceptions (syntax errors) propagate to the caller.
void check_yaml_document_count(std::string_view text, const std::string& file, std::size_t max_documents);

}  // namespace fairway::presets
