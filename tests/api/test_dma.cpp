// SPDX-License-Identifier: Apache-2.0
//
// DOCA DMA through the public API (include/doca_dma.h), in one process: what a memcpy copies and
// where, when it completes (a later progress call, one task at a time, a large one in slices),
// the patterns of NVIDIA's doca_common pe_* samples (a stop with tasks in flight, a failing task
// that stops its context by itself, resubmission and destruction from callbacks, try_submit's
// checks, event mode), and the refusals doca_dma.h documents for them.
#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_pe.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cstring>
#include <numeric>

#include "dma_fixture.hpp"

using namespace dma_test;

namespace {

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    return 0;
}();

TEST(Dma, EveryFunctionSupportsMemcpyWithItsLimits)
{
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
    ASSERT_GT(n, 0u);
    for (uint32_t i = 0; i < n; ++i) {
        EXPECT_EQ(doca_dma_cap_task_memcpy_is_supported(list[i]), DOCA_SUCCESS);
        uint64_t size = 0;
        uint32_t list_len = 0;
        EXPECT_EQ(doca_dma_cap_task_memcpy_get_max_buf_size(list[i], &size), DOCA_SUCCESS);
        EXPECT_EQ(doca_dma_cap_task_memcpy_get_max_buf_list_len(list[i], &list_len), DOCA_SUCCESS);
        EXPECT_GE(size, uint64_t(64) << 20) << "dma_copy copies files of 64 MiB and more";
        EXPECT_GE(list_len, 2u) << "dma_local_copy chains a source and a destination list";
    }
    ASSERT_EQ(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
    context c;
    uint32_t max_tasks = 0;
    EXPECT_EQ(doca_dma_cap_get_max_num_tasks(c.dma, &max_tasks), DOCA_SUCCESS);
    EXPECT_GE(max_tasks, 255u) << "NVIDIA's pe_task_error allocates 255";
}

// Start: IDLE -> RUNNING inside doca_ctx_start (no STARTING: pe_reactive logs one as an error).
TEST(Dma, StartsRunningAtOnce)
{
    context c;
    EXPECT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    EXPECT_EQ(c.state(), DOCA_CTX_STATE_RUNNING);
    ASSERT_EQ(c.states.size(), 1u);
    EXPECT_EQ(c.states[0].first, DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(c.states[0].second, DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(doca_ctx_stop(c.ctx), DOCA_SUCCESS) << "nothing in flight: IDLE inside the call";
    EXPECT_EQ(c.state(), DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(doca_ctx_stop(c.ctx), DOCA_SUCCESS) << "stopping an IDLE context is a success";
}

// The source's data window lands after the destination's data, whose length grows; the task
// completes at a later progress call, not inside doca_task_submit.
TEST(Dma, MemcpyCopiesTheDataWindowAfterTheDestinationsData)
{
    context c;
    region r(c.dev, 8192);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    doca_buf *src = r.buf(0, 1024, 0);
    for (size_t i = 0; i < 1024; ++i)
        r.mem[i] = uint8_t(i * 7);
    ASSERT_EQ(doca_buf_set_data(src, r.mem + 100, 300), DOCA_SUCCESS); // bytes 100..399 only
    doca_buf *dst = r.buf(4096, 1024, 10);                             // 10 bytes already there
    doca_dma_task_memcpy *t = c.task(src, dst, 77);
    ASSERT_EQ(c.submit(t), DOCA_SUCCESS);
    EXPECT_TRUE(c.done.empty()) << "completed inside doca_task_submit";
    EXPECT_EQ(c.inflight(), 1u);
    ASSERT_TRUE(c.progress_until([&] { return !c.done.empty(); }, 10));
    EXPECT_EQ(c.done[0].status, DOCA_SUCCESS);
    EXPECT_EQ(c.done[0].user, 77u);
    EXPECT_EQ(std::memcmp(r.mem + 4096 + 10, r.mem + 100, 300), 0);
    EXPECT_EQ(r.mem[4096 + 310], 0) << "written past the copy";
    EXPECT_EQ(c.inflight(), 0u);
}

TEST(Dma, DestinationDataLengthIsWhatWasCopied)
{
    context c;
    region r(c.dev, 8192);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    c.free_in_callback = false;
    doca_buf *src = r.source(0, 1024, 1);
    doca_buf *dst = r.buf(4096, 2048, 0);
    doca_dma_task_memcpy *t = c.task(src, dst);
    ASSERT_EQ(c.submit(t), DOCA_SUCCESS);
    ASSERT_TRUE(c.progress_until([&] { return !c.done.empty(); }));
    size_t len = 0;
    void *data = nullptr;
    EXPECT_EQ(doca_buf_get_data_len(dst, &len), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_get_data(dst, &data), DOCA_SUCCESS);
    EXPECT_EQ(len, 1024u);
    EXPECT_EQ(data, r.mem + 4096);
    EXPECT_EQ(std::memcmp(r.mem + 4096, r.mem, 1024), 0);
    EXPECT_EQ(doca_dma_task_memcpy_get_src(t), src);
    EXPECT_EQ(doca_dma_task_memcpy_get_dst(t), dst);
    doca_task_free(doca_dma_task_memcpy_as_task(t));
    doca_buf_dec_refcount(src, nullptr);
    doca_buf_dec_refcount(dst, nullptr);
}

// Tasks run one after the other in submission order, one per progress call; one larger than
// a slice takes several calls.
TEST(Dma, OneTaskPerProgressCallInOrderAndLargeOnesInSlices)
{
    context c;
    region r(c.dev, size_t(8) << 20);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    for (uint64_t i = 0; i < 4; ++i)
        ASSERT_EQ(c.submit(c.task(r.source(i * 1024, 1024, uint8_t(i)),
                                  r.buf(8192 + i * 1024, 1024, 0), i)),
                  DOCA_SUCCESS);
    for (size_t calls = 1; calls <= 4; ++calls) {
        (void)doca_pe_progress(c.pe);
        ASSERT_EQ(c.done.size(), calls);
        EXPECT_EQ(c.done.back().user, calls - 1);
    }
    // 3 MiB + 1 byte: four slices of at most 1 MiB.
    const size_t big = (size_t(3) << 20) + 1;
    ASSERT_EQ(c.submit(c.task(r.source(0, big, 9), r.buf(size_t(4) << 20, big, 0), 99)),
              DOCA_SUCCESS);
    int calls = 0;
    while (c.done.size() == 4) {
        (void)doca_pe_progress(c.pe);
        ++calls;
        ASSERT_LE(calls, 10);
    }
    EXPECT_EQ(calls, 4);
    EXPECT_EQ(c.done.back().status, DOCA_SUCCESS);
    EXPECT_EQ(std::memcmp(r.mem + (size_t(4) << 20), r.mem, big), 0);
}

// Source and destination lists (doca_buf_chain_list): the sources' data windows, in order, fill
// the destinations' room, in order.
TEST(Dma, BufferListsOnBothSides)
{
    context c;
    region r(c.dev, 65536);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    c.free_in_callback = false;
    doca_buf *s1 = r.source(0, 100, 1), *s2 = r.source(1000, 200, 50), *s3 = r.source(2000, 50, 99);
    ASSERT_EQ(doca_buf_chain_list(s1, s2), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(s1, s3), DOCA_SUCCESS);
    doca_buf *d1 = r.buf(8192, 120, 0), *d2 = r.buf(16384, 4096, 0);
    ASSERT_EQ(doca_buf_chain_list(d1, d2), DOCA_SUCCESS);
    doca_dma_task_memcpy *t = c.task(s1, d1);
    ASSERT_EQ(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)), DOCA_SUCCESS);
    ASSERT_TRUE(c.progress_until([&] { return !c.done.empty(); }));
    ASSERT_EQ(c.done[0].status, DOCA_SUCCESS);
    std::vector<uint8_t> expect;
    expect.insert(expect.end(), r.mem, r.mem + 100);
    expect.insert(expect.end(), r.mem + 1000, r.mem + 1200);
    expect.insert(expect.end(), r.mem + 2000, r.mem + 2050);
    std::vector<uint8_t> got(r.mem + 8192, r.mem + 8192 + 120);
    got.insert(got.end(), r.mem + 16384, r.mem + 16384 + 230);
    EXPECT_EQ(got, expect);
    size_t l1 = 0, l2 = 0;
    EXPECT_EQ(doca_buf_get_data_len(d1, &l1), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_get_data_len(d2, &l2), DOCA_SUCCESS);
    EXPECT_EQ(l1, 120u);
    EXPECT_EQ(l2, 230u);
    doca_task_free(doca_dma_task_memcpy_as_task(t));
    doca_buf_dec_refcount(s1, nullptr);
    doca_buf_dec_refcount(d1, nullptr);
}

// pe_async_stop: a stop from a completion callback with tasks still queued returns IN_PROGRESS;
// the queued tasks come back through the error callback (DOCA_ERROR_SHUTDOWN), then IDLE.
TEST(Dma, StopWithTasksInFlightFlushesThem)
{
    context c;
    region r(c.dev, 65536);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    doca_error_t stop_rc = DOCA_SUCCESS;
    c.on_done = [&](const completion &) {
        if (c.done.size() == 8)
            stop_rc = doca_ctx_stop(c.ctx);
    };
    for (uint64_t i = 0; i < 16; ++i)
        ASSERT_EQ(c.submit(c.task(r.source(i * 1024, 1024, uint8_t(i)),
                                  r.buf(32768 + i * 1024, 1024, 0), i)),
                  DOCA_SUCCESS);
    ASSERT_TRUE(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 1000));
    EXPECT_EQ(stop_rc, DOCA_ERROR_IN_PROGRESS);
    ASSERT_EQ(c.done.size(), 16u);
    for (size_t i = 0; i < 16; ++i) {
        EXPECT_EQ(c.done[i].user, i);
        EXPECT_EQ(c.done[i].status, i < 8 ? DOCA_SUCCESS : DOCA_ERROR_SHUTDOWN) << i;
    }
    EXPECT_EQ(c.inflight(), 0u);
    const std::vector<std::pair<doca_ctx_states, doca_ctx_states>> want{
        {DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_RUNNING},
        {DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING},
        {DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE}};
    EXPECT_EQ(c.states, want);
    // It starts again.
    EXPECT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
}

// pe_task_error: doca_task_submit accepts a task with an empty source; it fails when its turn
// comes (after its error callback the context stops by itself), the tasks behind it are flushed,
// and the context reaches IDLE once nothing is in flight. No line above INFO: the program learns
// it from the status.
TEST(Dma, AFailingTaskStopsItsContextAndFlushesTheRest)
{
    context c("b1:00.0", 255);
    region r(c.dev, size_t(1) << 20, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 600);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    std::vector<doca_ctx_states> seen_at_error;
    c.on_done = [&](const completion &d) {
        if (d.status != DOCA_SUCCESS)
            seen_at_error.push_back(c.state());
    };
    for (uint64_t i = 0; i < 255; ++i) {
        doca_buf *src = r.source(i * 1024, 1024, uint8_t(i));
        if (i == 1) {
            ASSERT_EQ(doca_buf_reset_data_len(src), DOCA_SUCCESS);
        }
        ASSERT_EQ(c.submit(c.task(src, r.buf(300000 + i * 1024, 1024, 0), i)), DOCA_SUCCESS)
            << "doca_task_submit checks nothing (task " << i << ")";
    }
    ASSERT_TRUE(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 1000));
    ASSERT_EQ(c.done.size(), 255u);
    EXPECT_EQ(c.done[0].status, DOCA_SUCCESS);
    EXPECT_EQ(c.done[1].status, DOCA_ERROR_INVALID_VALUE) << "the empty source";
    for (size_t i = 2; i < 255; ++i)
        ASSERT_EQ(c.done[i].status, DOCA_ERROR_SHUTDOWN) << i;
    ASSERT_FALSE(seen_at_error.empty());
    EXPECT_EQ(seen_at_error[0], DOCA_CTX_STATE_RUNNING) << "the failure first, then STOPPING";
    EXPECT_EQ(seen_at_error[1], DOCA_CTX_STATE_STOPPING);
    ASSERT_EQ(c.states.size(), 3u);
    EXPECT_EQ(c.states[1].second, DOCA_CTX_STATE_STOPPING);
    EXPECT_EQ(c.states[2].second, DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(c.inflight(), 0u);
}

// pe_reactive: tasks submitted from the RUNNING state callback (inside doca_ctx_start); the last
// completion stops the context (nothing in flight: IDLE inside doca_ctx_stop) and the IDLE
// callback destroys it, all inside the completion callback.
TEST(Dma, DestroyedFromItsIdleCallbackInsideStopInsideACompletion)
{
    auto c = std::make_unique<context>();
    region r(c->dev, 65536);
    bool destroyed = false;
    c->on_state = [&](doca_ctx_states next) {
        if (next == DOCA_CTX_STATE_RUNNING) {
            for (uint64_t i = 0; i < 16; ++i)
                ASSERT_EQ(c->submit(c->task(r.source(i * 1024, 1024, uint8_t(i)),
                                            r.buf(32768 + i * 1024, 1024, 0), i)),
                          DOCA_SUCCESS);
        } else if (next == DOCA_CTX_STATE_IDLE && !c->done.empty()) {
            EXPECT_EQ(doca_dma_destroy(c->dma), DOCA_SUCCESS);
            c->dma = nullptr;
            destroyed = true;
        }
    };
    c->free_in_callback = false;
    c->on_done = [&](const completion &d) {
        // As pe_reactive: the task and its buffers go first, then the last one stops.
        (void)doca_buf_dec_refcount(const_cast<doca_buf *>(doca_dma_task_memcpy_get_src(d.task)),
                                    nullptr);
        (void)doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(d.task), nullptr);
        doca_task_free(doca_dma_task_memcpy_as_task(d.task));
        if (c->done.size() == 16) {
            EXPECT_EQ(doca_ctx_stop(c->ctx), DOCA_SUCCESS);
        }
    };
    ASSERT_EQ(doca_ctx_start(c->ctx), DOCA_SUCCESS);
    for (int i = 0; i < 1000 && !destroyed; ++i)
        (void)doca_pe_progress(c->pe);
    EXPECT_TRUE(destroyed);
    EXPECT_EQ(c->done.size(), 16u);
}

