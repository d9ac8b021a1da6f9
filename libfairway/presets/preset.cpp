#include "presets/preset.h"

#include "presets/field_visit.h"
#include "presets/reference.h"

namespace fairway::presets {
namespace {

// The request being built plus what the job itself still owns: `defaults` presets must not
// touch those fields or env names.
struct MergeState {
    JobRequest request;
    FieldSet job_owned;
    std::set<std::string> job_owned_env;
    std::size_t env_bytes = 0;  // of request.env, as NAME=value
};

std::size_t env_entry_bytes(const std::string& name, const std::string& value) {
    return name.size() + 1 + value.size();
}

MergeState start_from(const JobRequest& job) {
    MergeState state{job, {}, {}, 0};
    for (Field field : all_fields())
        if (field != Field::env && is_set(job, field)) state.job_owned.set(detail::index(field));
    for (const auto& [name, value] : job.env) {
        state.job_owned_env.insert(name);
        state.env_bytes += env_entry_bytes(name, value);
    }
    return state;
}

void apply_fields(MergeState& state, const Preset& preset, bool respect_job) {
    detail::for_each_optional_field(state.request, preset.values, [&](Field f, auto& mine, const auto& theirs) {
        const auto i = detail::index(f);
        if (respect_job && state.job_owned.test(i)) return;
        if (theirs) mine = theirs;
        else if (preset.cleared.test(i)) mine.reset();
        else return;
        state.job_owned.reset(i);  // the job's value, if any, is gone: later presets may set it
    });
}

// Checked as each variable is set, so that a merge over the budget stops there.
void set_env(MergeState& state, const Preset& preset, const std::string& name, const std::string& value) {
    auto [it, fresh] = state.request.env.try_emplace(name);
    if (!fresh) state.env_bytes -= env_entry_bytes(name, it->second);
    it->second = value;
    state.env_bytes += env_entry_bytes(name, value);
    auto over = [&](const std::string& what) {
        throw InputError({preset.origin.file, preset.origin.line, "env." + name},
                         "the presets together set " + what + " (merged environment budget)");
    };
    if (state.request.env.size() > kMaxMergedEnvEntries)
        over("more than " + std::to_string(kMaxMergedEnvEntries) + " environment variables");
    if (state.env_bytes > kMaxMergedEnvBytes)
        over("more than " + std::to_string(kMaxMergedEnvBytes) + " bytes of environment");
}

void apply_env(MergeState& state, const Preset& preset, bool respect_job) {
    auto owned_by_job = [&](const std::string& name) { return respect_job && state.job_owned_env.count(name) > 0; };
    for (const auto& [name, value] : preset.values.env) {
        if (owned_by_job(name)) continue;
        set_env(state, preset, name, value);
        state.job_owned_env.erase(name);
    }
    for (const auto& name : preset.cleared_env) {
        if (owned_by_job(name)) continue;
        if (auto it = state.request.env.find(name); it != state.request.env.end()) {
            state.env_bytes -= env_entry_bytes(name, it->second);
            state.request.env.erase(it);
        }
        state.job_owned_env.erase(name);
    }
}

void apply_replace(MergeState& state, const Preset& preset) {
    state.request = preset.values;
    state.request.env.clear();
    state.env_bytes = 0;
    state.job_owned.reset();
    state.job_owned_env.clear();
    for (const auto& [name, value] : preset.values.env) set_env(state, preset, name, value);
}

}  // namespace

std::string_view strategy_name(MergeStrategy strategy) {
    switch (strategy) {
    case MergeStrategy::defaults: return "defaults";
    case MergeStrategy::override_: return "override";
    case MergeStrategy::replace: return "replace";
    }
    return "defaults";
}

std::optional<MergeStrategy> strategy_from_name(std::string_view name) {
    for (auto strategy : {MergeStrategy::defaults, MergeStrategy::override_, MergeStrategy::replace})
        if (strategy_name(strategy) == name) return strategy;
    return std::nullopt;
}

JobRequest merge_presets(const JobRequest& job, const std::vector<AppliedPreset>& presets) {
    MergeState state = start_from(job);
    for (const auto& applied : presets) {
        if (!applied.preset) continue;
        if (applied.strategy == MergeStrategy::replace) {
            apply_replace(state, *applied.preset);
            continue;
        }
        const bool respect_job = applied.strategy == MergeStrategy::defaults;
        apply_fields(state, *applied.preset, respect_job);
        apply_env(state, *applied.preset, respect_job);
    }
    return state.request;
}

JobRequest merge_preset(const JobRequest& job, const Preset& preset) {
    return merge_presets(job, {AppliedPreset{&preset, preset.strategy}});
}

// Each name on its own: a ',' inside one would pass for two entries in the joined list.
std::string describe_applied(const std::vector<AppliedPreset>& applied) {
    std::string names;
    for (const auto& entry : applied) {
        if (!entry.preset) continue;
        // What is recorded is checked, not the whole path: its directories never reach the record.
        const auto recorded = record_entry_for(entry.preset->name);
        check_record_entry(recorded);
        names += (names.empty() ? "" : ",") + recorded;
    }
    check_record_list(names);
    return names;
}

}  // namespace fairway::presets
