// Usage records: GPU time used outside Slurm (on Kubernetes, metered by fairway-bridge) that the
// plugin charges into the same windowed ledger as Slurm's own jobs.
//
// A record is one small text file in a spool directory, written atomically by one source (a
// bridge) and named `<source>-<sequence, 20 digits>.usage`, so that the names of one source sort
// in the order it wrote them. Its text:
//
//   fairway-usage 1
//   source=<source>
//   sequence=<n>
//   charge=<account>[/<user>] <start> <end> <gpus> <billing per second> <workload key>
//   ...
//
// Times are Unix seconds; a charge covers [start, end). The billing rate is what one second of the
// charge costs (GPUs x the GPU billing weight, as TRESBillingWeights weighs a Slurm job's GPUs); the
// workload key (no spaces) lets the source find what it metered after a restart.
//
// Exactly once: the reader remembers, per source, the highest sequence it has charged (its
// watermark, saved with the ledger in one atomic write); a record at or below the watermark was
// charged already and is skipped, one above is charged, in sequence order. Rebuilding the ledger
// starts from no watermarks, so every record still in the spool is charged again into the new
// ledger, once.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {

inline constexpr std::string_view kUsageRecordSuffix = ".usage";
// Largest record file read (a record holds a period's charges of one source).
inline constexpr std::size_t kMaxUsageRecordBytes = 256 * 1024;
// Most GPUs one charge may name, and most billing per GPU-second: far above any real workload.
inline constexpr std::int64_t kMaxChargeGpus = 100000;
inline constexpr double kMaxBillingPerGpu = 10000;
// Longest span one charge may cover, and how far ahead of the reader's clock its end may lie.
inline constexpr Seconds kMaxChargeSpan{366LL * 86400};
inline constexpr Seconds kClockSlack{60};

// An association by name, "account" or "account/user", as usage records and fairway-bridge's
// usage.associations write it: the one way to join and to split such a name.
struct AssociationName {
    std::string account;
    std::string user;  // empty: the account's own association
};
std::string association_key(std::string_view account, std::string_view user);
AssociationName split_association_key(std::string_view key);

struct ExternalCharge {
    std::string account;
    std::string user;  // empty: the account's own association
    TimePoint start;
    TimePoint end;
    std::int64_t gpus = 0;
    double billing_rate = 0;  // per second
    std::string workload;
    int line = 0;  // in the record's text

    std::string association() const { return association_key(account, user); }
    double billing_seconds() const { return billing_rate * static_cast<double>((end - start).count()); }
};

struct UsageRecord {
    std::string source;
    std::uint64_t sequence = 0;
    std::vector<ExternalCharge> charges;
};

// The name a record of `source` with `sequence` has in the spool.
std::string usage_record_name(std::string_view source, std::uint64_t sequence);
// (source, sequence) of a spool file name, or nullopt when it is not a record's name.
struct RecordName {
    std::string source;
    std::uint64_t sequence = 0;
};
std::optional<RecordName> parse_usage_record_name(std::string_view file_name);
// True when `source` may name a source: 1 to 63 of [A-Za-z0-9._] (no '-': it ends the source in a file name).
bool valid_usage_source(std::string_view source);

// The text of a record (what the source writes).
std::string format_usage_record(const UsageRecord& record);

// The spool's name under StateSaveLocation.
inline constexpr std::string_view kUsageSpoolName = "fairway_usage";

// The text of the record file at `path`, read only when it can be trusted: a regular file (no
// symlink) owned by `owner` (SlurmUser) or root, writable by neither its group nor others, of at
// most kMaxUsageRecordBytes. Throws InputError naming the path otherwise, or when it cannot be read.
std::string read_trusted_record(const std::string& path, uid_t owner);

// Parses and validates a record read from `file` (its name in the spool) at `now`: the format, the
// source and sequence matching the file name, and each charge (start <= end, end not after now +
// kClockSlack, span <= kMaxChargeSpan, 1..kMaxChargeGpus GPUs, a finite billing rate of at most
// kMaxBillingPerGpu per GPU). Throws InputError naming the file, the line and the key.
UsageRecord parse_usage_record(std::string_view text, std::string_view file, TimePoint now);

// Per source, the highest sequence charged.
using DeliveryWatermarks = std::map<std::string, std::uint64_t, std::less<>>;

// Whether a record named `name` is still to be charged under `watermarks`.
bool record_is_new(const RecordName& name, const DeliveryWatermarks& watermarks);

// The names of records still to be charged, in the order to charge them (by source, then sequence).
std::vector<RecordName> new_records(const std::vector<std::string>& file_names, const DeliveryWatermarks& watermarks);

}  // namespace fairway::fairshare
