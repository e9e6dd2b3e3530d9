// SPDX-License-Identifier: Apache-2.0
//
// Sync events across processes, as NVIDIA's sync_event_local_pci / sync_event_remote_pci pair
// uses them: one side creates the event with a remote-PCI publisher, exports it, and sends the
// bytes (a Comch message there, a pipe here); the other side, in another process and on the other
// side of the link, imports it. Then each waits for the other's update: synchronously with
// set or add, and asynchronously with tasks on a progress engine. Also: an exporter that exited
// is refused, and an importer's waits fail when the exporter destroys the event or dies.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_sync_event.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "child_process.hpp"
#include "device_lookup.hpp"
#include "fastpath_checks.hpp"
#include "sync_event_fixture.hpp"

using namespace sc_test;

namespace {

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    return 0;
}();

bool send_blob(int fd, const uint8_t *p, size_t n)
{
    const uint32_t len = uint32_t(n);
    return ::write(fd, &len, 4) == 4 && ::write(fd, p, n) == ssize_t(n);
}

bool read_exact(int fd, void *p, size_t n)
{
    auto *b = static_cast<uint8_t *>(p);
    while (n != 0) {
        const ssize_t got = ::read(fd, b, n);
        if (got <= 0)
            return false;
        b += got;
        n -= size_t(got);
    }
    return true;
}

bool recv_blob(int fd, std::vector<uint8_t> &out)
{
    uint32_t len = 0;
    if (!read_exact(fd, &len, 4) || len == 0 || len > 1024)
        return false;
    out.resize(len);
    return read_exact(fd, out.data(), len);
}

// The exporting side's event (sync_event_local_pci): remote-PCI publisher, CPU subscriber on the
// host function, exported for it.
struct exporter {
    doca_dev *dev = sc_devices::open_dev("b1:00.0");
    doca_sync_event *ev = nullptr;
    const uint8_t *blob = nullptr;
    size_t len = 0;