// pe_task_resubmit: a completed task gets new buffers and user data and goes again from its
// callback; freed there after the last round.
TEST(Dma, ResubmittedFromItsCallbackWithNewBuffers)
{
    context c("03:00.0", 4);
    region r(c.dev, 65536, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 128);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    c.free_in_callback = false;
    uint64_t next = 4;
    c.on_done = [&](const completion &d) {
        auto *t = d.task;
        (void)doca_buf_dec_refcount(const_cast<doca_buf *>(doca_dma_task_memcpy_get_src(t)),
                                    nullptr);
        (void)doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(t), nullptr);
        if (next == 16) {
            doca_task_free(doca_dma_task_memcpy_as_task(t));
            return;
        }
        union doca_data ud;
        ud.u64 = next;
        doca_task_set_user_data(doca_dma_task_memcpy_as_task(t), ud);
        doca_dma_task_memcpy_set_src(t, r.source(next * 1024, 1024, uint8_t(next)));
        doca_dma_task_memcpy_set_dst(t, r.buf(32768 + next * 1024, 1024, 0));
        ++next;
        EXPECT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_SUCCESS);
    };
    for (uint64_t i = 0; i < 4; ++i)
        ASSERT_EQ(c.submit(c.task(r.source(i * 1024, 1024, uint8_t(i)),
                                  r.buf(32768 + i * 1024, 1024, 0), i)),
                  DOCA_SUCCESS);
    ASSERT_TRUE(c.progress_until([&] { return c.done.size() == 16; }, 1000));
    for (const auto &d : c.done)
        EXPECT_EQ(d.status, DOCA_SUCCESS);
    EXPECT_EQ(std::memcmp(r.mem + 32768, r.mem, 16 * 1024), 0);
}

