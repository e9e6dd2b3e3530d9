// SPDX-License-Identifier: Apache-2.0
//
// DMA between two processes, as NVIDIA's dma_copy_host / dma_copy_dpu samples and dma_copy
// application do it: the host side exports an mmap (doca_mmap_export_pci), the descriptor
// travels as bytes (a pipe here, a file in the samples, a Comch message in the application), and
// the DPU side, in another process, builds a map of that memory (doca_mmap_create_from_export)
// and copies with DMA memcpy tasks, while the exporter does nothing at all (it waits for its
// child, as dma_copy_host sits in getchar()). Checked: reading a read-only export, writing a
// read-write one, a write to a read-only export refused, a revoked export and an exited exporter
// failing the task, a forked child of the exporter, and 64 MiB copied byte for byte.
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

#include <cstring>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "device_lookup.hpp"
#include "dma_fixture.hpp"
#include "fastpath_checks.hpp"

using namespace sc_test;

namespace {

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    return 0;
}();

// What the host side sends the DPU side: the descriptor and the buffer's address and length (as
// dma_copy_host writes export_desc.txt and buffer_info.txt).
struct handoff {
    std::vector<uint8_t> desc;
    uint64_t addr = 0;
    uint64_t len = 0;
};

bool send_handoff(int fd, const handoff &h)
{
    const uint64_t n = h.desc.size();
    return ::write(fd, &n, 8) == 8 && ::write(fd, h.desc.data(), n) == ssize_t(n) &&
           ::write(fd, &h.addr, 8) == 8 && ::write(fd, &h.len, 8) == 8;
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

bool recv_handoff(int fd, handoff &h)
{
    uint64_t n = 0;
    if (!read_exact(fd, &n, 8) || n == 0 || n > 512)
        return false;
    h.desc.resize(n);
    return read_exact(fd, h.desc.data(), n) && read_exact(fd, &h.addr, 8) &&
           read_exact(fd, &h.len, 8);
}

// The host side's exported memory: an mmap with `access` over `size` bytes, exported for b1:00.0.
struct exporter {
    doca_dev *dev = sc_devices::open_dev("b1:00.0");
    std::vector<uint8_t> mem;
    doca_mmap *mmap = nullptr;
    handoff out;

    exporter(size_t size, uint32_t access) : mem(size)
    {
        EXPECT_NE(dev, nullptr);
        EXPECT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_set_memrange(mmap, mem.data(), mem.size()), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_set_permissions(mmap, access), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
        const void *d = nullptr;
        size_t n = 0;
        EXPECT_EQ(doca_mmap_export_pci(mmap, dev, &d, &n), DOCA_SUCCESS);
        EXPECT_LE(n, 512u);
        out.desc.assign(static_cast<const uint8_t *>(d), static_cast<const uint8_t *>(d) + n);
        out.addr = uint64_t(reinterpret_cast<uintptr_t>(mem.data()));
        out.len = mem.size();
    }
    ~exporter()
    {
        if (mmap) {
            EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    }
    void revoke()
    {
        EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        mmap = nullptr;
    }
};

// The DPU side, in a child: imports `h` with 03:00.0 and copies between it and local memory with
// one DMA task (`to_remote`: local -> exported memory, else exported -> local); the local memory
// is `local` (filled with its contents first when writing). Returns the task's status, the
// create_from_export error, or a failed check's small positive code (a line on stderr says which).
int dpu_copy(const handoff &h, bool to_remote, std::vector<uint8_t> &local,
             doca_error_t *import_rc = nullptr)
{
    dma_test::context c("03:00.0", 4);
    doca_mmap *remote = nullptr;
    const doca_error_t rc =
        doca_mmap_create_from_export(nullptr, h.desc.data(), h.desc.size(), c.dev, &remote);
    if (import_rc)
        *import_rc = rc;
    if (rc != DOCA_SUCCESS)
        return int(rc);
    dma_test::region mine(c.dev, local.size());
    if (to_remote)
        std::memcpy(mine.mem, local.data(), local.size());
    doca_buf *rbuf = nullptr;
    void *raddr = reinterpret_cast<void *>(uintptr_t(h.addr));
    CHILD_CHECK(doca_buf_inventory_buf_get_by_args(mine.inv, remote, raddr, h.len, raddr,
                                                   to_remote ? 0 : h.len, &rbuf) == DOCA_SUCCESS);
    doca_buf *lbuf = mine.buf(0, local.size(), to_remote ? local.size() : 0);
    CHILD_CHECK(doca_ctx_start(c.ctx) == DOCA_SUCCESS);
    doca_dma_task_memcpy *t = to_remote ? c.task(lbuf, rbuf) : c.task(rbuf, lbuf);
    CHILD_CHECK(c.submit(t) == DOCA_SUCCESS);
    CHILD_CHECK(
        c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE || !c.done.empty(); }));
    const doca_error_t status = c.done.empty() ? DOCA_ERROR_UNKNOWN : c.done[0].status;
    if (!to_remote)
        std::memcpy(local.data(), mine.mem, local.size());
    // The context stops by itself after a failure; a success leaves it RUNNING.
    (void)doca_ctx_stop(c.ctx);
    c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; });
    CHILD_CHECK(doca_mmap_destroy(remote) == DOCA_SUCCESS);
    return int(status);
}

