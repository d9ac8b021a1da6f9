// Slurm's time limits as its records and configuration carry them, as fairshare::longest_run takes
// them: a job's TimeLimit (minutes; INFINITE, NO_VAL or 0 for none of its own) and OverTimeLimit
// (minutes; INFINITE16 for UNLIMITED). Read by priority/fairway's rebuild and by fairway-report.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

extern "C" {
#include <slurm/slurm.h>
}

namespace fairway::slurm_public {

inline std::optional<std::chrono::seconds> job_time_limit(std::uint64_t minutes) {
    if (minutes == 0 || minutes >= NO_VAL) return std::nullopt;
    return std::chrono::minutes(minutes);
}

inline std::optional<std::chrono::seconds> over_time_limit(std::uint16_t minutes) {
    if (minutes == INFINITE16) return std::nullopt;
    return std::chrono::minutes(minutes);
}

}  // namespace fairway::slurm_public
