// Slurm's duration vocabulary ("14-0", "7-12:00", "90", "1:30:00", "infinite"), so fairway's
// parameters read exactly like slurm.conf's.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fairway {

using Seconds = std::chrono::seconds;

// Parses a Slurm duration. Forms, as in sbatch --time:
//   "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S".
// Returns nullopt for malformed, negative or overflowing text. "infinite"/"unlimited" is not
// accepted here; callers that allow it use parse_slurm_duration_or_infinite.
std::optional<Seconds> parse_slurm_duration(std::string_view text);

// As above, but "infinite" and "unlimited" (any case) yield Seconds::max().
std::optional<Seconds> parse_slurm_duration_or_infinite(std::string_view text);

// Formats as Slurm prints durations: "D-HH:MM:SS" or "HH:MM:SS"; Seconds::max() as "infinite".
std::string format_slurm_duration(Seconds duration);

}  // namespace fairway
