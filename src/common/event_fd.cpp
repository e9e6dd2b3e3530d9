// SPDX-License-Identifier: Apache-2.0
#include "common/event_fd.hpp"

#include "common/errno_map.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace softcomch {

doca_error_t event_fd::create(event_fd &out) noexcept
{
    const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0)
        return resource_errno_to_doca(errno);
    out = event_fd(unique_fd(fd));
    return DOCA_SUCCESS;
}

doca_error_t event_fd::signal() const noexcept
{
    const uint64_t one = 1;
    for (;;) {
        if (::write(fd_.get(), &one, sizeof one) == ssize_t(sizeof one))
            return DOCA_SUCCESS;
        // EAGAIN: the counter is at its maximum, so the fd is readable already.
        if (errno == EAGAIN)
            return DOCA_SUCCESS;
        if (errno != EINTR)
            return DOCA_ERROR_OPERATING_SYSTEM;
    }
}

bool event_fd::drain() const noexcept
{
    uint64_t v = 0;
    for (;;) {
        if (::read(fd_.get(), &v, sizeof v) == ssize_t(sizeof v))
            return v != 0;
        // EAGAIN: counter already 0. Anything else: nothing sensible to report here.
        if (errno != EINTR)
            return false;
    }
}

} // namespace softcomch
