#include "tools/report/offline_input.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "common/iso8601.h"
#include "common/slurm_time.h"
#include "tools/report/json_stream.h"

namespace fairway::report {
namespace {

using nlohmann::json;

// Where one JSON object came from; key() builds "usage[3].end"-style names for messages.
// The file name is viewed, not copied: one place is made per record.
struct ObjectPlace {
    std::string_view file;
    int line = 0;
    std::string prefix;  // "" for the top level, "usage[3]" for an element

    SourceLocation at(const std::string& key) const {
        return {std::string(file), line, prefix.empty() ? key : prefix + "." + key};
    }
    SourceLocation whole() const { return {std::string(file), line, prefix}; }
};

// Runs for each of a million records: string_view comparisons look at the lengths first.
void reject_unknown_keys(const json& object, std::initializer_list<std::string_view> allowed,
                         const ObjectPlace& place) {
    if (!object.is_object()) throw InputError(place.whole(), "must be a JSON object");
    for (const auto& [key, value] : object.get_ref<const json::object_t&>()) {
        if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) == allowed.end())
            throw InputError(place.at(key), "unknown key");
    }
}

std::optional<std::string> optional_text(const json& object, const char* key, const ObjectPlace& place) {
    auto found = object.find(key);
    if (found == object.end()) return std::nullopt;
    if (!found->is_string()) throw InputError(place.at(key), "must be a string");
    return found->get<std::string>();
}

std::string required_text(const json& object, const char* key, const ObjectPlace& place) {
    std::optional<std::string> text = optional_text(object, key, place);
    if (!text || text->empty()) throw InputError(place.at(key), "is required (a non-empty string)");
    return *text;
}

// A finite, non-negative number; `fallback` when absent.
double non_negative_number(const json& object, const char* key, const ObjectPlace& place,
                           std::optional<double> fallback) {
    auto found = object.find(key);
    if (found == object.end()) {
        if (!fallback) throw InputError(place.at(key), "is required (a number)");
        return *fallback;
    }
    if (!found->is_number()) throw InputError(place.at(key), "must be a number");
    double value = found->get<double>();
    if (!std::isfinite(value) || value < 0) throw InputError(place.at(key), "must be a finite number >= 0");
    return value;
}

TimePoint required_time(const json& object, const char* key, const ObjectPlace& place) {
    std::string text = required_text(object, key, place);
    std::optional<TimePoint> when = parse_iso8601(text);
    if (!when) throw InputError(place.at(key), "'" + text + "' is not an ISO-8601 time like 2026-12-02T17:00:00Z");
    return *when;
}

Seconds duration_or(const json& object, const char* key, const ObjectPlace& place, Seconds fallback,
                    bool infinite_allowed) {
    std::optional<std::string> text = optional_text(object, key, place);
    if (!text) return fallback;
    std::optional<Seconds> value =
        infinite_allowed ? parse_slurm_duration_or_infinite(*text) : parse_slurm_duration(*text);
    if (!value) throw InputError(place.at(key), "'" + *text + "' is not a Slurm duration like 14-0");
    return *value;
}

fairshare::Shares read_shares(const json& object, const ObjectPlace& place) {
    auto found = object.find("shares");
    if (found == object.end()) return fairshare::Shares::of(1);  // sacctmgr's default Fairshare=1
    if (found->is_string() && found->get<std::string>() == "parent") return fairshare::Shares::parent();
    if (!found->is_number_unsigned() || found->get<std::uint64_t>() >= 0x7fffffffULL)
        throw InputError(place.at("shares"), "must be an integer from 0 to 2147483646, or \"parent\"");
    return fairshare::Shares::of(static_cast<std::uint32_t>(found->get<std::uint64_t>()));
}

// "fair_tree" (default), "classic" (NO_FAIR_TREE) or "depth_oblivious" (DEPTH_OBLIVIOUS).
fairshare::FairShareOptions read_algorithm(const json& top, const ObjectPlace& place, std::uint16_t dampening) {
    const std::string name = optional_text(top, "algorithm", place).value_or("fair_tree");
    if (name == "fair_tree") return fairshare::fair_share_options(true, false, dampening);
    if (name == "classic") return fairshare::fair_share_options(false, false, dampening);
    if (name == "depth_oblivious") return fairshare::fair_share_options(false, true, dampening);
    throw InputError(place.at("algorithm"),
                     "must be \"fair_tree\", \"classic\" or \"depth_oblivious\", not '" + name + "'");
}

std::uint32_t bounded_integer(const json& top, const char* key, const ObjectPlace& place, std::uint32_t fallback,
                              std::uint32_t low, std::uint32_t high) {
    double value = non_negative_number(top, key, place, fallback);
    if (value != std::floor(value) || value < low || value > high)
        throw InputError(place.at(key),
                         "must be an integer from " + std::to_string(low) + " to " + std::to_string(high));
    return static_cast<std::uint32_t>(value);
}

