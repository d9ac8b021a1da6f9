#include "presets/loader.h"

#include <set>

#include "common/slurm_time.h"
#include "presets/resolver.h"
#include "presets/text_guard.h"
#include "presets/trusted_file.h"
#include "presets/values.h"
#include "presets/yaml_tree.h"

namespace fairway::presets {
namespace {

constexpr std::size_t kMaxEnvEntries = 128;
constexpr std::size_t kMaxTextValue = 4096;

struct DocumentReader {
    const std::string& file;
    const EnvPolicy& env_policy;

    SourceLocation at(const YamlNode& node, const std::string& key) const {
        return SourceLocation{file, node.line, key};
    }
    [[noreturn]] void fail(const YamlNode& node, const std::string& key, const std::string& problem) const {
        throw InputError(at(node, key), problem);
    }
    const std::string& scalar(const YamlNode& node, const std::string& key) const {
        if (!node.is_scalar()) fail(node, key, "expected a single value, not a list or mapping");
        if (node.scalar.size() > kMaxTextValue) fail(node, key, "value longer than 4096 bytes");
        if (node.scalar.find('\0') != std::string::npos) fail(node, key, "value contains a NUL byte");
        return node.scalar;
    }
};

const char* expected_format(Field field) {
    switch (field) {
    case Field::partition: return "a partition name or comma list of names";
    case Field::qos: return "a QOS name";
    case Field::time: return "a Slurm time such as 90, 4:00:00, 1-0 or infinite";
    case Field::nodes:
    case Field::ntasks_per_node:
    case Field::cpus_per_gpu: return "a positive integer";
    case Field::gpus:
    case Field::gpus_per_node:
    case Field::gpus_per_task: return "a GPU count such as 4 or a100:4";
    case Field::mem_per_gpu: return "a memory size such as 16000, 16G or 512M";
    case Field::constraint: return "a node feature expression such as a100&ib";
    case Field::exclusive:
    case Field::distributed_env:
    case Field::requeue: return "true or false";
    case Field::gpu_binding: return "none, per-rank:N, round-robin, closest or ordered";
    case Field::signal: return "a signal such as USR1@120 or B:TERM@60";
    case Field::env: return "a mapping of variable names to values";
    }
    return "a valid value";
}

std::optional<Seconds> parse_time_limit(std::string_view text) {
    auto time = parse_slurm_duration_or_infinite(text);
    if (!time || time->count() <= 0) return std::nullopt;
    return *time;
}

template <class T>
bool assign(std::optional<T>& target, std::optional<T> parsed) {
    target = std::move(parsed);
    return target.has_value();
}

bool assign_text(std::optional<std::string>& target, std::string_view text, bool valid) {
    if (valid) target = std::string(text);
    return valid;
}

// Parses `text` into the field; false when it is not a valid value for that field.
bool assign_scalar(JobRequest& request, Field field, std::string_view text) {
    switch (field) {
    case Field::partition: return assign_text(request.partition, text, is_valid_name_list(text));
    case Field::qos: return assign_text(request.qos, text, is_valid_name(text));
    case Field::time: return assign(request.time, parse_time_limit(text));
    case Field::nodes: return assign(request.nodes, parse_count(text));
    case Field::ntasks_per_node: return assign(request.ntasks_per_node, parse_count(text));
    case Field::gpus: return assign(request.gpus, parse_gpu_count(text));
    case Field::gpus_per_node: return assign(request.gpus_per_node, parse_gpu_count(text));
    case Field::gpus_per_task: return assign(request.gpus_per_task, parse_gpu_count(text));
    case Field::cpus_per_gpu: return assign(request.cpus_per_gpu, parse_count(text));
    case Field::mem_per_gpu: return assign(request.mem_per_gpu_mb, parse_memory_mb(text));
    case Field::constraint: return assign_text(request.constraint, text, is_valid_constraint(text));
    case Field::exclusive: return assign(request.exclusive, parse_bool(text));
    case Field::gpu_binding: return assign(request.gpu_binding, parse_gpu_binding(text));
    case Field::distributed_env: return assign(request.distributed_env, parse_bool(text));
    case Field::requeue: return assign(request.requeue, parse_bool(text));
    case Field::signal: return assign(request.signal, parse_warn_signal(text));
    case Field::env: return false;
    }
    return false;
}

void read_env(const DocumentReader& reader, const YamlNode& node, Preset& preset) {
    if (!node.is_map()) reader.fail(node, "env", expected_format(Field::env));
    if (node.map_size() > kMaxEnvEntries) reader.fail(node, "env", "more than 128 variables");
    for (std::size_t i = 0; i < node.items.size(); i += 2) {
        const YamlNode& name_node = node.items[i];
        const YamlNode& value = node.items[i + 1];
        const std::string& name = reader.scalar(name_node, "env");
        const std::string key = "env." + name;
        if (auto why = reader.env_policy.refusal(name); !why.empty()) reader.fail(name_node, key, why);
        if (preset.values.env.count(name) || preset.cleared_env.count(name))
            reader.fail(name_node, key, "variable given twice");
        if (value.is_null()) preset.cleared_env.insert(name);
        else preset.values.env[name] = reader.scalar(value, key);
    }
}

void read_field(const DocumentReader& reader, Field field, const YamlNode& value, Preset& preset) {
    const std::string key(field_key(field));
    if (field == Field::env) return read_env(reader, value, preset);
    if (value.is_null()) {
        preset.cleared.set(static_cast<std::size_t>(field));
        return;
    }
    const std::string text = reader.scalar(value, key);
    if (!assign_scalar(preset.values, field, text))
        reader.fail(value, key, "invalid value '" + text + "': expected " + expected_format(field));
}

std::string unknown_key_message(const std::string& key) {
    std::vector<std::string> known = {"name", "description", "merge"};
    for (Field field : all_fields()) known.emplace_back(field_key(field));
    std::string message = "unknown key";
    if (auto near = nearest_name(key, known)) message += "; did you mean '" + *near + "'?";
    return message;
}

void read_entry(const DocumentReader& reader, const std::string& key, const YamlNode& value, Preset& preset) {
    if (key == "name") {
        preset.name = reader.scalar(value, key);
        if (!is_valid_name(preset.name))
            reader.fail(value, key, "invalid preset name '" + preset.name + "': use letters, digits, '.', '_' and '-'");
    } else if (key == "description") {
        preset.description = reader.scalar(value, key);
    } else if (key == "merge") {
        auto strategy = strategy_from_name(reader.scalar(value, key));
        if (!strategy)
            reader.fail(value, key, "invalid value '" + value.scalar + "': expected defaults, override or replace");
        preset.strategy = *strategy;
    } else if (auto field = field_from_key(key)) {
        read_field(reader, *field, value, preset);
    } else {
        throw InputError(reader.at(value, key), unknown_key_message(key));
    }
}

Preset read_document(const DocumentReader& reader, const YamlNode& doc, bool require_name,
                     const std::string& default_name) {
    if (!doc.is_map()) reader.fail(doc, "", "a preset must be a mapping of keys to values");
    Preset preset;
    preset.origin = reader.at(doc, "");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < doc.items.size(); i += 2) {
        const std::string& key = reader.scalar(doc.items[i], "");
        if (!seen.insert(key).second) reader.fail(doc.items[i], key, "key given twice");
        read_entry(reader, key, doc.items[i + 1], preset);
    }
    if (preset.name.empty()) {
        if (require_name) reader.fail(doc, "name", "missing: every site preset needs a name");
        preset.name = default_name;
    }
    return preset;
}

}  // namespace

