// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/export_identity.hpp"

#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>

#include "common/process_info.hpp"
#include "transport/shm/shared_memory.hpp"

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

namespace softcomch::transport::shm {

uint64_t own_start_time() noexcept
{
    process_stat st;
    return read_process_stat(0, st) ? st.start_time : 0;
}

uint64_t random_token() noexcept
{
    uint64_t t = 0;
    while (t == 0)
        if (::getrandom(&t, sizeof t, 0) != ssize_t(sizeof t))
            t = uint64_t(::getpid()) * 0x9e3779b97f4a7c15ull ^ uint64_t(::time(nullptr));
    return t;
}

void grant_importers_access() noexcept
{
    static std::mutex mu;
    static bool given = false;
    std::lock_guard<std::mutex> g(mu);
    if (!given && allow_peer_access(k_any_peer) == DOCA_SUCCESS)
        given = true;
}

doca_error_t open_exporter(uint32_t pid, uint64_t start_time, unique_fd &out, std::string &why)
{
    unique_fd pidfd(int(::syscall(SYS_pidfd_open, pid_t(pid), 0)));
    if (!pidfd && errno == ESRCH) {
        why = "the exporting process (pid " + std::to_string(pid) + ") has exited";
        return DOCA_ERROR_NOT_FOUND;
    }
    process_stat st;
    if (!read_process_stat(int(pid), st) || st.start_time != start_time) {
        why = "the exporting process (pid " + std::to_string(pid) +
              ") has exited (its pid now names another process)";
        return DOCA_ERROR_NOT_FOUND;
    }
    out = std::move(pidfd);
    return DOCA_SUCCESS;
}

doca_error_t take_exporter_fd(int pidfd, uint32_t fd, const char *revoked, unique_fd &out,
                              std::string &why)
{
    if (pidfd < 0) {
        why = "cannot open the exporting process (pidfd_open)";
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    unique_fd got(int(::syscall(SYS_pidfd_getfd, pidfd, int(fd), 0)));
    if (got) {
        out = std::move(got);
        return DOCA_SUCCESS;
    }
    switch (errno) {
    case EPERM:
        why = "no access to the exporting process (another user, a process that is not "
              "dumpable, or Yama's ptrace_scope 2 or 3)";
        return DOCA_ERROR_NOT_PERMITTED;
    case ESRCH:
        why = "the exporting process has exited";
        return DOCA_ERROR_NOT_FOUND;
    case EBADF:
        why = revoked;
        return DOCA_ERROR_NOT_PERMITTED;
    case ENOSYS:
        why = "this kernel has no pidfd_getfd (Linux 5.6 or later is needed)";
        return DOCA_ERROR_NOT_SUPPORTED;
    default:
        why = std::string("pidfd_getfd failed: ") + std::strerror(errno);
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
}

} // namespace softcomch::transport::shm
