// SPDX-License-Identifier: Apache-2.0
//
// Wake-ups between the processes of a connection (docs/shm_layout.md, "Wake-up sockets"): the
// side that sleeps creates an AF_UNIX SOCK_DGRAM socket pair, keeps one end in its epoll set and
// sends the other end to the peer, which sends a one-byte datagram on it to wake the sleeper.
//
// Why a socket and not an eventfd: an eventfd is one open file shared by both processes, and its
// O_NONBLOCK flag belongs to that shared file, so the peer that created it can clear the flag at
// any time and park the counter at its maximum: the next write then blocks the waker for ever.
// send() with MSG_DONTWAIT | MSG_NOSIGNAL is non-blocking and SIGPIPE-free per call, whatever
// the peer does with the descriptor. A full socket (the sleeper does not drain) is readable
// already, so EAGAIN loses nothing; a closed one means the peer is gone, which the connection
// socket reports.
//
// Only the wake-up of an armed peer costs a system call; polled data paths never touch these.
#pragma once

#include "common/unique_fd.hpp"

#include <doca_error.h>

#include <sys/types.h>

#include <utility>

namespace softcomch::transport::shm {

// The end we sleep on.
class wake_listener {
public:
    // A new pair: `out` keeps the receiving end, `send_end` is the end for the peer.
    // DOCA_ERROR_NO_MEMORY (descriptors), DOCA_ERROR_OPERATING_SYSTEM.
    static doca_error_t create(wake_listener &out, unique_fd &send_end) noexcept;

    int fd() const noexcept { return fd_.get(); }
    explicit operator bool() const noexcept { return bool(fd_); }
    void reset() noexcept { fd_.reset(); }
    // Reads the queued wake-ups without blocking (a bounded number); true if there was one.
    bool drain() const noexcept;

private:
    unique_fd fd_;
};

// The peer's end, which we signal.
class wake_target {
public:
    wake_target() noexcept = default;

    // Takes a descriptor the peer sent, once check_wake_socket() accepted it for peer `peer`;
    // otherwise returns its reason (and closes `fd`).
    static const char *adopt(unique_fd fd, pid_t peer, wake_target &out) noexcept;

    explicit operator bool() const noexcept { return bool(fd_); }
    int fd() const noexcept { return fd_.get(); }
    // Wakes the peer: never blocks, never raises a signal. Failures need no action (see above).
    void signal() const noexcept;

private:
    unique_fd fd_;
};

} // namespace softcomch::transport::shm
