// SPDX-License-Identifier: Apache-2.0
//
// DOCA sync events in one process, through the public headers only (include/doca_sync_event.h):
// the standalone event and its synchronous calls, the event as a context and its five task
// kinds, waits that complete when the counter changes (also in notification mode, where the
// engine must wake by itself), a stop that flushes, and an export imported in the same process
// through a device of the other side. Cross-process use is tests/integration
// test_sync_event_export.cpp.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_mmap.h>
#include <doca_sync_event.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "device_lookup.hpp"
#include "sync_event_fixture.hpp"

inline void PrintTo(doca_error e, std::ostream *os)
{
    *os << doca_error_get_name(e) << " (" << int(e) << ")";
}

namespace {

using sync_test::tasks;

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    return 0;
}();

doca_sync_event *make_event(bool remote = false)
{
    doca_sync_event *e = nullptr;
    EXPECT_EQ(doca_sync_event_create(&e), DOCA_SUCCESS);
    if (remote) {
        EXPECT_EQ(doca_sync_event_add_publisher_location_remote_pci(e), DOCA_SUCCESS);
    }
    return e;
}

TEST(SyncEvent, StandaloneSetAddGetAndWaits)
{
    doca_sync_event *e = make_event();
    uint64_t v = 99;
    EXPECT_EQ(doca_sync_event_get(e, &v), DOCA_ERROR_INVALID_VALUE); // not started
    ASSERT_EQ(doca_sync_event_start(e), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_get(e, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(doca_sync_event_update_set(e, 40), DOCA_SUCCESS);
    uint64_t before = 0;
    EXPECT_EQ(doca_sync_event_update_add(e, 2, &before), DOCA_SUCCESS);
    EXPECT_EQ(before, 40u);
    EXPECT_EQ(doca_sync_event_get(e, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 42u);
    // Conditions that hold return at once; the mask applies first.
    EXPECT_EQ(doca_sync_event_wait_eq(e, 42, UINT64_MAX), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_wait_eq_yield(e, 0xa, 0xf), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_wait_neq(e, 7, UINT64_MAX), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_wait_gt(e, 41, UINT64_MAX), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_wait_gt_yield(e, 0, 0xff), DOCA_SUCCESS);
    // Configured once: frozen after start; restarted after a stop, counter kept.
    EXPECT_EQ(doca_sync_event_add_subscriber_location_remote_pci(e), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sync_event_start(e), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_sync_event_as_ctx(e), nullptr);
    EXPECT_EQ(doca_sync_event_stop(e), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_update_set(e, 1), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sync_event_start(e), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_get(e, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 42u);
    EXPECT_EQ(doca_sync_event_destroy(e), DOCA_SUCCESS); // started: destroy stops it
}

TEST(SyncEvent, WaitEndsWhenAnotherThreadUpdates)
{
    doca_sync_event *e = make_event();
    ASSERT_EQ(doca_sync_event_start(e), DOCA_SUCCESS);
    std::thread updater([e] {
        for (uint64_t i = 1; i <= 1000; ++i)
            (void)doca_sync_event_update_set(e, i);
    });
    EXPECT_EQ(doca_sync_event_wait_eq_yield(e, 1000, UINT64_MAX), DOCA_SUCCESS);
    updater.join();
    EXPECT_EQ(doca_sync_event_destroy(e), DOCA_SUCCESS);
}

TEST(SyncEvent, CounterInTheProgramsMemory)
{
    alignas(8) uint64_t word = 5;
    doca_sync_event *e = make_event();
    ASSERT_EQ(doca_sync_event_set_addr(e, &word), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_start(e), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_set_addr(e, &word), DOCA_ERROR_BAD_STATE);
    uint64_t v = 0;
    EXPECT_EQ(doca_sync_event_get(e, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 5u);
    EXPECT_EQ(doca_sync_event_update_set(e, 77), DOCA_SUCCESS);
    EXPECT_EQ(word, 77u);
    EXPECT_EQ(doca_sync_event_destroy(e), DOCA_SUCCESS);
}

TEST(SyncEvent, TasksCompleteInALaterProgressCall)
{
    tasks t(make_event());
    ASSERT_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
    EXPECT_EQ(t.state(), DOCA_CTX_STATE_RUNNING);
    union doca_data ud {};
    doca_sync_event_task_notify_set *set = nullptr;
    ASSERT_EQ(doca_sync_event_task_notify_set_alloc_init(t.event, 10, ud, &set), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_task_notify_set_get_set_val(set), 10u);
    ASSERT_EQ(t.submit(doca_sync_event_task_notify_set_as_doca_task(set)), DOCA_SUCCESS);
    EXPECT_TRUE(t.done.empty()); // never inside submit
    uint64_t fetched = 0, got = 0;
    doca_sync_event_task_notify_add *add = nullptr;
    ASSERT_EQ(doca_sync_event_task_notify_add_alloc_init(t.event, 5, &fetched, ud, &add),
              DOCA_SUCCESS);
    ASSERT_EQ(t.submit(doca_sync_event_task_notify_add_as_doca_task(add)), DOCA_SUCCESS);
    doca_sync_event_task_get *get = nullptr;
    ASSERT_EQ(doca_sync_event_task_get_alloc_init(t.event, &got, ud, &get), DOCA_SUCCESS);
    ASSERT_EQ(t.submit(doca_sync_event_task_get_as_doca_task(get)), DOCA_SUCCESS);
    ASSERT_TRUE(t.progress_until([&] { return t.done.size() == 3; }));
    // In submission order, each seeing the one before.
    EXPECT_EQ(t.done[0].task, doca_sync_event_task_notify_set_as_doca_task(set));
    EXPECT_EQ(t.done[1].task, doca_sync_event_task_notify_add_as_doca_task(add));
    EXPECT_EQ(t.done[2].task, doca_sync_event_task_get_as_doca_task(get));
    for (const auto &c : t.done) {
        EXPECT_EQ(c.status, DOCA_SUCCESS);
        EXPECT_FALSE(c.error_cb);
    }
    EXPECT_EQ(fetched, 10u);
    EXPECT_EQ(got, 15u);
}

TEST(SyncEvent, WaitTasksCompleteOnceTheConditionHolds)
{
    tasks t(make_event());
    ASSERT_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
    union doca_data ud {};
    doca_sync_event_task_wait_eq *eq = nullptr;
    ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(t.event, 3, 0xff, ud, &eq), DOCA_SUCCESS);
    ASSERT_EQ(t.submit(doca_sync_event_task_wait_eq_as_doca_task(eq)), DOCA_SUCCESS);
    doca_sync_event_task_wait_neq *neq = nullptr;
    ASSERT_EQ(doca_sync_event_task_wait_neq_alloc_init(t.event, 0, UINT64_MAX, ud, &neq),
              DOCA_SUCCESS);
    ASSERT_EQ(t.submit(doca_sync_event_task_wait_neq_as_doca_task(neq)), DOCA_SUCCESS);
    for (int i = 0; i < 100; ++i)
        (void)doca_pe_progress(t.pe);
    EXPECT_TRUE(t.done.empty());
    // A wait does not hold back the tasks behind it.
    doca_sync_event_task_notify_set *set = nullptr;
    ASSERT_EQ(doca_sync_event_task_notify_set_alloc_init(t.event, 0x103, ud, &set), DOCA_SUCCESS);
    ASSERT_EQ(t.submit(doca_sync_event_task_notify_set_as_doca_task(set)), DOCA_SUCCESS);
    ASSERT_TRUE(t.progress_until([&] { return t.done.size() == 3; }));
    EXPECT_EQ(t.done[0].task, doca_sync_event_task_notify_set_as_doca_task(set));
    for (const auto &c : t.done)
        EXPECT_EQ(c.status, DOCA_SUCCESS);
}

TEST(SyncEvent, NotificationModeWakesForAWaitWithoutAnyDescriptorActivity)
{
    tasks t(make_event());
    ASSERT_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
    union doca_data ud {};
    doca_sync_event_task_wait_eq *eq = nullptr;
    ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(t.event, 1, UINT64_MAX, ud, &eq),
              DOCA_SUCCESS);
    ASSERT_EQ(t.submit(doca_sync_event_task_wait_eq_as_doca_task(eq)), DOCA_SUCCESS);
    doca_event_handle_t h = doca_event_invalid_handle;
    ASSERT_EQ(doca_pe_get_notification_handle(t.pe, &h), DOCA_SUCCESS);
    const int ep = epoll_create1(EPOLL_CLOEXEC);
    ASSERT_GE(ep, 0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev), 0);
    bool completed = false;
    for (int round = 0; round < 10000 && !completed; ++round) {
        while (doca_pe_progress(t.pe) != 0) {
        }
        completed = !t.done.empty();
        if (completed)
            break;
        ASSERT_EQ(doca_pe_request_notification(t.pe), DOCA_SUCCESS);
        epoll_event out{};
        const int n = epoll_wait(ep, &out, 1, 5000);
        ASSERT_EQ(n, 1) << "the engine did not wake for a pending wait";
        ASSERT_EQ(doca_pe_clear_notification(t.pe, h), DOCA_SUCCESS);
        if (round == 3) {
            // After a few empty wake-ups, the condition comes true (as the other side would
            // make it): the next wake-up must complete the task.
            doca_sync_event_task_notify_set *set = nullptr;
            ASSERT_EQ(doca_sync_event_task_notify_set_alloc_init(t.event, 1, ud, &set),
                      DOCA_SUCCESS);
            ASSERT_EQ(t.submit(doca_sync_event_task_notify_set_as_doca_task(set)), DOCA_SUCCESS);
        }
    }
    close(ep);
    EXPECT_TRUE(t.progress_until([&] { return t.done.size() == 2; }));
}

TEST(SyncEvent, StopFlushesWaitsThroughTheErrorCallback)
{
    tasks t(make_event());
    ASSERT_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
    union doca_data ud {};
    for (int i = 0; i < 3; ++i) {
        doca_sync_event_task_wait_eq *eq = nullptr;
        ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(t.event, 9, UINT64_MAX, ud, &eq),
                  DOCA_SUCCESS);
        ASSERT_EQ(t.submit(doca_sync_event_task_wait_eq_as_doca_task(eq)), DOCA_SUCCESS);
    }
    EXPECT_EQ(doca_ctx_stop(t.ctx), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(t.progress_until([&] { return t.state() == DOCA_CTX_STATE_IDLE; }));
    ASSERT_EQ(t.done.size(), 3u);
    for (const auto &c : t.done) {
        EXPECT_EQ(c.status, DOCA_ERROR_SHUTDOWN);
        EXPECT_TRUE(c.error_cb);
    }
}

TEST(SyncEvent, WaitMasksAreWholeBytes)
{
    tasks t(make_event());
    ASSERT_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
    union doca_data ud {};
    doca_sync_event_task_wait_eq *eq = nullptr;
    for (uint64_t bad : {uint64_t(1), uint64_t(0xf0), uint64_t(0xff00ff), uint64_t(0xffffff)})
        EXPECT_EQ(doca_sync_event_task_wait_eq_alloc_init(t.event, 0, bad, ud, &eq),
                  DOCA_ERROR_INVALID_VALUE)
            << std::hex << bad;
    for (uint64_t good : {uint64_t(0), uint64_t(0xff), uint64_t(0xff00), uint64_t(0xffff0000),
                          uint64_t(0xffffffff00000000), UINT64_MAX}) {
        ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(t.event, 0, good, ud, &eq), DOCA_SUCCESS)
            << std::hex << good;
        doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(eq));
    }
    // A mask made bad after allocation: try_submit refuses it, a plain submit fails the task.
    ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(t.event, 0, 0xff, ud, &eq), DOCA_SUCCESS);
    doca_sync_event_task_wait_eq_set_mask(eq, 0x3);
    EXPECT_EQ(doca_sync_event_task_wait_eq_get_mask(eq), 0x3u);
    EXPECT_EQ(doca_task_try_submit(doca_sync_event_task_wait_eq_as_doca_task(eq)),
              DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(t.submit(doca_sync_event_task_wait_eq_as_doca_task(eq)), DOCA_SUCCESS);
    ASSERT_TRUE(t.progress_until([&] { return t.done.size() == 1; }));
    EXPECT_EQ(t.done[0].status, DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(t.state(), DOCA_CTX_STATE_RUNNING); // a bad task does not stop the event
}

TEST(SyncEvent, ZeroTasksConfiguresOne)
{
    doca_sync_event *e = make_event();
    tasks t(e, 0); // as NVIDIA's samples without --async-num-tasks
    ASSERT_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
    union doca_data ud {};
    doca_sync_event_task_notify_set *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_sync_event_task_notify_set_alloc_init(e, 1, ud, &a), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_task_notify_set_alloc_init(e, 1, ud, &b), DOCA_ERROR_NO_MEMORY);
    doca_task_free(doca_sync_event_task_notify_set_as_doca_task(a));
    EXPECT_EQ(doca_sync_event_task_get_set_conf(e, nullptr, nullptr, 1), DOCA_ERROR_NOT_PERMITTED);
}

