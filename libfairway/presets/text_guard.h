// Internal: what text may reach yaml-cpp. yaml-cpp 0.7 loops forever on some inputs with NUL bytes
// or broken UTF-8 (found by tests/fuzz), and YAML forbids control characters anyway, so such text
// is refused before parsing: slurmctld parses user presets and must never hang.
#pragma once

#include <string>
#include <string_view>

namespace fairway::presets {

// Throws InputError naming `file` and the line when `text` has a control character other than
// tab, LF or CR, or is not valid UTF-8.
void check_yaml_text(std::string_view text, const std::string& file);

}  // namespace fairway::presets
