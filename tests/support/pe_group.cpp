// SPDX-License-Identifier: Apache-2.0
//
// The definitions of pe_group.hpp.
#include "pe_group.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <thread>

namespace sc_test::fp {

using clock = std::chrono::steady_clock;

pe_group::pe_group(std::initializer_list<doca_pe *> pes, bool epoll) : epoll_(epoll)
{
    for (doca_pe *pe : pes)
        add(pe);
}

pe_group::~pe_group()
{
    if (epfd_ >= 0)
        close(epfd_);
}

void pe_group::add(doca_pe *pe)
{
    if (!pe)
        return;
    entry e{pe, -1};
    doca_pe_get_notification_handle(pe, &e.handle);
    entries_.push_back(e);
    if (epfd_ >= 0)
        arm_fd(e);
}

bool pe_group::round(int wait_ms)
{
    bool any = false;
    if (epoll_) {
        if (epfd_ < 0) {
            epfd_ = epoll_create1(EPOLL_CLOEXEC);
            for (auto &e : entries_)
                arm_fd(e);
        }
        for (auto &e : entries_)
            doca_pe_request_notification(e.pe);
        epoll_event evs[16];
        epoll_wait(epfd_, evs, 16, wait_ms);
        for (auto &e : entries_)
            doca_pe_clear_notification(e.pe, e.handle);
        for (auto &e : entries_)
            while (doca_pe_progress(e.pe))
                any = true;
    } else {
        for (auto &e : entries_)
            if (doca_pe_progress(e.pe))
                any = true;
        if (!any)
            std::this_thread::sleep_for(std::chrono::microseconds(idle_sleep_us));
    }
    return any;
}

bool pe_group::until(const std::function<bool()> &pred, std::chrono::milliseconds timeout)
{
    auto end = clock::now() + timeout;
    while (!pred()) {
        if (clock::now() > end)
            return pred();
        round();
    }
    return true;
}

void pe_group::run_for(std::chrono::milliseconds d)
{
    auto end = clock::now() + d;
    while (clock::now() < end)
        round(1);
}

void pe_group::arm_fd(entry &e)
{
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = e.pe;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, e.handle, &ev);
}

} // namespace sc_test::fp
