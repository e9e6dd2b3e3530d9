// SPDX-License-Identifier: Apache-2.0
#include "core/pe.hpp"

#include <sys/epoll.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/ctx.hpp"
#include "core/graph.hpp"
#include "core/task.hpp"

namespace {

// The engine's own descriptors carry these markers instead of a watcher pointer.
softcomch::core::fd_watcher *const k_wake_marker = nullptr;

struct timer_marker_t final : softcomch::core::fd_watcher {
    void on_ready(uint32_t) override {}
};
timer_marker_t timer_marker;

// Completions delivered per progress call before contexts are polled again; bounds the time one
// call can spend while keeping per-call overhead low.
constexpr unsigned k_completion_budget = 256;

} // namespace

doca_pe::doca_pe() = default;

doca_pe::~doca_pe()
{
    if (uint64_t n = concurrent_calls_.load(std::memory_order_relaxed); n > 1)
        SC_LOG_ERR("doca_pe_destroy: this progress engine was progressed from two threads at once "
                   "%lu times "
                   "in all (logged once)",
                   (unsigned long)n);
}

doca_error_t doca_pe::init()
{
    epoll_fd_.reset(::epoll_create1(EPOLL_CLOEXEC));
    const doca_error_t wake_rc = softcomch::event_fd::create(wake_fd_);
    timer_fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    if (!epoll_fd_ || wake_rc != DOCA_SUCCESS || !timer_fd_) {
        SC_LOG_ERR("doca_pe_create: cannot create notification descriptors: %s",
                   std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = k_wake_marker;
    if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, wake_fd_.fd(), &ev) != 0)
        return DOCA_ERROR_OPERATING_SYSTEM;
    ev.data.ptr = &timer_marker;
    if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, timer_fd_.get(), &ev) != 0)
        return DOCA_ERROR_OPERATING_SYSTEM;
    return DOCA_SUCCESS;
}

doca_error_t doca_pe::connect(doca_ctx *ctx)
{
    if (ctx->pe()) {
        SC_LOG_ERR("doca_pe_connect_ctx: the %s context is already connected to a progress engine",
                   ctx->kind_name());
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!ctx->is_idle()) {
        SC_LOG_ERR("doca_pe_connect_ctx: the %s context is not IDLE", ctx->kind_name());
        return DOCA_ERROR_BAD_STATE;
    }
    ctxs_.push_back(ctx);
    ++live_ctxs_;
    ctx->attach(this);
    return DOCA_SUCCESS;
}

void doca_pe::disconnect(doca_ctx *ctx) noexcept
{
    auto it = std::find(ctxs_.begin(), ctxs_.end(), ctx);
    if (it != ctxs_.end()) {
        --live_ctxs_;
        if (progress_owner_.load(std::memory_order_relaxed) != 0) {
            // Destroyed from a callback inside progress: the poll loop indexes ctxs_.
            *it = nullptr;
            ctxs_holes_ = true;
        } else {
            ctxs_.erase(it);
        }
    }
    ctx->detach();
}

doca_error_t doca_pe::watch(int fd, softcomch::core::fd_watcher *w, uint32_t events)
{
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = w;
    if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
        SC_LOG_ERR("progress engine: cannot watch descriptor %d: %s", fd, std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    return DOCA_SUCCESS;
}

void doca_pe::unwatch(int fd) noexcept
{
    ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, fd, nullptr);
}

unsigned doca_pe::deliver_completions(unsigned budget)
{
    unsigned n = 0;
    while (n < budget) {
        doca_task *t = completions_.pop_front();
        if (!t)
            break;
        SC_TRACE(if (softcomch::trace::tasks_open()) softcomch::trace::task_end(t, t->status_));
        doca_ctx *ctx = t->ctx_;
        ctx->task_retired();
        if (t->graph_instance_ != nullptr) [[unlikely]] {
            // A node of a graph instance: the graph takes it, no task callback (doca_graph.h).
            softcomch::core::graph_task_done(t);
            ++n;
            continue;
        }
        if (t->abandoned_) {
            // Freed by the program while in flight: back to its pool, no callback.
            ctx->free_task(t);
            continue;
        }
        // The program owns the task again from here: it may free, resubmit or keep it.
        t->state_ = softcomch::core::task_state::allocated;
        t->invoke_(t);
        ++n;
    }
    return n;
}

