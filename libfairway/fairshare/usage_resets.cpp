#include "fairshare/usage_resets.h"

#include <algorithm>
#include <iterator>

#include "fairshare/byte_codec.h"

namespace fairway::fairshare {

void UsageResets::record(ResetOwner owner, std::uint32_t id, TimePoint at) {
    check_time(at, "time");
    TimePoint& kept = at_[{owner, id}];
    kept = std::max(kept, at);
}

TimePoint UsageResets::counts_from(ResetOwner owner, std::uint32_t id, TimePoint from) const {
    const auto found = at_.find({owner, id});
    return found == at_.end() ? from : std::max(from, found->second);
}

void UsageResets::drop_before(TimePoint horizon) {
    std::erase_if(at_, [&](const auto& entry) { return entry.second < horizon; });
}

std::vector<UsageReset> UsageResets::all() const {
    std::vector<UsageReset> resets;
    resets.reserve(at_.size());
    for (const auto& [who, at] : at_) resets.push_back({who.first, who.second, at});
    return resets;
}

// ---- State format (see README.md) ----

namespace {

constexpr char kMagic[4] = {'F', 'W', 'R', 'S'};
constexpr std::uint16_t kVersion = 1;
// Fixed part: magic, version, reserved, count.
constexpr std::size_t kHeaderBytes = 4 + 2 + 2 + 4;
// Per reset: owner, 3 reserved, id, time.
constexpr std::size_t kResetBytes = 1 + 3 + 4 + 8;

}  // namespace

std::string UsageResets::serialize() const {
    codec::Writer out;
    codec::write_preamble(out, kMagic, kVersion);
    out.little(static_cast<std::uint32_t>(at_.size()));
    for (const auto& [who, at] : at_) {
        out.little(static_cast<std::uint8_t>(who.first));
        out.bytes("\0\0\0", 3);
        out.little(who.second);
        out.little(at.time_since_epoch().count());
    }
    codec::seal(out);
    return out.take();
}

UsageResets UsageResets::deserialize(std::string_view bytes) {
    codec::Reader in(codec::unseal(bytes, kMagic, kHeaderBytes));
    if (codec::read_preamble(in) != kVersion) codec::corrupt("unsupported version");
    const auto count = codec::read_count(in, kResetBytes, "reset");
    UsageResets resets;
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto owner = in.little<std::uint8_t>();
        in.take(3);
        const auto id = in.little<std::uint32_t>();
        const auto seconds = in.little<std::int64_t>();
        if (owner > static_cast<std::uint8_t>(ResetOwner::qos)) codec::corrupt("unknown reset owner");
        if (seconds < 0 || seconds > kMaxEpochSeconds) codec::corrupt("a time is out of range");
        const std::pair key{static_cast<ResetOwner>(owner), id};
        if (!resets.at_.empty() && !(std::prev(resets.at_.end())->first < key))
            codec::corrupt("resets out of order or repeated");
        resets.at_.emplace(key, TimePoint{Seconds{seconds}});
    }
    if (in.remaining() != 0) codec::corrupt("trailing bytes");
    return resets;
}

}  // namespace fairway::fairshare
