// Internal: reading files whose contents steer slurmctld, with the checks done on the opened
// descriptor so nothing can be swapped between the check and the read.
#pragma once

#include <cstddef>
#include <string>

namespace fairway::presets {

// Reads a regular file of at most `max_bytes`. With `require_trusted`, refuses a file not owned
// by root or writable by group or others. Throws InputError naming the path.
std::string read_trusted_file(const std::string& path, std::size_t max_bytes, bool require_trusted);

}  // namespace fairway::presets
