#include "presets/carried.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "presets/reference.h"
#include "presets/trusted_file.h"
#include "presets/values.h"

namespace fairway::presets {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

[[noreturn]] void carried_error(const std::string& problem, const char* variable = kUserPresetsVar) {
    throw InputError(SourceLocation{"", 0, variable}, problem);
}

// Appends the base64 of `bytes` to `out`. Written for speed as well as clarity: job_submit encodes
// every carried preset inside slurmctld.
void append_base64(std::string& out, std::string_view bytes) {
    std::size_t at = out.size();
    out.resize(at + (bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3, at += 4) {
        const std::size_t present = std::min<std::size_t>(3, bytes.size() - i);
        std::uint32_t chunk = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (present > 1) chunk |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        if (present > 2) chunk |= static_cast<unsigned char>(bytes[i + 2]);
        out[at] = kAlphabet[(chunk >> 18) & 63];
        out[at + 1] = kAlphabet[(chunk >> 12) & 63];
        out[at + 2] = present > 1 ? kAlphabet[(chunk >> 6) & 63] : '=';
        out[at + 3] = present > 2 ? kAlphabet[chunk & 63] : '=';
    }
}

constexpr std::uint8_t kNotBase64 = 0xff;

// The value of each byte in kAlphabet, kNotBase64 for every other byte.
constexpr std::array<std::uint8_t, 256> kBase64Values = [] {
    std::array<std::uint8_t, 256> values{};
    values.fill(kNotBase64);
    for (std::size_t i = 0; i < kAlphabet.size(); ++i) values[static_cast<unsigned char>(kAlphabet[i])] = i;
    return values;
}();

std::string base64_decode(std::string_view text, const char* variable = kUserPresetsVar) {
    if (text.size() % 4 != 0) carried_error("malformed encoding (length)", variable);
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        std::size_t padding = 0;
        if (i + 4 == text.size()) padding = text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
        std::uint32_t chunk = 0;
        for (std::size_t k = 0; k < 4 - padding; ++k) {
            const auto value = kBase64Values[static_cast<unsigned char>(text[i + k])];
            if (value == kNotBase64) carried_error("malformed encoding (character)", variable);
            chunk = (chunk << 6) | value;
        }
        chunk <<= 6 * padding;
        for (std::size_t k = 0; k < 3 - padding; ++k) out += static_cast<char>((chunk >> (16 - 8 * k)) & 0xff);
    }
    return out;
}

// Splits `text` at every `separator` (an empty text gives one empty part).
std::vector<std::string_view> split_at(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        auto end = text.find(separator, start);
        parts.push_back(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
        if (end == std::string_view::npos) return parts;
        start = end + 1;
    }
}

// FAIRWAY_STEP_PRESETS format, version 1: tokens joined by ','; a token is a tag and its fields,
// joined by ':', each field base64 (whose alphabet has neither separator) unless noted:
//   fw1                      version, first
//   L:<list>                 the preset list resolved, second
//   A:<account>              optional, third: the list is this account's default ("" for none)
//   P:<name>:<strategy>      starts a preset; strategy in force, plain ("defaults", ...)
//   E:<name>:<value>         env name set
//   U:<name>                 env name written as null
//   B:<binding>              gpu-binding ("per-rank:2")
//   D:1 | D:0                distributed-env, plain
//   X:<field key>            gpu-binding or distributed-env written as null, plain
constexpr std::string_view kStepPresetsVersion = "fw1";
constexpr std::size_t kMaxStepEnvValue = 4096;  // as the loader allows

[[noreturn]] void step_presets_error(const std::string& problem) { carried_error(problem, kStepPresetsVar); }

// Writes FAIRWAY_STEP_PRESETS token by token into one text and stops at its budget: a resolution
// too large to carry costs slurmctld no more than the budget's worth of encoding.
class StepPresetsWriter {
public:
    explicit StepPresetsWriter(std::size_t max_bytes) : max_bytes_(max_bytes), text_(kStepPresetsVersion) {}

