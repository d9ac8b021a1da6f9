// FairshareParameters: fairway's part of slurm.conf's free-form PriorityParameters string.
//
//   PriorityParameters=window=14-0,bucket=2:00:00
//
// Keys (values in Slurm's duration vocabulary, see common/slurm_time.h):
//   window  the usage window W; "infinite"/"unlimited" = unbounded decay like multifactor. Default 14-0.
//   bucket  bucket width; default W/100 (window-edge error <= 1% of W). Must be >= 1 s and <= W, and
//           W/bucket <= kMaxBucketsPerWindow.
// The half-life comes from Slurm's own PriorityDecayHalfLife, which Slurm parses; the caller passes it.
// Empty text (or only spaces) gives the defaults. Unknown keys, duplicate keys, missing '=' and bad
// values throw fairway::InputError whose key() names the offending key (or "PriorityParameters" when
// the text is not key=value at all).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {

struct FairshareParameters {
    Seconds window{14 * 86400};
    Seconds bucket{0};     // 0 = derived from the window (default_bucket_width)
    Seconds half_life{0};  // copied from the caller's PriorityDecayHalfLife

    // The ledger configuration these parameters describe (bucket resolved, validated).
    LedgerConfig ledger_config() const;
    // Canonical text, e.g. "window=14-00:00:00,bucket=03:21:36" (for logs).
    std::string describe() const;
    bool operator==(const FairshareParameters&) const = default;
};

// Parses PriorityParameters. Throws InputError (see above). The result is validated as a whole
// (bucket vs window) and the error then names "bucket".
FairshareParameters parse_fairshare_parameters(std::string_view text, Seconds half_life);

// PriorityParameters also holds keys that priority/fairway's adapter reads itself, which change how
// often and how it walks the jobs, not the fair-share arithmetic: the test-only calc_period (any
// Slurm duration instead of PriorityCalcPeriod's whole minutes) and walk_shortcuts (yes/no).
inline constexpr std::string_view kCalcPeriodKey = "calc_period";
inline constexpr std::string_view kWalkShortcutsKey = "walk_shortcuts";

// PriorityParameters split into the adapter's keys (values as written, the last of each key) and
// the rest, which is what parse_fairshare_parameters takes.
struct SplitPriorityParameters {
    std::string fair_share;
    std::optional<std::string> calc_period;
    std::optional<std::string> walk_shortcuts;
};
SplitPriorityParameters split_priority_parameters(std::string_view text);

// The fair-share part of PriorityParameters as slurm.conf has it, for the programs that read it
// outside slurmctld (fairway-report, fairway-bridge). Throws as parse_fairshare_parameters does.
FairshareParameters fairshare_part_of(std::string_view priority_parameters, Seconds half_life);

// Windows longer than this are accepted but most likely a slip (days written for minutes).
inline constexpr Seconds kLongestLikelyWindow{3 * 365 * 86400};

// Valid settings that most likely do not do what was meant, one sentence each for the log: a
// half-life at or above a finite window (usage loses at most half its weight before it leaves, so
// the decay does almost nothing), a window longer than kLongestLikelyWindow. Empty when none.
std::vector<std::string> doubtful_settings(const FairshareParameters& params);

}  // namespace fairway::fairshare
