#include "presets/carried.h"

#include <algorithm>
#include <cstdint>

#include "presets/trusted_file.h"

namespace fairway::presets {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

[[noreturn]] void carried_error(const std::string& problem) {
    throw InputError(SourceLocation{"", 0, kUserPresetsVar}, problem);
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t present = std::min<std::size_t>(3, bytes.size() - i);
        std::uint32_t chunk = 0;
        for (std::size_t k = 0; k < 3; ++k)
            chunk = (chunk << 8) | (k < present ? static_cast<unsigned char>(bytes[i + k]) : 0U);
        out += kAlphabet[(chunk >> 18) & 63];
        out += kAlphabet[(chunk >> 12) & 63];
        out += present > 1 ? kAlphabet[(chunk >> 6) & 63] : '=';
        out += present > 2 ? kAlphabet[chunk & 63] : '=';
    }
    return out;
}

std::string base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) carried_error("malformed encoding (length)");
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        std::size_t padding = 0;
        if (i + 4 == text.size()) padding = text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
        std::uint32_t chunk = 0;
        for (std::size_t k = 0; k < 4 - padding; ++k) {
            auto value = kAlphabet.find(text[i + k]);
            if (value == std::string_view::npos) carried_error("malformed encoding (character)");
            chunk = (chunk << 6) | static_cast<std::uint32_t>(value);
        }
        chunk <<= 6 * padding;
        for (std::size_t k = 0; k < 3 - padding; ++k) out += static_cast<char>((chunk >> (16 - 8 * k)) & 0xff);
    }
    return out;
}

}  // namespace

// Format: entries "base64(path):base64(text)" joined by ','. Both alphabets exclude ':' and ','.
std::string encode_user_presets(const UserPresetTexts& files, std::size_t max_bytes) {
    std::size_t total = 0;
    std::string out;
    for (const auto& [path, text] : files) {
        total += text.size();
        if (total > max_bytes)
            throw InputError({path, 0, "preset"}, "user presets exceed the limit of " + std::to_string(max_bytes) + " bytes");
        if (!out.empty()) out += ',';
        out += base64_encode(path) + ':' + base64_encode(text);
    }
    return out;
}

UserPresetTexts decode_user_presets(std::string_view encoded, std::size_t max_bytes) {
    if (encoded.size() > (max_bytes + 4096 * kMaxPresetRefs) / 3 * 4 + 8 * kMaxPresetRefs)
        carried_error("too large");
    UserPresetTexts files;
    std::size_t total = 0;
    if (encoded.empty()) return files;
    for (std::size_t start = 0;;) {
        auto comma = encoded.find(',', start);
        auto entry = encoded.substr(start, comma == std::string_view::npos ? encoded.npos : comma - start);
        auto colon = entry.find(':');
        if (colon == std::string_view::npos) carried_error("malformed entry");
        std::string path = base64_decode(entry.substr(0, colon));
        std::string text = base64_decode(entry.substr(colon + 1));
        total += text.size();
        if (total > max_bytes) carried_error("user presets exceed the limit of " + std::to_string(max_bytes) + " bytes");
        if (path.empty() || path.find('\0') != std::string::npos) carried_error("malformed path");
        if (files.size() == kMaxPresetRefs) carried_error("more than 16 files");
        files[path] = std::move(text);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return files;
}

std::string read_user_preset_file(const std::string& path, std::size_t max_bytes) {
    return read_trusted_file(path, max_bytes, false);
}

}  // namespace fairway::presets