    // Appends ",TAG:base64(field)...[:plain]"; nothing once the budget is spent.
    void add(std::string_view tag, std::initializer_list<std::string_view> fields, std::string_view plain = {}) {
        std::size_t size = 1 + tag.size() + (plain.empty() ? 0 : 1 + plain.size());
        for (auto field : fields) size += 1 + (field.size() + 2) / 3 * 4;
        if (over_budget_ || text_.size() + size > max_bytes_) {
            over_budget_ = true;
            return;
        }
        text_ += ',';
        text_ += tag;
        for (auto field : fields) {
            text_ += ':';
            append_base64(text_, field);
        }
        if (!plain.empty()) (text_ += ':') += plain;
    }

    std::optional<std::string> finish() && {
        if (over_budget_) return std::nullopt;
        return std::move(text_);
    }

private:
    std::size_t max_bytes_;
    std::string text_;
    bool over_budget_ = false;
};

void encode_step_preset(const AppliedPreset& entry, StepPresetsWriter& writer) {
    const Preset& preset = *entry.preset;
    writer.add("P", {preset.name}, strategy_name(entry.strategy));
    for (const auto& [name, value] : preset.values.env) writer.add("E", {name, value});
    for (const auto& name : preset.cleared_env) writer.add("U", {name});
    if (preset.values.gpu_binding) writer.add("B", {format_gpu_binding(*preset.values.gpu_binding)});
    if (preset.values.distributed_env) writer.add("D", {}, *preset.values.distributed_env ? "1" : "0");
    for (Field field : {Field::gpu_binding, Field::distributed_env})
        if (preset.cleared.test(static_cast<std::size_t>(field))) writer.add("X", {}, field_key(field));
}

std::string decoded_env_name(std::string_view field) {
    std::string name = base64_decode(field, kStepPresetsVar);
    if (!is_valid_env_name(name)) step_presets_error("invalid environment name");
    return name;
}

// Applies one token after P to the preset it belongs to.
void decode_step_field(const std::vector<std::string_view>& fields, Preset& preset) {
    auto tag = fields[0];
    if (tag == "E" && fields.size() == 3) {
        std::string value = base64_decode(fields[2], kStepPresetsVar);
        if (value.size() > kMaxStepEnvValue || value.find('\0') != std::string::npos)
            step_presets_error("invalid env value");
        preset.values.env[decoded_env_name(fields[1])] = std::move(value);
    } else if (tag == "U" && fields.size() == 2) {
        preset.cleared_env.insert(decoded_env_name(fields[1]));
    } else if (tag == "B" && fields.size() == 2) {
        preset.values.gpu_binding = parse_gpu_binding(base64_decode(fields[1], kStepPresetsVar));
        if (!preset.values.gpu_binding) step_presets_error("invalid gpu-binding");
    } else if (tag == "D" && fields.size() == 2 && (fields[1] == "1" || fields[1] == "0")) {
        preset.values.distributed_env = fields[1] == "1";
    } else if (tag == "X" && fields.size() == 2 &&
               (fields[1] == field_key(Field::gpu_binding) || fields[1] == field_key(Field::distributed_env))) {
        preset.cleared.set(static_cast<std::size_t>(*field_from_key(fields[1])));
    } else {
        step_presets_error("malformed entry");
    }
}

// The optional A token after L (an older decoder finds it before any preset and refuses the text,
// so its step resolves the list itself).
std::optional<std::string> decode_step_account(std::string_view token) {
    auto fields = split_at(token, ':');
    if (fields[0] != "A") return std::nullopt;
    std::string account = fields.size() == 2 ? base64_decode(fields[1], kStepPresetsVar) : "";
    if (account.empty() || !std::all_of(account.begin(), account.end(), [](char c) { return c > ' ' && c != 0x7f; }))
        step_presets_error("invalid account");
    return account;
}

Preset decode_step_preset_start(const std::vector<std::string_view>& fields) {
    if (fields.size() != 3) step_presets_error("malformed preset entry");
    auto strategy = strategy_from_name(fields[2]);
    if (!strategy) step_presets_error("unknown merge strategy");
    Preset preset;
    preset.name = base64_decode(fields[1], kStepPresetsVar);
    // slurmstepd names the presets in its log; the user controls srun's environment.
    try {
        check_record_entry(preset.name);
    } catch (const InputError&) {
        step_presets_error("invalid preset name");
    }
    preset.strategy = *strategy;
    return preset;
}

}  // namespace

