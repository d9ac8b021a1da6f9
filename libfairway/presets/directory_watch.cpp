#include "presets/directory_watch.h"

#include <fcntl.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

namespace fairway::presets {
namespace {

// Everything that can change what a directory's files say, or whether they are trusted.
constexpr std::uint32_t kChangeEvents = IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                        IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;

std::string parent_of(const std::string& dir) {
    auto slash = dir.find_last_of('/', dir.size() > 1 ? dir.size() - 2 : 0);
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : dir.substr(0, slash);
}

// Watches `dir`, or the nearest ancestor that exists: 0 when `dir` itself, the number of levels up
// otherwise, -1 when no watch could be placed.
int watch_nearest(int fd, std::string dir) {
    for (int levels = 0; levels < 64; ++levels) {
        if (::inotify_add_watch(fd, dir.c_str(), kChangeEvents | IN_ONLYDIR) >= 0) return levels;
        if (errno != ENOENT || dir == "/" || dir == ".") return -1;
        dir = parent_of(dir);
    }
    return -1;
}

}  // namespace

DirectoryWatch::DirectoryWatch(const std::vector<std::string>& dirs) : dirs_(dirs) {
    fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ < 0) return;
    for (const auto& dir : dirs_) {
        int levels_up = watch_nearest(fd_, dir);
        if (levels_up < 0) {
            close_fd();
            return;
        }
        exact_ = exact_ && levels_up == 0;
    }
}

DirectoryWatch::~DirectoryWatch() { close_fd(); }

DirectoryWatch::DirectoryWatch(DirectoryWatch&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), exact_(other.exact_), dirs_(std::move(other.dirs_)) {}

DirectoryWatch& DirectoryWatch::operator=(DirectoryWatch&& other) noexcept {
    if (this != &other) {
        close_fd();
        fd_ = std::exchange(other.fd_, -1);
        exact_ = other.exact_;
        dirs_ = std::move(other.dirs_);
    }
    return *this;
}

void DirectoryWatch::close_fd() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

// A watched directory that was removed or renamed lost its watch (IN_IGNORED follows): a
// directory made again under its name would go unnoticed, so the watch stops counting as exact
// and its owner places a new one.
void DirectoryWatch::note_lost_watches(const char* events, std::size_t size) {
    constexpr std::uint32_t kWatchLost = IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF;
    for (std::size_t at = 0; at + sizeof(inotify_event) <= size;) {
        inotify_event event;
        std::memcpy(&event, events + at, sizeof event);
        if (event.mask & kWatchLost) exact_ = false;
        at += sizeof(inotify_event) + event.len;
    }
}

bool DirectoryWatch::changed() {
    if (fd_ < 0) return true;
    // Which file changed does not matter (the caller re-checks them all), only whether a watch
    // was lost.
    alignas(inotify_event) char buffer[4096];
    bool any = false;
    for (;;) {
        ssize_t got = ::read(fd_, buffer, sizeof buffer);
        if (got > 0) {
            any = true;
            note_lost_watches(buffer, static_cast<std::size_t>(got));
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        // EAGAIN: drained. Anything else: the descriptor is unusable, so stop trusting it.
        if (got < 0 && errno != EAGAIN) {
            close_fd();
            return true;
        }
        return any;
    }
}

}  // namespace fairway::presets
