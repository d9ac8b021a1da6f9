// What job_submit/fairway decides for one submission, as a pure function of the site's presets,
// the job's own request and what travelled with it. The adapter only reads and writes Slurm types.
#pragma once

#include <optional>
#include <string>

#include "presets/job_request.h"
#include "presets/site_cache.h"

namespace fairway::presets {

struct Submission {
    JobRequest job;                                   // what the job itself asked for
    std::optional<std::string> preset_option;         // --preset value, if given
    std::optional<std::string> user_presets_encoded;  // FAIRWAY_USER_PRESETS, if carried
    std::string account;                              // the job's account ("" when unknown)
};

struct PresetApplication {
    JobRequest request;   // the job after the presets
    std::string applied;  // "a100-train,nccl-ib" (user files as their path)
    std::string source;   // "--preset" or "account default (physics)"
    // encode_step_presets of the list the job's steps apply (the --preset text, else `applied`,
    // job_submit's record): a batch job's steps then read no preset file. nullopt when too large.
    std::optional<std::string> step_presets;
};

// nullopt when no preset applies (none named, no default for the account). Throws InputError
// with the message to show the user for unknown or invalid presets, or when the site's presets
// could not be loaded but the job needs them.
std::optional<PresetApplication> apply_presets_to_submission(const SitePresets& site, const Submission& submission);

// The text recorded with the job (admin comment): "fairway-presets=a100-train,nccl-ib". Throws
// InputError when `application.applied` holds an entry check_record_entry refuses (reference.h).
std::string preset_record(const PresetApplication& application);

}  // namespace fairway::presets