std::vector<AppliedPreset> StepPresets::applied() const {
    std::vector<AppliedPreset> entries;
    for (const auto& preset : presets) entries.push_back({&preset, preset.strategy});
    return entries;
}

std::optional<std::string> encode_step_presets(std::string_view preset_list, const std::vector<AppliedPreset>& applied,
                                               std::size_t max_bytes, const std::optional<std::string>& account) {
    StepPresetsWriter writer(max_bytes);
    writer.add("L", {preset_list});
    if (account) writer.add("A", {*account});
    for (const auto& entry : applied) encode_step_preset(entry, writer);
    return std::move(writer).finish();
}

StepPresets decode_step_presets(std::string_view encoded, std::size_t max_bytes) {
    if (encoded.size() > max_bytes) step_presets_error("too large");
    auto tokens = split_at(encoded, ',');
    if (tokens.size() < 2 || tokens[0] != kStepPresetsVersion) step_presets_error("unknown format");
    auto list = split_at(tokens[1], ':');
    if (list.size() != 2 || list[0] != "L") step_presets_error("no preset list");
    StepPresets result;
    result.preset_list = base64_decode(list[1], kStepPresetsVar);
    std::size_t first_preset = 2;
    if (tokens.size() > 2 && (result.account = decode_step_account(tokens[2]))) first_preset = 3;
    for (std::size_t i = first_preset; i < tokens.size(); ++i) {
        auto fields = split_at(tokens[i], ':');
        if (fields[0] == "P") result.presets.push_back(decode_step_preset_start(fields));
        else if (result.presets.empty()) step_presets_error("entry before any preset");
        else decode_step_field(fields, result.presets.back());
    }
    return result;
}

// Format: entries "base64(path):base64(text)" joined by ','. Both alphabets exclude ':' and ','.
std::string encode_user_presets(const UserPresetTexts& files, std::size_t max_bytes) {
    std::size_t total = 0;
    std::string out;
    for (const auto& [path, text] : files) {
        total += text.size();
        if (total > max_bytes)
            throw InputError({path, 0, "preset"},
                             "user presets exceed the limit of " + std::to_string(max_bytes) + " bytes");
        if (!out.empty()) out += ',';
        append_base64(out, path);
        out += ':';
        append_base64(out, text);
    }
    return out;
}

UserPresetTexts decode_user_presets(std::string_view encoded, std::size_t max_bytes) {
    if (encoded.size() > (max_bytes + 4096 * kMaxPresetRefs) / 3 * 4 + 8 * kMaxPresetRefs) carried_error("too large");
    UserPresetTexts files;
    std::size_t total = 0;
    if (encoded.empty()) return files;
    for (std::size_t start = 0;;) {
        auto comma = encoded.find(',', start);
        auto entry = encoded.substr(start, comma == std::string_view::npos ? encoded.npos : comma - start);
        auto colon = entry.find(':');
        if (colon == std::string_view::npos) carried_error("malformed entry");
        std::string path = base64_decode(entry.substr(0, colon));
        std::string text = base64_decode(entry.substr(colon + 1));
        total += text.size();
        if (total > max_bytes)
            carried_error("user presets exceed the limit of " + std::to_string(max_bytes) + " bytes");
        if (path.empty()) carried_error("malformed path");
        check_reference(path, {"", 0, kUserPresetsVar});
        if (files.size() == kMaxPresetRefs) carried_error("more than 16 files");
        files[path] = std::move(text);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return files;
}

std::string read_user_preset_file(const std::string& path, std::size_t max_bytes) {
    return read_trusted_file(path, max_bytes, false);
}

}  // namespace fairway::presets
