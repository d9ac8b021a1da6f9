// fairway-report's offline input: settings, the association tree and usage records in one JSON file
// (see tools/README.md for the form). Usage records are streamed, so a million of them cost no
// more memory than ten.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "fairshare/association_tree.h"
#include "fairshare/fair_share.h"
#include "fairshare/usage_ledger.h"

namespace fairway::report {

using fairshare::TimePoint;

struct ReportSettings {
    TimePoint now{};
    Seconds window{14 * 86400};  // fairshare::kInfiniteWindow for "infinite"
    Seconds half_life{7 * 86400};
    Seconds bucket{0};  // 0 = the core's default (W/100)
    fairshare::FairShareOptions fair_share;
    std::uint32_t weight_fairshare = 10000;  // PriorityWeightFairshare, for explain
};

// One association as the input names it: accounts have a parent account; user associations
// belong to `account` and have no parent of their own.
struct AssociationSpec {
    std::string account;
    std::string user;    // empty for an account
    std::string parent;  // accounts only; empty for the root
    fairshare::Shares shares;
    SourceLocation where;  // where it was defined, for messages
};

// One accounting record: usage charged at `end`.
struct UsageSample {
    std::string account;
    std::string user;  // empty: charged to the account association itself
    // With a start, the amounts were used evenly over [start, end), and the record is charged as
    // the plugin charges a job's run (fairshare/run_charges.h); without, all at `end`.
    std::optional<TimePoint> start;
    TimePoint end{};
    double billing_seconds = 0;
    double gpu_seconds = 0;   // optional in the input; for the GPU-hours column
    double cpu_seconds = 0;   // optional in the input; for the CPU-hours column
    bool kubernetes = false;  // Kubernetes usage (fairway-bridge's records), not a Slurm job's
};

struct InputHeader {
    std::string source;  // the file name, for messages
    ReportSettings settings;
    std::vector<AssociationSpec> associations;
};

// Receives the input in order: begin() once, before any add().
class UsageConsumer {
public:
    virtual ~UsageConsumer() = default;
    virtual void begin(const InputHeader& header) = 0;
    // `where` names the record (file, line, "usage[i]") for messages about it.
    virtual void add(const UsageSample& sample, const SourceLocation& where) = 0;
};

// Reads the offline input from `file`. Throws InputError naming the file, line and key for malformed
// JSON, unknown or mistyped keys, bad times and durations, and negative or non-finite usage. When
// the settings come after the usage in the file, records are held until the end (still correct,
// just not bounded).
InputHeader read_offline_input(std::FILE* file, const std::string& file_name, UsageConsumer& consumer);

}  // namespace fairway::report
