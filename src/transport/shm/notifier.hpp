// SPDX-License-Identifier: Apache-2.0
//
// Wake-up channel of a ring consumer: an eventfd (non-blocking, close-on-exec). The consumer
// creates it, sends it to the producer's process over the Unix socket (SCM_RIGHTS), arms its
// ring and sleeps in epoll on it; the producer calls signal() when ring_producer::commit()
// returned true. Only the wake-up of an armed peer costs a system call; the polled data path
// never touches the eventfd.
#pragma once

#include "common/unique_fd.hpp"

#include <doca_error.h>

#include <utility>

namespace softcomch::transport::shm {

class notifier {
public:
    notifier() noexcept = default;
    // Takes ownership of an existing eventfd (e.g. one received from the peer).
    explicit notifier(unique_fd fd) noexcept : fd_(std::move(fd)) {}

    // Creates a fresh eventfd (EFD_NONBLOCK | EFD_CLOEXEC, counter 0).
    // DOCA_ERROR_NO_MEMORY when out of fds/memory, DOCA_ERROR_OPERATING_SYSTEM otherwise.
    static doca_error_t create(notifier &out) noexcept;

    // Adds 1 to the counter (makes the fd readable). A saturated counter (EAGAIN) still leaves
    // the fd readable, so it counts as success. DOCA_ERROR_OPERATING_SYSTEM on other failures.
    doca_error_t signal() const noexcept;
    // Resets the counter to 0. Returns true if it was non-zero (a wake-up was pending).
    bool drain() const noexcept;

    int fd() const noexcept { return fd_.get(); }
    explicit operator bool() const noexcept { return bool(fd_); }
    unique_fd release() noexcept { return std::move(fd_); }

private:
    unique_fd fd_;
};

} // namespace softcomch::transport::shm
