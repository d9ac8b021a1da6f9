// WindowedUsageLedger's state format (see README.md): little-endian fields, CRC-32 trailer.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "common/error.h"
#include "fairshare/crc32.h"
#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {
namespace {

constexpr char kMagic[4] = {'F', 'W', 'L', 'G'};
constexpr std::uint16_t kVersion = 1;
constexpr std::int64_t kInfiniteOnDisk = -1;
// Fixed part: magic, version, reserved, window, half-life, bucket, clock, anchor, count.
constexpr std::size_t kHeaderBytes = 4 + 2 + 2 + 5 * 8 + 4;
constexpr std::size_t kAccountBytes = 4 + 8 + 4;
constexpr std::size_t kBucketBytes = 8 + 8;

[[noreturn]] void corrupt(const std::string& problem) {
    throw InputError(SourceLocation{"", 0, "state"}, "corrupt usage state: " + problem);
}

class Writer {
public:
    void bytes(const void* data, std::size_t size) { out_.append(static_cast<const char*>(data), size); }
    template <typename T>
    void little(T value) {
        using U = std::make_unsigned_t<T>;
        auto bits = static_cast<U>(value);
        for (std::size_t i = 0; i < sizeof(T); ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFFU));
    }
    void real(double value) { little(std::bit_cast<std::uint64_t>(value)); }
    std::string take() { return std::move(out_); }
    std::string_view view() const { return out_; }

private:
    std::string out_;
};

// Reads fields from a bounded view; every read checks the remaining length first.
class Reader {
public:
    explicit Reader(std::string_view in) : in_(in) {}
    void need(std::size_t size) const {
        if (in_.size() - pos_ < size) corrupt("truncated");
    }
    template <typename T>
    T little() {
        need(sizeof(T));
        std::make_unsigned_t<T> bits = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            bits |= static_cast<std::make_unsigned_t<T>>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
        pos_ += sizeof(T);
        return static_cast<T>(bits);
    }
    double real() {
        const double value = std::bit_cast<double>(little<std::uint64_t>());
        if (!std::isfinite(value) || value < 0) corrupt("a usage value is negative or not finite");
        return value;
    }
    std::string_view take(std::size_t size) {
        need(size);
        auto part = in_.substr(pos_, size);
        pos_ += size;
        return part;
    }
    std::size_t remaining() const { return in_.size() - pos_; }

private:
    std::string_view in_;
    std::size_t pos_ = 0;
};

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
    const auto count = in.little<std::uint32_t>();
    if (count > in.remaining() / kBucketBytes) corrupt("bucket count exceeds the data");
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

void check_envelope(std::string_view bytes) {
    if (bytes.size() < kHeaderBytes + 4) corrupt("too short");
    if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) corrupt("not a fairway usage state (bad magic)");
    Reader trailer(bytes.substr(bytes.size() - 4));
    if (trailer.little<std::uint32_t>() != crc32(bytes.substr(0, bytes.size() - 4))) corrupt("checksum mismatch");
}

}  // namespace

std::string WindowedUsageLedger::serialize() const {
    Writer out;
    out.bytes(kMagic, sizeof kMagic);
    out.little(kVersion);
    out.little(std::uint16_t{0});
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
    out.little(crc32(out.view()));
    return out.take();
}

WindowedUsageLedger WindowedUsageLedger::deserialize(std::string_view bytes) {
    check_envelope(bytes);
    Reader in(bytes.substr(0, bytes.size() - 4));
    in.take(sizeof kMagic);
    if (in.little<std::uint16_t>() != kVersion) corrupt("unsupported version");
    in.little<std::uint16_t>();
    WindowedUsageLedger ledger(read_config(in));
    ledger.clock_ = read_time(in);
    ledger.anchor_ = read_time(in);
    const auto count = in.little<std::uint32_t>();
    if (count > in.remaining() / kAccountBytes) corrupt("association count exceeds the data");
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

}  // namespace fairway::fairshare
