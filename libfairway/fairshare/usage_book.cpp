#include "fairshare/usage_book.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "fairshare/byte_codec.h"
#include "fairshare/run_charges.h"

namespace fairway::fairshare {
namespace {

const Meter kFairShareMeter = Meter::billing(Owner::association);

ResetOwner reset_owner(Owner owner) { return owner == Owner::association ? ResetOwner::association : ResetOwner::qos; }

// Every amount a charge would add, so all are checked before any meter changes.
void check_amounts(const UsageRates& rates, double seconds, TimePoint at) {
    check_charge(seconds, at);
    check_charge(rates.billing * seconds, at);
    check_charge(rates.wall * seconds, at);
    for (const auto& [id, rate] : rates.tres) check_charge(rate * seconds, at);
}

}  // namespace

UsageBook::UsageBook(const LedgerConfig& config) : config_(config.validated()) {
    ledgers_.emplace(kFairShareMeter, WindowedUsageLedger(config_));
}

UsageBook UsageBook::starting_at(const LedgerConfig& config, TimePoint now) {
    check_time(now, "time");
    UsageBook book(config);
    book.advance(now);
    return book;
}

WindowedUsageLedger& UsageBook::ledger(const Meter& meter) {
    auto found = ledgers_.find(meter);
    if (found != ledgers_.end()) return found->second;
    WindowedUsageLedger fresh(config_for(config_, meter.owner));
    // A new meter starts at the book's clock, so it drops what the others drop.
    fresh.advance(clock_);
    return ledgers_.emplace(meter, std::move(fresh)).first->second;
}

void UsageBook::charge_owner(Owner owner, std::uint32_t id, const UsageRates& rates, double seconds, TimePoint at) {
    if (resets_.counts_from(reset_owner(owner), id, at) > at) return;
    if (rates.billing > 0) ledger(Meter::billing(owner)).charge(id, rates.billing * seconds, at);
    if (rates.wall > 0) ledger(Meter::wall(owner)).charge(id, rates.wall * seconds, at);
    for (const auto& [tres, rate] : rates.tres)
        if (rate > 0) ledger(Meter::tres(owner, tres)).charge(id, rate * seconds, at);
}

bool UsageBook::charge(const UsageOwners& owners, const UsageRates& rates, double seconds, TimePoint at) {
    check_amounts(rates, seconds, at);
    if (seconds == 0) return true;
    // Every meter has the book's clock (new ones are advanced to it), so one verdict on age holds for all.
    if (!ledgers_.at(kFairShareMeter).accepts(at)) return false;
    if (at > clock_) clock_ = at;
    charge_owner(Owner::association, owners.association, rates, seconds, at);
    for (QosId qos : owners.qos)
        if (qos != 0) {
            charge_owner(Owner::qos, qos, rates, seconds, at);
            charge_owner(Owner::qos_undecayed, qos, rates, seconds, at);
        }
    return true;
}

bool UsageBook::charge_owner_span(Owner owner, std::uint32_t id, const UsageRates& rates, TimePoint from,
                                  TimePoint to) {
    from = resets_.counts_from(reset_owner(owner), id, from);
    if (to <= from) return true;
    bool counted = true;
    if (rates.billing > 0) counted = ledger(Meter::billing(owner)).charge_span(id, rates.billing, from, to) && counted;
    if (rates.wall > 0) counted = ledger(Meter::wall(owner)).charge_span(id, rates.wall, from, to) && counted;
    for (const auto& [tres, rate] : rates.tres)
        if (rate > 0) counted = ledger(Meter::tres(owner, tres)).charge_span(id, rate, from, to) && counted;
    return counted;
}

bool UsageBook::charge_span(const UsageOwners& owners, const UsageRates& rates, TimePoint from, TimePoint to) {
    check_time(from, "time");
    check_amounts(rates, static_cast<double>(std::max<std::int64_t>(0, (to - from).count())), to);
    if (to <= from) return true;
    if (to > clock_) clock_ = to;
    bool counted = charge_owner_span(Owner::association, owners.association, rates, from, to);
    for (QosId qos : owners.qos)
        if (qos != 0) {
            counted = charge_owner_span(Owner::qos, qos, rates, from, to) && counted;
            counted = charge_owner_span(Owner::qos_undecayed, qos, rates, from, to) && counted;
        }
    return counted;
}

AdvanceStats UsageBook::advance(TimePoint now) {
    check_time(now, "time");
    AdvanceStats total;
    for (auto it = ledgers_.begin(); it != ledgers_.end();) {
        const AdvanceStats stats = it->second.advance(now);
        total.associations_visited += stats.associations_visited;
        total.buckets_expired += stats.buckets_expired;
        total.clock_went_backwards = total.clock_went_backwards || stats.clock_went_backwards;
        const bool drop = it->first != kFairShareMeter && it->second.association_count() == 0;
        it = drop ? ledgers_.erase(it) : std::next(it);
    }
    clock_ = std::max(clock_, now);
    resets_.drop_before(usage_horizon(config_, clock_));
    return total;
}

const WindowedUsageLedger& UsageBook::fair_share_usage() const { return ledgers_.at(kFairShareMeter); }

const WindowedUsageLedger* UsageBook::find(const Meter& meter) const {
    const auto found = ledgers_.find(meter);
    return found == ledgers_.end() ? nullptr : &found->second;
}

std::vector<Meter> UsageBook::meters() const {
    std::vector<Meter> all;
    all.reserve(ledgers_.size());
    for (const auto& [meter, ledger] : ledgers_)
        if (ledger.association_count() > 0) all.push_back(meter);
    return all;
}

namespace {

bool same_records(Owner a, Owner b) {
    const auto is_qos = [](Owner o) { return o != Owner::association; };
    return a == b || (is_qos(a) && is_qos(b));
}

}  // namespace

std::vector<std::uint32_t> UsageBook::ids(Owner owner) const {
    std::vector<std::uint32_t> all;
    for (const auto& [meter, ledger] : ledgers_) {
        if (!same_records(meter.owner, owner)) continue;
        const std::vector<AssocId> some = ledger.associations();
        all.insert(all.end(), some.begin(), some.end());
    }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

LedgerConfig UsageBook::config_for(const LedgerConfig& book, Owner owner) {
    LedgerConfig config = book;
    if (owner == Owner::qos_undecayed) config.half_life = Seconds{0};
    return config;
}

void UsageBook::forget(Owner owner, std::uint32_t id, TimePoint at) {
    resets_.record(reset_owner(owner), id, at);
    for (auto& [meter, ledger] : ledgers_)
        if (same_records(meter.owner, owner)) ledger.forget(id);
}

void UsageBook::adopt_resets(const UsageResets& resets) {
    for (const UsageReset& reset : resets.all()) {
        const Owner owner = reset.owner == ResetOwner::association ? Owner::association : Owner::qos;
        if (reset.at > clock_) forget(owner, reset.id, reset.at);
        else resets_.record(reset.owner, reset.id, reset.at);
    }
    resets_.drop_before(usage_horizon(config_, clock_));
}

// ---- State format (see README.md) ----

namespace {

constexpr char kMagic[4] = {'F', 'W', 'U', 'B'};
constexpr char kLedgerMagic[4] = {'F', 'W', 'L', 'G'};
// Version 2 adds the delivery watermarks after the meters; version 1 (none) is still read.
constexpr std::uint16_t kVersion = 2;
// Fixed part: magic, version, reserved, clock, meter count.
constexpr std::size_t kHeaderBytes = 4 + 2 + 2 + 8 + 4;
// Per meter before its ledger: owner, 3 reserved, what, ledger length.
constexpr std::size_t kMeterBytes = 1 + 3 + 8 + 4;

Meter read_meter(codec::Reader& in) {
    const auto owner = in.little<std::uint8_t>();
    in.take(3);
    const auto what = in.little<std::int64_t>();
    if (owner > static_cast<std::uint8_t>(Owner::qos_undecayed))
        codec::corrupt("unknown meter owner " + std::to_string(owner));
    const bool known = what == Meter::kBilling || what == Meter::kWall || (what > 0 && what <= 0xFFFFFFFFLL);
    if (!known) codec::corrupt("unknown meter " + std::to_string(what));
    return Meter{static_cast<Owner>(owner), what};
}

void write_delivered(codec::Writer& out, const DeliveryWatermarks& delivered) {
    out.little(static_cast<std::uint32_t>(delivered.size()));
    for (const auto& [source, sequence] : delivered) {
        out.little(static_cast<std::uint16_t>(source.size()));
        out.bytes(source);
        out.little(sequence);
    }
}

DeliveryWatermarks read_delivered(codec::Reader& in) {
    DeliveryWatermarks delivered;
    const auto count = codec::read_count(in, 2 + 8, "delivery");
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::string source(in.take(in.little<std::uint16_t>()));
        if (!valid_usage_source(source)) codec::corrupt("a delivery source is not a valid name");
        if (!delivered.empty() && !(delivered.rbegin()->first < source)) codec::corrupt("deliveries out of order");
        delivered.emplace(source, in.little<std::uint64_t>());
    }
    return delivered;
}

}  // namespace

std::string UsageBook::serialize() const {
    codec::Writer out;
    codec::write_preamble(out, kMagic, kVersion);
    out.little(clock_.time_since_epoch().count());
    out.little(static_cast<std::uint32_t>(ledgers_.size()));
    for (const auto& [meter, ledger] : ledgers_) {
        const std::string bytes = ledger.serialize();
        out.little(static_cast<std::uint8_t>(meter.owner));
        out.bytes("\0\0\0", 3);
        out.little(meter.what);
        out.little(static_cast<std::uint32_t>(bytes.size()));
        out.bytes(bytes);
    }
    write_delivered(out, delivered_);
    codec::seal(out);
    return out.take();
}

UsageBook UsageBook::deserialize(std::string_view bytes) {
    codec::Reader in(codec::unseal(bytes, kMagic, kHeaderBytes));
    const auto version = codec::read_preamble(in);
    if (version != 1 && version != kVersion) codec::corrupt("unsupported version");
    const TimePoint clock{Seconds{in.little<std::int64_t>()}};
    if (clock.time_since_epoch().count() < 0 || clock.time_since_epoch().count() > kMaxEpochSeconds)
        codec::corrupt("a time is out of range");
    const auto count = codec::read_count(in, kMeterBytes, "meter");
    std::map<Meter, WindowedUsageLedger> ledgers;
    for (std::uint32_t i = 0; i < count; ++i) {
        const Meter meter = read_meter(in);
        if (!ledgers.empty() && !(ledgers.rbegin()->first < meter)) codec::corrupt("meters out of order or repeated");
        ledgers.emplace(meter, WindowedUsageLedger::deserialize(in.take(in.little<std::uint32_t>())));
    }
    DeliveryWatermarks delivered = version >= 2 ? read_delivered(in) : DeliveryWatermarks{};
    if (in.remaining() != 0) codec::corrupt("trailing bytes");
    const auto fair_share = ledgers.find(kFairShareMeter);
    if (fair_share == ledgers.end()) codec::corrupt("no fair-share usage");
    const LedgerConfig config = fair_share->second.config();
    for (const auto& [meter, ledger] : ledgers)
        if (!(ledger.config() == config_for(config, meter.owner))) codec::corrupt("meters kept with different windows");
    UsageBook book(config);
    book.clock_ = clock;
    for (const auto& [meter, ledger] : ledgers) book.clock_ = std::max(book.clock_, ledger.clock());
    book.ledgers_ = std::move(ledgers);
    book.delivered_ = std::move(delivered);
    return book;
}

bool UsageBook::is_single_ledger(std::string_view bytes) {
    return bytes.size() >= sizeof kLedgerMagic && std::equal(kLedgerMagic, kLedgerMagic + 4, bytes.begin());
}

}  // namespace fairway::fairshare
