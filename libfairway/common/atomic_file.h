// Crash-safe replacement of small state files: after a crash at any instant, readers see either
// the complete previous contents or the complete new contents, never a mix or a truncated file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fairway {

// The temporary file write_file_atomically() uses beside `path`. A crash can leave it behind;
// it is never read and the next write truncates it.
std::filesystem::path atomic_temp_path(const std::filesystem::path& path);

// Writes `contents` to the temporary file, fsyncs it, renames it over `path` and fsyncs the
// directory so the rename itself is durable. Single writer per path. Throws std::system_error
// (with the path in its message) on any failure; `path` is then unchanged.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents,
                           std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                                         std::filesystem::perms::owner_write);

// Sets the file's modification time to now and leaves its contents alone: the sign of life of a
// state file whose contents are still current. False when it does not exist or cannot be touched.
bool touch_file(const std::filesystem::path& path) noexcept;

// The whole file, or nullopt when it does not exist. Throws std::system_error on other errors.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

}  // namespace fairway