// doca_task_try_submit checks what execution would fail on and keeps the task the caller's.
TEST(Dma, TrySubmitRefusesWhatWouldFail)
{
    context c;
    region r(c.dev, 65536);
    region foreign(nullptr, 8192); // no device added
    region readonly(c.dev, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    auto try_submit = [&](doca_buf *src, doca_buf *dst) {
        doca_dma_task_memcpy *t = c.task(src, dst);
        const doca_error_t rc = doca_task_try_submit(doca_dma_task_memcpy_as_task(t));
        if (rc != DOCA_SUCCESS) { // still ours: give it and its buffers back
            doca_task_free(doca_dma_task_memcpy_as_task(t));
            doca_buf_dec_refcount(src, nullptr);
            doca_buf_dec_refcount(dst, nullptr);
        }
        return rc;
    };
    doca_buf *empty = r.buf(0, 1024, 0);
    EXPECT_EQ(try_submit(empty, r.buf(4096, 1024, 0)), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(try_submit(r.source(8192, 2048, 1), r.buf(12288, 1024, 0)), DOCA_ERROR_INVALID_VALUE)
        << "the destination is too small";
    EXPECT_EQ(try_submit(foreign.source(0, 64, 1), r.buf(16384, 1024, 0)), DOCA_ERROR_NOT_PERMITTED)
        << "the source's mmap lacks the device";
    EXPECT_EQ(try_submit(r.source(20480, 64, 1), readonly.buf(0, 1024, 0)),
              DOCA_ERROR_NOT_PERMITTED)
        << "the destination's mmap is read-only";
    EXPECT_TRUE(c.done.empty());
    EXPECT_EQ(c.state(), DOCA_CTX_STATE_RUNNING) << "a refused try_submit does not stop anything";
    EXPECT_EQ(try_submit(r.source(24576, 64, 1), r.buf(28672, 1024, 0)), DOCA_SUCCESS);
    ASSERT_TRUE(c.progress_until([&] { return c.done.size() == 1; }));
    EXPECT_EQ(c.done[0].status, DOCA_SUCCESS);
}

// A list longer than the device's limit fails (try_submit refuses it).
TEST(Dma, ListLongerThanTheDeviceLimitIsRefused)
{
    context c;
    uint32_t max_len = 0;
    ASSERT_EQ(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(c.dev), &max_len),
              DOCA_SUCCESS);
    region r(c.dev, 65536, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, max_len + 8);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    doca_buf *head = r.source(0, 8, 1);
    for (uint32_t i = 1; i <= max_len; ++i)
        ASSERT_EQ(doca_buf_chain_list(head, r.source(i * 16, 8, 1)), DOCA_SUCCESS);
    doca_buf *dst = r.buf(32768, 4096, 0);
    doca_dma_task_memcpy *t = c.task(head, dst);
    EXPECT_EQ(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_INVALID_VALUE);
    doca_task_free(doca_dma_task_memcpy_as_task(t));
    doca_buf_dec_refcount(head, nullptr);
    doca_buf_dec_refcount(dst, nullptr);
}

// A task freed while in flight is not copied (its buffers may be gone) and comes back without
// a callback; the context stops normally.
TEST(Dma, TaskFreedInFlightIsDroppedWithoutACallback)
{
    context c;
    region r(c.dev, 65536);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    doca_dma_task_memcpy *kept = c.task(r.source(0, 1024, 1), r.buf(8192, 1024, 0), 1);
    doca_buf *src = r.source(1024, 1024, 2), *dst = r.buf(12288, 1024, 0);
    doca_dma_task_memcpy *dropped = c.task(src, dst, 2);
    ASSERT_EQ(c.submit(kept), DOCA_SUCCESS);
    ASSERT_EQ(c.submit(dropped), DOCA_SUCCESS);
    doca_task_free(doca_dma_task_memcpy_as_task(dropped));
    doca_buf_dec_refcount(src, nullptr);
    doca_buf_dec_refcount(dst, nullptr);
    ASSERT_TRUE(c.progress_until([&] { return c.inflight() == 0; }, 100));
    ASSERT_EQ(c.done.size(), 1u);
    EXPECT_EQ(c.done[0].user, 1u);
    EXPECT_EQ(r.mem[12288], 0) << "the freed task was copied";
    // Its slot is free again: the pool has all its tasks.
    EXPECT_EQ(doca_ctx_stop(c.ctx), DOCA_SUCCESS);
}

// pe_event: queued tasks keep the notification handle readable, so the loop wakes.
TEST(Dma, QueuedTasksWakeAnEventLoop)
{
    context c;
    region r(c.dev, 65536);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    doca_notification_handle_t h = doca_event_invalid_handle;
    ASSERT_EQ(doca_pe_get_notification_handle(c.pe, &h), DOCA_SUCCESS);
    const int ep = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev), 0);
    for (uint64_t i = 0; i < 4; ++i)
        ASSERT_EQ(c.submit(c.task(r.source(i * 1024, 1024, 1), r.buf(8192 + i * 1024, 1024, 0), i)),
                  DOCA_SUCCESS);
    int wakes = 0;
    while (c.done.size() < 4) {
        while (doca_pe_progress(c.pe)) {
        }
        if (c.done.size() == 4)
            break;
        ASSERT_EQ(doca_pe_request_notification(c.pe), DOCA_SUCCESS);
        ASSERT_EQ(epoll_wait(ep, &ev, 1, 2000), 1) << "queued work did not wake the loop";
        ASSERT_EQ(doca_pe_clear_notification(c.pe, 0), DOCA_SUCCESS);
        ++wakes;
    }
    // Idle now: an armed engine stays quiet.
    ASSERT_EQ(doca_pe_request_notification(c.pe), DOCA_SUCCESS);
    EXPECT_EQ(epoll_wait(ep, &ev, 1, 50), 0);
    ASSERT_EQ(doca_pe_clear_notification(c.pe, 0), DOCA_SUCCESS);
    close(ep);
}

