// Helpers for the tests of the saved-state formats (ledger_codec_test, usage_book_test): patching
// little-endian fields and re-sealing the CRC, to reach the checks behind the checksum.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"
#include "fairshare/crc32.h"

namespace fairway::fairshare::testing {

// Re-seals bytes with a valid checksum.
inline std::string resealed(std::string bytes) {
    bytes.resize(bytes.size() - 4);
    const std::uint32_t crc = crc32(bytes);
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
    return bytes;
}

inline void put_u32(std::string& bytes, std::size_t offset, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes[offset + i] = static_cast<char>((value >> (8 * i)) & 0xFF);
}
inline void put_u64(std::string& bytes, std::size_t offset, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) bytes[offset + i] = static_cast<char>((value >> (8 * i)) & 0xFF);
}

// Expects State::deserialize(bytes) to throw InputError with key "state".
template <typename State>
void expect_state_error(std::string_view bytes, const std::string& what) {
    try {
        State::deserialize(bytes);
        ADD_FAILURE() << what << ": accepted";
    } catch (const InputError& error) {
        EXPECT_EQ(error.where().key, "state") << what;
    }
}

}  // namespace fairway::fairshare::testing