    explicit exporter(bool start = true)
    {
        EXPECT_NE(dev, nullptr);
        EXPECT_EQ(doca_sync_event_create(&ev), DOCA_SUCCESS);
        EXPECT_EQ(doca_sync_event_add_publisher_location_remote_pci(ev), DOCA_SUCCESS);
        EXPECT_EQ(doca_sync_event_add_subscriber_location_cpu(ev, dev), DOCA_SUCCESS);
        if (start) {
            EXPECT_EQ(doca_sync_event_start(ev), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_sync_event_export_to_remote_pci(ev, dev, &blob, &len), DOCA_SUCCESS);
    }
    ~exporter()
    {
        if (ev) {
            EXPECT_EQ(doca_sync_event_destroy(ev), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    }
};

class SyncEventExport : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(::pipe2(pipe_, O_CLOEXEC), 0); }
    void TearDown() override
    {
        ::close(pipe_[0]);
        ::close(pipe_[1]);
    }
    int pipe_[2] = {-1, -1};
};

// The remote side of the synchronous sample: wait for 1, then set 2 (or add 1).
int remote_sync(int rfd, bool atomic)
{
    std::vector<uint8_t> blob;
    CHILD_CHECK(recv_blob(rfd, blob));
    doca_dev *dev = sc_devices::open_dev("03:00.0");
    CHILD_CHECK(dev != nullptr);
    doca_sync_event *ev = nullptr;
    CHILD_CHECK_EQ(doca_sync_event_create_from_export(dev, blob.data(), blob.size(), &ev),
                   DOCA_SUCCESS);
    CHILD_CHECK_EQ(doca_sync_event_start(ev), DOCA_SUCCESS);
    CHILD_CHECK_EQ(doca_sync_event_wait_eq(ev, 1, UINT64_MAX), DOCA_SUCCESS);
    uint64_t before = 0;
    if (atomic) {
        CHILD_CHECK_EQ(doca_sync_event_update_add(ev, 1, &before), DOCA_SUCCESS);
        CHILD_CHECK_EQ(before, uint64_t(1));
    } else {
        CHILD_CHECK_EQ(doca_sync_event_update_set(ev, 2), DOCA_SUCCESS);
    }
    CHILD_CHECK_EQ(doca_sync_event_stop(ev), DOCA_SUCCESS);
    CHILD_CHECK_EQ(doca_sync_event_destroy(ev), DOCA_SUCCESS);
    CHILD_CHECK_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    return 0;
}

TEST_F(SyncEventExport, SetThenWaitAcrossTheLink)
{
    exporter local;
    const int rfd = pipe_[0];
    const pid_t remote = spawn([&] { return remote_sync(rfd, false); });
    ASSERT_TRUE(send_blob(pipe_[1], local.blob, local.len));
    ASSERT_EQ(doca_sync_event_update_set(local.ev, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_wait_eq_yield(local.ev, 2, UINT64_MAX), DOCA_SUCCESS);
    EXPECT_EQ(wait_child(remote), 0);
}

TEST_F(SyncEventExport, AtomicAddsAcrossTheLink)
{
    exporter local;
    const int rfd = pipe_[0];
    const pid_t remote = spawn([&] { return remote_sync(rfd, true); });
    ASSERT_TRUE(send_blob(pipe_[1], local.blob, local.len));
    uint64_t before = 0;
    ASSERT_EQ(doca_sync_event_update_add(local.ev, 1, &before), DOCA_SUCCESS);
    EXPECT_EQ(before, 0u);
    ASSERT_EQ(doca_sync_event_wait_eq_yield(local.ev, 2, UINT64_MAX), DOCA_SUCCESS);
    EXPECT_EQ(wait_child(remote), 0);
}

// Both sides with tasks, as the samples' --async mode: the exporter started as a context.
TEST_F(SyncEventExport, TasksOnBothSides)
{
    doca_dev *host = sc_devices::open_dev("b1:00.0");
    doca_sync_event *ev = nullptr;
    ASSERT_EQ(doca_sync_event_create(&ev), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_publisher_location_remote_pci(ev), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_subscriber_location_cpu(ev, host), DOCA_SUCCESS);
    {
        sync_test::tasks local(ev, 0);
        ASSERT_EQ(doca_ctx_start(local.ctx), DOCA_SUCCESS);
        const uint8_t *blob = nullptr;
        size_t len = 0;
        ASSERT_EQ(doca_sync_event_export_to_remote_pci(ev, host, &blob, &len), DOCA_SUCCESS);
        const int rfd = pipe_[0];
        const pid_t remote = spawn([&] {
            std::vector<uint8_t> b;
            CHILD_CHECK(recv_blob(rfd, b));
            doca_dev *dpu = sc_devices::open_dev("03:00.0");
            doca_sync_event *imp = nullptr;
            CHILD_CHECK_EQ(doca_sync_event_create_from_export(dpu, b.data(), b.size(), &imp),
                           DOCA_SUCCESS);
            {
                sync_test::tasks t(imp, 0);
                CHILD_CHECK_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
                union doca_data ud {};
                doca_sync_event_task_wait_eq *w = nullptr;
                CHILD_CHECK_EQ(doca_sync_event_task_wait_eq_alloc_init(imp, 1, UINT64_MAX, ud, &w),
                               DOCA_SUCCESS);
                CHILD_CHECK_EQ(t.submit(doca_sync_event_task_wait_eq_as_doca_task(w)),
                               DOCA_SUCCESS);
                CHILD_CHECK(t.progress_until([&] { return t.done.size() == 1; }));
                CHILD_CHECK_EQ(t.done[0].status, DOCA_SUCCESS);
                uint64_t fetched = 0;
                doca_sync_event_task_notify_add *a = nullptr;
                CHILD_CHECK_EQ(doca_sync_event_task_notify_add_alloc_init(imp, 1, &fetched, ud, &a),
                               DOCA_SUCCESS);
                CHILD_CHECK_EQ(t.submit(doca_sync_event_task_notify_add_as_doca_task(a)),
                               DOCA_SUCCESS);
                CHILD_CHECK(t.progress_until([&] { return t.done.size() == 2; }));
                CHILD_CHECK_EQ(t.done[1].status, DOCA_SUCCESS);
                CHILD_CHECK_EQ(fetched, uint64_t(1));
            }
            CHILD_CHECK_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
            return 0;
        });
        ASSERT_TRUE(send_blob(pipe_[1], blob, len));
        union doca_data ud {};
        doca_sync_event_task_notify_set *s = nullptr;
        ASSERT_EQ(doca_sync_event_task_notify_set_alloc_init(ev, 1, ud, &s), DOCA_SUCCESS);
        ASSERT_EQ(local.submit(doca_sync_event_task_notify_set_as_doca_task(s)), DOCA_SUCCESS);
        doca_sync_event_task_wait_eq *w = nullptr;
        ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(ev, 2, UINT64_MAX, ud, &w), DOCA_SUCCESS);
        ASSERT_EQ(local.submit(doca_sync_event_task_wait_eq_as_doca_task(w)), DOCA_SUCCESS);
        ASSERT_TRUE(local.progress_until([&] { return local.done.size() == 2; }, 20000ms));
        EXPECT_EQ(local.done[1].status, DOCA_SUCCESS);
        EXPECT_EQ(wait_child(remote), 0);
    } // destroys ev
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
}

TEST_F(SyncEventExport, AnExitedExportersEventIsRefused)
{
    const int wfd = pipe_[1];
    const pid_t gone = spawn([&] {
        exporter e;
        CHILD_CHECK(send_blob(wfd, e.blob, e.len));
        return 0;
    });
    std::vector<uint8_t> blob;
    ASSERT_TRUE(recv_blob(pipe_[0], blob));
    ASSERT_EQ(wait_child(gone), 0);
    doca_dev *dpu = sc_devices::open_dev("03:00.0");
    doca_sync_event *imp = nullptr;
    EXPECT_EQ(doca_sync_event_create_from_export(dpu, blob.data(), blob.size(), &imp),
              DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
}

// The importer waits in a task; the exporter destroys its event (revoked), or dies: the wait
// fails with the reason instead of spinning for ever.
void importer_wait_fails(int rfd, gate &imported, doca_error_t expected, int &rc)
{
    rc = [&]() -> int {
        std::vector<uint8_t> b;
        CHILD_CHECK(recv_blob(rfd, b));
        doca_dev *dpu = sc_devices::open_dev("03:00.0");
        doca_sync_event *imp = nullptr;
        CHILD_CHECK_EQ(doca_sync_event_create_from_export(dpu, b.data(), b.size(), &imp),
                       DOCA_SUCCESS);
        {
            sync_test::tasks t(imp, 1);
            CHILD_CHECK_EQ(doca_ctx_start(t.ctx), DOCA_SUCCESS);
            union doca_data ud {};
            doca_sync_event_task_wait_eq *w = nullptr;
            CHILD_CHECK_EQ(doca_sync_event_task_wait_eq_alloc_init(imp, 5, UINT64_MAX, ud, &w),
                           DOCA_SUCCESS);
            CHILD_CHECK_EQ(t.submit(doca_sync_event_task_wait_eq_as_doca_task(w)), DOCA_SUCCESS);
            imported.open();
            CHILD_CHECK(t.progress_until([&] { return !t.done.empty(); }, 20000ms));
            CHILD_CHECK_EQ(t.done[0].status, expected);
        }
        CHILD_CHECK_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
        return 0;
    }();
}

TEST_F(SyncEventExport, ImportersWaitFailsWhenTheEventIsDestroyed)
{
    auto *local = new exporter;
    gate imported;
    const int rfd = pipe_[0];
    const pid_t remote = spawn([&] {
        int rc = 1;
        importer_wait_fails(rfd, imported, DOCA_ERROR_NOT_PERMITTED, rc);
        return rc;
    });
    ASSERT_TRUE(send_blob(pipe_[1], local->blob, local->len));
    ASSERT_TRUE(imported.wait(10000ms));
    delete local;
    EXPECT_EQ(wait_child(remote, 30000ms), 0);
}

TEST_F(SyncEventExport, ImportersWaitFailsWhenTheExporterDies)
{
    gate imported;
    const int rfd = pipe_[0];
    const int wfd = pipe_[1];
    gate hold;
    const pid_t owner = spawn([&] {
        exporter e;
        CHILD_CHECK(send_blob(wfd, e.blob, e.len));
        (void)hold.wait(60000ms); // killed before
        return 0;
    });
    const pid_t remote = spawn([&] {
        int rc = 1;
        importer_wait_fails(rfd, imported, DOCA_ERROR_NOT_FOUND, rc);
        return rc;
    });
    ASSERT_TRUE(imported.wait(10000ms));
    ASSERT_EQ(::kill(owner, SIGKILL), 0);
    (void)wait_child(owner);
    EXPECT_EQ(wait_child(remote, 30000ms), 0);
}

} // namespace