// The other contexts' callbacks: record in the fixture's list, free the task and its buffers.
void release(doca_dma_task_memcpy *t, union doca_data ud)
{
    g_current->done.push_back({t, doca_task_get_status(doca_dma_task_memcpy_as_task(t)), ud.u64});
    doca_buf_dec_refcount(const_cast<doca_buf *>(doca_dma_task_memcpy_get_src(t)), nullptr);
    doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(t), nullptr);
    doca_task_free(doca_dma_task_memcpy_as_task(t));
}

// Four contexts on one engine (pe_multi_context), each with its own tasks.
TEST(Dma, SeveralContextsOnOneEngine)
{
    context c;
    region r(c.dev, size_t(1) << 20, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 256);
    doca_dma *more[3] = {};
    std::vector<uint64_t> got;
    for (auto &d : more) {
        ASSERT_EQ(doca_dma_create(c.dev, &d), DOCA_SUCCESS);
        ASSERT_EQ(doca_pe_connect_ctx(c.pe, doca_dma_as_ctx(d)), DOCA_SUCCESS);
        ASSERT_EQ(doca_dma_task_memcpy_set_conf(
                      d,
                      [](doca_dma_task_memcpy *t, union doca_data ud, union doca_data) {
                          release(t, ud);
                      },
                      [](doca_dma_task_memcpy *t, union doca_data ud, union doca_data) {
                          release(t, ud);
                      },
                      16),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_ctx_start(doca_dma_as_ctx(d)), DOCA_SUCCESS);
    }
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    doca_dma *all[4] = {c.dma, more[0], more[1], more[2]};
    for (uint64_t k = 0; k < 4; ++k)
        for (uint64_t i = 0; i < 16; ++i) {
            const uint64_t n = k * 16 + i;
            union doca_data ud;
            ud.u64 = n;
            doca_dma_task_memcpy *t = nullptr;
            ASSERT_EQ(doca_dma_task_memcpy_alloc_init(all[k], r.source(n * 1024, 1024, uint8_t(n)),
                                                      r.buf(524288 + n * 1024, 1024, 0), ud, &t),
                      DOCA_SUCCESS);
            ASSERT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_SUCCESS);
        }
    ASSERT_TRUE(c.progress_until([&] { return c.done.size() == 64; }, 1000));
    for (const auto &d : c.done)
        EXPECT_EQ(d.status, DOCA_SUCCESS);
    EXPECT_EQ(std::memcmp(r.mem + 524288, r.mem, 64 * 1024), 0);
    for (doca_dma *d : more) {
        EXPECT_EQ(doca_ctx_stop(doca_dma_as_ctx(d)), DOCA_SUCCESS);
        EXPECT_EQ(doca_dma_destroy(d), DOCA_SUCCESS);
    }
}