TEST(SyncEvent, ExportImportedThroughTheOtherSidesDevice)
{
    doca_dev *host = sc_devices::open_dev("b1:00.0");
    doca_dev *dpu = sc_devices::open_dev("03:00.0");
    ASSERT_NE(host, nullptr);
    ASSERT_NE(dpu, nullptr);
    doca_sync_event *local = make_event();
    const uint8_t *blob = nullptr;
    size_t len = 0;
    // No remote location: nothing to export.
    EXPECT_EQ(doca_sync_event_export_to_remote_pci(local, host, &blob, &len),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_sync_event_destroy(local), DOCA_SUCCESS);

    doca_sync_event *ev = make_event(true);
    ASSERT_EQ(doca_sync_event_add_subscriber_location_cpu(ev, host), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_start(ev), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_export_to_remote_pci(ev, host, &blob, &len), DOCA_SUCCESS);
    EXPECT_GT(len, 0u);
    EXPECT_LE(len, 1024u);
    const uint8_t *again = nullptr;
    size_t len2 = 0;
    ASSERT_EQ(doca_sync_event_export_to_remote_pci(ev, host, &again, &len2), DOCA_SUCCESS);
    EXPECT_EQ(again, blob);
    EXPECT_EQ(len2, len);

    // The same side of the link cannot import; an mmap cannot be made of it.
    doca_sync_event *imp = nullptr;
    EXPECT_EQ(doca_sync_event_create_from_export(host, blob, len, &imp), DOCA_ERROR_NOT_PERMITTED);
    doca_mmap *m = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, blob, len, dpu, &m), DOCA_ERROR_INVALID_VALUE);

    ASSERT_EQ(doca_sync_event_create_from_export(dpu, blob, len, &imp), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_add_publisher_location_cpu(imp, dpu), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_sync_event_start(imp), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_update_set(ev, 7), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_wait_eq(imp, 7, UINT64_MAX), DOCA_SUCCESS);
    uint64_t before = 0;
    EXPECT_EQ(doca_sync_event_update_add(imp, 3, &before), DOCA_SUCCESS);
    EXPECT_EQ(before, 7u);
    EXPECT_EQ(doca_sync_event_wait_eq(ev, 10, UINT64_MAX), DOCA_SUCCESS);
    const uint8_t *re = nullptr;
    EXPECT_EQ(doca_sync_event_export_to_remote_pci(imp, dpu, &re, &len2), DOCA_ERROR_NOT_SUPPORTED);

    // The exporter destroys its event: the import's tasks fail (revoked), and the descriptor is
    // refused from then on.
    {
        doca_sync_event *imp2 = nullptr;
        ASSERT_EQ(doca_sync_event_create_from_export(dpu, blob, len, &imp2), DOCA_SUCCESS);
        tasks t(imp2);
        ASSERT_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
        union doca_data ud {};
        doca_sync_event_task_wait_eq *eq = nullptr;
        ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(t.event, 99, UINT64_MAX, ud, &eq),
                  DOCA_SUCCESS);
        ASSERT_EQ(t.submit(doca_sync_event_task_wait_eq_as_doca_task(eq)), DOCA_SUCCESS);
        std::vector<uint8_t> saved(blob, blob + len);
        EXPECT_EQ(doca_sync_event_destroy(ev), DOCA_SUCCESS);
        ASSERT_TRUE(t.progress_until([&] { return !t.done.empty(); }));
        EXPECT_EQ(t.done[0].status, DOCA_ERROR_NOT_PERMITTED);
        EXPECT_TRUE(t.done[0].error_cb);
        doca_sync_event *late = nullptr;
        EXPECT_EQ(doca_sync_event_create_from_export(dpu, saved.data(), saved.size(), &late),
                  DOCA_ERROR_NOT_PERMITTED);
    }
    EXPECT_EQ(doca_sync_event_destroy(imp), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
}

} // namespace
