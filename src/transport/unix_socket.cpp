// SPDX-License-Identifier: Apache-2.0
#include "transport/unix_socket.hpp"

#include "common/errno_map.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace softcomch::transport {

namespace {

// errno -> the module's error vocabulary (see the header).
doca_error_t map_errno(int e) noexcept
{
    switch (e) {
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
        return DOCA_ERROR_AGAIN;
    case EPIPE:
    case ECONNRESET:
        return DOCA_ERROR_CONNECTION_RESET;
    case EACCES:
    case EPERM:
        return DOCA_ERROR_NOT_PERMITTED;
    case EMSGSIZE:
        return DOCA_ERROR_TOO_BIG;
    case ENAMETOOLONG:
    case EINVAL:
        return DOCA_ERROR_INVALID_VALUE;
    default:
        return resource_errno_to_doca(e); // descriptors, memory, buffers: NO_MEMORY
    }
}

// Fills `sa` for `path`; false if the path is empty or does not fit (with its NUL).
bool make_addr(const std::string &path, sockaddr_un &sa, socklen_t &salen) noexcept
{
    if (path.empty() || path.size() > max_socket_path() || path.find('\0') != std::string::npos)
        return false;
    std::memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    std::memcpy(sa.sun_path, path.data(), path.size());
    salen = socklen_t(offsetof(sockaddr_un, sun_path) + path.size() + 1);
    return true;
}

// A new non-blocking SEQPACKET socket and the address of the path it is for.
struct addressed_socket {
    unique_fd fd;
    sockaddr_un sa;
    socklen_t salen;
    const sockaddr *addr() const noexcept { return reinterpret_cast<const sockaddr *>(&sa); }
};

// A socket to bind or connect to `path` into `out`.
doca_error_t socket_for(const std::string &path, addressed_socket &out) noexcept
{
    if (!make_addr(path, out.sa, out.salen))
        return DOCA_ERROR_INVALID_VALUE;
    out.fd.reset(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    return out.fd ? DOCA_SUCCESS : map_errno(errno);
}

// Parent directory of `path` ("." when there is no slash).
std::string parent_of(const std::string &path)
{
    const auto slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    if (slash == 0)
        return "/";
    return path.substr(0, slash);
}

} // namespace

size_t max_socket_path() noexcept
{
    return sizeof(sockaddr_un::sun_path) - 1;
}

unique_fd lock_directory(const std::string &dir) noexcept
{
    unique_fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd)
        return fd;
    // Retry on signals; any other failure returns an empty fd with errno set.
    while (::flock(fd.get(), LOCK_EX) != 0) {
        if (errno != EINTR) {
            const int e = errno;
            fd.reset();
            errno = e;
            return fd;
        }
    }
    return fd;
}

socket_probe probe_socket(const std::string &path) noexcept
{
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0)
        return errno == ENOENT ? socket_probe::absent : socket_probe::error;
    if (!S_ISSOCK(st.st_mode))
        return socket_probe::not_socket;
    addressed_socket s;
    if (socket_for(path, s) != DOCA_SUCCESS)
        return socket_probe::error;
    if (::connect(s.fd.get(), s.addr(), s.salen) == 0)
        return socket_probe::live;
    switch (errno) {
    case ECONNREFUSED:
        return socket_probe::stale;
    case EAGAIN: // backlog full: somebody listens
        return socket_probe::live;
    case ENOENT: // removed between lstat and connect
        return socket_probe::absent;
    default:
        return socket_probe::error;
    }
}

doca_error_t listen_at(const std::string &path, unique_fd &out) noexcept
{
    addressed_socket s;
    if (doca_error_t rc = socket_for(path, s); rc != DOCA_SUCCESS)
        return rc;

    try {
        // Serialise with other servers and with cleanup in the same directory (see header).
        unique_fd lock = lock_directory(parent_of(path));
        if (!lock)
            return errno == ENOENT ? DOCA_ERROR_NOT_FOUND : map_errno(errno);
        if (::bind(s.fd.get(), s.addr(), s.salen) != 0) {
            if (errno != EADDRINUSE)
                return errno == ENOENT ? DOCA_ERROR_NOT_FOUND : map_errno(errno);
            // Something is there: only a stale socket may be replaced.
            switch (probe_socket(path)) {
            case socket_probe::live:
            case socket_probe::not_socket:
                return DOCA_ERROR_ALREADY_EXIST;
            case socket_probe::error:
                return DOCA_ERROR_OPERATING_SYSTEM;
            case socket_probe::stale:
                if (::unlink(path.c_str()) != 0 && errno != ENOENT)
                    return map_errno(errno);
                break;
            case socket_probe::absent:
                break;
            }
            if (::bind(s.fd.get(), s.addr(), s.salen) != 0)
                return map_errno(errno);
        }
        if (::listen(s.fd.get(), SOMAXCONN) != 0) {
            const int e = errno;
            ::unlink(path.c_str());
            return map_errno(e);
        }
    } catch (...) {
        // parent_of() allocates; treat allocation failure like any other.
        return DOCA_ERROR_NO_MEMORY;
    }
    out = std::move(s.fd);
    return DOCA_SUCCESS;
}

