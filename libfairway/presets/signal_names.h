// Internal: the signal names Slurm's --signal accepts, without the "SIG" prefix.
#pragma once

#include <optional>
#include <string_view>

namespace fairway::presets {

// "USR1", "SIGUSR1" or "10" -> 10; nullopt for anything else.
std::optional<int> signal_number(std::string_view text);
// 10 -> "USR1"; empty when the number has no name here.
std::string_view signal_name(int number);

}  // namespace fairway::presets
