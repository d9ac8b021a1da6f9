#include "binding/site_access.h"

#include "common/error.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fairway::binding {

std::optional<std::string> hidden_from_users(const std::string& path, unsigned mode, SiteEntry kind) {
    bool directory = kind == SiteEntry::directory;
    unsigned needed = directory ? (S_IROTH | S_IXOTH) : S_IROTH;
    if ((mode & needed) == needed) return std::nullopt;
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", mode & 07777);
    return std::string("refused: mode ") + octal + " hides it from users, but sbatch, salloc, srun and every job " +
           "step read it as the job's user; make it " + (directory ? "listable" : "readable") + " by all (chmod " +
           (directory ? "a+rx " : "a+r ") + path + ")";
}

bool check_readable_by_users(const std::string& path, SiteEntry kind) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return false;
        throw InputError({path, 0, ""}, std::string("cannot stat: ") + std::strerror(errno));
    }
    if (auto problem = hidden_from_users(path, st.st_mode, kind)) throw InputError({path, 0, ""}, *problem);
    return true;
}

}  // namespace fairway::binding