doca_error_t connect_to(const std::string &path, unique_fd &out) noexcept
{
    addressed_socket s;
    if (doca_error_t rc = socket_for(path, s); rc != DOCA_SUCCESS)
        return rc;
    for (;;) {
        if (::connect(s.fd.get(), s.addr(), s.salen) == 0)
            break;
        if (errno == EINTR)
            continue;
        // No server there, or a dead server's leftover socket: both mean "not found (yet)".
        if (errno == ENOENT || errno == ECONNREFUSED)
            return DOCA_ERROR_NOT_FOUND;
        return map_errno(errno);
    }
    out = std::move(s.fd);
    return DOCA_SUCCESS;
}

doca_error_t accept_from(int listen_fd, unique_fd &out) noexcept
{
    for (;;) {
        const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            out.reset(fd);
            return DOCA_SUCCESS;
        }
        // The peer gave up before we accepted, or a signal: nothing to return now.
        if (errno == ECONNABORTED || errno == EINTR || errno == EPROTO)
            return DOCA_ERROR_AGAIN;
        return map_errno(errno);
    }
}

doca_error_t send_msg(int fd, const void *buf, size_t len, const int *fds, size_t nfds) noexcept
{
    if (len == 0 || buf == nullptr || nfds > k_max_msg_fds || (nfds != 0 && fds == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    iovec iov{const_cast<void *>(buf), len};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    // Control buffer sized for the maximum, aligned for cmsghdr.
    alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int) * k_max_msg_fds)];
    if (nfds != 0) {
        std::memset(ctrl, 0, sizeof ctrl);
        msg.msg_control = ctrl;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        std::memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    }
    for (;;) {
        const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0)
            return DOCA_SUCCESS; // SEQPACKET: all or nothing
        if (errno != EINTR)
            return map_errno(errno);
    }
}

doca_error_t recv_msg(int fd, void *buf, size_t cap, size_t *len, int *fds, size_t *nfds,
                      size_t max_fds) noexcept
{
    if (buf == nullptr || cap == 0 || len == nullptr || max_fds > k_max_msg_fds ||
        (max_fds != 0 && (fds == nullptr || nfds == nullptr)))
        return DOCA_ERROR_INVALID_VALUE;
    iovec iov{buf, cap};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    // Always offer room for k_max_msg_fds: fds beyond what the caller wants are then received
    // (and closed) rather than silently dropped, so the error is detected reliably.
    alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int) * k_max_msg_fds)];
    msg.msg_control = ctrl;
    msg.msg_controllen = sizeof ctrl;
    ssize_t n;
    for (;;) {
        n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (n >= 0)
            break;
        if (errno != EINTR)
            return map_errno(errno);
    }
    // Collect the fds first, so every failure path below can close them.
    int got[k_max_msg_fds + 2];
    size_t ngot = 0;
    bool overflow = false;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        const size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; ++i) {
            int f;
            std::memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
            if (ngot < sizeof got / sizeof got[0])
                got[ngot++] = f;
            else {
                ::close(f);
                overflow = true;
            }
        }
    }
    auto close_got = [&] {
        for (size_t i = 0; i < ngot; ++i)
            ::close(got[i]);
    };
    if (n == 0 && ngot == 0) // EOF (see header: 0-byte messages are never sent)
        return DOCA_ERROR_CONNECTION_RESET;
    if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || overflow || ngot > max_fds || n == 0) {
        close_got();
        return DOCA_ERROR_INVALID_VALUE;
    }
    *len = size_t(n);
    for (size_t i = 0; i < ngot; ++i)
        fds[i] = got[i];
    if (nfds != nullptr)
        *nfds = ngot;
    return DOCA_SUCCESS;
}

doca_error_t peer_pid(int fd, pid_t *pid) noexcept
{
    ucred cred{};
    socklen_t l = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &l) != 0)
        return DOCA_ERROR_OPERATING_SYSTEM;
    *pid = cred.pid;
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport
