// SPDX-License-Identifier: Apache-2.0
//
// DOCA DMA throughput through the public API, next to single-core memcpy of the same size in
// the same process and run.
//
// The host side (this process, CPU 0) exports two ranges of the largest size, as NVIDIA's
// dma_copy application does with its file buffer: a source (PCI read-only) and a destination
// (PCI read-write), sends the descriptors over a pipe and then waits without progressing (as
// dma_copy_host sits in getchar()). The DPU side (a forked process pinned to CPU 1) imports both
// and, with one memcpy task resubmitted from its completion, copies `size` bytes again and again:
//   read    host memory -> local memory (dma_copy, file on the host)
//   write   local memory -> host memory (dma_copy, file on the DPU)
//   local   local -> local in the DPU process (dma_local_copy)
// Throughput = bytes copied / time from the first submission to the last completion. The
// memcpy baseline copies the same size between two local buffers of the DPU process, in the
// same seconds (before and after each DMA figure; the better of the two).
//
// Output: records (bench/bench_report.hpp):
//   dma_tput_{read,write,local}_<size>   GB/s, baseline dma_base_memcpy_<size>
//   dma_base_memcpy_<size>               GB/s
// for sizes 1MiB 4MiB 16MiB 64MiB. Full run: medians of 3 runs of each.
// Usage: dma_copy [--smoke | --quick]
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_doca.hpp"
#include "bench_report.hpp"
#include "bench_util.hpp"

using namespace softcomch::bench;

namespace {

constexpr const char *k_prog = "dma_copy";
const size_t k_sizes[] = {size_t(1) << 20, size_t(4) << 20, size_t(16) << 20, size_t(64) << 20};
constexpr size_t k_max = size_t(64) << 20;

[[noreturn]] void die(const char *what, doca_error_t rc)
{
    softcomch::bench::die(k_prog, what, rc);
}

void check(doca_error_t rc, const char *what)
{
    if (rc != DOCA_SUCCESS)
        die(what, rc);
}

// Page-aligned, touched memory (the first-touch faults are not what is measured).
uint8_t *alloc_touched(size_t n, uint8_t fill)
{
    void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        die("mmap", DOCA_ERROR_NO_MEMORY);
    std::memset(p, fill, n);
    return static_cast<uint8_t *>(p);
}

doca_mmap *local_mmap(doca_dev *dev, void *addr, size_t len, uint32_t access)
{
    doca_mmap *m = nullptr;
    check(doca_mmap_create(&m), "mmap create");
    check(doca_mmap_set_memrange(m, addr, len), "mmap memrange");
    check(doca_mmap_set_permissions(m, access), "mmap permissions");
    check(doca_mmap_add_dev(m, dev), "mmap add dev");
    check(doca_mmap_start(m), "mmap start");
    return m;
}

bool write_all(int fd, const void *p, size_t n)
{
    const auto *b = static_cast<const uint8_t *>(p);
    while (n) {
        const ssize_t w = ::write(fd, b, n);
        if (w <= 0)
            return false;
        b += w;
        n -= size_t(w);
    }
    return true;
}

bool read_all(int fd, void *p, size_t n)
{
    auto *b = static_cast<uint8_t *>(p);
    while (n) {
        const ssize_t r = ::read(fd, b, n);
        if (r <= 0)
            return false;
        b += r;
        n -= size_t(r);
    }
    return true;
}

// What the host sends: each export's descriptor and address.
struct handoff {
    uint32_t len[2];
    uint64_t addr[2];
    uint8_t desc[2][512];
};

// The DPU side's copy loop: one task, resubmitted from its completion `n` times.
struct dma_side {
    doca_dev *dev = nullptr;
    doca_pe *pe = nullptr;
    doca_dma *dma = nullptr;
    doca_buf_inventory *inv = nullptr;
    size_t remaining = 0;
    doca_error_t failed = DOCA_SUCCESS;

    static void done_cb(doca_dma_task_memcpy *task, union doca_data, union doca_data ctx_ud)
    {
        auto *self = static_cast<dma_side *>(ctx_ud.ptr);
        doca_task *t = doca_dma_task_memcpy_as_task(task);
        if (doca_task_get_status(t) != DOCA_SUCCESS) {
            self->failed = doca_task_get_status(t);
            return;
        }
        if (--self->remaining == 0)
            return;
        // The destination's data grew by the copy: empty it again, and go on.
        (void)doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task));
        if (doca_task_submit(t) != DOCA_SUCCESS)
            self->failed = DOCA_ERROR_UNEXPECTED;
    }

    void open()
    {
        dev = open_dev("03:00.0");
        if (!dev)
            die("open device", DOCA_ERROR_NOT_FOUND);
        check(doca_pe_create(&pe), "pe create");
        check(doca_dma_create(dev, &dma), "dma create");
        doca_ctx *ctx = doca_dma_as_ctx(dma);
        union doca_data ud;
        ud.ptr = this;
        check(doca_ctx_set_user_data(ctx, ud), "ctx user data");
        check(doca_pe_connect_ctx(pe, ctx), "pe connect");
        check(doca_dma_task_memcpy_set_conf(dma, &done_cb, &done_cb, 4), "memcpy conf");
        check(doca_ctx_start(ctx), "ctx start");
        check(doca_buf_inventory_create(8, &inv), "inventory create");
        check(doca_buf_inventory_start(inv), "inventory start");
    }

    // GB/s of `n` copies of `size` bytes from (src_mmap, src) to (dst_mmap, dst).
    double run(doca_mmap *src_mmap, void *src, doca_mmap *dst_mmap, void *dst, size_t size,
               size_t n)
    {
        doca_buf *s = nullptr, *d = nullptr;
        check(doca_buf_inventory_buf_get_by_args(inv, src_mmap, src, size, src, size, &s),
              "src buf");
        check(doca_buf_inventory_buf_get_by_args(inv, dst_mmap, dst, size, dst, 0, &d), "dst buf");
        doca_dma_task_memcpy *task = nullptr;
        union doca_data ud {};
        check(doca_dma_task_memcpy_alloc_init(dma, s, d, ud, &task), "task alloc");
        remaining = n;
        failed = DOCA_SUCCESS;
        spin_bound bound("dma copies", 120);
        const uint64_t t0 = mono_ns();
        check(doca_task_submit(doca_dma_task_memcpy_as_task(task)), "submit");
        while (remaining != 0 && failed == DOCA_SUCCESS) {
            (void)doca_pe_progress(pe);
            bound.tick();
        }
        const uint64_t t1 = mono_ns();
        check(failed, "memcpy task");
        doca_task_free(doca_dma_task_memcpy_as_task(task));
        check(doca_buf_dec_refcount(s, nullptr), "src release");
        check(doca_buf_dec_refcount(d, nullptr), "dst release");
        return double(size) * double(n) / double(t1 - t0);
    }

    void close()
    {
        doca_ctx *ctx = doca_dma_as_ctx(dma);
        if (doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS) {
            doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
            while (st != DOCA_CTX_STATE_IDLE) {
                (void)doca_pe_progress(pe);
                (void)doca_ctx_get_state(ctx, &st);
            }
        }
        check(doca_dma_destroy(dma), "dma destroy");
        check(doca_pe_destroy(pe), "pe destroy");
        check(doca_buf_inventory_stop(inv), "inventory stop");
        check(doca_buf_inventory_destroy(inv), "inventory destroy");
        check(doca_dev_close(dev), "dev close");
    }
};