// Each test runs with both mechanisms of the shm transport (docs/shm_layout.md section 12.2):
// "auto" shares the whole pages of the range (the ends by process_vm_readv/writev), "pvw" reaches
// all of it with process_vm_readv/writev. The exporter reads SOFTCOMCH_MEMORY when it exports.
class DmaExport : public ::testing::TestWithParam<const char *> {
protected:
    void SetUp() override
    {
        ASSERT_EQ(::pipe2(pipe_, O_CLOEXEC), 0);
        setenv("SOFTCOMCH_MEMORY", GetParam(), 1);
    }
    void TearDown() override
    {
        unsetenv("SOFTCOMCH_MEMORY");
        ::close(pipe_[0]);
        ::close(pipe_[1]);
    }
    int pipe_[2] = {-1, -1};
};

INSTANTIATE_TEST_SUITE_P(Mechanisms, DmaExport, ::testing::Values("auto", "pvw"),
                         [](const auto &p) { return std::string(p.param); });

// dma_copy_host / dma_copy_dpu: the DPU side reads a read-only export.
TEST_P(DmaExport, DpuReadsMemoryTheHostExportedWhileTheHostWaits)
{
    exporter host(4096, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
    const char text[] = "This is a sample piece of text";
    std::memcpy(host.mem.data(), text, sizeof text);
    const int rfd = pipe_[0];
    const pid_t dpu = spawn([&] {
        handoff h;
        CHILD_CHECK(recv_handoff(rfd, h));
        std::vector<uint8_t> got(h.len);
        CHILD_CHECK_EQ(dpu_copy(h, false, got), int(DOCA_SUCCESS));
        CHILD_CHECK(std::memcmp(got.data(), text, sizeof text) == 0);
        return 0;
    });
    ASSERT_TRUE(send_handoff(pipe_[1], host.out));
    EXPECT_EQ(wait_child(dpu), 0); // the host does nothing meanwhile
}

// dma_copy with the file on the DPU: the DPU side writes into a read-write export.
TEST_P(DmaExport, DpuWritesIntoAReadWriteExport)
{
    exporter host(8192, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
    const int rfd = pipe_[0];
    const pid_t dpu = spawn([&] {
        handoff h;
        CHILD_CHECK(recv_handoff(rfd, h));
        std::vector<uint8_t> data(h.len);
        for (size_t i = 0; i < data.size(); ++i)
            data[i] = uint8_t(i * 31 + 7);
        CHILD_CHECK_EQ(dpu_copy(h, true, data), int(DOCA_SUCCESS));
        return 0;
    });
    ASSERT_TRUE(send_handoff(pipe_[1], host.out));
    ASSERT_EQ(wait_child(dpu), 0);
    for (size_t i = 0; i < host.mem.size(); ++i)
        ASSERT_EQ(host.mem[i], uint8_t(i * 31 + 7)) << i;
}

TEST_P(DmaExport, AReadOnlyExportRefusesWrites)
{
    exporter host(4096, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
    const int rfd = pipe_[0];
    const pid_t dpu = spawn([&] {
        handoff h;
        CHILD_CHECK(recv_handoff(rfd, h));
        std::vector<uint8_t> data(h.len, 0xee);
        CHILD_CHECK_EQ(dpu_copy(h, true, data), int(DOCA_ERROR_NOT_PERMITTED));
        return 0;
    });
    ASSERT_TRUE(send_handoff(pipe_[1], host.out));
    ASSERT_EQ(wait_child(dpu), 0);
    for (uint8_t b : host.mem)
        ASSERT_EQ(b, 0) << "written through a read-only export";
}

// The exporter destroys its mmap after the import: the DPU side's task fails, the memory is not
// touched, and the old descriptor is refused.
TEST_P(DmaExport, ARevokedExportFailsTheTask)
{
    exporter host(4096, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
    gate imported, revoked;
    const int rfd = pipe_[0];
    const pid_t dpu = spawn([&] {
        handoff h;
        CHILD_CHECK(recv_handoff(rfd, h));
        dma_test::context c("03:00.0", 4);
        doca_mmap *remote = nullptr;
        CHILD_CHECK(doca_mmap_create_from_export(nullptr, h.desc.data(), h.desc.size(), c.dev,
                                                 &remote) == DOCA_SUCCESS);
        imported.open();
        CHILD_CHECK(revoked.wait(10000ms));
        dma_test::region mine(c.dev, 4096);
        void *raddr = reinterpret_cast<void *>(uintptr_t(h.addr));
        doca_buf *rbuf = nullptr;
        CHILD_CHECK(doca_buf_inventory_buf_get_by_args(mine.inv, remote, raddr, h.len, raddr, 0,
                                                       &rbuf) == DOCA_SUCCESS);
        CHILD_CHECK(doca_ctx_start(c.ctx) == DOCA_SUCCESS);
        CHILD_CHECK(c.submit(c.task(mine.source(0, 4096, 9), rbuf)) == DOCA_SUCCESS);
        CHILD_CHECK(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }));
        CHILD_CHECK(c.done.size() == 1);
        CHILD_CHECK_EQ(int(c.done[0].status), int(DOCA_ERROR_NOT_PERMITTED));
        doca_mmap *again = nullptr;
        CHILD_CHECK_EQ(
            int(doca_mmap_create_from_export(nullptr, h.desc.data(), h.desc.size(), c.dev, &again)),
            int(DOCA_ERROR_NOT_PERMITTED));
        CHILD_CHECK(doca_mmap_destroy(remote) == DOCA_SUCCESS);
        return 0;
    });
    ASSERT_TRUE(send_handoff(pipe_[1], host.out));
    ASSERT_TRUE(imported.wait(10000ms));
    host.revoke();
    revoked.open();
    ASSERT_EQ(wait_child(dpu), 0);
    for (uint8_t b : host.mem)
        ASSERT_EQ(b, 0) << "written after the export was revoked";
}

// An exporter that has exited: its descriptor is refused (NOT_FOUND).
TEST_P(DmaExport, ADescriptorOfAnExitedProcessIsRefused)
{
    const int wfd = pipe_[1];
    const pid_t host = spawn([&] {
        exporter e(4096, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
        CHILD_CHECK(send_handoff(wfd, e.out));
        return 0;
    });
    handoff h;
    ASSERT_TRUE(recv_handoff(pipe_[0], h));
    ASSERT_EQ(wait_child(host), 0);
    std::vector<uint8_t> got(h.len);
    doca_error_t import_rc = DOCA_SUCCESS;
    EXPECT_EQ(dpu_copy(h, false, got, &import_rc), int(DOCA_ERROR_NOT_FOUND));
    EXPECT_EQ(import_rc, DOCA_ERROR_NOT_FOUND);
}

// The first whole page of an export starting at `addr` (the exports below span four pages).
uintptr_t inner_page(uint64_t addr)
{
    return (uintptr_t(addr) + 4095) & ~uintptr_t(4095);
}

// An exporter that exits after the import: the next task fails (NOT_FOUND) and touches nothing
// of the importer's. Slices only check the revocation word; the exit is seen once per task.
TEST_P(DmaExport, AnExporterThatExitsFailsTheNextTask)
{
    gate imported, go;
    const int wfd = pipe_[1];
    const pid_t host = spawn([&] {
        exporter e(4 * 4096, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
        std::memset(e.mem.data(), 0x77, e.mem.size());
        CHILD_CHECK(send_handoff(wfd, e.out));
        CHILD_CHECK(imported.wait(10000ms));
        std::_Exit(0); // gone without destroying anything, as a crash would
    });
    handoff h;
    ASSERT_TRUE(recv_handoff(pipe_[0], h));
    dma_test::context c("03:00.0", 4);
    doca_mmap *remote = nullptr;
    ASSERT_EQ(doca_mmap_create_from_export(nullptr, h.desc.data(), h.desc.size(), c.dev, &remote),
              DOCA_SUCCESS);
    imported.open();
    ASSERT_EQ(wait_child(host), 0);
    {
        dma_test::region mine(c.dev, 4096);
        // A whole page: under "auto" it is reached through the shared mapping only, so the exit
        // is seen by the liveness check (io_uring here) alone, not by process_vm_readv.
        void *raddr = reinterpret_cast<void *>(inner_page(h.addr));
        doca_buf *rbuf = nullptr;
        ASSERT_EQ(
            doca_buf_inventory_buf_get_by_args(mine.inv, remote, raddr, 4096, raddr, 4096, &rbuf),
            DOCA_SUCCESS);
        ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
        ASSERT_EQ(c.submit(c.task(rbuf, mine.buf(0, 4096, 0))), DOCA_SUCCESS);
        ASSERT_TRUE(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }));
        ASSERT_EQ(c.done.size(), 1u);
        EXPECT_EQ(c.done[0].status, DOCA_ERROR_NOT_FOUND);
        for (size_t i = 0; i < 4096; ++i)
            ASSERT_EQ(mine.mem[i], 0) << "read from an exporter that had exited";
    }
    EXPECT_EQ(doca_mmap_destroy(remote), DOCA_SUCCESS);
}

// Makes io_uring_setup fail with ENOSYS in this process, as a seccomp profile or a kernel
// without io_uring does (containers often refuse it).
bool refuse_io_uring()
{
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
    return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
           ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

// The exporter's exit is watched through io_uring where it can be (no system call per task);
// without it, each task asks the exporter's pidfd: the same answer.
TEST_P(DmaExport, WithoutIoUringAnExitedExporterStillFailsTheNextTask)
{
    gate ready, imported;
    int to_importer[2];
    ASSERT_EQ(::pipe2(to_importer, O_CLOEXEC), 0);
    const pid_t host = spawn([&] {
        exporter e(4 * 4096, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
        CHILD_CHECK(send_handoff(to_importer[1], e.out));
        CHILD_CHECK(imported.wait(10000ms));
        std::_Exit(0);
    });
    const pid_t importer = spawn([&] {
        CHILD_CHECK(refuse_io_uring());
        handoff h;
        CHILD_CHECK(recv_handoff(to_importer[0], h));
        dma_test::context c("03:00.0", 4);
        doca_mmap *remote = nullptr;
        CHILD_CHECK(doca_mmap_create_from_export(nullptr, h.desc.data(), h.desc.size(), c.dev,
                                                 &remote) == DOCA_SUCCESS);
        dma_test::region mine(c.dev, 4096);
        // A whole page, as above: only the liveness check can see the exit.
        void *raddr = reinterpret_cast<void *>(inner_page(h.addr));
        doca_buf *rbuf = nullptr;
        CHILD_CHECK(doca_buf_inventory_buf_get_by_args(mine.inv, remote, raddr, 4096, raddr, 4096,
                                                       &rbuf) == DOCA_SUCCESS);
        CHILD_CHECK(doca_ctx_start(c.ctx) == DOCA_SUCCESS);
        // While the exporter lives: a copy works.
        CHILD_CHECK(c.submit(c.task(rbuf, mine.buf(0, 4096, 0))) == DOCA_SUCCESS);
        CHILD_CHECK(c.progress_until([&] { return c.done.size() == 1; }));
        CHILD_CHECK_EQ(int(c.done[0].status), int(DOCA_SUCCESS));
        imported.open();
        CHILD_CHECK(ready.wait(10000ms)); // the parent reaped the exporter
        doca_buf *again = nullptr;
        CHILD_CHECK(doca_buf_inventory_buf_get_by_args(mine.inv, remote, raddr, 4096, raddr, 4096,
                                                       &again) == DOCA_SUCCESS);
        CHILD_CHECK(c.submit(c.task(again, mine.buf(0, 4096, 0))) == DOCA_SUCCESS);
        CHILD_CHECK(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }));
        CHILD_CHECK(c.done.size() == 2);
        CHILD_CHECK_EQ(int(c.done[1].status), int(DOCA_ERROR_NOT_FOUND));
        CHILD_CHECK(doca_mmap_destroy(remote) == DOCA_SUCCESS);
        return 0;
    });
    ASSERT_EQ(wait_child(host), 0);
    ready.open();
    EXPECT_EQ(wait_child(importer), 0);
    ::close(to_importer[0]);
    ::close(to_importer[1]);
}

// A child the exporter forks (a program that forks workers after exporting): destroying its
// inherited copy of the export revokes nothing of the parent's, and the child's own exports are
// importable (its table of exports is its own, not the parent's).
TEST_P(DmaExport, AForkedChildOfTheExporterKeepsItsOwnExports)
{
    exporter host(4096, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
    std::memset(host.mem.data(), 0x11, host.mem.size());
    int child_pipe[2];
    ASSERT_EQ(::pipe2(child_pipe, O_CLOEXEC), 0);
    gate done;
    const pid_t worker = spawn([&] {
        // The inherited map: destroying it must leave the parent's export alone.
        CHILD_CHECK(doca_mmap_destroy(host.mmap) == DOCA_SUCCESS);
        host.mmap = nullptr;
        exporter own(4096, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
        std::memset(own.mem.data(), 0x22, own.mem.size());
        CHILD_CHECK(send_handoff(child_pipe[1], own.out));
        CHILD_CHECK(done.wait(10000ms)); // the export lives until the reader is done
        return 0;
    });
    handoff theirs;
    ASSERT_TRUE(recv_handoff(child_pipe[0], theirs));
    ::close(child_pipe[0]);
    ::close(child_pipe[1]);
    const int rfd = pipe_[0];
    const pid_t dpu = spawn([&] {
        handoff h;
        CHILD_CHECK(recv_handoff(rfd, h));
        std::vector<uint8_t> got(h.len);
        CHILD_CHECK_EQ(dpu_copy(h, false, got), int(DOCA_SUCCESS));
        CHILD_CHECK(got[0] == 0x11 && got[h.len - 1] == 0x11);
        std::vector<uint8_t> got2(theirs.len);
        CHILD_CHECK_EQ(dpu_copy(theirs, false, got2), int(DOCA_SUCCESS));
        CHILD_CHECK(got2[0] == 0x22 && got2[theirs.len - 1] == 0x22);
        return 0;
    });
    ASSERT_TRUE(send_handoff(pipe_[1], host.out));
    EXPECT_EQ(wait_child(dpu), 0);
    done.open();
    EXPECT_EQ(wait_child(worker), 0);
}

// applications/dma_copy's size: 64 MiB from the host's export to the DPU, byte for byte.
TEST_P(DmaExport, SixtyFourMiBByteForByte)
{
    exporter host(size_t(64) << 20, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
    for (size_t i = 0; i < host.mem.size(); i += 8) {
        const uint64_t v = i * 0x9e3779b97f4a7c15ull;
        std::memcpy(host.mem.data() + i, &v, 8);
    }
    const int rfd = pipe_[0];
    const uint8_t *expect = host.mem.data();
    const pid_t dpu = spawn([&] {
        handoff h;
        CHILD_CHECK(recv_handoff(rfd, h));
        std::vector<uint8_t> got(h.len);
        CHILD_CHECK_EQ(dpu_copy(h, false, got), int(DOCA_SUCCESS));
        // The parent's memory as it was at the fork is this process's copy too.
        CHILD_CHECK(std::memcmp(got.data(), expect, got.size()) == 0);
        return 0;
    });
    ASSERT_TRUE(send_handoff(pipe_[1], host.out));
    EXPECT_EQ(wait_child(dpu, 60000ms), 0);
}

} // namespace
