#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <system_error>

#include "common/file_descriptor.h"

namespace fairway {
namespace {

[[noreturn]] void throw_errno(const std::string& what, const std::filesystem::path& path) {
    throw std::system_error(errno, std::generic_category(), what + " " + path.string());
}

void write_all(int fd, std::string_view contents, const std::filesystem::path& path) {
    while (!contents.empty()) {
        ssize_t written = ::write(fd, contents.data(), contents.size());
        if (written < 0 && errno == EINTR) continue;
        if (written < 0) throw_errno("cannot write", path);
        contents.remove_prefix(static_cast<size_t>(written));
    }
}

void sync_directory(const std::filesystem::path& directory) {
    FileDescriptor dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0) throw_errno("cannot open directory", directory);
    if (::fsync(dir.get()) != 0) throw_errno("cannot fsync directory", directory);
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
    return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

}  // namespace

std::filesystem::path atomic_temp_path(const std::filesystem::path& path) {
    std::filesystem::path temp = path;
    temp += ".tmp";
    return temp;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents, std::filesystem::perms mode) {
    const std::filesystem::path temp = atomic_temp_path(path);
    FileDescriptor file(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, static_cast<mode_t>(mode)));
    if (file.get() < 0) throw_errno("cannot create", temp);
    write_all(file.get(), contents, temp);
    if (::fsync(file.get()) != 0) throw_errno("cannot fsync", temp);
    if (file.close_now() != 0) throw_errno("cannot close", temp);
    if (::rename(temp.c_str(), path.c_str()) != 0) throw_errno("cannot rename " + temp.string() + " to", path);
    sync_directory(directory_of(path));
}

bool touch_file(const std::filesystem::path& path) noexcept {
    return ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) == 0;
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
    FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (file.get() < 0 && errno == ENOENT) return std::nullopt;
    if (file.get() < 0) throw_errno("cannot open", path);
    std::string contents;
    char buffer[65536];
    for (;;) {
        ssize_t got = ::read(file.get(), buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw_errno("cannot read", path);
        if (got == 0) return contents;
        contents.append(buffer, static_cast<size_t>(got));
    }
}

}  // namespace fairway
