// plot: a self-contained SVG of the report (usage per account over the window, each busy user's
// fair-share factor as it recovers with no new usage, and quota use: usage against shares per
// account), and its PNG made by rsvg-convert (Debian's librsvg2-bin).
#pragma once

#include <string>

#include "tools/report/report_model.h"

namespace fairway::report {

std::string render_report_svg(const ReportModel& model);

// Converts an SVG file to PNG with rsvg-convert. Throws std::runtime_error saying what failed
// (rsvg-convert missing, or its exit status).
void convert_svg_to_png(const std::string& svg_path, const std::string& png_path);

}  // namespace fairway::report
