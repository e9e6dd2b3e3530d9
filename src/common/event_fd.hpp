// SPDX-License-Identifier: Apache-2.0
//
// An eventfd (non-blocking, close-on-exec, counter semantics): the one wake-up primitive of the
// tree. A progress engine makes its notification handle readable with it; a ring or fast-channel
// consumer creates one, sends it to the producer's process over the Unix socket (SCM_RIGHTS),
// arms and sleeps in epoll on it, and the producer calls signal() when its commit said the
// consumer was armed. Only the wake-up of an armed peer costs a system call; the polled data path
// never touches the eventfd.
#pragma once

#include "common/unique_fd.hpp"

#include <doca_error.h>

#include <utility>

namespace softcomch {

class event_fd {
public:
    event_fd() noexcept = default;
    // Takes ownership of an existing eventfd (e.g. one received from the peer).
    explicit event_fd(unique_fd fd) noexcept : fd_(std::move(fd)) {}

    // Creates a fresh eventfd (EFD_NONBLOCK | EFD_CLOEXEC, counter 0).
    // DOCA_ERROR_NO_MEMORY when out of fds/memory, DOCA_ERROR_OPERATING_SYSTEM otherwise.
    static doca_error_t create(event_fd &out) noexcept;

    // Adds 1 to the counter (makes the fd readable). A saturated counter (EAGAIN) still leaves
    // the fd readable, so it counts as success. DOCA_ERROR_OPERATING_SYSTEM on other failures.
    doca_error_t signal() const noexcept;
    // Resets the counter to 0. Returns true if it was non-zero (a wake-up was pending).
    bool drain() const noexcept;

    int fd() const noexcept { return fd_.get(); }
    explicit operator bool() const noexcept { return bool(fd_); }
    unique_fd release() noexcept { return std::move(fd_); }
    void reset() noexcept { fd_.reset(); }

private:
    unique_fd fd_;
};

} // namespace softcomch
