// SPDX-License-Identifier: Apache-2.0
#include "common/fd_budget.hpp"

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>

namespace softcomch {

namespace {
uint64_t limit_value(rlim_t v) noexcept
{
    return v == RLIM_INFINITY ? UINT64_MAX : uint64_t(v);
}
} // namespace

uint64_t open_descriptors() noexcept
{
    DIR *d = ::opendir("/proc/self/fd");
    if (d == nullptr)
        return 0;
    uint64_t n = 0;
    while (const dirent *e = ::readdir(d))
        if (e->d_name[0] != '.')
            ++n;
    ::closedir(d);
    return n > 0 ? n - 1 : 0; // the directory's own descriptor
}

nofile_limit raise_nofile(uint64_t need) noexcept
{
    nofile_limit r;
    rlimit rl{};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        r.error = errno;
        r.soft_before = r.soft = r.hard = UINT64_MAX;
        return r;
    }
    r.soft_before = r.soft = limit_value(rl.rlim_cur);
    r.hard = limit_value(rl.rlim_max);
    if (r.soft >= need)
        return r;
    const uint64_t target = std::min(need, r.hard);
    if (target <= r.soft)
        return r;
    rl.rlim_cur = rlim_t(target);
    if (::setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        r.error = errno;
        return r;
    }
    r.soft = target;
    r.raised = true;
    return r;
}

} // namespace softcomch
