// SPDX-License-Identifier: Apache-2.0
//
// Shared by the project's pattern programs (tests/programs): device lookup by PCI address,
// NVIDIA's event-loop sequence, message integrity (sequence number + checksum), and a fatal
// check. Public API only.
#pragma once

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "device_lookup.hpp"

namespace sc_prog {

[[noreturn]] inline void die(const char *prog, const char *what, doca_error_t rc)
{
    std::fprintf(stderr, "%s: %s: %s\n", prog, what, doca_error_get_name(rc));
    std::exit(2);
}

using sc_devices::open_dev;
using sc_devices::open_rep;

// A fabric of this process's own unless the caller chose one (SOFTCOMCH_FABRIC).
inline void use_private_fabric(const char *prefix)
{
    if (!getenv("SOFTCOMCH_FABRIC")) {
        std::string f = std::string(prefix) + "-" + std::to_string(getpid());
        setenv("SOFTCOMCH_FABRIC", f.c_str(), 1);
    }
}

// The DPU side as a forked process: `serve(ready_fd, report_fd)` writes one byte to ready_fd
// once it listens and whatever it reports to report_fd, and returns the child's exit status.
// Returns the child's pid once it is ready (-1 if it failed to start); `*report_fd` is the
// reading end of its report pipe.
template <typename Serve> pid_t fork_server(Serve serve, int *report_fd)
{
    int ready[2], report[2];
    if (pipe(ready) != 0 || pipe(report) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        close(report[0]);
        _exit(serve(ready[1], report[1]));
    }
    close(ready[1]);
    close(report[1]);
    char one = 0;
    const bool ok = pid > 0 && read(ready[0], &one, 1) == 1;
    close(ready[0]);
    *report_fd = report[0];
    return ok ? pid : -1;
}

inline void raise_fd_limit()
{
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

// An epoll set holding `pe`'s notification handle; -1 on failure.
inline int epoll_on(doca_pe *pe)
{
    doca_notification_handle_t h = doca_event_invalid_handle;
    if (doca_pe_get_notification_handle(pe, &h) != DOCA_SUCCESS)
        return -1;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev) != 0)
        return -1;
    return ep;
}

// NVIDIA's event loop (samples/doca_common/pe_event): after progressing until nothing is left,
// arm, wait, clear with handle 0. Returns whether epoll_wait woke (false: it timed out), and
// counts wake-ups in `*wakeups`. DOCA errors are returned through `*rc`. `armed` (when given)
// runs between the notification request and the wait.
template <typename Armed = void (*)()>
inline bool event_wait(doca_pe *pe, int ep, int timeout_ms, uint64_t *wakeups, doca_error_t *rc,
                       Armed armed = nullptr)
{
    *rc = doca_pe_request_notification(pe);
    if (*rc != DOCA_SUCCESS)
        return false;
    if constexpr (!std::is_pointer_v<Armed>)
        armed();
    else if (armed)
        armed();
    epoll_event ev{};
    int n = epoll_wait(ep, &ev, 1, timeout_ms);
    *rc = doca_pe_clear_notification(pe, 0);
    if (n > 0 && wakeups)
        ++*wakeups;
    return n > 0;
}

inline uint32_t fnv32(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

// Message integrity: [u64 seq][u32 stream][u32 checksum of the rest][payload].
inline constexpr uint32_t k_msg_header = 16;

inline void fill_msg(uint8_t *p, uint32_t len, uint64_t seq, uint32_t stream)
{
    for (uint32_t i = k_msg_header; i < len; ++i)
        p[i] = uint8_t(seq * 131 + stream * 7 + i);
    const uint32_t sum = fnv32(p + k_msg_header, len - k_msg_header);
    std::memcpy(p, &seq, 8);
    std::memcpy(p + 8, &stream, 4);
    std::memcpy(p + 12, &sum, 4);
}

inline bool check_msg(const uint8_t *p, uint32_t len, uint64_t seq, uint32_t stream)
{
    if (len < k_msg_header)
        return false;
    uint64_t s;
    uint32_t t, sum;
    std::memcpy(&s, p, 8);
    std::memcpy(&t, p + 8, 4);
    std::memcpy(&sum, p + 12, 4);
    return s == seq && t == stream && sum == fnv32(p + k_msg_header, len - k_msg_header);
}

} // namespace sc_prog
