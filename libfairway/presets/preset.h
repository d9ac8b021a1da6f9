// A preset: named, reusable scheduling settings, and how presets merge into a job request.
//
// Merge semantics (RFC 7396-like, per field; see README.md for the table of examples):
//   The job's own request is the start. Presets are applied left to right. For each field the
//   preset sets:
//     defaults  - the preset's value is taken unless the JOB ITSELF set the field; a later preset
//                 therefore overrides an earlier preset, never the user. (the default strategy)
//     override  - the preset's value is taken, whoever set the field.
//     replace   - every preset field of the request becomes exactly the preset's: fields the preset
//                 leaves out become unset, whoever had set them. After a replace, the job's earlier
//                 choices count as gone, so later `defaults` presets may set any field.
//   A field written as null (`qos: ~`, `env: {FOO: ~}`) deletes: under override it unsets the field
//   (or env name); under defaults it unsets only what an earlier preset set, never the job's own
//   value; under replace it is the same as leaving the field out.
//   `env` merges per name, each name behaving like a scalar field of its own.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "presets/job_request.h"

namespace fairway::presets {

enum class MergeStrategy { defaults, override_, replace };

std::string_view strategy_name(MergeStrategy strategy);  // "defaults", "override", "replace"
std::optional<MergeStrategy> strategy_from_name(std::string_view name);

struct Preset {
    std::string name;
    std::string description;
    MergeStrategy strategy = MergeStrategy::defaults;
    JobRequest values;                  // what the preset sets
    FieldSet cleared;                   // fields written as null (never `env`; see cleared_env)
    std::set<std::string> cleared_env;  // env names written as null
    SourceLocation origin;              // file and line where the preset starts
};

// One preset as applied to a job, with the strategy in force (the preset's own unless overridden).
struct AppliedPreset {
    const Preset* preset = nullptr;
    MergeStrategy strategy = MergeStrategy::defaults;
};

// The record of applied presets, comma-separated in order ("a100,nccl-ib,.../mine.yaml#ddp"; see
// record_entry_for). Throws InputError for a name that check_record_entry refuses or a list over
// the record's bounds (reference.h): the list is recorded.
std::string describe_applied(const std::vector<AppliedPreset>& applied);

// What the presets of one submission may set in the environment together (merged environment
// budget): every job's steps get it, and slurmctld keeps it with the job.
inline constexpr std::size_t kMaxMergedEnvEntries = 128;
inline constexpr std::size_t kMaxMergedEnvBytes = 32 * 1024;  // as NAME=value

// Applies `presets` left to right to `job` (the job's own settings) and returns the result.
// Throws InputError naming the preset's file and line and the variable where the environment
// grows over the merged environment budget.
JobRequest merge_presets(const JobRequest& job, const std::vector<AppliedPreset>& presets);

// Convenience for a single preset with its own strategy.
JobRequest merge_preset(const JobRequest& job, const Preset& preset);

}  // namespace fairway::presets