void doca_pe::schedule_graph(doca_graph_instance *inst) noexcept
{
    graphs_ready_.push_back(inst);
}

unsigned doca_pe::run_graphs()
{
    unsigned n = 0;
    for (size_t queued = graphs_ready_.size(); queued != 0; --queued) {
        doca_graph_instance *inst = graphs_ready_.pop_front();
        inst->scheduled_ = false;
        n += inst->run_ready(); // may destroy inst, or queue it again
    }
    return n;
}

void doca_pe::service_fds(uint64_t now_ns)
{
    epoll_event events[64];
    int n = ::epoll_wait(epoll_fd_.get(), events, 64, 0);
    for (int i = 0; i < n; ++i) {
        auto *w = static_cast<softcomch::core::fd_watcher *>(events[i].data.ptr);
        // Drain so the level-triggered handle stops reporting this wake-up.
        if (w == k_wake_marker) {
            wake_fd_.drain();
            continue;
        }
        if (w == &timer_marker) {
            uint64_t v;
            [[maybe_unused]] ssize_t r = ::read(timer_fd_.get(), &v, sizeof v);
            continue;
        }
        w->on_ready(events[i].events);
    }
    // Then the contexts' timers (doca_ctx::tick), here rather than in progress() so that the
    // per-call path stays as short as it was.
    for (doca_ctx *ctx : ctxs_)
        if (ctx)
            ctx->tick(now_ns);
}

namespace {
// An address that identifies the calling thread for as long as it lives.
uintptr_t thread_identity() noexcept
{
    static thread_local char anchor __attribute__((tls_model("initial-exec")));
    return reinterpret_cast<uintptr_t>(&anchor);
}
} // namespace

uint8_t doca_pe::progress()
{
    const uintptr_t me = thread_identity();
    // A0: pairs with R0 below, so one thread's progress happens-before the next thread's when a
    // program hands an engine from thread to thread (legitimate, if unusual). A load and a store,
    // not a compare-exchange: a locked instruction here waited for every store of the caller's
    // last send to leave the store buffer (three quarters of a progress call in a 4 KiB
    // fast-path stream). So the check is best effort: a call from inside a callback, or from a
    // thread while another is in progress, is refused with the line below; two threads entering
    // within the same few nanoseconds may both pass, as they would in DOCA, which checks nothing.
    const uintptr_t owner = progress_owner_.load(std::memory_order_acquire);
    if (owner != 0) [[unlikely]] {
        if (owner == me) {
            SC_LOG_ERR(
                "doca_pe_progress: called from inside a callback of the same progress engine; "
                "callbacks must not progress");
        } else if (concurrent_calls_.fetch_add(1, std::memory_order_relaxed) == 0) {
            SC_LOG_ERR("doca_pe_progress: this progress engine is being progressed by another "
                       "thread right now; "
                       "a progress engine and its contexts belong to one thread at a time (this "
                       "call did nothing; "
                       "logged once)");
        }
        return 0;
    }
    progress_owner_.store(me, std::memory_order_relaxed);
    // Whatever leaves this call, a return or an exception (a context that throws is caught by
    // guard() at the C boundary), the engine is usable again afterwards: the holes left by
    // contexts destroyed from callbacks are removed and the owner is cleared.
    struct exit_scope {
        doca_pe &pe;
        ~exit_scope()
        {
            if (pe.ctxs_holes_) {
                pe.ctxs_.erase(std::remove(pe.ctxs_.begin(), pe.ctxs_.end(), nullptr),
                               pe.ctxs_.end());
                pe.ctxs_holes_ = false;
            }
            // R0: pairs with A0 of the next progress call, on whichever thread.
            pe.progress_owner_.store(0, std::memory_order_release);
        }
    } scope{*this};
    unsigned work = deliver_completions(k_completion_budget);
    if (!graphs_ready_.empty()) [[unlikely]]
        work += run_graphs();

    // Fast path. Index loop: a callback may connect a new context (never remove one: contexts
    // leave the engine only when destroyed, which is refused unless IDLE and not in progress).
    for (size_t i = 0; i < ctxs_.size(); ++i)
        if (doca_ctx *ctx = ctxs_[i])
            work += ctx->poll();

    // Slow path: at most once per service interval unless something asked for it. The coarse
    // clock keeps this check cheap on every call; it advances once per kernel tick, so the
    // slow path runs once per max(interval, tick). After the contexts' polls: the first call
    // after a wake-up delivers the message that woke it (and sends the answer its callback
    // makes) before the descriptors that fired are drained, so the draining system calls are
    // off the round trip. What a watcher records here (a control message waiting, a hang-up)
    // is acted on at the next poll; a notification request before it reports the context busy
    // (try_arm looks at the same flags), so nothing waits for a wake-up that already came.
    uint64_t now = softcomch::coarse_now_ns();
    if (force_service_ || now >= next_service_ns_) {
        force_service_ = false;
        next_service_ns_ = now + service_interval_ns;
        service_fds(now);
    }

    work += deliver_completions(k_completion_budget);
    return work != 0 ? 1 : 0;
}

