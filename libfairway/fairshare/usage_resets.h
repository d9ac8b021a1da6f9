// UsageResets: when each association's or QOS's usage was last forgotten, so that nothing charged
// to it before then ever counts again.
//
// An administrator's `sacctmgr modify user|account ... set RawUsage=0` (or `modify qos`) zeroes
// usage in slurmctld only; accounting keeps every job record. A book rebuilt from accounting (the
// state file missing or corrupt, the window changed), or one that charges jobs slurmctld forgot,
// would bring that usage back. The book therefore keeps the time of each reset and charges an
// owner nothing from before it (UsageBook::charge_span); the adapter keeps them in their own file,
// beside the usage state, so that they outlive a usage state that is lost. A reset older than the
// look-back horizon (run_charges.h) limits nothing the horizon does not, and is dropped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {

// Whose usage was reset: an association, or a QOS (both its decayed and undecayed usage).
// The file, in slurmctld's StateSaveLocation, in which priority/fairway keeps them and from which
// fairway-report reads them.
inline constexpr const char* kResetsFileName = "fairway_priority_resets";

enum class ResetOwner : std::uint8_t { association = 0, qos = 1 };

struct UsageReset {
    ResetOwner owner = ResetOwner::association;
    std::uint32_t id = 0;
    TimePoint at{};
    bool operator==(const UsageReset&) const = default;
};

class UsageResets {
public:
    // Remembers that `owner` `id`'s usage before `at` is gone (a later reset replaces an earlier one).
    void record(ResetOwner owner, std::uint32_t id, TimePoint at);
    // The first second that still counts for `owner` `id` of a span starting at `from`.
    TimePoint counts_from(ResetOwner owner, std::uint32_t id, TimePoint from) const;
    // Drops the resets before `horizon`.
    void drop_before(TimePoint horizon);
    // Every reset, by owner then id.
    std::vector<UsageReset> all() const;
    bool empty() const noexcept { return at_.empty(); }

    // Versioned, CRC32-checked bytes; deserialize() throws InputError (key "state") on any defect.
    std::string serialize() const;
    static UsageResets deserialize(std::string_view bytes);

    bool operator==(const UsageResets&) const = default;

private:
    std::map<std::pair<ResetOwner, std::uint32_t>, TimePoint> at_;
};

}  // namespace fairway::fairshare
