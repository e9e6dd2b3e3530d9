// SPDX-License-Identifier: Apache-2.0
//
// White-box tests of the progress engine, the context state machine and task pools, with a
// minimal in-process context (no transport).
#include <gtest/gtest.h>

#include <sys/epoll.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/ctx.hpp"
#include "core/pe.hpp"
#include "core/task.hpp"

namespace {

struct test_task : doca_task {
    explicit test_task(doca_ctx *owner) : doca_task(owner) {}
    int payload = 0;
};

// A context whose start/stop can be synchronous or asynchronous, and whose tasks complete when
// poll() runs (one per poll call, like a device reporting one completion at a time).
struct test_ctx final : doca_ctx {
    test_ctx() : doca_ctx("test") {}

    bool async_start = false;
    bool finish_start = false; // poll moves STARTING -> RUNNING when set
    std::vector<doca_task *> queue;
    std::vector<int> completed; // payloads in completion order
    std::vector<doca_error_t> statuses;
    softcomch::core::task_pool<test_task> pool;
    bool busy_on_arm = false;
    bool throw_in_poll = false; // the next poll() throws (once)

    static void invoke(doca_task *t)
    {
        auto *self = static_cast<test_ctx *>(t->ctx_);
        self->completed.push_back(static_cast<test_task *>(t)->payload);
        self->statuses.push_back(t->status_);
        if (self->on_complete)
            self->on_complete(static_cast<test_task *>(t));
    }
    std::function<void(test_task *)> on_complete;

    doca_error_t submit(doca_task *t) override
    {
        t->state_ = softcomch::core::task_state::submitted;
        task_submitted();
        queue.push_back(t);
        return DOCA_SUCCESS;
    }
    void free_task(doca_task *t) override { pool.release(static_cast<test_task *>(t)); }
    unsigned poll() override
    {
        if (throw_in_poll) {
            throw_in_poll = false;
            throw std::runtime_error("a context failed inside progress");
        }
        unsigned work = 0;
        if (state() == DOCA_CTX_STATE_STARTING && finish_start) {
            set_state(DOCA_CTX_STATE_RUNNING);
            return 1;
        }
        if (!queue.empty()) {
            doca_task *t = queue.front();
            queue.erase(queue.begin());
            complete(t, state() == DOCA_CTX_STATE_STOPPING ? DOCA_ERROR_SHUTDOWN : DOCA_SUCCESS);
            ++work;
        }
        if (state() == DOCA_CTX_STATE_STOPPING && queue.empty() && try_finish_stop())
            return work + 1;
        return work;
    }
    // Completes the oldest queued task now, as a context whose submit finishes at once does
    // (the completion waits in the engine for the next progress).
    void complete_front()
    {
        doca_task *t = queue.front();
        queue.erase(queue.begin());
        complete(t, DOCA_SUCCESS);
    }
    unsigned arms = 0; // try_arm() calls
    softcomch::core::arm_result try_arm() override
    {
        ++arms;
        softcomch::core::arm_result r;
        r.busy = busy_on_arm || !queue.empty();
        return r;
    }

protected:
    doca_error_t do_start() override { return async_start ? DOCA_ERROR_IN_PROGRESS : DOCA_SUCCESS; }
    void do_stop() override {}
    bool quiesce() override { return queue.empty(); }
};

struct transition {
    doca_ctx_states prev, next, seen;
};
std::vector<transition> transitions;

void record(const union doca_data, doca_ctx *ctx, doca_ctx_states prev, doca_ctx_states next)
{
    transitions.push_back({prev, next, ctx->state()});
}

class PeCtx : public ::testing::Test {
protected:
    void SetUp() override
    {
        transitions.clear();
        ASSERT_EQ(pe.init(), DOCA_SUCCESS);
        ctx.set_state_changed_cb(record);
        ctx.pool.configure(&ctx, 4, &test_ctx::invoke);
    }
    void TearDown() override
    {
        if (ctx.pe())
            pe.disconnect(&ctx);
    }
    // Connects and starts the context, and returns an epoll set watching the engine's handle.
    void start_and_watch(int *ep)
    {
        ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
        ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
        *ep = epoll_create1(EPOLL_CLOEXEC);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ASSERT_EQ(epoll_ctl(*ep, EPOLL_CTL_ADD, pe.notification_fd(), &ev), 0);
    }
    void drain()
    {
        for (int i = 0; i < 100 && pe.progress(); ++i) {
        }
    }
    doca_pe pe;
    test_ctx ctx;
};

TEST_F(PeCtx, StartWithoutEngineIsNotConnected)
{
    EXPECT_EQ(ctx.start(), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(ctx.state(), DOCA_CTX_STATE_IDLE);
    EXPECT_TRUE(transitions.empty());
}

TEST_F(PeCtx, ConnectTwiceIsNotPermitted)
{
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    doca_pe other;
    ASSERT_EQ(other.init(), DOCA_SUCCESS);
    EXPECT_EQ(other.connect(&ctx), DOCA_ERROR_NOT_PERMITTED);
}

TEST_F(PeCtx, SynchronousStartAndAsynchronousStop)
{
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
    ASSERT_EQ(transitions.size(), 1u);
    EXPECT_EQ(transitions[0].prev, DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(transitions[0].next, DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(transitions[0].seen, DOCA_CTX_STATE_RUNNING); // already in next_state
    EXPECT_EQ(ctx.start(), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(ctx.require_idle("test"), DOCA_ERROR_BAD_STATE);

    // A task in flight: the stop has something to wait for.
    ctx.on_complete = [&](test_task *t) {
        ctx.free_task(t);
    };
    ASSERT_EQ(ctx.submit(ctx.pool.alloc()), DOCA_SUCCESS);
    ASSERT_EQ(ctx.stop(), DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(ctx.state(), DOCA_CTX_STATE_STOPPING);
    EXPECT_EQ(ctx.stop(), DOCA_ERROR_IN_PROGRESS); // idempotent while stopping
    drain();
    EXPECT_EQ(ctx.state(), DOCA_CTX_STATE_IDLE);
    ASSERT_EQ(transitions.size(), 3u);
    EXPECT_EQ(transitions[2].next, DOCA_CTX_STATE_IDLE);
    // Stopping an IDLE context succeeds and changes nothing (NVIDIA's DMA samples rely on it).
    EXPECT_EQ(ctx.stop(), DOCA_SUCCESS);
    EXPECT_EQ(transitions.size(), 3u);
}

TEST_F(PeCtx, StopWithNothingInFlightIsIdleWhenItReturns)
{
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
    test_task *held = ctx.pool.alloc(); // allocated, never submitted: does not hold the stop
    ASSERT_NE(held, nullptr);
    ASSERT_EQ(ctx.stop(), DOCA_SUCCESS);
    EXPECT_EQ(ctx.state(), DOCA_CTX_STATE_IDLE);
    ASSERT_EQ(transitions.size(), 3u);
    EXPECT_EQ(transitions[1].next, DOCA_CTX_STATE_STOPPING);
    EXPECT_EQ(transitions[2].next, DOCA_CTX_STATE_IDLE);
    ctx.free_task(held); // still the program's to free after IDLE
    EXPECT_EQ(ctx.pool.in_use(), 0u);
}

// The IDLE callback destroys the context, both when it runs inside doca_ctx_stop and inside
// progress. Under ASan a read of the freed context after the callback is reported.
std::function<void(doca_ctx *)> destroy_on_idle;
void destroying_cb(const union doca_data, doca_ctx *ctx, doca_ctx_states, doca_ctx_states next)
{
    if (next == DOCA_CTX_STATE_IDLE && destroy_on_idle)
        destroy_on_idle(ctx);
}

TEST(PeCtxDestroy, IdleCallbackMayDestroyTheContextInsideStop)
{
    doca_pe pe;
    ASSERT_EQ(pe.init(), DOCA_SUCCESS);
    auto *c = new test_ctx();
    ASSERT_EQ(pe.connect(c), DOCA_SUCCESS);
    ASSERT_EQ(c->start(), DOCA_SUCCESS);
    bool destroyed = false;
    destroy_on_idle = [&](doca_ctx *ctx) {
        delete static_cast<test_ctx *>(ctx);
        destroyed = true;
    };
    c->set_state_changed_cb(destroying_cb);
    EXPECT_EQ(c->stop(), DOCA_SUCCESS);
    EXPECT_TRUE(destroyed);
    EXPECT_FALSE(pe.has_contexts());
    destroy_on_idle = nullptr;
}

TEST(PeCtxDestroy, IdleCallbackMayDestroyTheContextInsideProgress)
{
    doca_pe pe;
    ASSERT_EQ(pe.init(), DOCA_SUCCESS);
    auto *a = new test_ctx();
    test_ctx b; // connected after `a`: still polled in the round that destroys `a`
    ASSERT_EQ(pe.connect(a), DOCA_SUCCESS);
    ASSERT_EQ(pe.connect(&b), DOCA_SUCCESS);
    a->pool.configure(a, 1, &test_ctx::invoke);
    b.pool.configure(&b, 1, &test_ctx::invoke);
    ASSERT_EQ(a->start(), DOCA_SUCCESS);
    ASSERT_EQ(b.start(), DOCA_SUCCESS);
    a->on_complete = [&](test_task *t) {
        a->free_task(t);
    };
    ASSERT_EQ(a->submit(a->pool.alloc()), DOCA_SUCCESS);
    bool destroyed = false;
    destroy_on_idle = [&](doca_ctx *ctx) {
        delete static_cast<test_ctx *>(ctx);
        destroyed = true;
    };
    a->set_state_changed_cb(destroying_cb);
    ASSERT_EQ(a->stop(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_EQ(b.submit(b.pool.alloc()), DOCA_SUCCESS);
    for (int i = 0; i < 10 && !destroyed; ++i)
        pe.progress();
    EXPECT_TRUE(destroyed);
    EXPECT_TRUE(pe.has_contexts()); // b
    for (int i = 0; i < 10 && b.completed.empty(); ++i)
        pe.progress();
    EXPECT_EQ(b.completed.size(), 1u);
    destroy_on_idle = nullptr;
    b.free_task(b.pool.at(0));
    pe.disconnect(&b);
}

TEST_F(PeCtx, AsynchronousStartReachesRunningThroughProgress)
{
    ctx.async_start = true;
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(ctx.state(), DOCA_CTX_STATE_STARTING);
    EXPECT_EQ(pe.progress(), 0);
    ctx.finish_start = true;
    EXPECT_EQ(pe.progress(), 1);
    EXPECT_EQ(ctx.state(), DOCA_CTX_STATE_RUNNING);
    ASSERT_EQ(transitions.size(), 2u);
    EXPECT_EQ(transitions[1].prev, DOCA_CTX_STATE_STARTING);
}

TEST_F(PeCtx, TaskPoolExhaustionAndReuse)
{
    std::vector<test_task *> got;
    for (int i = 0; i < 4; ++i) {
        test_task *t = ctx.pool.alloc();
        ASSERT_NE(t, nullptr);
        EXPECT_TRUE(ctx.pool.owns(t));
        got.push_back(t);
    }
    EXPECT_EQ(ctx.pool.alloc(), nullptr);
    EXPECT_EQ(ctx.pool.in_use(), 4u);
    ctx.free_task(got[2]);
    test_task *again = ctx.pool.alloc();
    EXPECT_EQ(again, got[2]);
    EXPECT_EQ(again->user_data_.u64, 0u);
    int foreign_storage = 0;
    EXPECT_FALSE(ctx.pool.owns(reinterpret_cast<doca_task *>(&foreign_storage)));
}

TEST_F(PeCtx, CompletionsInOrderAndCallbacksMayResubmitAndFree)
{
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
    int resubmitted = 0;
    ctx.on_complete = [&](test_task *t) {
        EXPECT_EQ(t->state_, softcomch::core::task_state::allocated); // the program owns it again
        if (t->payload == 1 && resubmitted++ == 0) {
            t->payload = 100;
            EXPECT_EQ(ctx.submit(t), DOCA_SUCCESS);
        } else {
            ctx.free_task(t);
        }
    };
    for (int i = 0; i < 3; ++i) {
        test_task *t = ctx.pool.alloc();
        t->payload = i;
        ASSERT_EQ(ctx.submit(t), DOCA_SUCCESS);
    }
    EXPECT_EQ(ctx.inflight(), 3u);
    drain();
    EXPECT_EQ((std::vector<int>{0, 1, 2, 100}), ctx.completed);
    EXPECT_EQ(ctx.inflight(), 0u);
    EXPECT_EQ(ctx.pool.in_use(), 0u);
}

TEST_F(PeCtx, StopReachesIdleOnceTasksAreFlushedWhetherFreedOrNot)
{
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
    std::vector<test_task *> kept;
    ctx.on_complete = [&](test_task *t) {
        kept.push_back(t);
    }; // not freed yet
    test_task *t = ctx.pool.alloc();
    ASSERT_EQ(ctx.submit(t), DOCA_SUCCESS);
    ASSERT_EQ(ctx.stop(), DOCA_ERROR_IN_PROGRESS);
    drain();
    ASSERT_EQ(ctx.statuses.size(), 1u);
    EXPECT_EQ(ctx.statuses[0], DOCA_ERROR_SHUTDOWN); // flushed through the error path
    EXPECT_EQ(ctx.state(), DOCA_CTX_STATE_IDLE);     // the program still holds the task
    EXPECT_EQ(ctx.pool.in_use(), 1u);
    ctx.free_task(kept[0]);
    EXPECT_EQ(ctx.pool.in_use(), 0u);
}

TEST_F(PeCtx, TaskFreedInFlightReturnsToItsPoolWithoutACallback)
{
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
    ctx.on_complete = [&](test_task *t) {
        ctx.free_task(t);
    };
    test_task *a = ctx.pool.alloc();
    test_task *b = ctx.pool.alloc();
    a->payload = 1;
    b->payload = 2;
    ASSERT_EQ(ctx.submit(a), DOCA_SUCCESS);
    ASSERT_EQ(ctx.submit(b), DOCA_SUCCESS);
    ctx.abandon(a); // what doca_task_free does on a task in flight (secure_channel's teardown)
    EXPECT_EQ(ctx.pool.in_use(), 2u); // still the library's until its work ends
    EXPECT_EQ(ctx.pool.alloc() != a, true);
    ASSERT_EQ(ctx.stop(), DOCA_ERROR_IN_PROGRESS);
    drain();
    EXPECT_EQ(ctx.state(), DOCA_CTX_STATE_IDLE);
    EXPECT_EQ((std::vector<int>{2}), ctx.completed); // a: no callback, b: flushed once
    EXPECT_EQ(ctx.pool.in_use(), 1u);                // the one alloc() above
    EXPECT_EQ(a->state_, softcomch::core::task_state::free);
    EXPECT_FALSE(a->abandoned_);
}

TEST_F(PeCtx, ProgressFromInsideACallbackIsRefused)
{
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
    uint8_t nested = 42;
    ctx.on_complete = [&](test_task *t) {
        nested = pe.progress();
        ctx.free_task(t);
    };
    ASSERT_EQ(ctx.submit(ctx.pool.alloc()), DOCA_SUCCESS);
    drain();
    EXPECT_EQ(nested, 0);
}

TEST_F(PeCtx, AnExceptionInsideProgressLeavesTheEngineUsable)
{
    // An exception out of a context's poll (guard() turns it into a log line at the C boundary)
    // once left the engine marked as being progressed: every later call was refused as a call
    // from inside a callback.
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
    test_task *t = ctx.pool.alloc();
    ASSERT_NE(t, nullptr);
    t->payload = 7;
    ASSERT_EQ(ctx.submit(t), DOCA_SUCCESS);
    ctx.throw_in_poll = true;
    EXPECT_THROW(pe.progress(), std::runtime_error);
    EXPECT_EQ(pe.progress(), 1) << "the next call works";
    ASSERT_EQ(ctx.completed.size(), 1u);
    EXPECT_EQ(ctx.completed[0], 7);
    EXPECT_EQ(pe.concurrent_calls(), 0u);
}

TEST(PeQuarantine, ADestroyedEngineIsNotReplacedAtItsAddressSoon)
{
    // A stale doca_pe handle must meet a dead tag, not a newer engine (common/quarantine.hpp).
    const size_t waiting_before = doca_pe::pool().waiting();
    std::vector<doca_pe *> destroyed;
    for (size_t i = 0; i < 3 * softcomch::k_quarantine_depth; ++i) {
        auto *p = new doca_pe();
        const size_t recent = std::min(destroyed.size(), softcomch::k_quarantine_depth);
        ASSERT_EQ(std::find(destroyed.end() - long(recent), destroyed.end(), p), destroyed.end())
            << "engine " << i << " reuses the address of one of the last "
            << softcomch::k_quarantine_depth << " destroyed";
        ASSERT_TRUE(p->tag_.is(softcomch::object_kind::pe));
        delete p;
        EXPECT_FALSE(p->tag_.is(softcomch::object_kind::pe)) << "the storage keeps a dead tag";
        destroyed.push_back(p);
    }
    // One quarantine for every class (blocks of other sizes may wait from earlier tests of this
    // process): this engine's size adds at most depth + 1 blocks.
    EXPECT_LE(doca_pe::pool().waiting(), waiting_before + softcomch::k_quarantine_depth + 1)
        << "the quarantine holds a bounded number of blocks";
}

TEST_F(PeCtx, ProgressFromTwoThreadsAtOnceIsDetected)
{
    ASSERT_EQ(pe.connect(&ctx), DOCA_SUCCESS);
    ASSERT_EQ(ctx.start(), DOCA_SUCCESS);
    std::atomic<int> phase{0};
    uint8_t other_result = 42;
    ctx.on_complete = [&](test_task *t) {
        // Inside progress on the main thread: another thread progresses the same engine now.
        std::thread other([&] { other_result = pe.progress(); });
        other.join();
        std::thread again([&] { pe.progress(); });
        again.join();
        phase = 1;
        ctx.free_task(t);
    };
    ASSERT_EQ(ctx.submit(ctx.pool.alloc()), DOCA_SUCCESS);
    drain();
    EXPECT_EQ(phase.load(), 1);
    EXPECT_EQ(other_result, 0);
    EXPECT_EQ(pe.concurrent_calls(), 2u); // counted each time, logged once
    // Handing the engine to another thread between calls is fine.
    uint8_t handed = 42;
    std::thread later([&] { handed = pe.progress(); });
    later.join();
    EXPECT_EQ(handed, 0);
    EXPECT_EQ(pe.concurrent_calls(), 2u);
}

TEST_F(PeCtx, NotificationHandleIsReadableWhenWorkIsPending)
{
    int ep = -1;
    ASSERT_NO_FATAL_FAILURE(start_and_watch(&ep));
    epoll_event ev{};

    // Nothing pending: armed, not readable.
    ASSERT_EQ(pe.request_notification(), DOCA_SUCCESS);
    EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 0);

    // Work pending when arming: readable at once (no lost wake-up).
    ctx.on_complete = [&](test_task *t) {
        ctx.free_task(t);
    };
    ASSERT_EQ(ctx.submit(ctx.pool.alloc()), DOCA_SUCCESS);
    ASSERT_EQ(pe.request_notification(), DOCA_SUCCESS);
    EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 1);
    ASSERT_EQ(pe.clear_notification(), DOCA_SUCCESS);
    drain();
    EXPECT_EQ(ctx.completed.size(), 1u);

    // After clearing and progressing, the handle is quiet again.
    ASSERT_EQ(pe.request_notification(), DOCA_SUCCESS);
    EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 0);
    close(ep);
}

// A completion waiting for the next progress (a send that finished at submit, then the program
// asks to sleep: the usual event loop) makes the handle readable at once, and no context is
// armed: an arm would only make the peers send wake-ups to an engine that is not going to sleep.
TEST_F(PeCtx, PendingCompletionsMakeTheHandleReadableWithoutArmingTheContexts)
{
    int ep = -1;
    ASSERT_NO_FATAL_FAILURE(start_and_watch(&ep));
    epoll_event ev{};
    ctx.on_complete = [&](test_task *t) {
        ctx.free_task(t);
    };

    ASSERT_EQ(ctx.submit(ctx.pool.alloc()), DOCA_SUCCESS);
    ctx.complete_front();
    ctx.arms = 0;
    ASSERT_EQ(pe.request_notification(), DOCA_SUCCESS);
    EXPECT_EQ(ctx.arms, 0u);
    EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 1);
    ASSERT_EQ(pe.clear_notification(), DOCA_SUCCESS);
    drain();
    EXPECT_EQ(ctx.completed.size(), 1u);

    // Nothing pending: the context is armed and the handle is quiet.
    ASSERT_EQ(pe.request_notification(), DOCA_SUCCESS);
    EXPECT_EQ(ctx.arms, 1u);
    EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 0);
    close(ep);
}

} // namespace
