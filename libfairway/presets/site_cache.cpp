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

SitePresetsCache::SitePresetsCache(std::string config_path, std::string default_presets_dir)
    : config_path_(std::move(config_path)), default_presets_dir_(std::move(default_presets_dir)) {}

std::vector<SitePresetsCache::FileStamp> SitePresetsCache::stamp_files(const std::string& presets_dir) const {
    std::vector<std::string> paths = {config_path_, presets_dir};
    if (DIR* dir = ::opendir(presets_dir.c_str())) {
        while (const dirent* entry = ::readdir(dir)) {
            std::string_view name = entry->d_name;
            if (!name.starts_with('.') && name.ends_with(".yaml")) paths.push_back(presets_dir + "/" + std::string(name));
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

std::shared_ptr<const SitePresets> SitePresetsCache::current() {
    std::lock_guard lock(mutex_);
    const std::string dir = snapshot_ ? snapshot_->config.presets_dir : default_presets_dir_;
    auto stamps = stamp_files(dir);
    if (snapshot_ && stamps == stamps_) return snapshot_;
    // Stamps are taken before loading: a change during the load shows up as a difference next time.
    snapshot_ = load_site(config_path_, default_presets_dir_);
    ++load_count_;
    stamps_ = snapshot_->config.presets_dir == dir ? std::move(stamps) : stamp_files(snapshot_->config.presets_dir);
    return snapshot_;
}

std::uint64_t SitePresetsCache::load_count() const {
    std::lock_guard lock(mutex_);
    return load_count_;
}

}  // namespace fairway::presets