ParseBudget user_file_budget(std::size_t max_bytes) {
    ParseBudget budget = kUserFileBudget;
    budget.max_bytes = max_bytes;
    return budget;
}

std::vector<Preset> parse_presets(std::string_view text, const std::string& file, const EnvPolicy& env_policy,
                                  bool require_name, const std::string& default_name, const ParseBudget& budget) {
    const DocumentReader reader{file, env_policy};
    std::vector<Preset> presets;
    for (const auto& doc : parse_yaml_documents(text, file, budget)) {
        if (doc.is_null()) continue;  // an empty document, e.g. after a trailing "---"
        if (presets.size() == kMaxPresetsPerFile) reader.fail(doc, "", "more than 256 presets in one file");
        presets.push_back(read_document(reader, doc, require_name, default_name));
    }
    for (std::size_t i = 0; i < presets.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (require_name && presets[i].name == presets[j].name)
                throw InputError({file, presets[i].origin.line, "name"},
                                 "preset '" + presets[i].name + "' defined twice in this file (also line " +
                                     std::to_string(presets[j].origin.line) + ")");
    return presets;
}

std::vector<Preset> load_preset_file(const std::string& path, const EnvPolicy& env_policy, std::size_t max_bytes) {
    return parse_presets(read_trusted_file(path, max_bytes, false), path, env_policy);
}

}  // namespace fairway::presets
