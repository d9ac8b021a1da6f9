// Whether anything in a few directories may have changed, answered with one non-blocking read of
// an inotify descriptor instead of a stat of every file. Lets a long-running process (slurmctld)
// keep a cached view of files and still see an edit at the next use.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fairway::presets {

class DirectoryWatch {
public:
    DirectoryWatch() = default;  // watches nothing: changed() is always true
    // Watches each directory, or its nearest existing ancestor when it does not exist yet (so that
    // creating it is noticed). Without inotify (or when a watch cannot be placed) the watch is
    // inactive and changed() always says true.
    explicit DirectoryWatch(const std::vector<std::string>& dirs);
    ~DirectoryWatch();
    DirectoryWatch(DirectoryWatch&& other) noexcept;
    DirectoryWatch& operator=(DirectoryWatch&& other) noexcept;
    DirectoryWatch(const DirectoryWatch&) = delete;
    DirectoryWatch& operator=(const DirectoryWatch&) = delete;

    bool active() const { return fd_ >= 0; }
    // Every directory is watched itself, none through an ancestor (which sees only its own entries,
    // so a file edited inside the missing directory, once created, would go unnoticed), and no
    // watched directory has been removed or renamed since.
    bool exact() const { return active() && exact_; }
    const std::vector<std::string>& dirs() const { return dirs_; }

    // True when an entry of a watched directory (or the directory itself) was created, written,
    // renamed, removed or had its owner/mode changed since the last call, or when that cannot be
    // known (inactive, event queue overflow). Consumes the pending events.
    bool changed();

private:
    void close_fd();
    void note_lost_watches(const char* events, std::size_t size);

    int fd_ = -1;
    bool exact_ = true;
    std::vector<std::string> dirs_;
};

}  // namespace fairway::presets
