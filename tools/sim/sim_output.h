// fairway-sim's outputs: tables for the terminal and one JSON document with every figure.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "tools/sim/replay.h"

namespace fairway::simtool {

void print_tables(std::ostream& out, const ReplayResult& result, const Options& options);
nlohmann::json result_json(const ReplayResult& result, const Options& options);

// Seconds as hours, for tables.
std::string hours(double seconds);

}  // namespace fairway::simtool
