#include "fairshare/usage_records.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "common/file_descriptor.h"

namespace fairway::fairshare {

std::string association_key(std::string_view account, std::string_view user) {
    std::string key(account);
    if (!user.empty()) key.append("/").append(user);
    return key;
}

AssociationName split_association_key(std::string_view key) {
    const std::size_t slash = key.find('/');
    if (slash == std::string_view::npos) return {std::string(key), ""};
    return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}
namespace {

constexpr std::string_view kMagicLine = "fairway-usage 1";
constexpr int kSequenceDigits = 20;

bool source_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
}

// Slurm account and user names: no spaces, no '/', printable ASCII.
bool valid_name(std::string_view name) {
    return !name.empty() && name.size() <= 64 &&
           std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 127 && c != '/'; });
}

template <typename T>
std::optional<T> number(std::string_view text) {
    T value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

std::optional<double> real(std::string_view text) {
    // from_chars for double needs GCC 11; strtod on a bounded copy accepts only the whole field.
    if (text.empty() || text.size() > 40) return std::nullopt;
    const std::string copy(text);
    char* end = nullptr;
    const double value = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

std::vector<std::string_view> fields(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t next = std::min(text.find(' ', pos), text.size());
        if (next > pos) out.push_back(text.substr(pos, next - pos));
        pos = next + 1;
    }
    return out;
}

class RecordParser {
public:
    RecordParser(std::string_view file, TimePoint now) : file_(file), now_(now) {}

    [[noreturn]] void fail(int line, const std::string& key, const std::string& problem) const {
        throw InputError({file_, line, key}, problem);
    }

    void parse_line(std::string_view line, int number, UsageRecord& record) {
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos) fail(number, "", "expected key=value");
        const std::string_view key = line.substr(0, equals);
        const std::string_view value = line.substr(equals + 1);
        if (key == "source") record.source = value;
        else if (key == "sequence") record.sequence = sequence(value, number);
        else if (key == "charge") record.charges.push_back(charge(value, number));
        else fail(number, std::string(key), "unknown key");
    }

private:
    std::uint64_t sequence(std::string_view value, int line) const {
        const auto n = number<std::uint64_t>(value);
        if (!n || *n == 0) fail(line, "sequence", "not a positive integer: '" + std::string(value) + "'");
        return *n;
    }

    TimePoint time(std::string_view value, int line, const char* key) const {
        const auto seconds = number<std::int64_t>(value);
        if (!seconds || *seconds < 0 || *seconds > kMaxEpochSeconds)
            fail(line, key, "not a time in Unix seconds: '" + std::string(value) + "'");
        return from_unix_seconds(*seconds);
    }

    void association(std::string_view value, int line, ExternalCharge& charge) const {
        AssociationName name = split_association_key(value);
        charge.account = std::move(name.account);
        charge.user = std::move(name.user);
        const bool with_user = value.find('/') != std::string_view::npos;
        if (!valid_name(charge.account) || (with_user && !valid_name(charge.user)))
            fail(line, "charge.association", "not an account or account/user: '" + std::string(value) + "'");
    }

    ExternalCharge charge(std::string_view value, int line) const {
        const auto f = fields(value);
        if (f.size() != 6) fail(line, "charge", "expected: association start end gpus billing workload");
        ExternalCharge c;
        c.line = line;
        association(f[0], line, c);
        c.start = time(f[1], line, "charge.start");
        c.end = time(f[2], line, "charge.end");
        if (c.end < c.start) fail(line, "charge.end", "ends before it starts");
        if (c.end > now_ + kClockSlack) fail(line, "charge.end", "ends in the future");
        if (c.end - c.start > kMaxChargeSpan) fail(line, "charge.end", "spans more than 366 days");
        const auto gpus = number<std::int64_t>(f[3]);
        if (!gpus || *gpus < 1 || *gpus > kMaxChargeGpus)
            fail(line, "charge.gpus", "not a GPU count in 1.." + std::to_string(kMaxChargeGpus));
        c.gpus = *gpus;
        const auto billing = real(f[4]);
        if (!billing || *billing < 0 || *billing > kMaxBillingPerGpu * static_cast<double>(c.gpus))
            fail(line, "charge.billing", "not a billing rate in 0..gpus x " + std::to_string(kMaxBillingPerGpu));
        c.billing_rate = *billing;
        c.workload = f[5];
        return c;
    }

    std::string file_;
    TimePoint now_;
};

}  // namespace

