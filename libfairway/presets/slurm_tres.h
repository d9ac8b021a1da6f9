// GPU entries in Slurm's TRES request strings, as sbatch writes them into a job descriptor:
// tres_per_job/node/task = "gres:gpu:a100:4,gres:mps:10", cpus_per_tres/mem_per_tres = "gres:gpu:8".
// Pure text so that the job_submit adapter stays a translation and this stays unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "presets/job_request.h"

namespace fairway::presets {

// The GPU entry of a TRES list ("gres:gpu" alone counts 1); nullopt when there is none or it is
// unreadable (then the job keeps it untouched: the field counts as set by the job).
std::optional<GpuCount> gpus_in_tres(std::string_view tres);
// Whether the list has any GPU entry, readable or not.
bool has_gpu_entry(std::string_view tres);
// The list with its GPU entry replaced by `gpus` (appended when absent, removed when nullopt);
// every other entry is kept in order.
std::string with_gpus_in_tres(std::string_view tres, const std::optional<GpuCount>& gpus);

// The same for per-GPU amounts (cpus_per_tres, mem_per_tres): "gres:gpu:8" -> 8.
std::optional<std::uint64_t> per_gpu_amount_in_tres(std::string_view tres);
std::string with_per_gpu_amount_in_tres(std::string_view tres, const std::optional<std::uint64_t>& amount);

}  // namespace fairway::presets
