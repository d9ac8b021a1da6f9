// Little-endian writer and bounds-checked reader shared by the saved-state formats (the ledger's
// and the usage book's). Internal to libfairway/fairshare.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/error.h"

namespace fairway::fairshare::codec {

// Every defect of saved state is reported the same way: InputError with key "state".
[[noreturn]] inline void corrupt(const std::string& problem) {
    throw InputError(SourceLocation{"", 0, "state"}, "corrupt usage state: " + problem);
}

class Writer {
public:
    void bytes(const void* data, std::size_t size) { out_.append(static_cast<const char*>(data), size); }
    void bytes(std::string_view data) { out_.append(data); }
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
    // A usage value: finite and not negative.
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

// The preamble of every format: its magic, its version and two reserved bytes.
inline void write_preamble(Writer& out, const char (&magic)[4], std::uint16_t version) {
    out.bytes(magic, sizeof magic);
    out.little(version);
    out.little(std::uint16_t{0});
}
// Reads the preamble in front of what unseal() returned (the magic it checked); returns the version.
inline std::uint16_t read_preamble(Reader& in) {
    in.take(4);
    const auto version = in.little<std::uint16_t>();
    in.little<std::uint16_t>();
    return version;
}
// A count of items of at least `item_bytes` each; corrupt when the rest cannot hold that many.
inline std::uint32_t read_count(Reader& in, std::size_t item_bytes, const char* items) {
    const auto count = in.little<std::uint32_t>();
    if (count > in.remaining() / item_bytes) corrupt(std::string(items) + " count exceeds the data");
    return count;
}

// Appends the CRC-32 of everything written so far (the trailer of every format).
void seal(Writer& out);
// Checks the magic and the CRC-32 trailer; returns the bytes between them (magic included).
std::string_view unseal(std::string_view bytes, const char (&magic)[4], std::size_t minimum_body);

}  // namespace fairway::fairshare::codec
