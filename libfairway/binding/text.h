// Small text helpers the binding core shares (splitting lists, strict number parsing).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fairway::binding {

// Splits on `separator`, keeping empty fields ("a,,b" -> {"a", "", "b"}; "" -> {}).
std::vector<std::string> split(std::string_view text, char separator);

// Decimal digits only (no sign, no spaces); nullopt when malformed or above 2^32.
std::optional<unsigned long> parse_unsigned(std::string_view text);

// Joins with `separator`.
std::string join(const std::vector<std::string>& parts, std::string_view separator);

}  // namespace fairway::binding
