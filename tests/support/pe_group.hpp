// SPDX-License-Identifier: Apache-2.0
//
// Progressing several progress engines together, in polling or epoll mode (the fast-path harness,
// fastpath_harness.hpp). Definitions in pe_group.cpp.
#pragma once

#include <doca_pe.h>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <vector>

namespace sc_test::fp {

// Progresses a set of engines in polling mode (progress each; sleep briefly when idle) or in
// epoll mode (arm every engine with doca_pe_request_notification, epoll_wait on all their
// notification handles, doca_pe_clear_notification, then progress each until idle).
class pe_group {
public:
    explicit pe_group(std::initializer_list<doca_pe *> pes = {}, bool epoll = false);
    pe_group(const pe_group &) = delete;
    pe_group &operator=(const pe_group &) = delete;
    ~pe_group();

    void add(doca_pe *pe);
    void set_epoll(bool on) { epoll_ = on; }
    bool epoll() const { return epoll_; }

    // One round; true if any engine reported progress.
    bool round(int wait_ms = 5);

    bool until(const std::function<bool()> &pred, std::chrono::milliseconds timeout);

    void run_for(std::chrono::milliseconds d);

    int idle_sleep_us = 5;

private:
    struct entry {
        doca_pe *pe;
        doca_notification_handle_t handle;
    };
    void arm_fd(entry &e);
    std::vector<entry> entries_;
    int epfd_ = -1;
    bool epoll_ = false;
};

} // namespace sc_test::fp
