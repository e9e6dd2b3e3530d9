// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/export_identity.hpp"

#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <mutex>

#include "common/process_info.hpp"
#include "transport/shm/shared_memory.hpp"

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

} // namespace softcomch::transport::shm
