#include "binding/site_access.h"

#include "common/error.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fairway::binding {

bool check_readable_by_users(const std::string& path, SiteEntry kind) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return false;
        throw InputError({path, 0, ""}, std::string("cannot stat: ") + std::strerror(errno));
    }
    if (auto problem = presets::hidden_from_users(path, st.st_mode, kind)) throw InputError({path, 0, ""}, *problem);
    return true;
}

}  // namespace fairway::binding
