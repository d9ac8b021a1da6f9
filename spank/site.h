// The plugin's settings after the site's presets.conf (shared with job_submit/fairway).
#pragma once

#include "binding/plugin_config.h"
#include "presets/loader.h"

namespace fairway::spank {

// plugstack.conf arguments completed by presets.conf (read only when a command or step uses
// presets, to keep other launches free of file access). Throws fairway::InputError when
// presets.conf is malformed or writable by non-root.
binding::PluginConfig effective_config(const binding::PluginConfig& plugstack_args);

// The site's presets.conf as job_submit/fairway finds it (same rules as effective_config).
presets::SiteConfig site_config(const binding::PluginConfig& plugstack_args);

}  // namespace fairway::spank
