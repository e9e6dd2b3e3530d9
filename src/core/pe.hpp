// SPDX-License-Identifier: Apache-2.0
//
// The progress engine. One call of progress():
//   1. delivers queued task completions (FIFO, in the order the tasks completed);
//   2. every `service_interval` (or right after a notification was cleared) runs the slow path:
//      one epoll_wait(0) over the descriptors contexts registered (listening and connection
//      sockets, wake-up eventfds), whose watchers record what happened without calling user code,
//      then gives every context its tick (timers: deadlines, heartbeats; doca_ctx::tick);
//   3. polls every attached context (the fast path: shared-memory rings, no system call);
//   4. delivers completions queued by step 3.
// The notification handle is the epoll descriptor itself, so a program's epoll set wakes for
// anything a context registered, for the engine's own eventfd (work already pending when armed)
// and for its timerfd (contexts that must retry something later, e.g. a client looking for its
// server).
#pragma once

#include <doca_error.h>
#include <doca_types.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/event_fd.hpp"
#include "common/intrusive_fifo.hpp"
#include "common/object_tag.hpp"
#include "common/quarantine.hpp"
#include "common/unique_fd.hpp"
#include "common/visibility.hpp"

struct doca_ctx;
struct doca_graph_instance;
struct doca_task;

namespace softcomch::core {

// Something that owns a descriptor in the engine's epoll set. on_ready() runs inside progress
// (or clear_notification); it must only record state and must not call user callbacks or
// destroy other watchers.
class fd_watcher {
public:
    virtual void on_ready(uint32_t epoll_events) = 0;

protected:
    ~fd_watcher() = default;
};

} // namespace softcomch::core

// Its storage is quarantined (common/quarantine.hpp): a stale handle meets a dead tag.
struct doca_pe : softcomch::quarantined<doca_pe> {
    SOFTCOMCH_API doca_pe();
    SOFTCOMCH_API ~doca_pe();
    doca_pe(const doca_pe &) = delete;
    doca_pe &operator=(const doca_pe &) = delete;

    // doca_pe_create: sets up the epoll, eventfd and timerfd descriptors.
    SOFTCOMCH_API doca_error_t init();

    SOFTCOMCH_API doca_error_t connect(doca_ctx *ctx);
    void disconnect(doca_ctx *ctx) noexcept; // by a context's destructor
    bool has_contexts() const noexcept { return live_ctxs_ != 0; }

    SOFTCOMCH_API uint8_t progress();

    int notification_fd() const noexcept { return epoll_fd_.get(); }
    SOFTCOMCH_API doca_error_t request_notification();
    SOFTCOMCH_API doca_error_t clear_notification();
    SOFTCOMCH_API size_t inflight() const noexcept;
    // How often progress() found another thread inside it (diagnostics, tests).
    uint64_t concurrent_calls() const noexcept
    {
        return concurrent_calls_.load(std::memory_order_relaxed);
    }

    // For contexts: queue a task for its callback.
    void enqueue_completion(doca_task *task) noexcept { completions_.push_back(task); }
    bool completions_pending() const noexcept { return !completions_.empty(); }
    // Delivers queued completions now. Contexts call it before each event they deliver, so
    // completions and events reach the program in the order they happened (a send's completion
    // before any reply to it) and a program that sends from its receive callback gets its tasks
    // back at the same pace, as on hardware where one progress call reports one item.
    unsigned flush_completions() noexcept
    {
        return completions_.empty() ? 0 : deliver_completions(~0u);
    }
    // For contexts: add/remove a descriptor to/from the epoll set (level-triggered EPOLLIN).
    doca_error_t watch(int fd, softcomch::core::fd_watcher *w, uint32_t events = 0x001 /*EPOLLIN*/);
    void unwatch(int fd) noexcept;
    // Ask for the slow path on the next progress call (e.g. a context just started listening).
    void request_service() noexcept { force_service_ = true; }

    // Graphs (core/graph.hpp): how many exist on this engine (doca_pe_destroy refuses while
    // any does), and the queue of instances with work to run inside progress (user nodes,
    // completion callbacks).
    void graph_created() noexcept { ++graphs_; }
    void graph_destroyed() noexcept { --graphs_; }
    bool has_graphs() const noexcept { return graphs_ != 0; }
    void schedule_graph(doca_graph_instance *inst) noexcept;

    softcomch::object_tag tag_{softcomch::object_kind::pe};

    // Slow-path period (accepts, handshakes, liveness, consumer announcements), measured on the
    // coarse clock: in effect max(1 ms, the kernel tick).
    static constexpr uint64_t service_interval_ns = 1'000'000; // 1 ms

private:
    unsigned deliver_completions(unsigned budget);
    // Runs the graph instances queued when the call began (instances they queue wait for the
    // next call, so that one call stays bounded).
    unsigned run_graphs();
    // The slow path: the descriptors' watchers, then every context's tick at `now_ns`.
    void service_fds(uint64_t now_ns);

    // Contexts in connection order. A context destroyed from a callback inside progress leaves
    // a nullptr behind, removed once the poll loop is done (the loop indexes this vector).
    std::vector<doca_ctx *> ctxs_;
    size_t live_ctxs_ = 0;
    bool ctxs_holes_ = false;
    softcomch::intrusive_fifo<doca_task> completions_;
    softcomch::intrusive_fifo<doca_graph_instance> graphs_ready_;
    size_t graphs_ = 0;
    softcomch::unique_fd epoll_fd_;
    softcomch::event_fd wake_fd_;   // readable when armed with work pending
    softcomch::unique_fd timer_fd_; // timerfd: contexts' retry timeouts
    bool timer_armed_ = false;      // timer_fd_ was last set to a deadline (it may have fired)
    uint64_t next_service_ns_ = 0;
    bool force_service_ = true;
    // The thread inside progress() (an address unique to each live thread), 0 when none. Set
    // and cleared with atomics so that two threads progressing one engine is detected, by
    // thread identity, without a data race; the same thread seen again means a callback called
    // progress.
    std::atomic<uintptr_t> progress_owner_{0};
    std::atomic<uint64_t> concurrent_calls_{0};
};
