// The site's presets as a long-running process (slurmctld) sees them: loaded once, reloaded when
// the config file, the directory or any preset file changes (checked by stat, cheap enough for
// every job submission), so edits apply without restarting slurmctld.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "presets/loader.h"
#include "presets/resolver.h"

namespace fairway::presets {

// One consistent snapshot. When loading failed, `load_error` says why (file:line: key ...) and the
// catalog is empty: jobs that need presets are then rejected with that message.
struct SitePresets {
    SiteConfig config;
    PresetCatalog catalog;
    std::string load_error;
    bool ok() const { return load_error.empty(); }
};

class SitePresetsCache {
public:
    // `default_presets_dir` applies when the config file does not set presets_dir (e.g. the
    // directory named on the SPANK plugin's plugstack.conf line).
    explicit SitePresetsCache(std::string config_path, std::string default_presets_dir = kDefaultPresetsDir);

    // The current snapshot, reloaded first if anything on disk changed. Never throws for bad
    // files (they become SitePresets::load_error); thread-safe.
    std::shared_ptr<const SitePresets> current();

    // How many times files were (re)loaded; lets callers log reloads and tests observe them.
    std::uint64_t load_count() const;

private:
    struct FileStamp {
        std::string path;
        std::int64_t mtime_ns = 0;
        std::int64_t size = 0;
        std::uint64_t inode = 0;
        std::uint32_t mode = 0;   // a chmod can make a file trusted or untrusted
        std::uint32_t owner = 0;
        bool operator==(const FileStamp&) const = default;
    };
    std::vector<FileStamp> stamp_files(const std::string& presets_dir) const;

    std::string config_path_;
    std::string default_presets_dir_;
    mutable std::mutex mutex_;
    std::shared_ptr<const SitePresets> snapshot_;
    std::vector<FileStamp> stamps_;
    std::uint64_t load_count_ = 0;
};

}  // namespace fairway::presets
