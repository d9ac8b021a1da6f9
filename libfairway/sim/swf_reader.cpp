#include "sim/swf_reader.h"

#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace fairway::sim {

const std::array<const char*, kSwfFields> kSwfFieldNames = {"job_number",
                                                            "submit_time",
                                                            "wait_time",
                                                            "run_time",
                                                            "allocated_processors",
                                                            "average_cpu_time",
                                                            "used_memory",
                                                            "requested_processors",
                                                            "requested_time",
                                                            "requested_memory",
                                                            "status",
                                                            "user_id",
                                                            "group_id",
                                                            "executable",
                                                            "queue",
                                                            "partition",
                                                            "preceding_job",
                                                            "think_time"};

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> split_fields(std::string_view text) {
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i])) ++i;
        std::size_t start = i;
        while (i < text.size() && !is_space(text[i])) ++i;
        if (i > start) fields.push_back(text.substr(start, i - start));
    }
    return fields;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// Some archive traces write integral fields as "12.00"; accept a number whose fraction is zero.
std::optional<std::int64_t> parse_whole_number(std::string_view text) {
    if (auto value = parse_integer(text)) return value;
    double real = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), real);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(real) || real != std::floor(real) ||
        std::fabs(real) > 9e15)
        return std::nullopt;
    return static_cast<std::int64_t>(real);
}

std::optional<double> parse_real(std::string_view text) {
    double value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

// A value that is a count or a duration: -1 (unknown) or >= 0.
bool known_or_unknown(double value) { return value >= 0 || value == kSwfUnknown; }

}  // namespace

SwfReader::SwfReader(std::istream& in, std::string file_name) : in_(in), file_name_(std::move(file_name)) {
    while (read_line()) {
        std::string_view line = trimmed(text_);
        if (line.empty()) continue;
        if (line.front() == ';') {
            read_header_comment();
            continue;
        }
        have_job_line_ = true;
        break;
    }
}

bool SwfReader::read_line() {
    if (!std::getline(in_, text_)) return false;
    ++line_;
    return true;
}

// "; MaxNodes: 100" -> fields["MaxNodes"] = "100"; the three the replay uses are parsed as integers.
void SwfReader::read_header_comment() {
    std::string_view body = trimmed(std::string_view(text_).substr(text_.find(';') + 1));
    std::size_t colon = body.find(':');
    if (colon == std::string_view::npos || colon == 0) return;
    std::string key(trimmed(body.substr(0, colon)));
    if (key.find_first_of(" \t") != std::string::npos) return;  // prose, not a "Key: value" field
    std::string value(trimmed(body.substr(colon + 1)));
    header_.fields[key] = value;
    std::optional<std::int64_t>* slot = key == "MaxNodes"        ? &header_.max_nodes
                                        : key == "MaxProcs"      ? &header_.max_procs
                                        : key == "UnixStartTime" ? &header_.unix_start_time
                                                                 : nullptr;
    if (!slot) return;
    // Values may carry a remark after the number ("128 (64 per partition)"): the number leads.
    std::string_view number = value;
    number = number.substr(0, number.find_first_of(" \t("));
    std::optional<std::int64_t> parsed = parse_integer(number);
    if (!parsed || *parsed < 0)
        throw InputError({file_name_, line_, key}, "expected a non-negative integer, found '" + value + "'");
    *slot = parsed;
}

std::optional<SwfJob> SwfReader::next() {
    while (!have_job_line_) {
        if (!read_line()) return std::nullopt;
        std::string_view line = trimmed(text_);
        have_job_line_ = !line.empty() && line.front() != ';';
    }
    have_job_line_ = false;
    return parse_job();
}

SwfJob SwfReader::parse_job() const {
    std::vector<std::string_view> fields = split_fields(text_);
    if (fields.size() != kSwfFields)
        throw InputError({file_name_, line_, "fields"},
                         "expected " + std::to_string(kSwfFields) + " fields, found " + std::to_string(fields.size()));
    auto where = [&](std::size_t i) { return SourceLocation{file_name_, line_, kSwfFieldNames[i]}; };
    auto whole = [&](std::size_t i) {
        std::optional<std::int64_t> value = parse_whole_number(fields[i]);
        if (!value) throw InputError(where(i), "expected an integer, found '" + std::string(fields[i]) + "'");
        return *value;
    };
    auto count = [&](std::size_t i) {  // a count, duration or id: -1 or >= 0
        std::int64_t value = whole(i);
        if (!known_or_unknown(static_cast<double>(value)))
            throw InputError(where(i), "expected -1 (unknown) or a value >= 0, found " + std::to_string(value));
        return value;
    };
    auto real = [&](std::size_t i) {
        std::optional<double> value = parse_real(fields[i]);
        if (!value) throw InputError(where(i), "expected a number, found '" + std::string(fields[i]) + "'");
        if (!known_or_unknown(*value))
            throw InputError(where(i), "expected -1 (unknown) or a value >= 0, found " + std::string(fields[i]));
        return *value;
    };
    SwfJob job;
    job.job_id = count(0);
    job.submit = count(1);
    if (job.submit < 0) throw InputError(where(1), "the submit time is unknown (-1)");
    job.wait = count(2);
    job.run_time = count(3);
    job.allocated_procs = count(4);
    job.average_cpu_time = real(5);
    job.used_memory = real(6);
    job.requested_procs = count(7);
    job.requested_time = count(8);
    job.requested_memory = real(9);
    job.status = whole(10);  // 0..5 in the standard; kept as written
    job.user = count(11);
    job.group = count(12);
    job.executable = count(13);
    job.queue = count(14);
    job.partition = count(15);
    job.preceding_job = count(16);
    job.think_time = count(17);
    job.line = line_;
    return job;
}

}  // namespace fairway::sim