doca_error_t doca_pe::request_notification()
{
    // Completions waiting for the next progress (a send submitted just before this call, the
    // usual case): the handle must be readable at once, and the contexts are not armed. An arm
    // would only make the peers send wake-ups (system calls on their side, while they answer)
    // that this engine, which is not going to sleep, drains afterwards.
    bool busy = !completions_.empty() || !graphs_ready_.empty();
    uint64_t timeout_ns = 0;
    for (size_t i = 0; !busy && i < ctxs_.size(); ++i) {
        doca_ctx *ctx = ctxs_[i];
        if (!ctx)
            continue;
        softcomch::core::arm_result r = ctx->try_arm();
        busy = r.busy;
        if (r.timeout_ns && (timeout_ns == 0 || r.timeout_ns < timeout_ns))
            timeout_ns = r.timeout_ns;
    }
    if (busy) {
        if (wake_fd_.signal() != DOCA_SUCCESS) {
            SC_LOG_ERR("doca_pe_request_notification: eventfd write failed: %s",
                       std::strerror(errno));
            return DOCA_ERROR_OPERATING_SYSTEM;
        }
        return DOCA_SUCCESS;
    }
    // A disarmed timer stays disarmed: no system call on the usual sleep, which has no deadline.
    if (timeout_ns == 0 && !timer_armed_)
        return DOCA_SUCCESS;
    itimerspec its{};
    if (timeout_ns) {
        its.it_value.tv_sec = time_t(timeout_ns / 1000000000u);
        its.it_value.tv_nsec = long(timeout_ns % 1000000000u);
    }
    timer_armed_ = timeout_ns != 0;
    if (::timerfd_settime(timer_fd_.get(), 0, &its, nullptr) != 0) {
        SC_LOG_ERR("doca_pe_request_notification: timerfd_settime failed: %s",
                   std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_pe::clear_notification()
{
    for (doca_ctx *ctx : ctxs_)
        if (ctx)
            ctx->disarm();
    // The next progress runs the slow path, which drains the descriptors that fired.
    force_service_ = true;
    return DOCA_SUCCESS;
}

size_t doca_pe::inflight() const noexcept
{
    size_t n = 0;
    for (const doca_ctx *ctx : ctxs_)
        if (ctx)
            n += ctx->inflight();
    return n;
}
