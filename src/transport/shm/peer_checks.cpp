// SPDX-License-Identifier: Apache-2.0
//
// Kernel-side checks of what a peer hands over (peer_checks.hpp).
#include "transport/shm/peer_checks.hpp"

#include "common/errno_map.hpp"
#include "transport/shm/memory_detail.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace softcomch::transport::shm {

namespace {

// SO_PEERPIDFD (Linux 6.5): a pidfd of the peer taken at connect(), immune to pid reuse. Older
// C libraries lack the name.
#ifdef SO_PEERPIDFD
constexpr int k_so_peerpidfd = SO_PEERPIDFD;
#else
constexpr int k_so_peerpidfd = 77;
#endif

constexpr unsigned k_required_seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

int int_option(int fd, int name, int *out) noexcept
{
    socklen_t l = sizeof *out;
    return ::getsockopt(fd, SOL_SOCKET, name, out, &l);
}

// The last pid of the "NSpid:" line of /proc/<pid>/status: the pid the process has in its own
// namespace. 0 when the line is missing or unreadable.
uint32_t own_namespace_pid(pid_t pid) noexcept
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/status", int(pid));
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    ssize_t n;
    do {
        n = ::read(fd, buf, sizeof buf - 1);
    } while (n < 0 && errno == EINTR);
    ::close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *line = std::strstr(buf, "\nNSpid:");
    if (line == nullptr)
        return 0;
    uint32_t last = 0;
    for (const char *p = line + 7; *p != '\0' && *p != '\n';) {
        if (*p < '0' || *p > '9') {
            ++p;
            continue;
        }
        uint32_t v = 0;
        while (*p >= '0' && *p <= '9')
            v = v * 10 + uint32_t(*p++ - '0');
        last = v;
    }
    return last;
}

} // namespace

doca_error_t identify_peer(int sock, peer_identity &out) noexcept
{
    ucred cred{};
    socklen_t l = sizeof cred;
    if (::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &l) != 0 || cred.pid <= 0)
        return DOCA_ERROR_OPERATING_SYSTEM;
    out.pid = cred.pid;
    out.uid = cred.uid;
    return DOCA_SUCCESS;
}

unique_fd peer_pidfd(int sock, pid_t pid) noexcept
{
    int pidfd = -1;
    if (int_option(sock, k_so_peerpidfd, &pidfd) != 0 || pidfd < 0) {
        // Before Linux 6.5: a pidfd of the pid as it is now. The connection is alive while we
        // ask, so its process normally still holds the pid.
        pidfd = pid > 0 ? int(::syscall(SYS_pidfd_open, pid, 0)) : -1;
    }
    return unique_fd(pidfd >= 0 ? pidfd : -1);
}

bool peer_uid_allowed(uid_t uid) noexcept
{
    return uid == ::geteuid() || uid == 0;
}

bool claimed_pid_matches(pid_t kernel_pid, uint32_t claimed) noexcept
{
    if (kernel_pid <= 0 || claimed == 0)
        return false;
    if (uint32_t(kernel_pid) == claimed)
        return true;
    return own_namespace_pid(kernel_pid) == claimed;
}

bool peer_running(int pidfd) noexcept
{
    if (pidfd < 0)
        return true;
    if (::syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) == 0)
        return true;
    return errno != ESRCH;
}

const char *check_sealed_memfd(int fd, uint64_t *size) noexcept
{
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0)
        return "the descriptor is not a memory file";
    if (uint64_t(st.st_blksize) != page_size())
        return "the memory file is not made of ordinary pages";
    const int seals = ::fcntl(fd, F_GET_SEALS);
    if (seals < 0)
        return "the memory file is not a memfd";
    if ((unsigned(seals) & k_required_seals) != k_required_seals)
        return "the memfd is not sealed against shrinking and growing";
    if (size != nullptr)
        *size = uint64_t(st.st_size);
    return nullptr;
}

doca_error_t seal_memfd(int fd) noexcept
{
    return ::fcntl(fd, F_ADD_SEALS, int(k_required_seals)) == 0 ? DOCA_SUCCESS
                                                                : DOCA_ERROR_OPERATING_SYSTEM;
}

