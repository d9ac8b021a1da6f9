// CRC-32 (IEEE 802.3, the zlib/PNG polynomial) for checksumming serialized state.
#pragma once

#include <cstdint>
#include <string_view>

namespace fairway::fairshare {

std::uint32_t crc32(std::string_view bytes);

}  // namespace fairway::fairshare
