// fairway-sim's plots as one self-contained SVG: mean wait by account under each policy (grouped
// bars), then per policy each shown account's delivered share over the sliding windows (solid)
// against its entitled share (dashed). PNG: report::convert_svg_to_png (rsvg-convert).
#pragma once

#include <string>

#include "tools/sim/replay.h"

namespace fairway::simtool {

std::string render_sim_svg(const ReplayResult& result, const Options& options);

}  // namespace fairway::simtool