ReportSettings read_settings(const json& top, const std::string& file) {
    ObjectPlace place{file, 0, ""};
    reject_unknown_keys(
        top,
        {"now", "window", "half_life", "bucket", "algorithm", "dampening", "weight_fairshare", "associations", "usage"},
        place);
    ReportSettings settings;
    settings.now = required_time(top, "now", place);
    settings.window = duration_or(top, "window", place, settings.window, true);
    settings.half_life = duration_or(top, "half_life", place, settings.half_life, false);
    settings.bucket = duration_or(top, "bucket", place, Seconds{0}, false);
    settings.fair_share =
        read_algorithm(top, place, static_cast<std::uint16_t>(bounded_integer(top, "dampening", place, 1, 1, 0xffff)));
    settings.weight_fairshare = bounded_integer(top, "weight_fairshare", place, 10000, 0, 0xffffffffU);
    return settings;
}

AssociationSpec read_association(const json& element, const ObjectPlace& place) {
    reject_unknown_keys(element, {"account", "user", "parent", "shares"}, place);
    AssociationSpec spec;
    spec.account = required_text(element, "account", place);
    spec.user = optional_text(element, "user", place).value_or("");
    spec.parent = optional_text(element, "parent", place).value_or("");
    spec.shares = read_shares(element, place);
    spec.where = place.whole();
    if (!spec.user.empty() && !spec.parent.empty())
        throw InputError(place.at("parent"), "a user association's parent is its account; leave 'parent' out");
    return spec;
}

UsageSample read_usage(const json& element, const ObjectPlace& place) {
    reject_unknown_keys(element, {"account", "user", "start", "end", "billing_seconds", "gpu_seconds", "cpu_seconds"},
                        place);
    UsageSample sample;
    sample.account = required_text(element, "account", place);
    sample.user = optional_text(element, "user", place).value_or("");
    sample.end = required_time(element, "end", place);
    if (element.contains("start")) {
        sample.start = required_time(element, "start", place);
        if (*sample.start > sample.end) throw InputError(place.at("start"), "is after 'end'");
    }
    sample.billing_seconds = non_negative_number(element, "billing_seconds", place, std::nullopt);
    sample.gpu_seconds = non_negative_number(element, "gpu_seconds", place, 0.0);
    sample.cpu_seconds = non_negative_number(element, "cpu_seconds", place, 0.0);
    return sample;
}

// Collects associations, starts the consumer once the settings are known, and holds usage records
// only while they are not.
class InputAssembler {
public:
    InputAssembler(std::string file, UsageConsumer& consumer) : file_(std::move(file)), consumer_(consumer) {
        header_.source = file_;
    }

    void on_element(const std::string& array, std::size_t index, const json& element, int line, const json& top) {
        ObjectPlace place{file_, line, array + "[" + std::to_string(index) + "]"};
        if (array == "associations") {
            if (started_) throw InputError(place.whole(), "associations must come before usage");
            header_.associations.push_back(read_association(element, place));
            return;
        }
        UsageSample sample = read_usage(element, place);
        if (!started_ && top.contains("now")) start(top);
        if (started_) consumer_.add(sample, place.whole());
        else held_.emplace_back(std::move(sample), place.whole());
    }

    InputHeader finish(const json& top) {
        ReportSettings final_settings = read_settings(top, file_);
        if (!started_) start(top);
        const ReportSettings& used = header_.settings;
        if (final_settings.window != used.window || final_settings.half_life != used.half_life ||
            final_settings.bucket != used.bucket)
            throw InputError({file_, 0, "usage"}, "window, half_life and bucket must come before usage");
        for (const auto& [sample, where] : held_) consumer_.add(sample, where);
        held_.clear();
        header_.settings = final_settings;
        return header_;
    }

private:
    void start(const json& top) {
        header_.settings = read_settings(top, file_);
        consumer_.begin(header_);
        started_ = true;
    }

    std::string file_;
    UsageConsumer& consumer_;
    InputHeader header_;
    bool started_ = false;
    std::vector<std::pair<UsageSample, SourceLocation>> held_;
};

}  // namespace

InputHeader read_offline_input(std::FILE* file, const std::string& file_name, UsageConsumer& consumer) {
    InputAssembler assembler(file_name, consumer);
    json top =
        stream_json_object(file, file_name, {"associations", "usage"},
                           [&](const std::string& array, std::size_t index, const json& element, int line,
                               const json& so_far) { assembler.on_element(array, index, element, line, so_far); });
    return assembler.finish(top);
}

}  // namespace fairway::report
