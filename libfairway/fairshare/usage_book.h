// UsageBook: every windowed usage figure Slurm's limits and reports read, one WindowedUsageLedger
// per meter, all with the same window, half-life and buckets.
//
// A meter is what is counted and for whom:
//   - billing-seconds of associations: the fair-share usage (sshare RawUsage);
//   - billing-seconds of QOS (QOS RawUsage);
//   - wall seconds of associations and QOS (GrpWall);
//   - TRES-seconds of one TRES, by Slurm's TRES id, of associations and QOS (GrpTRESMins, sshare's
//     GrpTRESRaw).
// So a GrpTRESMins or GrpWall limit becomes a rolling budget over the same window as fair-share: usage
// leaves it exactly W after it was charged, with no reset cliff.
//
// A job's usage is charged at its own association (the adapter sums subtrees, as Slurm propagates
// usage up the tree) and at up to two QOS (the job's and its partition's, when they differ). Rates
// are per second and already include the QOS UsageFactor, as multifactor charges them.
//
// An owner whose usage was reset (forget) is charged nothing from before the reset again, whatever
// charges arrive later: the rule that keeps a rebuild from accounting from bringing reset usage back
// (usage_resets.h).
//
// QOS usage is kept twice: decayed with the half-life, and undecayed (a pure window) for QOS with
// Slurm's NoDecay flag, typically an allocation budget whose GrpTRESMins should not melt. Keeping
// both lets a QOS change its flag without a rebuild; QOS are few, so the second copy costs little.
//
// Errors: as WindowedUsageLedger (InputError, keys "billing_seconds", "time", "state"). A charge is
// checked whole before any meter changes, so a rejected charge leaves the book unchanged.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fairshare/usage_ledger.h"
#include "fairshare/usage_records.h"
#include "fairshare/usage_resets.h"

namespace fairway::fairshare {

using QosId = std::uint32_t;
using TresId = std::uint32_t;

enum class Owner : std::uint8_t {
    association = 0,
    qos = 1,            // decayed with the half-life
    qos_undecayed = 2,  // the same usage without decay (QOS flag NoDecay)
};

struct Meter {
    Owner owner = Owner::association;
    std::int64_t what = kBilling;  // kBilling, kWall, or a TRES id (> 0)

    static constexpr std::int64_t kBilling = -1;
    static constexpr std::int64_t kWall = -2;

    static Meter billing(Owner owner) { return {owner, kBilling}; }
    static Meter wall(Owner owner) { return {owner, kWall}; }
    static Meter tres(Owner owner, TresId id) { return {owner, static_cast<std::int64_t>(id)}; }
    bool is_tres() const noexcept { return what > 0; }
    auto operator<=>(const Meter&) const = default;
};

// Who a job's usage belongs to. QOS id 0 = none.
struct UsageOwners {
    AssocId association = 0;
    std::array<QosId, 2> qos{};  // the job's QOS, and its partition's QOS when that differs
};

// What one second of a job costs on each meter, UsageFactor included.
struct UsageRates {
    double billing = 0;                           // billing TRES x UsageFactor
    double wall = 0;                              // UsageFactor
    std::vector<std::pair<TresId, double>> tres;  // TRES count x UsageFactor, per TRES id
};

class UsageBook {
public:
    // Throws InputError when the configuration is unusable.
    explicit UsageBook(const LedgerConfig& config = {});
    // An empty book whose clock is `now`: charges older than the window are dropped on arrival, so
    // a rebuild can charge accounting records in any order without keeping them.
    static UsageBook starting_at(const LedgerConfig& config, TimePoint now);

    const LedgerConfig& config() const noexcept { return config_; }
    TimePoint clock() const noexcept { return clock_; }

    // Charges `seconds` of usage at `rates`, ending at `at`, to every meter of `owners` with a
    // non-zero rate. Throws InputError (the book unchanged) for negative, NaN, inf or huge amounts
    // or an out-of-range time. Returns false when the charge was older than the window.
    bool charge(const UsageOwners& owners, const UsageRates& rates, double seconds, TimePoint at);
    // Charges `rates` per second over every second of [from, to) to every meter of `owners`
    // (WindowedUsageLedger::charge_span: cutting the span anywhere changes nothing). Throws as
    // charge(); returns false when some seconds were older than the window.
    bool charge_span(const UsageOwners& owners, const UsageRates& rates, TimePoint from, TimePoint to);

    // Moves every meter's clock to `now` (WindowedUsageLedger::advance); meters left empty are
    // dropped, and resets older than the look-back horizon. Returns the work done, summed over meters.
    AdvanceStats advance(TimePoint now);

    // Fair-share usage (association billing); always present, possibly empty.
    const WindowedUsageLedger& fair_share_usage() const;
    // One meter's ledger, or nullptr when the meter holds no usage.
    const WindowedUsageLedger* find(const Meter& meter) const;
    // The meters that hold usage, in ascending order.
    std::vector<Meter> meters() const;
    std::size_t meter_count() const noexcept { return ledgers_.size(); }

    // Ids that hold usage on some meter of this owner kind (QOS: either kind), ascending.
    std::vector<std::uint32_t> ids(Owner owner) const;

    // Forgets every meter's usage of one association or QOS (an administrator reset it, or it was
    // removed) and charges it nothing from before `at` again; a QOS forgets both its decayed and
    // its undecayed usage.
    void forget(Owner owner, std::uint32_t id, TimePoint at);
    // Takes resets kept elsewhere (the adapter's file): an owner reset after this book's clock
    // (a book saved before the reset) forgets its usage; every charge from now on respects them.
    void adopt_resets(const UsageResets& resets);
    const UsageResets& resets() const noexcept { return resets_; }

    // Versioned, CRC32-checked bytes: each meter's ledger in WindowedUsageLedger's format (not the
    // resets: resets().serialize()).
    // deserialize() throws InputError (key "state") on any defect, including a ledger configured
    // unlike the book (undecayed meters: with half-life 0) and a missing association billing meter.
    std::string serialize() const;
    static UsageBook deserialize(std::string_view bytes);
    // True when `bytes` start like a WindowedUsageLedger alone (fairway's state before the book):
    // the caller rebuilds everything from accounting rather than lose the other meters silently.
    static bool is_single_ledger(std::string_view bytes);

    // Usage delivered from outside Slurm (usage_records.h): per source, the highest record sequence
    // charged into this book. Kept in the book so that one atomic write saves the usage and what it
    // came from together; a rebuilt book has none, so the records still kept are charged again.
    const DeliveryWatermarks& delivered() const noexcept { return delivered_; }
    void set_delivered(const std::string& source, std::uint64_t sequence) { delivered_[source] = sequence; }

private:
    WindowedUsageLedger& ledger(const Meter& meter);
    // The configuration of an owner's meters: the book's, without decay for qos_undecayed.
    static LedgerConfig config_for(const LedgerConfig& book, Owner owner);
    void charge_owner(Owner owner, std::uint32_t id, const UsageRates& rates, double seconds, TimePoint at);
    bool charge_owner_span(Owner owner, std::uint32_t id, const UsageRates& rates, TimePoint from, TimePoint to);

    LedgerConfig config_;
    TimePoint clock_{};
    std::map<Meter, WindowedUsageLedger> ledgers_;
    UsageResets resets_;
    DeliveryWatermarks delivered_;
};

}  // namespace fairway::fairshare