// Destroy is refused (IN_USE) until the context is IDLE again.
TEST(Dma, DestroyRefusedUnlessIdle)
{
    context c;
    region r(c.dev, 65536);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    ASSERT_EQ(c.submit(c.task(r.source(0, 1024, 1), r.buf(8192, 1024, 0))), DOCA_SUCCESS);
    EXPECT_EQ(doca_dma_destroy(c.dma), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_ctx_stop(c.ctx), DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(doca_dma_destroy(c.dma), DOCA_ERROR_IN_USE) << "STOPPING is not IDLE";
    ASSERT_TRUE(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }));
    ASSERT_EQ(c.done.size(), 1u);
    EXPECT_EQ(c.done[0].status, DOCA_ERROR_SHUTDOWN) << "flushed before its turn";
}

// Overlapping source and destination: no undefined behaviour, the bytes as memmove leaves them.
TEST(Dma, OverlappingBuffersAreCopiedAsByMemmove)
{
    context c;
    region r(c.dev, 8192);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    doca_buf *src = r.source(0, 1024, 3);
    std::vector<uint8_t> before(r.mem, r.mem + 1024);
    ASSERT_EQ(c.submit(c.task(src, r.buf(512, 2048, 0))), DOCA_SUCCESS);
    ASSERT_TRUE(c.progress_until([&] { return !c.done.empty(); }));
    EXPECT_EQ(c.done[0].status, DOCA_SUCCESS);
    EXPECT_EQ(std::memcmp(r.mem + 512, before.data(), 1024), 0);
}

} // namespace