doca_error_t create_sealed_memfd(const char *name, uint64_t size, bool reserve,
                                 unique_fd &out) noexcept
{
    unique_fd fd(::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!fd)
        return resource_errno_to_doca(errno);
    if (::ftruncate(fd.get(), off_t(size)) != 0)
        return resource_errno_to_doca(errno);
    if (reserve) {
        const int rc = ::posix_fallocate(fd.get(), 0, off_t(size));
        // posix_fallocate returns the error number; EOPNOTSUPP/EINVAL: the filesystem cannot
        // reserve, carry on (MAP_POPULATE, where asked for, still pre-faults).
        if (rc == ENOSPC || rc == ENOMEM || rc == EFBIG)
            return DOCA_ERROR_NO_MEMORY;
    }
    if (doca_error_t err = seal_memfd(fd.get()); err != DOCA_SUCCESS)
        return err;
    out = std::move(fd);
    return DOCA_SUCCESS;
}

doca_error_t create_mapped_memfd(const char *name, uint64_t size, bool reserve, bool populate,
                                 unique_fd &fd, void **base) noexcept
{
    unique_fd f;
    if (doca_error_t err = create_sealed_memfd(name, size, reserve, f); err != DOCA_SUCCESS)
        return err;
    const int mflags = MAP_SHARED | (populate ? MAP_POPULATE : 0);
    void *m = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, mflags, f.get(), 0);
    if (m == MAP_FAILED)
        return resource_errno_to_doca(errno);
    fd = std::move(f);
    *base = m;
    return DOCA_SUCCESS;
}

void populate_allocated(void *map, uint64_t len, int fd, uint64_t file_offset,
                        uint64_t budget) noexcept
{
    // MADV_POPULATE_WRITE from <linux/mman.h> (Linux 5.14); older C libraries lack the name.
#ifdef MADV_POPULATE_WRITE
    constexpr int k_populate_write = MADV_POPULATE_WRITE;
#else
    constexpr int k_populate_write = 23;
#endif
    constexpr int k_max_extents = 1024; // a peer's file fragmented on purpose costs no more
    const uint64_t ps = page_size();
    const uint64_t end = file_offset + len;
    uint64_t pos = file_offset;
    for (int i = 0; i < k_max_extents && pos < end && budget != 0; ++i) {
        const off_t data = ::lseek(fd, off_t(pos), SEEK_DATA);
        if (data < 0 || uint64_t(data) >= end)
            return; // ENXIO: no data after pos
        off_t hole = ::lseek(fd, data, SEEK_HOLE);
        if (hole < 0)
            return;
        // Whole pages only (a data extent of a shmem file is page-granular anyway).
        const uint64_t lo = uint64_t(data) & ~(ps - 1);
        uint64_t hi = std::min<uint64_t>(uint64_t(hole), end);
        hi = std::min(hi, lo + budget);
        if (hi > lo) {
            if (::madvise(static_cast<uint8_t *>(map) + (lo - file_offset), hi - lo,
                          k_populate_write) != 0 &&
                errno == EINVAL)
                return; // an older kernel: the data path takes the first-touch faults
            budget -= hi - lo;
        }
        pos = std::max<uint64_t>(uint64_t(hole), lo + ps);
    }
}

doca_error_t map_peer_memfd(int fd, uint64_t size, bool prefault, void **base) noexcept
{
    uint64_t file_size = 0;
    if (check_sealed_memfd(fd, &file_size) != nullptr || file_size != size)
        return DOCA_ERROR_INVALID_VALUE;
    void *m = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return resource_errno_to_doca(errno);
    if (prefault)
        populate_allocated(m, size, fd, 0, size);
    *base = m;
    return DOCA_SUCCESS;
}

const char *check_wake_socket(int fd, pid_t peer) noexcept
{
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return "the wake-up descriptor is not a socket";
    int domain = 0, type = 0;
    if (int_option(fd, SO_DOMAIN, &domain) != 0 || domain != AF_UNIX ||
        int_option(fd, SO_TYPE, &type) != 0 || type != SOCK_DGRAM)
        return "the wake-up descriptor is not a Unix datagram socket";
    ucred cred{};
    socklen_t l = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &l) != 0 || peer <= 0 || cred.pid != peer)
        return "the wake-up socket is not a socket pair of the peer";
    return nullptr;
}

} // namespace softcomch::transport::shm
