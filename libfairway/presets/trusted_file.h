// Reading files whose contents steer slurmctld, with the checks done on the opened descriptor so
// nothing can be swapped between the check and the read; and who may read the site's files.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace fairway::presets {

// Reads a regular file of at most `max_bytes`. With `require_trusted`, refuses a file not owned
// by root, writable by group or others, or hidden from users (hidden_from_users). Throws
// InputError naming the path.
std::string read_trusted_file(const std::string& path, std::size_t max_bytes, bool require_trusted);

enum class SiteEntry { file, directory };

// Why users cannot read the site file or directory `path` of permission bits `mode` (st_mode), or
// nullopt: a file needs read permission for others, a directory read and search permission.
// sbatch, salloc and srun read the site's files as the user, and slurmstepd reads them in a step
// with the job user's effective uid, so a mode that hides them (0600, 0700: what "root-owned" may
// invite) would make every --preset fail with a bare EACCES; it is refused by name, the same in
// every process. The text names the mode and the chmod that mends it (`path` only there:
// InputError puts it in front).
std::optional<std::string> hidden_from_users(const std::string& path, unsigned mode, SiteEntry kind);

}  // namespace fairway::presets
