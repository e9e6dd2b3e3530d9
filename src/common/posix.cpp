// SPDX-License-Identifier: Apache-2.0
#include "common/posix.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

namespace softcomch {

bool write_all(int fd, std::string_view data) noexcept
{
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data.remove_prefix(size_t(n));
    }
    return true;
}

bool process_exists(int pid) noexcept
{
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

} // namespace softcomch
