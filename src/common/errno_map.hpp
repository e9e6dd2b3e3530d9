// SPDX-License-Identifier: Apache-2.0
//
// errno of a failed system call that creates or maps something -> DOCA error. The distinction
// matters to callers: NO_MEMORY means "a resource ran out" (memory, tmpfs space, file size,
// descriptors, locked-memory limit: a smaller queue or fewer connections may work), while
// OPERATING_SYSTEM means "something unexpected failed" (seccomp, an old kernel, anything else),
// reported as is. Modules with a vocabulary of their own (sockets: AGAIN, CONNECTION_RESET) map
// their special cases first and fall back to this.
#pragma once

#include <doca_error.h>

#include <cerrno>

namespace softcomch {

constexpr doca_error_t resource_errno_to_doca(int e) noexcept
{
    // EAGAIN: mmap of locked memory over RLIMIT_MEMLOCK (mlockall(MCL_FUTURE) programs).
    if (e == ENOMEM || e == ENOSPC || e == EFBIG || e == EMFILE || e == ENFILE || e == EAGAIN ||
        e == ENOBUFS)
        return DOCA_ERROR_NO_MEMORY;
    return DOCA_ERROR_OPERATING_SYSTEM;
}

} // namespace softcomch
