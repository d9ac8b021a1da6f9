// Parsers for the value syntaxes of preset fields, exposed for tests and for adapters that read
// the same syntaxes back from Slurm. Each returns nullopt for malformed text; callers add where.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "presets/job_request.h"

namespace fairway::presets {

// Decimal 1..max, no sign or spaces.
std::optional<std::uint32_t> parse_count(std::string_view text, std::uint32_t max = 1'000'000);
// "4", "a100:4" (type: [A-Za-z0-9_.-]{1,64}); count 1..1,000,000.
std::optional<GpuCount> parse_gpu_count(std::string_view text);
// "none", "per-rank:N" (N >= 1), "round-robin", "closest", "ordered".
std::optional<GpuBinding> parse_gpu_binding(std::string_view text);
// "[B:|R:]SIG[@seconds]" with SIG a name (USR1, SIGUSR1) or number; seconds 0..65535, default 60.
std::optional<WarnSignal> parse_warn_signal(std::string_view text);
// Slurm memory sizes: "16000" (MiB), "512K", "16G", "1T"; result in MiB (K rounds up), > 0.
std::optional<std::uint64_t> parse_memory_mb(std::string_view text);
// Slurm names (partition, qos, account, preset): [A-Za-z0-9_.-]{1,64}, not starting with '.' or '-'.
bool is_valid_name(std::string_view text);
// A comma list of valid names (partition "gpu,debug").
bool is_valid_name_list(std::string_view text);
// Node feature expression as --constraint takes it: 1..1024 chars of [A-Za-z0-9_.&|,!*:=()\[\]-].
bool is_valid_constraint(std::string_view text);
// true/false/yes/no/on/off (YAML's booleans, lowercase or capitalized).
std::optional<bool> parse_bool(std::string_view text);

}  // namespace fairway::presets
