// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/wake.hpp"

#include "common/errno_map.hpp"
#include "transport/shm/peer_checks.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace softcomch::transport::shm {

namespace {
// Datagrams read per drain: the peer sends one per arm of ours, so more than a few means a
// flood; what is left keeps the socket readable and is read on the next round.
constexpr int k_drain_budget = 64;
} // namespace

doca_error_t wake_listener::create(wake_listener &out, unique_fd &send_end) noexcept
{
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
        return resource_errno_to_doca(errno);
    out.fd_.reset(sv[0]);
    send_end.reset(sv[1]);
    return DOCA_SUCCESS;
}

bool wake_listener::drain() const noexcept
{
    // One system call per batch: recvmmsg takes what is queued (usually one datagram) and
    // returns at once; only a full batch (a flood) asks again, up to the budget.
    constexpr unsigned k_batch = 16;
    char bufs[k_batch][1];
    iovec iov[k_batch];
    mmsghdr msgs[k_batch];
    for (unsigned i = 0; i < k_batch; ++i) {
        iov[i] = iovec{bufs[i], sizeof bufs[i]};
        msgs[i] = mmsghdr{};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    bool any = false;
    for (int round = 0; round < k_drain_budget / int(k_batch); ++round) {
        const int n = ::recvmmsg(fd_.get(), msgs, k_batch, MSG_DONTWAIT, nullptr);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; // EAGAIN: empty
        any = true;
        if (unsigned(n) < k_batch)
            break;
    }
    return any;
}

const char *wake_target::adopt(unique_fd fd, pid_t peer, wake_target &out) noexcept
{
    if (const char *why = check_wake_socket(fd.get(), peer))
        return why;
    out.fd_ = std::move(fd);
    return nullptr;
}

void wake_target::signal() const noexcept
{
    const char b = 1;
    // MSG_DONTWAIT: never blocks, whatever O_NONBLOCK the shared file has. MSG_NOSIGNAL: no
    // SIGPIPE when the peer closed its end. EINTR cannot happen without blocking.
    (void)::send(fd_.get(), &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

} // namespace softcomch::transport::shm
