#include "presets/site_cache.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

namespace fairway::presets {
namespace {

std::shared_ptr<const SitePresets> load_site(const std::string& config_path, const std::string& default_presets_dir) {
    auto site = std::make_shared<SitePresets>();
    site->config.presets_dir = default_presets_dir;
    try {
        site->config = load_site_config(config_path, default_presets_dir);
        site->catalog = PresetCatalog(load_site_directory(site->config.presets_dir, site->config.env_policy()));
    } catch (const InputError& e) {
        site->load_error = e.what();
    } catch (const std::exception& e) {
        site->load_error = std::string("cannot load site presets: ") + e.what();
    }
    return site;
}

}  // namespace

SitePresetsCache::SitePresetsCache(std::string config_path, std::string default_presets_dir,
                                   std::chrono::milliseconds recheck_interval)
    : config_path_(std::move(config_path)),
      default_presets_dir_(std::move(default_presets_dir)),
      recheck_interval_(recheck_interval) {}

std::vector<SitePresetsCache::FileStamp> SitePresetsCache::stamp_files(const std::string& presets_dir) {
    ++stamp_count_;
    std::vector<std::string> paths = {config_path_, presets_dir};
    if (DIR* dir = ::opendir(presets_dir.c_str())) {
        while (const dirent* entry = ::readdir(dir)) {
            std::string_view name = entry->d_name;
            if (!name.starts_with('.') && name.ends_with(".yaml"))
                paths.push_back(presets_dir + "/" + std::string(name));
        }
        ::closedir(dir);
    }
    std::sort(paths.begin() + 2, paths.end());
    std::vector<FileStamp> stamps;
    for (const auto& path : paths) {
        FileStamp stamp{path};
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0) {
            stamp.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
            stamp.size = st.st_size;
            stamp.inode = st.st_ino;
            stamp.mode = st.st_mode;
            stamp.owner = st.st_uid;
        }
        stamps.push_back(std::move(stamp));
    }
    return stamps;
}

// Whether the files must be stat'ed: nothing loaded yet, the watch saw an event (or cannot watch),
// or the recheck interval has passed.
bool SitePresetsCache::may_have_changed(Clock::time_point now) {
    bool changed = !snapshot_ || watch_.changed() || now >= next_recheck_;
    if (changed) next_recheck_ = now + recheck_interval_;
    return changed;
}

// Watches the config file's directory and the presets directory (a missing one through its
// ancestor until it exists). The watch is placed BEFORE the files are stat'ed, so a change made
// in between is seen at the next call.
void SitePresetsCache::watch(const std::string& presets_dir) {
    std::vector<std::string> dirs = {config_path_.substr(0, config_path_.rfind('/') + 1), presets_dir};
    if (dirs[0].empty()) dirs[0] = ".";
    if (watch_.exact() && watch_.dirs() == dirs) return;
    watch_ = DirectoryWatch(dirs);
}

std::shared_ptr<const SitePresets> SitePresetsCache::current(Clock::time_point now) {
    std::lock_guard lock(mutex_);
    if (!may_have_changed(now)) return snapshot_;
    const std::string dir = snapshot_ ? snapshot_->config.presets_dir : default_presets_dir_;
    watch(dir);
    auto stamps = stamp_files(dir);
    if (snapshot_ && stamps == stamps_) return snapshot_;
    // Stamps are taken before loading: a change during the load shows up as a difference next time.
    snapshot_ = load_site(config_path_, default_presets_dir_);
    ++load_count_;
    if (snapshot_->config.presets_dir != dir) {
        watch(snapshot_->config.presets_dir);
        stamps = stamp_files(snapshot_->config.presets_dir);
    }
    stamps_ = std::move(stamps);
    return snapshot_;
}

std::uint64_t SitePresetsCache::load_count() const {
    std::lock_guard lock(mutex_);
    return load_count_;
}

std::uint64_t SitePresetsCache::stamp_count() const {
    std::lock_guard lock(mutex_);
    return stamp_count_;
}

}  // namespace fairway::presets
