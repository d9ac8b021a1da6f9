// WindowedUsageLedger's state format (see README.md): little-endian fields, CRC-32 trailer.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "common/error.h"
#include "fairshare/byte_codec.h"
#include "fairshare/crc32.h"
#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {
namespace {

using codec::corrupt;
using codec::Reader;
using codec::Writer;

constexpr char kMagic[4] = {'F', 'W', 'L', 'G'};
constexpr std::uint16_t kVersion = 1;
constexpr std::int64_t kInfiniteOnDisk = -1;
// Fixed part: magic, version, reserved, window, half-life, bucket, clock, anchor, count.
constexpr std::size_t kHeaderBytes = 4 + 2 + 2 + 5 * 8 + 4;
constexpr std::size_t kAccountBytes = 4 + 8 + 4;
constexpr std::size_t kBucketBytes = 8 + 8;

std::int64_t window_on_disk(Seconds window) { return window == kInfiniteWindow ? kInfiniteOnDisk : window.count(); }

LedgerConfig read_config(Reader& in) {
    LedgerConfig config;
    const auto window = in.little<std::int64_t>();
    config.window = window == kInfiniteOnDisk ? kInfiniteWindow : Seconds{window};
    config.half_life = Seconds{in.little<std::int64_t>()};
    config.bucket = Seconds{in.little<std::int64_t>()};
    if (config.bucket.count() == 0) corrupt("bucket width is zero");
    try {
        return config.validated();
    } catch (const InputError& error) {
        corrupt("bad configuration: " + std::string(error.what()));
    }
}

TimePoint read_time(Reader& in) {
    const TimePoint t{Seconds{in.little<std::int64_t>()}};
    if (t.time_since_epoch().count() < 0 || t.time_since_epoch().count() > kMaxEpochSeconds)
        corrupt("a time is out of range");
    return t;
}

struct StoredAccount {
    AssocId id = 0;
    double anchored = 0;
    std::vector<std::pair<std::int64_t, double>> buckets;
};

StoredAccount read_account(Reader& in, const LedgerConfig& config) {
    StoredAccount account;
    account.id = in.little<std::uint32_t>();
    account.anchored = in.real();
    const auto count = codec::read_count(in, kBucketBytes, "bucket");
    const bool windowed = config.window != kInfiniteWindow;
    if (windowed != (count > 0)) corrupt("association " + std::to_string(account.id) + " has a wrong bucket count");
    const std::int64_t last_index = kMaxEpochSeconds / config.bucket.count();
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto index = in.little<std::int64_t>();
        const double weight = in.real();
        if (index < 0 || index > last_index) corrupt("bucket index out of range");
        if (!account.buckets.empty() && account.buckets.back().first >= index) corrupt("buckets out of order");
        account.buckets.emplace_back(index, weight);
    }
    return account;
}

}  // namespace

std::string WindowedUsageLedger::serialize() const {
    Writer out;
    codec::write_preamble(out, kMagic, kVersion);
    out.little(window_on_disk(config_.window));
    out.little(config_.half_life.count());
    out.little(config_.bucket.count());
    out.little(clock_.time_since_epoch().count());
    out.little(anchor_.time_since_epoch().count());
    out.little(static_cast<std::uint32_t>(accounts_.size()));
    for (AssocId id : associations()) {
        const Account& account = accounts_.at(id);
        out.little(id);
        out.real(account.anchored);
        out.little(static_cast<std::uint32_t>(account.buckets.size()));
        for (const Bucket& bucket : account.buckets) {
            out.little(bucket.index);
            out.real(bucket.weight);
        }
    }
    codec::seal(out);
    return out.take();
}

WindowedUsageLedger WindowedUsageLedger::deserialize(std::string_view bytes) {
    Reader in(codec::unseal(bytes, kMagic, kHeaderBytes));
    if (codec::read_preamble(in) != kVersion) codec::corrupt("unsupported version");
    WindowedUsageLedger ledger(read_config(in));
    ledger.clock_ = read_time(in);
    ledger.anchor_ = read_time(in);
    const auto count = codec::read_count(in, kAccountBytes, "association");
    std::unordered_set<AssocId> seen;
    for (std::uint32_t i = 0; i < count; ++i) {
        StoredAccount stored = read_account(in, ledger.config_);
        if (!seen.insert(stored.id).second) corrupt("association " + std::to_string(stored.id) + " appears twice");
        ledger.restore_account(stored.id, stored.anchored, stored.buckets);
    }
    if (in.remaining() != 0) corrupt("trailing bytes");
    return ledger;
}

// Windowed: the running sum is recomputed from the buckets, which also drops rounding drift that
// the incremental subtractions accumulated (so it is not compared with the stored one).
void WindowedUsageLedger::restore_account(AssocId assoc, double anchored,
                                          const std::vector<std::pair<std::int64_t, double>>& buckets) {
    Account& account = accounts_[assoc];
    account.anchored = windowed() ? 0 : anchored;
    for (const auto& [index, weight] : buckets) {
        account.buckets.push_back(Bucket{index, weight});
        account.anchored += bucket_weight_at_anchor(account.buckets.back());
    }
    if (!std::isfinite(account.anchored)) corrupt("usage of association " + std::to_string(assoc) + " overflows");
}

namespace codec {

void seal(Writer& out) { out.little(crc32(out.view())); }

std::string_view unseal(std::string_view bytes, const char (&magic)[4], std::size_t minimum_body) {
    if (bytes.size() < minimum_body + 4) corrupt("too short");
    if (std::memcmp(bytes.data(), magic, sizeof magic) != 0) corrupt("not a fairway usage state (bad magic)");
    Reader trailer(bytes.substr(bytes.size() - 4));
    if (trailer.little<std::uint32_t>() != crc32(bytes.substr(0, bytes.size() - 4))) corrupt("checksum mismatch");
    return bytes.substr(0, bytes.size() - 4);
}

}  // namespace codec
}  // namespace fairway::fairshare