// GB/s of `n` memcpys of `size` bytes between the two local buffers.
double memcpy_gbps(uint8_t *dst, const uint8_t *src, size_t size, size_t n)
{
    const uint64_t t0 = mono_ns();
    for (size_t i = 0; i < n; ++i) {
        std::memcpy(dst, src, size);
        asm volatile("" : : "r"(dst) : "memory"); // the copy is not optimised away
    }
    return double(size) * double(n) / double(mono_ns() - t0);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int dpu_side(int rfd, run_mode mode)
{
    pin_to_cpu(online_cpus() > 1 ? 1 : 0);
    handoff h{};
    if (!read_all(rfd, &h, sizeof h))
        die("read handoff", DOCA_ERROR_IO_FAILED);
    dma_side side;
    side.open();
    doca_mmap *remote[2] = {};
    for (int i = 0; i < 2; ++i)
        check(doca_mmap_create_from_export(nullptr, h.desc[i], h.len[i], side.dev, &remote[i]),
              "create from export");
    uint8_t *a = alloc_touched(k_max, 0x5a);
    uint8_t *b = alloc_touched(k_max, 0);
    doca_mmap *la = local_mmap(side.dev, a, k_max, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
    doca_mmap *lb = local_mmap(side.dev, b, k_max, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
    void *host_src = reinterpret_cast<void *>(uintptr_t(h.addr[0]));
    void *host_dst = reinterpret_cast<void *>(uintptr_t(h.addr[1]));
    const int runs = mode == run_mode::full ? 3 : 1;
    for (size_t size : k_sizes) {
        // About 256 MiB per figure (quick: 64 MiB; smoke: one copy).
        const size_t n = by_mode<size_t>(mode, 1, std::max<size_t>(1, (size_t(64) << 20) / size),
                                         std::max<size_t>(2, (size_t(256) << 20) / size));
        std::vector<double> base, rd, wr, lo;
        for (int r = 0; r < runs; ++r) {
            const double m0 = memcpy_gbps(b, a, size, n);
            rd.push_back(side.run(remote[0], host_src, lb, b, size, n));
            wr.push_back(side.run(la, a, remote[1], host_dst, size, n));
            lo.push_back(side.run(la, a, lb, b, size, n));
            const double m1 = memcpy_gbps(b, a, size, n);
            base.push_back(std::max(m0, m1));
        }
        const std::string sz = size_name(size);
        const double mb = median(base);
        const std::string base_metric = "dma_base_memcpy_" + sz;
        record rb{base_metric, mb, "GB/s", "higher", "memcpy", "dma_tput", size, "local", "", 0};
        emit(rb);
        const struct {
            const char *what;
            double value;
        } figures[] = {{"read", median(rd)}, {"write", median(wr)}, {"local", median(lo)}};
        for (const auto &f : figures) {
            record r{std::string("dma_tput_") + f.what + "_" + sz,
                     f.value,
                     "GB/s",
                     "higher",
                     "softcomch",
                     "dma_tput",
                     size,
                     f.what,
                     base_metric,
                     mb};
            emit(r);
        }
    }
    for (doca_mmap *m : {remote[0], remote[1], la, lb})
        check(doca_mmap_destroy(m), "mmap destroy");
    side.close();
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    const run_mode mode = parse_mode(argc, argv, k_prog);
    print_context(k_prog);
    int fds[2];
    if (pipe(fds) != 0)
        die("pipe", DOCA_ERROR_OPERATING_SYSTEM);
    std::fflush(stdout);
    const pid_t child = fork();
    if (child < 0)
        die("fork", DOCA_ERROR_OPERATING_SYSTEM);
    if (child == 0) {
        ::close(fds[1]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setenv("SOFTCOMCH_SIDE", "dpu", 1);
        std::_Exit(dpu_side(fds[0], mode));
    }
    ::close(fds[0]);
    pin_to_cpu(0);
    doca_dev *dev = open_dev("b1:00.0");
    if (!dev)
        die("open device", DOCA_ERROR_NOT_FOUND);
    uint8_t *src = alloc_touched(k_max, 0xa5);
    uint8_t *dst = alloc_touched(k_max, 0);
    doca_mmap *ms = local_mmap(dev, src, k_max, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
    doca_mmap *md = local_mmap(dev, dst, k_max,
                               DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
    handoff h{};
    doca_mmap *maps[2] = {ms, md};
    void *addrs[2] = {src, dst};
    for (int i = 0; i < 2; ++i) {
        const void *d = nullptr;
        size_t len = 0;
        check(doca_mmap_export_pci(maps[i], dev, &d, &len), "export");
        if (len > sizeof h.desc[i])
            die("export descriptor size", DOCA_ERROR_UNEXPECTED);
        h.len[i] = uint32_t(len);
        h.addr[i] = uint64_t(reinterpret_cast<uintptr_t>(addrs[i]));
        std::memcpy(h.desc[i], d, len);
    }
    if (!write_all(fds[1], &h, sizeof h))
        die("write handoff", DOCA_ERROR_IO_FAILED);
    // Nothing more to do here than to keep the memory (dma_copy_host sits in getchar()).
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "dma_copy: the DPU side failed\n");
        return 1;
    }
    check(doca_mmap_destroy(ms), "mmap destroy");
    check(doca_mmap_destroy(md), "mmap destroy");
    check(doca_dev_close(dev), "dev close");
    return 0;
}
