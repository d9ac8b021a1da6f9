// Who may read the site's presets.conf and presets directory. sbatch, salloc and srun read them as
// the user, and slurmstepd reads them in a step with the job user's effective uid (user_init), so
// a mode that hides them from other users (0600, 0700: what "root-owned" may invite) would make
// every --preset and every step that looks up its account's defaults fail with a bare EACCES. Such
// a mode is refused where the plugin first touches the file, with a message naming file and mode,
// the same in every process (root's included, which could read it).
#pragma once

#include <optional>
#include <string>

namespace fairway::binding {

enum class SiteEntry { file, directory };

// Why users cannot read `path` of permission bits `mode` (st_mode), or nullopt: a file needs
// read permission for others, a directory read and search permission. The text names the mode and
// the chmod that mends it (`path` only there: InputError puts it in front).
std::optional<std::string> hidden_from_users(const std::string& path, unsigned mode, SiteEntry kind);

// Whether `path` exists (false for ENOENT); throws fairway::InputError naming the path when it
// cannot be looked up (other errno) or hidden_from_users refuses its mode.
bool check_readable_by_users(const std::string& path, SiteEntry kind);

}  // namespace fairway::binding
