// Who may read the site's presets.conf and presets directory: the plugin checks them where it
// first touches them, before it reads them, with presets::hidden_from_users (the rule, and why,
// are there; the preset files themselves are checked as they are read).
#pragma once

#include <string>

#include "presets/trusted_file.h"

namespace fairway::binding {

using presets::hidden_from_users;
using presets::SiteEntry;

// Whether `path` exists (false for ENOENT); throws fairway::InputError naming the path when it
// cannot be looked up (other errno) or hidden_from_users refuses its mode.
bool check_readable_by_users(const std::string& path, SiteEntry kind);

}  // namespace fairway::binding
