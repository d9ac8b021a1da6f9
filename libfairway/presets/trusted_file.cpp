#include "presets/trusted_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "common/file_descriptor.h"
#include "presets/loader.h"

namespace fairway::presets {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
    throw InputError(SourceLocation{path, 0, ""}, problem);
}

std::string system_error(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Why `st` may not be trusted, or empty.
std::string untrusted_reason(const struct stat& st) {
    if (st.st_uid != 0) return "refused: owned by uid " + std::to_string(st.st_uid) + ", not root";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return "refused: writable by group or others (mode " + std::to_string((st.st_mode >> 6) & 7) +
               std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) + "); run chmod go-w";
    return {};
}

}  // namespace

void check_trusted_path(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) refuse(path, system_error("cannot stat"));
    if (auto why = untrusted_reason(st); !why.empty()) refuse(path, why);
}

std::optional<std::string> hidden_from_users(const std::string& path, unsigned mode, SiteEntry kind) {
    const bool directory = kind == SiteEntry::directory;
    const unsigned needed = directory ? (S_IROTH | S_IXOTH) : S_IROTH;
    if ((mode & needed) == needed) return std::nullopt;
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", mode & 07777);
    return std::string("refused: mode ") + octal + " hides it from users, but sbatch, salloc, srun and every job " +
           "step read it as the job's user; make it " + (directory ? "listable" : "readable") + " by all (chmod " +
           (directory ? "a+rx " : "a+r ") + path + ")";
}

std::string read_trusted_file(const std::string& path, std::size_t max_bytes, bool require_trusted) {
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) {
        const int open_errno = errno;
        struct stat st {};
        // A reader other than root (a job step, as the job's user) cannot open a hidden file at all.
        if (require_trusted && open_errno == EACCES && ::stat(path.c_str(), &st) == 0)
            if (auto hidden = hidden_from_users(path, st.st_mode, SiteEntry::file)) refuse(path, *hidden);
        errno = open_errno;
        refuse(path, system_error("cannot open"));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) refuse(path, system_error("cannot stat"));
    if (!S_ISREG(st.st_mode)) refuse(path, "not a regular file");
    if (require_trusted) {
        if (auto why = untrusted_reason(st); !why.empty()) refuse(path, why);
        if (auto hidden = hidden_from_users(path, st.st_mode, SiteEntry::file)) refuse(path, *hidden);
    }
    if (static_cast<std::size_t>(st.st_size) > max_bytes)
        refuse(path,
               "file is " + std::to_string(st.st_size) + " bytes, more than the limit of " + std::to_string(max_bytes));
    // Sized from fstat, not from the limit: a buffer of the limit (256 KiB) is an mmap that is
    // zeroed page by page, ~0.1 ms per sbatch --preset for a file of a few hundred bytes. One byte
    // more than stat says detects a file that grew; a page at least serves files whose size stat
    // does not tell (procfs).
    const std::size_t limit = max_bytes + 1;
    std::string text(std::min(limit, std::max<std::size_t>(static_cast<std::size_t>(st.st_size) + 1, 4096)), '\0');
    std::size_t used = 0;
    while (used < limit) {
        if (used == text.size()) text.resize(std::min(limit, text.size() * 2));
        ssize_t n = ::read(fd.get(), text.data() + used, text.size() - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) refuse(path, system_error("cannot read"));
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    if (used > max_bytes) refuse(path, "file grew beyond the limit of " + std::to_string(max_bytes) + " bytes");
    text.resize(used);
    return text;
}

}  // namespace fairway::presets