bool valid_usage_source(std::string_view source) {
    return !source.empty() && source.size() <= 63 && std::all_of(source.begin(), source.end(), source_char);
}

std::string usage_record_name(std::string_view source, std::uint64_t sequence) {
    char digits[kSequenceDigits + 1];
    std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(sequence));
    return std::string(source) + "-" + digits + std::string(kUsageRecordSuffix);
}

std::optional<RecordName> parse_usage_record_name(std::string_view name) {
    if (!name.ends_with(kUsageRecordSuffix)) return std::nullopt;
    name.remove_suffix(kUsageRecordSuffix.size());
    const std::size_t dash = name.rfind('-');
    if (dash == std::string_view::npos || name.size() - dash - 1 != kSequenceDigits) return std::nullopt;
    const auto sequence = number<std::uint64_t>(name.substr(dash + 1));
    const std::string_view source = name.substr(0, dash);
    if (!sequence || *sequence == 0 || !valid_usage_source(source)) return std::nullopt;
    return RecordName{std::string(source), *sequence};
}

std::string format_usage_record(const UsageRecord& record) {
    std::ostringstream out;
    out.precision(17);
    out << kMagicLine << "\nsource=" << record.source << "\nsequence=" << record.sequence << "\n";
    for (const ExternalCharge& c : record.charges)
        out << "charge=" << c.association() << ' ' << c.start.time_since_epoch().count() << ' '
            << c.end.time_since_epoch().count() << ' ' << c.gpus << ' ' << c.billing_rate << ' ' << c.workload << "\n";
    return out.str();
}

UsageRecord parse_usage_record(std::string_view text, std::string_view file, TimePoint now) {
    RecordParser parser(file, now);
    if (text.size() > kMaxUsageRecordBytes)
        parser.fail(0, "", "larger than " + std::to_string(kMaxUsageRecordBytes) + " bytes");
    if (!text.ends_with('\n')) parser.fail(0, "", "incomplete (no final newline)");
    UsageRecord record;
    int number = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t end = text.find('\n', pos);
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++number;
        if (number == 1) {
            if (line != kMagicLine) parser.fail(1, "", "not a fairway usage record (first line)");
            continue;
        }
        parser.parse_line(line, number, record);
    }
    const auto name = parse_usage_record_name(std::string_view(file).substr(std::string_view(file).rfind('/') + 1));
    if (!name) parser.fail(0, "", "not a usage record's file name");
    if (record.source != name->source) parser.fail(0, "source", "does not match the file name");
    if (record.sequence != name->sequence) parser.fail(0, "sequence", "does not match the file name");
    return record;
}

bool record_is_new(const RecordName& name, const DeliveryWatermarks& watermarks) {
    const auto found = watermarks.find(name.source);
    return found == watermarks.end() || name.sequence > found->second;
}

std::vector<RecordName> new_records(const std::vector<std::string>& file_names, const DeliveryWatermarks& watermarks) {
    std::vector<RecordName> out;
    for (const std::string& file : file_names) {
        auto name = parse_usage_record_name(file);
        if (name && record_is_new(*name, watermarks)) out.push_back(std::move(*name));
    }
    std::sort(out.begin(), out.end(), [](const RecordName& a, const RecordName& b) {
        return a.source != b.source ? a.source < b.source : a.sequence < b.sequence;
    });
    return out;
}

std::string read_trusted_record(const std::string& path, uid_t owner) {
    const auto refuse = [&](const std::string& problem) { throw InputError({path, 0, ""}, problem); };
    const FileDescriptor fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) refuse(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    std::string text;
    const bool usable = fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_uid == owner || st.st_uid == 0) &&
                        (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 &&
                        st.st_size <= static_cast<off_t>(kMaxUsageRecordBytes);
    if (usable) {
        text.resize(static_cast<std::size_t>(st.st_size));
        const ssize_t got = pread(fd.get(), text.data(), text.size(), 0);
        if (got != static_cast<ssize_t>(text.size())) text.clear();
    }
    if (!usable) refuse("not a regular file owned by SlurmUser or root, writable by no one else, of at most 256 KiB");
    return text;
}

}  // namespace fairway::fairshare
