// What every plot of the tools writes the same way: text made safe for SVG, axis numbers, and the
// colour of the i-th series (one palette, so an account keeps its colour across the report's and the sim's plots).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace fairway::report {

// `text` with the characters XML gives a meaning (< > & ") written as entities.
inline std::string svg_escaped(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

// An axis label: `value` with `decimals` digits after the point.
inline std::string axis_number(double value, int decimals) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

inline const char* series_color(std::size_t i) {
    static constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                               "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    return kPalette[i % (sizeof kPalette / sizeof *kPalette)];
}

}  // namespace fairway::report
