// What travels with a job between the client (SPANK, allocator context) and slurmctld / slurmstepd.
// All of it lives in the job's spank_job_env, which users control: decoders are defensive, size
// capped, and throw InputError rather than trusting anything.
//
//   _SLURM_SPANK_OPTION_fairway_preset=<list>   set by Slurm from --preset (SPANK plugin "fairway")
//   FAIRWAY_USER_PRESETS=<encoded>              user preset files named by path in the list
//   FAIRWAY_APPLIED_PRESETS=<list>              set by job_submit/fairway: what it applied,
//                                               including account defaults (for slurmstepd)
//   FAIRWAY_STEP_PRESETS=<encoded>              set by the client: the presets it resolved, reduced
//                                               to what a step uses (see StepPresets), for its
//                                               --preset list or for its account's defaults
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "presets/resolver.h"

namespace fairway::presets {

inline constexpr const char* kSpankPresetOptionVar = "_SLURM_SPANK_OPTION_fairway_preset";
inline constexpr const char* kUserPresetsVar = "FAIRWAY_USER_PRESETS";
inline constexpr const char* kAppliedPresetsVar = "FAIRWAY_APPLIED_PRESETS";
// Tasks never see spank_job_env; a batch job gets the applied list in its environment under the
// name Slurm gives client-set spank job variables there, and srun steps inside inherit it.
inline constexpr const char* kAppliedPresetsBatchVar = "SLURM_SPANK_FAIRWAY_APPLIED_PRESETS";
inline constexpr const char* kStepPresetsVar = "FAIRWAY_STEP_PRESETS";
// A batch job's copy, which job_submit/fairway sets from what it applied (as for the record).
inline constexpr const char* kStepPresetsBatchVar = "SLURM_SPANK_FAIRWAY_STEP_PRESETS";
inline constexpr std::size_t kMaxStepPresetsBytes = 64 * 1024;  // encoded, carried with a job
// Within slurmstepd, from the plugin's YAML module to the plugin: any list the site allows.
inline constexpr std::size_t kMaxLocalStepPresetsBytes = 64 * 1024 * 1024;

// Encodes user files (path -> text) as one printable string: base64 of a YAML mapping from
// path to text. Throws InputError (key "preset") when the texts together exceed `max_bytes`.
std::string encode_user_presets(const UserPresetTexts& files, std::size_t max_bytes = kMaxUserPresetBytes);

// The reverse; throws InputError on bad encoding, bad structure or more than `max_bytes` of text.
UserPresetTexts decode_user_presets(std::string_view encoded, std::size_t max_bytes = kMaxUserPresetBytes);

// The presets a client resolved for a list, reduced to the fields a job step uses (env,
// gpu-binding, distributed-env, and those written as null), each preset with the strategy in
// force. The client carries it so that slurmstepd neither scans the site directory nor parses
// YAML. It comes from the user: a step uses it only for the list it names, and only after the
// site's env policy accepts every name in it (see binding::carried_step_settings).
struct StepPresets {
    std::string preset_list;      // the list the client resolved, as given
    std::vector<Preset> presets;  // in order; `strategy` is the strategy in force
    // Set when the list is this account's default (presets.conf), which srun resolved for a step
    // that named no preset and carried no job_submit record; "" as the list: the account has none.
    std::optional<std::string> account;
    std::vector<AppliedPreset> applied() const;  // pointing into `presets`
};

// Encodes the step fields of `applied` for `preset_list` (the default list of `account`, when
// given); nullopt when the result would exceed `max_bytes` (the step then resolves the list itself).
std::optional<std::string> encode_step_presets(std::string_view preset_list, const std::vector<AppliedPreset>& applied,
                                               std::size_t max_bytes = kMaxStepPresetsBytes,
                                               const std::optional<std::string>& account = std::nullopt);

// The reverse. Throws InputError (key FAIRWAY_STEP_PRESETS) on anything malformed: bad encoding,
// unknown tags, invalid env names or values longer than 4096 bytes, more than `max_bytes`.
StepPresets decode_step_presets(std::string_view encoded, std::size_t max_bytes = kMaxStepPresetsBytes);

// Reads a user's preset file on the client, refusing files over `max_bytes` (InputError naming it).
std::string read_user_preset_file(const std::string& path, std::size_t max_bytes = kMaxUserPresetBytes);

}  // namespace fairway::presets
