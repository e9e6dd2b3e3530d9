// SPDX-License-Identifier: Apache-2.0
//
// A file copy across the PCIe link shaped like NVIDIA's applications/dma_copy (DOCA 3.x), written
// for this project (public API only):
//   - the DPU side runs a Comch server on 03:00.0 for host function b1:00.0 and a DMA context on
//     03:00.0, both on one progress engine; the host side runs a Comch client on b1:00.0;
//   - over control-path messages the host says which way the file goes (and its size when the
//     file is on the host); the DPU answers with the size it agrees to (its own file's size when
//     the file is on the DPU);
//   - the host exports its buffer (read-only when the file is on the host, read-write when it is
//     on the DPU) and sends the descriptor, the address and the length in one message;
//   - the DPU imports it and copies with DMA memcpy tasks of at most 4 MiB (or the device's
//     limit), several in flight, the next chunk issued from each completion callback; then it
//     reports "done" (or the error) and both sides tear down in DOCA's order.
// Every received message is checked (type, length, sizes, bounds) before it is used. Waits are
// NVIDIA's pe_event loop (progress until 0, arm, epoll_wait, clear), each bounded by --timeout.
//
// A second mode is the file-carried export of NVIDIA's samples/doca_dma dma_copy_host /
// dma_copy_dpu (no Comch): `--role export` exports a read-only map of a file's content, writes the
// descriptor, address and length to a file and blocks reading stdin, progressing nothing, as
// dma_copy_host sits in getchar(); `--role import`, a later process, imports it on 03:00.0 and
// DMA-reads everything.
//
// Usage:
//   comch_dma_copy --direction host-to-dpu|dpu-to-host --in FILE --out FILE
//                  [--role both|dpu|host] [--name NAME] [--timeout SECONDS]
//   comch_dma_copy --role export --desc-file PATH --in FILE [--timeout SECONDS]
//   comch_dma_copy --role import --desc-file PATH --out FILE [--timeout SECONDS]
// --in is the file on the side that has it (the host for host-to-dpu, the DPU for dpu-to-host),
// --out is written by the other side. Role both (default) forks the DPU side and runs the host
// side; exit 0 only if both sides succeeded. A failure exits non-zero with one line on stderr.
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <list>
#include <string>
#include <vector>

#include "program_util.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

constexpr const char *k_default_name = "comch-dma-copy";
constexpr const char *k_dpu_pci = "03:00.0";
constexpr const char *k_host_pci = "b1:00.0";
constexpr uint64_t k_max_chunk = uint64_t(4) << 20; // per memcpy task (dma_copy's default)
constexpr uint32_t k_max_in_flight = 8;
constexpr uint64_t k_max_file = uint64_t(1) << 30;
constexpr uint32_t k_max_desc = 512; // doca_mmap_export_pci's limit
constexpr uint32_t k_max_reason = 200;

// ---- options ----

enum class direction { none, host_to_dpu, dpu_to_host };

struct options {
    direction dir = direction::none;
    std::string in, out, role = "both", name = k_default_name, desc_file;
    int timeout_s = 60;
};

const char *dir_name(direction d)
{
    return d == direction::host_to_dpu ? "host-to-dpu" : "dpu-to-host";
}

// ---- failure: the first one is the line on stderr ----

const char *g_who = "comch_dma_copy";
bool g_failed = false;

void fail(const std::string &what)
{
    if (!g_failed)
        std::fprintf(stderr, "comch_dma_copy[%s]: %s\n", g_who, what.c_str());
    g_failed = true;
}

void fail_rc(const std::string &what, doca_error_t rc)
{
    fail(what + ": " + doca_error_get_name(rc));
}

// ---- memory and files ----

// Page-aligned memory (an export shares whole pages where it can).
struct page_buffer {
    uint8_t *data = nullptr;
    size_t len = 0;

    page_buffer() = default;
    page_buffer(const page_buffer &) = delete;
    page_buffer &operator=(const page_buffer &) = delete;
    ~page_buffer() { std::free(data); }

    bool alloc(size_t n)
    {
        std::free(data);
        len = n;
        data = static_cast<uint8_t *>(std::aligned_alloc(4096, (n + 4095) / 4096 * 4096));
        return data != nullptr;
    }
};

std::string errno_text(const std::string &what, const std::string &path)
{
    return what + " " + path + ": " + std::strerror(errno);
}

// Reads a whole regular file of 1 byte .. k_max_file; false with `why` set otherwise.
bool read_file(const std::string &path, page_buffer &buf, std::string &why)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        why = errno_text("cannot open", path);
        return false;
    }
    struct stat st {};
    bool ok = ::fstat(fd, &st) == 0;
    if (!ok) {
        why = errno_text("cannot stat", path);
    } else if (!S_ISREG(st.st_mode) || st.st_size <= 0 || uint64_t(st.st_size) > k_max_file) {
        why = path + ": not a regular file of 1 byte to 1 GiB";
        ok = false;
    } else if (!buf.alloc(size_t(st.st_size))) {
        why = "out of memory for " + path;
        ok = false;
    }
    for (size_t done = 0; ok && done < buf.len;) {
        const ssize_t n = ::read(fd, buf.data + done, buf.len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            why = n < 0 ? errno_text("cannot read", path) : path + ": shorter than its size";
            ok = false;
            break;
        }
        done += size_t(n);
    }
    ::close(fd);
    return ok;
}

bool write_file(const std::string &path, const uint8_t *data, size_t len, std::string &why)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        why = errno_text("cannot create", path);
        return false;
    }
    for (size_t done = 0; done < len;) {
        const ssize_t n = ::write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            why = errno_text("cannot write", path);
            ::close(fd);
            return false;
        }
        done += size_t(n);
    }
    if (::close(fd) != 0) {
        why = errno_text("cannot close", path);
        return false;
    }
    return true;
}

void put32(std::vector<uint8_t> &m, size_t at, uint32_t v)
{
    v = htobe32(v);
    std::memcpy(m.data() + at, &v, 4);
}

void put64(std::vector<uint8_t> &m, size_t at, uint64_t v)
{
    v = htobe64(v);
    std::memcpy(m.data() + at, &v, 8);
}

uint32_t get32(const std::vector<uint8_t> &m, size_t at)
{
    uint32_t v;
    std::memcpy(&v, m.data() + at, 4);
    return be32toh(v);
}

uint64_t get64(const std::vector<uint8_t> &m, size_t at)
{
    uint64_t v;
    std::memcpy(&v, m.data() + at, 8);
    return be64toh(v);
}

// ---- the progress engine and its bounded waits ----

struct engine {
    doca_pe *pe = nullptr;
    int ep = -1;
    int timeout_s = 60;

    bool open()
    {
        doca_error_t rc = doca_pe_create(&pe);
        if (rc != DOCA_SUCCESS) {
            fail_rc("doca_pe_create", rc);
            return false;
        }
        ep = sc_prog::epoll_on(pe);
        if (ep < 0) {
            fail("cannot wait on the progress engine's notification handle");
            return false;
        }
        return true;
    }
    void close()
    {
        if (ep >= 0)
            ::close(ep);
        ep = -1;
        if (pe) {
            const doca_error_t rc = doca_pe_destroy(pe);
            if (rc != DOCA_SUCCESS)
                fail_rc("doca_pe_destroy", rc);
        }
        pe = nullptr;
    }

    // NVIDIA's pe_event loop until `done()` holds; false (with a line naming `what`) after
    // timeout_s seconds.
    template <typename Done> bool wait_until(Done done, const char *what)
    {
        const auto deadline = clock_type::now() + std::chrono::seconds(timeout_s);
        for (;;) {
            if (done())
                return true;
            if (doca_pe_progress(pe) != 0) {
                if (clock_type::now() > deadline)
                    break;
                continue;
            }
            if (done())
                return true;
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now());
            if (left.count() <= 0)
                break;
            doca_error_t rc = DOCA_SUCCESS;
            sc_prog::event_wait(pe, ep, int(std::min<int64_t>(left.count() + 1, 1 << 30)), nullptr,
                                &rc);
            if (rc != DOCA_SUCCESS) {
                fail_rc("the progress engine's notification", rc);
                return false;
            }
        }
        fail("timed out after " + std::to_string(timeout_s) + " s waiting for " + what);
        return false;
    }

    bool wait_state(doca_ctx *ctx, doca_ctx_states want, const char *what)
    {
        return wait_until(
            [&] {
                doca_ctx_states s = DOCA_CTX_STATE_IDLE;
                return doca_ctx_get_state(ctx, &s) == DOCA_SUCCESS && s == want;
            },
            what);
    }

    // doca_ctx_stop, then progress until IDLE.
    void stop(doca_ctx *ctx, const char *what)
    {
        const doca_error_t rc = doca_ctx_stop(ctx);
        if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS) {
            fail_rc(std::string("doca_ctx_stop (") + what + ")", rc);
            return;
        }
        wait_state(ctx, DOCA_CTX_STATE_IDLE, what);
    }
};

// ---- DMA: the copy between an imported map and local memory ----

// A DMA context on `dev` (on the caller's engine) and a local map over `local`; copies between
// `local` and memory of the other side in chunks, several tasks in flight, each completion
// issuing the next chunk.
struct dma_copier {
    doca_dev *dev = nullptr;
    doca_dma *dma = nullptr;
    doca_ctx *ctx = nullptr;
    doca_mmap *local_mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    uint8_t *local = nullptr;
    size_t len = 0;
    // The copy.
    doca_mmap *remote = nullptr;
    uint8_t *remote_addr = nullptr;
    bool to_remote = false;
    uint64_t chunk = 0;
    uint32_t tasks = 0; // configured (and at most in flight)
    uint64_t chunks = 0, next = 0, completed = 0, in_flight = 0, bytes = 0;
    doca_error_t error = DOCA_SUCCESS;
    std::string reason;

    void set_error(doca_error_t rc, const std::string &why)
    {
        if (error == DOCA_SUCCESS) {
            error = rc;
            reason = why;
        }
    }

    bool done() const { return in_flight == 0 && (completed == chunks || error != DOCA_SUCCESS); }

    // The DMA context (started) and the local map; false with the line printed.
    bool setup(doca_dev *d, engine &e, uint8_t *mem, size_t n)
    {
        dev = d;
        local = mem;
        len = n;
        const doca_devinfo *info = doca_dev_as_devinfo(dev);
        uint64_t max_buf = 0;
        uint32_t max_tasks = 0;
        doca_error_t rc = doca_dma_cap_task_memcpy_is_supported(info);
        if (rc != DOCA_SUCCESS) {
            fail_rc("doca_dma_cap_task_memcpy_is_supported", rc);
            return false;
        }
        rc = doca_dma_cap_task_memcpy_get_max_buf_size(info, &max_buf);
        if (rc != DOCA_SUCCESS || max_buf == 0) {
            fail_rc("doca_dma_cap_task_memcpy_get_max_buf_size", rc);
            return false;
        }
        chunk = std::min(k_max_chunk, max_buf);
        chunks = (len + chunk - 1) / chunk;
        rc = doca_dma_create(dev, &dma);
        if (rc != DOCA_SUCCESS) {
            fail_rc("doca_dma_create", rc);
            return false;
        }
        ctx = doca_dma_as_ctx(dma);
        rc = doca_dma_cap_get_max_num_tasks(dma, &max_tasks);
        if (rc != DOCA_SUCCESS || max_tasks == 0) {
            fail_rc("doca_dma_cap_get_max_num_tasks", rc);
            return false;
        }
        tasks = std::min(k_max_in_flight, max_tasks);
        union doca_data ud {};
        ud.ptr = this;
        const char *step = nullptr;
        if ((rc = doca_ctx_set_user_data(ctx, ud)) != DOCA_SUCCESS)
            step = "doca_ctx_set_user_data (DMA)";
        else if ((rc = doca_pe_connect_ctx(e.pe, ctx)) != DOCA_SUCCESS)
            step = "doca_pe_connect_ctx (DMA)";
        else if ((rc = doca_dma_task_memcpy_set_conf(dma, on_done, on_done, tasks)) != DOCA_SUCCESS)
            step = "doca_dma_task_memcpy_set_conf";
        else if ((rc = doca_mmap_create(&local_mmap)) != DOCA_SUCCESS)
            step = "doca_mmap_create (local)";
        else if ((rc = doca_mmap_set_memrange(local_mmap, local, len)) != DOCA_SUCCESS)
            step = "doca_mmap_set_memrange (local)";
        else if ((rc = doca_mmap_set_permissions(local_mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)) !=
                 DOCA_SUCCESS)
            step = "doca_mmap_set_permissions (local)";
        else if ((rc = doca_mmap_add_dev(local_mmap, dev)) != DOCA_SUCCESS)
            step = "doca_mmap_add_dev (local)";
        else if ((rc = doca_mmap_start(local_mmap)) != DOCA_SUCCESS)
            step = "doca_mmap_start (local)";
        else if ((rc = doca_buf_inventory_create(2 * size_t(tasks), &inv)) != DOCA_SUCCESS)
            step = "doca_buf_inventory_create";
        else if ((rc = doca_buf_inventory_start(inv)) != DOCA_SUCCESS)
            step = "doca_buf_inventory_start";
        if (step) {
            fail_rc(step, rc);
            return false;
        }
        rc = doca_ctx_start(ctx);
        if (rc == DOCA_ERROR_IN_PROGRESS)
            return e.wait_state(ctx, DOCA_CTX_STATE_RUNNING, "the DMA context to start");
        if (rc != DOCA_SUCCESS) {
            fail_rc("doca_ctx_start (DMA)", rc);
            return false;
        }
        return true;
    }

    // The bufs of chunk `i`: local memory and the other side's, each the source or the
    // destination as the copy goes.
    doca_error_t chunk_bufs(uint64_t i, doca_buf **src, doca_buf **dst)
    {
        const size_t off = size_t(i * chunk);
        const size_t n = size_t(std::min<uint64_t>(chunk, len - off));
        doca_buf *lbuf = nullptr, *rbuf = nullptr;
        uint8_t *l = local + off, *r = remote_addr + off;
        doca_error_t rc = to_remote
                              ? doca_buf_inventory_buf_get_by_data(inv, local_mmap, l, n, &lbuf)
                              : doca_buf_inventory_buf_get_by_addr(inv, local_mmap, l, n, &lbuf);
        if (rc != DOCA_SUCCESS)
            return rc;
        rc = to_remote ? doca_buf_inventory_buf_get_by_addr(inv, remote, r, n, &rbuf)
                       : doca_buf_inventory_buf_get_by_data(inv, remote, r, n, &rbuf);
        if (rc != DOCA_SUCCESS) {
            (void)doca_buf_dec_refcount(lbuf, nullptr);
            return rc;
        }
        *src = to_remote ? lbuf : rbuf;
        *dst = to_remote ? rbuf : lbuf;
        return DOCA_SUCCESS;
    }

    size_t chunk_len(uint64_t i) const
    {
        return size_t(std::min<uint64_t>(chunk, len - i * chunk));
    }

    // Submits chunk `next` with `t` (a task of ours not in flight: a fresh one or one whose
    // completion is being handled). False: nothing is in flight for `t` and it was freed.
    bool issue(doca_dma_task_memcpy *t)
    {
        doca_buf *src = nullptr, *dst = nullptr;
        const uint64_t i = next;
        doca_error_t rc = chunk_bufs(i, &src, &dst);
        if (rc != DOCA_SUCCESS) {
            set_error(rc, std::string("doca_buf_inventory_buf_get_by_args: ") +
                              doca_error_get_name(rc));
            if (t)
                doca_task_free(doca_dma_task_memcpy_as_task(t));
            return false;
        }
        union doca_data ud {};
        ud.u64 = i;
        if (t) {
            doca_dma_task_memcpy_set_src(t, src);
            doca_dma_task_memcpy_set_dst(t, dst);
            doca_task_set_user_data(doca_dma_task_memcpy_as_task(t), ud);
        } else if ((rc = doca_dma_task_memcpy_alloc_init(dma, src, dst, ud, &t)) != DOCA_SUCCESS) {
            set_error(rc,
                      std::string("doca_dma_task_memcpy_alloc_init: ") + doca_error_get_name(rc));
            (void)doca_buf_dec_refcount(src, nullptr);
            (void)doca_buf_dec_refcount(dst, nullptr);
            return false;
        }
        rc = doca_task_submit(doca_dma_task_memcpy_as_task(t));
        if (rc != DOCA_SUCCESS) {
            set_error(rc, std::string("doca_task_submit (DMA memcpy): ") + doca_error_get_name(rc));
            doca_task_free(doca_dma_task_memcpy_as_task(t));
            (void)doca_buf_dec_refcount(src, nullptr);
            (void)doca_buf_dec_refcount(dst, nullptr);
            return false;
        }
        ++next;
        ++in_flight;
        return true;
    }

    // Completion and error callback: check, release the bufs, issue the next chunk with the
    // same task (or free it).
    static void on_done(doca_dma_task_memcpy *t, union doca_data task_ud, union doca_data ctx_ud)
    {
        auto *c = static_cast<dma_copier *>(ctx_ud.ptr);
        const doca_error_t status = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
        doca_buf *src = const_cast<doca_buf *>(doca_dma_task_memcpy_get_src(t));
        doca_buf *dst = doca_dma_task_memcpy_get_dst(t);
        size_t got = 0;
        const bool have_len = doca_buf_get_data_len(dst, &got) == DOCA_SUCCESS;
        (void)doca_buf_dec_refcount(src, nullptr);
        (void)doca_buf_dec_refcount(dst, nullptr);
        --c->in_flight;
        const uint64_t i = task_ud.u64;
        if (status != DOCA_SUCCESS) {
            c->set_error(status, "a DMA memcpy task (chunk " + std::to_string(i) +
                                     ") failed: " + doca_error_get_name(status));
        } else if (i >= c->chunks || !have_len || got != c->chunk_len(i)) {
            c->set_error(DOCA_ERROR_UNEXPECTED,
                         "a DMA memcpy task (chunk " + std::to_string(i) + ") copied " +
                             std::to_string(got) + " bytes instead of " +
                             std::to_string(i < c->chunks ? c->chunk_len(i) : 0));
        } else {
            ++c->completed;
            c->bytes += got;
        }
        if (c->error != DOCA_SUCCESS || c->next == c->chunks) {
            doca_task_free(doca_dma_task_memcpy_as_task(t));
            return;
        }
        (void)c->issue(t);
    }

    // Copies all of `len` between local memory and [raddr, raddr + len) of `rmap`; false with
    // the reason in `reason` (and `error`).
    bool copy(engine &e, doca_mmap *rmap, uint8_t *raddr, bool towards_remote)
    {
        remote = rmap;
        remote_addr = raddr;
        to_remote = towards_remote;
        for (uint32_t k = 0; k < tasks && next < chunks; ++k)
            if (!issue(nullptr))
                break;
        const bool waited = e.wait_until([&] { return done(); }, "the DMA copy to complete");
        if (!waited)
            set_error(DOCA_ERROR_TIME_OUT, "timed out");
        return waited && error == DOCA_SUCCESS && completed == chunks && bytes == len;
    }

    // Stops the context (flushing whatever is in flight) and destroys it, the inventory and the
    // local map. Called with the engine still there.
    void teardown(engine &e)
    {
        if (ctx)
            e.stop(ctx, "the DMA context to stop");
        if (dma) {
            const doca_error_t rc = doca_dma_destroy(dma);
            if (rc != DOCA_SUCCESS)
                fail_rc("doca_dma_destroy", rc);
        }
        if (inv) {
            (void)doca_buf_inventory_stop(inv);
            const doca_error_t rc = doca_buf_inventory_destroy(inv);
            if (rc != DOCA_SUCCESS)
                fail_rc("doca_buf_inventory_destroy", rc);
        }
        if (local_mmap) {
            const doca_error_t rc = doca_mmap_destroy(local_mmap);
            if (rc != DOCA_SUCCESS)
                fail_rc("doca_mmap_destroy (local)", rc);
        }
        dma = nullptr;
        ctx = nullptr;
        inv = nullptr;
        local_mmap = nullptr;
    }
};

// Imports `desc` with `dev` and checks that the map covers [addr, addr + len); the error with
// `why` set otherwise.
doca_error_t import_export(doca_dev *dev, const std::vector<uint8_t> &desc, uint64_t addr,
                           uint64_t len, doca_mmap **out, std::string &why)
{
    doca_mmap *remote = nullptr;
    doca_error_t rc = doca_mmap_create_from_export(nullptr, desc.data(), desc.size(), dev, &remote);
    if (rc != DOCA_SUCCESS) {
        why = std::string("doca_mmap_create_from_export: ") + doca_error_get_name(rc);
        return rc;
    }
    void *start = nullptr;
    size_t n = 0;
    rc = doca_mmap_get_memrange(remote, &start, &n);
    const uint64_t lo = uint64_t(reinterpret_cast<uintptr_t>(start));
    if (rc != DOCA_SUCCESS || addr < lo || addr - lo > n || len > n - (addr - lo)) {
        why = "the buffer named with the export (" + std::to_string(len) +
              " bytes) is not inside the exported range";
        (void)doca_mmap_destroy(remote);
        return rc != DOCA_SUCCESS ? rc : DOCA_ERROR_INVALID_VALUE;
    }
    *out = remote;
    return DOCA_SUCCESS;
}

// The host's export: a map over `mem` with `access`, exported for `dev`.
struct host_export {
    doca_mmap *mmap = nullptr;
    std::vector<uint8_t> desc;

    bool create(doca_dev *dev, uint8_t *mem, size_t len, uint32_t access)
    {
        doca_error_t rc;
        const char *step = nullptr;
        const void *d = nullptr;
        size_t n = 0;
        if ((rc = doca_mmap_create(&mmap)) != DOCA_SUCCESS)
            step = "doca_mmap_create";
        else if ((rc = doca_mmap_set_memrange(mmap, mem, len)) != DOCA_SUCCESS)
            step = "doca_mmap_set_memrange";
        else if ((rc = doca_mmap_set_permissions(mmap, access)) != DOCA_SUCCESS)
            step = "doca_mmap_set_permissions";
        else if ((rc = doca_mmap_add_dev(mmap, dev)) != DOCA_SUCCESS)
            step = "doca_mmap_add_dev";
        else if ((rc = doca_mmap_start(mmap)) != DOCA_SUCCESS)
            step = "doca_mmap_start";
        else if ((rc = doca_mmap_export_pci(mmap, dev, &d, &n)) != DOCA_SUCCESS)
            step = "doca_mmap_export_pci";
        if (step) {
            fail_rc(step, rc);
            return false;
        }
        if (n == 0 || n > k_max_desc) {
            fail("doca_mmap_export_pci gave a descriptor of " + std::to_string(n) + " bytes");
            return false;
        }
        desc.assign(static_cast<const uint8_t *>(d), static_cast<const uint8_t *>(d) + n);
        return true;
    }
    void destroy()
    {
        if (mmap) {
            const doca_error_t rc = doca_mmap_destroy(mmap);
            if (rc != DOCA_SUCCESS)
                fail_rc("doca_mmap_destroy (export)", rc);
        }
        mmap = nullptr;
    }
};

// ---- the Comch control path ----

// Messages: [u32 type][u32 arg][u64 value][payload], big-endian.
//   direction (host -> DPU): arg 1 if the file is on the host; value its size (0 otherwise)
//   ready     (DPU -> host): value the size the DPU agrees to copy
//   export    (host -> DPU): arg the descriptor's length; value the address; then u64 length and
//                            the descriptor
//   status    (DPU -> host): arg 0 done or a doca_error_t; value the bytes copied; then a reason
enum msg_type : uint32_t { msg_direction = 1, msg_ready = 2, msg_export = 3, msg_status = 4 };
constexpr uint32_t k_hdr = 16;
constexpr uint32_t k_export_hdr = 24;

std::vector<uint8_t> make_msg(msg_type type, uint32_t arg, uint64_t value, size_t extra = 0)
{
    std::vector<uint8_t> m(k_hdr + extra);
    put32(m, 0, type);
    put32(m, 4, arg);
    put64(m, 8, value);
    return m;
}

const char *msg_name(uint32_t type)
{
    switch (type) {
    case msg_direction:
        return "direction";
    case msg_ready:
        return "ready";
    case msg_export:
        return "export";
    case msg_status:
        return "status";
    }
    return "unknown";
}

struct comch_side {
    doca_dev *dev = nullptr;
    doca_dev_rep *rep = nullptr;
    engine e;
    doca_comch_server *srv = nullptr;
    doca_comch_client *cli = nullptr;
    doca_ctx *ctx = nullptr;
    doca_comch_connection *conn = nullptr;
    bool disconnected = false;
    std::deque<std::vector<uint8_t>> inbox;
    std::list<std::vector<uint8_t>> outbox; // referenced by send tasks until the end
    uint32_t pending_sends = 0;
    uint32_t max_msg = 0;
};

comch_side *g_side = nullptr;

void on_recv(doca_comch_event_msg_recv *, uint8_t *msg, uint32_t len, doca_comch_connection *c)
{
    if (g_side->conn && c != g_side->conn) {
        fail("a message arrived on an unexpected connection");
        return;
    }
    g_side->inbox.emplace_back(msg, msg + len);
}

void on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *c, uint8_t ok)
{
    if (!ok)
        return;
    if (g_side->conn) {
        fail("a second client connected");
        return;
    }
    g_side->conn = c;
}

void on_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *c, uint8_t)
{
    if (c == g_side->conn)
        g_side->disconnected = true;
}

void on_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    --g_side->pending_sends;
    doca_task_free(doca_comch_task_send_as_task(t));
}

void on_send_fail(doca_comch_task_send *t, union doca_data, union doca_data)
{
    --g_side->pending_sends;
    fail("a control message could not be delivered: " +
         std::string(doca_error_get_name(doca_task_get_status(doca_comch_task_send_as_task(t)))));
    doca_task_free(doca_comch_task_send_as_task(t));
}

bool send_msg(comch_side &s, std::vector<uint8_t> m)
{
    if (m.size() > s.max_msg) {
        fail(std::string("the ") + msg_name(get32(m, 0)) + " message (" + std::to_string(m.size()) +
             " bytes) is above the maximum message size");
        return false;
    }
    s.outbox.push_back(std::move(m));
    const std::vector<uint8_t> &msg = s.outbox.back();
    doca_comch_task_send *t = nullptr;
    doca_error_t rc = DOCA_SUCCESS;
    const auto alloc = [&] {
        rc = s.srv ? doca_comch_server_task_send_alloc_init(s.srv, s.conn, msg.data(),
                                                            uint32_t(msg.size()), &t)
                   : doca_comch_client_task_send_alloc_init(s.cli, s.conn, msg.data(),
                                                            uint32_t(msg.size()), &t);
        return rc != DOCA_ERROR_NO_MEMORY;
    };
    if (!alloc() && !s.e.wait_until(alloc, "a free control send task"))
        return false;
    if (rc == DOCA_SUCCESS)
        rc = doca_task_submit(doca_comch_task_send_as_task(t));
    if (rc != DOCA_SUCCESS) {
        fail_rc(std::string("sending the ") + msg_name(get32(msg, 0)) + " message", rc);
        return false;
    }
    ++s.pending_sends;
    return true;
}

// The next message, of `want` type and at least `min_len` bytes (a status message is always
// accepted: the peer's error); false with the line printed.
bool next_msg(comch_side &s, const char *what, std::vector<uint8_t> &m)
{
    const auto peer_gone = [&] {
        if (s.srv)
            return s.disconnected;
        doca_ctx_states st = DOCA_CTX_STATE_IDLE;
        return doca_ctx_get_state(s.ctx, &st) != DOCA_SUCCESS || st != DOCA_CTX_STATE_RUNNING;
    };
    if (!s.e.wait_until([&] { return !s.inbox.empty() || peer_gone() || g_failed; }, what))
        return false;
    if (s.inbox.empty()) {
        if (!g_failed)
            fail(std::string("the peer disconnected while waiting for ") + what);
        return false;
    }
    m = std::move(s.inbox.front());
    s.inbox.pop_front();
    if (m.size() < k_hdr) {
        fail("a control message of " + std::to_string(m.size()) + " bytes (at least " +
             std::to_string(k_hdr) + " expected)");
        return false;
    }
    return true;
}

bool common_setup(comch_side &s, const char *pci, int timeout_s)
{
    g_side = &s;
    s.e.timeout_s = timeout_s;
    s.dev = sc_prog::open_dev(pci);
    if (!s.dev) {
        fail(std::string("no device ") + pci);
        return false;
    }
    uint32_t cap = 0;
    const doca_error_t rc = doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(s.dev), &cap);
    if (rc != DOCA_SUCCESS || cap < k_export_hdr + 64) {
        fail_rc("doca_comch_cap_get_max_msg_size", rc);
        return false;
    }
    s.max_msg = cap;
    return s.e.open();
}

// Waits for the sends in flight, then stops the server (once the client is gone) or the client,
// destroys it, the engine and the devices.
void comch_teardown(comch_side &s)
{
    if (s.ctx) {
        doca_ctx_states st = DOCA_CTX_STATE_IDLE;
        (void)doca_ctx_get_state(s.ctx, &st);
        if (st != DOCA_CTX_STATE_IDLE) {
            if (s.pending_sends)
                s.e.wait_until([&] { return s.pending_sends == 0; },
                               "the last control message to be delivered");
            // comch_utils' order on the DPU: the client disconnects, then the server stops.
            if (s.srv && s.conn && !g_failed)
                s.e.wait_until([&] { return s.disconnected; }, "the host to disconnect");
            s.e.stop(s.ctx, s.srv ? "the server to stop" : "the client to stop");
        }
        const doca_error_t rc =
            s.srv ? doca_comch_server_destroy(s.srv) : doca_comch_client_destroy(s.cli);
        if (rc != DOCA_SUCCESS)
            fail_rc(s.srv ? "doca_comch_server_destroy" : "doca_comch_client_destroy", rc);
    }
    s.e.close();
    if (s.rep)
        (void)doca_dev_rep_close(s.rep);
    if (s.dev) {
        const doca_error_t rc = doca_dev_close(s.dev);
        if (rc != DOCA_SUCCESS)
            fail_rc("doca_dev_close", rc);
    }
    g_side = nullptr;
}

// ---- the DPU side ----

struct dpu_run {
    const options &o;
    comch_side s;
    dma_copier dma;
    page_buffer mem;
    doca_mmap *remote = nullptr;
    direction dir = direction::none;
    uint64_t size = 0;

    explicit dpu_run(const options &opts) : o(opts) {}

    // Our line (if it is the first failure), and the host is told why we stop (best effort).
    void refuse(doca_error_t rc, const std::string &why)
    {
        fail(why);
        if (!s.conn || s.disconnected)
            return;
        const std::string text = why.substr(0, k_max_reason);
        std::vector<uint8_t> m = make_msg(msg_status, uint32_t(rc), 0, text.size());
        std::memcpy(m.data() + k_hdr, text.data(), text.size());
        (void)send_msg(s, std::move(m));
    }

    bool negotiate()
    {
        std::vector<uint8_t> m;
        if (!next_msg(s, "the host's direction message", m))
            return false;
        if (get32(m, 0) != msg_direction || m.size() != k_hdr || get32(m, 4) > 1) {
            refuse(DOCA_ERROR_INVALID_VALUE, std::string("expected the direction message, got a ") +
                                                 msg_name(get32(m, 0)) + " message of " +
                                                 std::to_string(m.size()) + " bytes");
            return false;
        }
        const bool on_host = get32(m, 4) == 1;
        dir = on_host ? direction::host_to_dpu : direction::dpu_to_host;
        if (o.dir != direction::none && o.dir != dir) {
            refuse(DOCA_ERROR_INVALID_VALUE, std::string("the host asked for ") + dir_name(dir) +
                                                 ", this side was started for " + dir_name(o.dir));
            return false;
        }
        std::string why;
        if (on_host) {
            size = get64(m, 8);
            if (o.out.empty()) {
                refuse(DOCA_ERROR_INVALID_VALUE, "host-to-dpu needs --out on the DPU side");
                return false;
            }
            if (size == 0 || size > k_max_file) {
                refuse(DOCA_ERROR_INVALID_VALUE,
                       "the host's file size " + std::to_string(size) + " is not 1 byte to 1 GiB");
                return false;
            }
            if (!mem.alloc(size_t(size))) {
                refuse(DOCA_ERROR_NO_MEMORY,
                       "out of memory for " + std::to_string(size) + " bytes");
                return false;
            }
        } else {
            if (get64(m, 8) != 0) {
                refuse(DOCA_ERROR_INVALID_VALUE, "a direction message for dpu-to-host with a size");
                return false;
            }
            if (o.in.empty()) {
                refuse(DOCA_ERROR_INVALID_VALUE, "dpu-to-host needs --in on the DPU side");
                return false;
            }
            if (!read_file(o.in, mem, why)) {
                refuse(DOCA_ERROR_IO_FAILED, why);
                return false;
            }
            size = mem.len;
        }
        if (!dma.setup(s.dev, s.e, mem.data, mem.len)) {
            refuse(DOCA_ERROR_INITIALIZATION, "the DMA context could not be set up");
            return false;
        }
        return send_msg(s, make_msg(msg_ready, 0, size));
    }

    bool import()
    {
        std::vector<uint8_t> m;
        if (!next_msg(s, "the host's export message", m))
            return false;
        if (get32(m, 0) != msg_export || m.size() < k_export_hdr) {
            refuse(DOCA_ERROR_INVALID_VALUE, std::string("expected the export message, got a ") +
                                                 msg_name(get32(m, 0)) + " message of " +
                                                 std::to_string(m.size()) + " bytes");
            return false;
        }
        const uint32_t desc_len = get32(m, 4);
        const uint64_t addr = get64(m, 8), len = get64(m, 16);
        if (desc_len == 0 || desc_len > k_max_desc || m.size() != k_export_hdr + desc_len) {
            refuse(DOCA_ERROR_INVALID_VALUE, "an export message of " + std::to_string(m.size()) +
                                                 " bytes announcing a descriptor of " +
                                                 std::to_string(desc_len));
            return false;
        }
        if (len != size || addr == 0 || addr > UINTPTR_MAX - len) {
            refuse(DOCA_ERROR_INVALID_VALUE, "the export names " + std::to_string(len) +
                                                 " bytes (" + std::to_string(size) +
                                                 " agreed) at an invalid address");
            return false;
        }
        const std::vector<uint8_t> desc(m.begin() + k_export_hdr, m.end());
        std::string why;
        if (const doca_error_t rc = import_export(s.dev, desc, addr, len, &remote, why);
            rc != DOCA_SUCCESS) {
            refuse(rc, why);
            return false;
        }
        const bool to_host = dir == direction::dpu_to_host;
        if (!dma.copy(s.e, remote, reinterpret_cast<uint8_t *>(uintptr_t(addr)), to_host)) {
            refuse(dma.error, "the DMA copy failed: " + dma.reason);
            return false;
        }
        return true;
    }

    int run(int ready_fd)
    {
        g_who = "dpu";
        s.e.timeout_s = o.timeout_s;
        bool ok = common_setup(s, k_dpu_pci, o.timeout_s);
        if (ok) {
            s.rep = sc_prog::open_rep(s.dev, k_host_pci);
            if (!s.rep) {
                fail(std::string("no representor of ") + k_host_pci + " on " + k_dpu_pci);
                ok = false;
            }
        }
        doca_error_t rc = DOCA_SUCCESS;
        const char *step = nullptr;
        if (ok) {
            if ((rc = doca_comch_server_create(s.dev, s.rep, o.name.c_str(), &s.srv)) !=
                DOCA_SUCCESS)
                step = "doca_comch_server_create";
            else if (!(s.ctx = doca_comch_server_as_ctx(s.srv)) ||
                     (rc = doca_pe_connect_ctx(s.e.pe, s.ctx)) != DOCA_SUCCESS)
                step = "doca_pe_connect_ctx (server)";
            else if ((rc = doca_comch_server_task_send_set_conf(s.srv, on_send_done, on_send_fail,
                                                                8)) != DOCA_SUCCESS)
                step = "doca_comch_server_task_send_set_conf";
            else if ((rc = doca_comch_server_event_msg_recv_register(s.srv, on_recv)) !=
                     DOCA_SUCCESS)
                step = "doca_comch_server_event_msg_recv_register";
            else if ((rc = doca_comch_server_event_connection_status_changed_register(
                          s.srv, on_connect, on_disconnect)) != DOCA_SUCCESS)
                step = "doca_comch_server_event_connection_status_changed_register";
            else if ((rc = doca_ctx_start(s.ctx)) != DOCA_SUCCESS)
                step = "doca_ctx_start (server)";
            if (step) {
                fail_rc(step, rc);
                ok = false;
            }
        }
        if (ok && ready_fd >= 0) {
            const char one = 1;
            ok = ::write(ready_fd, &one, 1) == 1;
        }
        if (ready_fd >= 0)
            ::close(ready_fd);
        ok = ok &&
             s.e.wait_until([&] { return s.conn != nullptr || g_failed; }, "the host to connect") &&
             !g_failed;
        ok = ok && negotiate() && import();
        // DOCA's order: the DMA context stops, then the imported map goes.
        dma.teardown(s.e);
        if (remote) {
            rc = doca_mmap_destroy(remote);
            if (rc != DOCA_SUCCESS)
                refuse(rc, "doca_mmap_destroy (imported): " + std::string(doca_error_get_name(rc)));
        }
        remote = nullptr;
        std::string why;
        if (ok && !g_failed && dir == direction::host_to_dpu &&
            !write_file(o.out, mem.data, mem.len, why))
            refuse(DOCA_ERROR_IO_FAILED, why);
        if (ok && !g_failed)
            ok = send_msg(s, make_msg(msg_status, 0, dma.bytes));
        comch_teardown(s);
        if (!ok || g_failed)
            return 1;
        std::printf("dpu: copied %llu bytes %s in %llu tasks, ok\n", (unsigned long long)dma.bytes,
                    dir_name(dir), (unsigned long long)dma.completed);
        std::fflush(stdout);
        return 0;
    }
};

// ---- the host side ----

// `mem` holds the file already when the file is on the host and main read it before the fork.
int run_host(const options &o, page_buffer &mem)
{
    g_who = "host";
    const bool on_host = o.dir == direction::host_to_dpu;
    std::string why;
    if (on_host && !mem.data && !read_file(o.in, mem, why)) {
        fail(why);
        return 1;
    }
    comch_side s;
    host_export ex;
    bool ok = common_setup(s, k_host_pci, o.timeout_s);
    doca_error_t rc = DOCA_SUCCESS;
    const char *step = nullptr;
    if (ok) {
        if ((rc = doca_comch_client_create(s.dev, o.name.c_str(), &s.cli)) != DOCA_SUCCESS)
            step = "doca_comch_client_create";
        else if (!(s.ctx = doca_comch_client_as_ctx(s.cli)) ||
                 (rc = doca_pe_connect_ctx(s.e.pe, s.ctx)) != DOCA_SUCCESS)
            step = "doca_pe_connect_ctx (client)";
        else if ((rc = doca_comch_client_task_send_set_conf(s.cli, on_send_done, on_send_fail,
                                                            8)) != DOCA_SUCCESS)
            step = "doca_comch_client_task_send_set_conf";
        else if ((rc = doca_comch_client_event_msg_recv_register(s.cli, on_recv)) != DOCA_SUCCESS)
            step = "doca_comch_client_event_msg_recv_register";
        else if ((rc = doca_ctx_start(s.ctx)) != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
            step = "doca_ctx_start (client)";
        if (step) {
            fail_rc(step, rc);
            ok = false;
        }
    }
    ok = ok && s.e.wait_state(s.ctx, DOCA_CTX_STATE_RUNNING, "the DPU side to accept the client");
    if (ok && (rc = doca_comch_client_get_connection(s.cli, &s.conn)) != DOCA_SUCCESS) {
        fail_rc("doca_comch_client_get_connection", rc);
        ok = false;
    }
    // Which way, and the size when the file is here.
    ok = ok && send_msg(s, make_msg(msg_direction, on_host ? 1 : 0, on_host ? mem.len : 0));
    std::vector<uint8_t> m;
    const auto peer_error = [&](const std::vector<uint8_t> &msg) {
        if (get32(msg, 0) != msg_status)
            return false;
        std::string text(msg.begin() + k_hdr, msg.end());
        if (text.size() > k_max_reason)
            text.resize(k_max_reason);
        for (char &c : text)
            if (c < 0x20 || c > 0x7e)
                c = '?';
        // A code from the wire: only a known one becomes a doca_error_t.
        const uint32_t code = get32(msg, 4);
        const doca_error_t rc_peer = code >= DOCA_ERROR_UNKNOWN && code <= DOCA_ERROR_SKIPPED
                                         ? doca_error_t(code)
                                         : DOCA_ERROR_UNKNOWN;
        fail("the DPU side failed: " + (text.empty() ? std::string("no reason given") : text) +
             " (" + doca_error_get_name(rc_peer) + ")");
        return true;
    };
    uint64_t size = 0;
    if (ok && (ok = next_msg(s, "the DPU side's answer to the direction message", m))) {
        if (peer_error(m)) {
            ok = false;
        } else if (get32(m, 0) != msg_ready || m.size() != k_hdr) {
            fail(std::string("expected the ready message, got a ") + msg_name(get32(m, 0)) +
                 " message of " + std::to_string(m.size()) + " bytes");
            ok = false;
        } else {
            size = get64(m, 8);
            if (on_host ? size != mem.len : (size == 0 || size > k_max_file)) {
                fail("the DPU side agreed to " + std::to_string(size) + " bytes");
                ok = false;
            } else if (!on_host && !mem.alloc(size_t(size))) {
                fail("out of memory for " + std::to_string(size) + " bytes");
                ok = false;
            }
        }
    }
    // The export, in one message: descriptor, address, length.
    ok =
        ok && ex.create(s.dev, mem.data, mem.len,
                        on_host ? DOCA_ACCESS_FLAG_PCI_READ_ONLY : DOCA_ACCESS_FLAG_PCI_READ_WRITE);
    if (ok) {
        std::vector<uint8_t> e =
            make_msg(msg_export, uint32_t(ex.desc.size()),
                     uint64_t(reinterpret_cast<uintptr_t>(mem.data)), 8 + ex.desc.size());
        put64(e, 16, mem.len);
        std::memcpy(e.data() + k_export_hdr, ex.desc.data(), ex.desc.size());
        ok = send_msg(s, std::move(e));
    }
    uint64_t copied = 0;
    if (ok && (ok = next_msg(s, "the DPU side's status after the copy", m))) {
        if (get32(m, 0) != msg_status) {
            fail(std::string("expected the status message, got a ") + msg_name(get32(m, 0)) +
                 " message");
            ok = false;
        } else if (get32(m, 4) != 0) {
            peer_error(m);
            ok = false;
        } else if (m.size() != k_hdr || (copied = get64(m, 8)) != mem.len) {
            fail("the DPU side reported " + std::to_string(get64(m, 8)) + " bytes copied of " +
                 std::to_string(mem.len));
            ok = false;
        }
    }
    if (ok && !on_host && !write_file(o.out, mem.data, mem.len, why)) {
        fail(why);
        ok = false;
    }
    ex.destroy();
    comch_teardown(s);
    if (!ok || g_failed)
        return 1;
    std::printf("host: %s %llu bytes %s (%s export), ok\n", on_host ? "sent" : "received",
                (unsigned long long)copied, dir_name(o.dir), on_host ? "read-only" : "read-write");
    std::fflush(stdout);
    return 0;
}

// ---- the file-carried export (dma_copy_host / dma_copy_dpu) ----

// The file: "SCDMAEX1", u64 descriptor length, u64 address, u64 length (big-endian), descriptor.
constexpr char k_magic[8] = {'S', 'C', 'D', 'M', 'A', 'E', 'X', '1'};
constexpr size_t k_file_hdr = 32;

int run_export(const options &o)
{
    g_who = "export";
    page_buffer mem;
    std::string why;
    if (!read_file(o.in, mem, why)) {
        fail(why);
        return 1;
    }
    doca_dev *dev = sc_prog::open_dev(k_host_pci);
    if (!dev) {
        fail(std::string("no device ") + k_host_pci);
        return 1;
    }
    host_export ex;
    bool ok = ex.create(dev, mem.data, mem.len, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
    if (ok) {
        std::vector<uint8_t> f(k_file_hdr + ex.desc.size());
        std::memcpy(f.data(), k_magic, 8);
        put64(f, 8, ex.desc.size());
        put64(f, 16, uint64_t(reinterpret_cast<uintptr_t>(mem.data)));
        put64(f, 24, mem.len);
        std::memcpy(f.data() + k_file_hdr, ex.desc.data(), ex.desc.size());
        const std::string tmp = o.desc_file + ".tmp";
        if (!write_file(tmp, f.data(), f.size(), why)) {
            fail(why);
            ok = false;
        } else if (::rename(tmp.c_str(), o.desc_file.c_str()) != 0) {
            fail(errno_text("cannot rename " + tmp + " to", o.desc_file));
            ok = false;
        }
    }
    if (ok) {
        std::printf("exported %zu bytes\n", mem.len);
        std::fflush(stdout);
        // dma_copy_host's getchar(): nothing is progressed while the other side copies.
        for (;;) {
            pollfd p{STDIN_FILENO, POLLIN, 0};
            const int n = ::poll(&p, 1, o.timeout_s * 1000);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                fail(n == 0 ? "stdin was not closed within " + std::to_string(o.timeout_s) + " s"
                            : errno_text("cannot poll", "stdin"));
                ok = false;
                break;
            }
            char b[256];
            const ssize_t got = ::read(STDIN_FILENO, b, sizeof b);
            if (got == 0)
                break;
            if (got < 0 && errno != EINTR && errno != EAGAIN) {
                fail(errno_text("cannot read", "stdin"));
                ok = false;
                break;
            }
        }
    }
    ex.destroy();
    const doca_error_t rc = doca_dev_close(dev);
    if (rc != DOCA_SUCCESS)
        fail_rc("doca_dev_close", rc);
    return ok && !g_failed ? 0 : 1;
}

int run_import(const options &o)
{
    g_who = "import";
    page_buffer file;
    std::string why;
    if (!read_file(o.desc_file, file, why)) {
        fail(why);
        return 1;
    }
    std::vector<uint8_t> f(file.data, file.data + file.len);
    const uint64_t desc_len = f.size() >= k_file_hdr ? get64(f, 8) : 0;
    const uint64_t addr = f.size() >= k_file_hdr ? get64(f, 16) : 0;
    const uint64_t len = f.size() >= k_file_hdr ? get64(f, 24) : 0;
    if (f.size() < k_file_hdr || std::memcmp(f.data(), k_magic, 8) != 0 || desc_len == 0 ||
        desc_len > k_max_desc || f.size() != k_file_hdr + desc_len || len == 0 ||
        len > k_max_file || addr == 0 || addr > UINTPTR_MAX - len) {
        fail(o.desc_file + ": not a descriptor file of this program (or a damaged one)");
        return 1;
    }
    const std::vector<uint8_t> desc(f.begin() + k_file_hdr, f.end());
    comch_side s; // its engine and device only
    page_buffer mem;
    dma_copier dma;
    doca_mmap *remote = nullptr;
    bool ok = common_setup(s, k_dpu_pci, o.timeout_s);
    if (ok && !mem.alloc(size_t(len))) {
        fail("out of memory for " + std::to_string(len) + " bytes");
        ok = false;
    }
    if (ok) {
        if (const doca_error_t rc = import_export(s.dev, desc, addr, len, &remote, why);
            rc != DOCA_SUCCESS) {
            fail(why);
            ok = false;
        }
    }
    ok = ok && dma.setup(s.dev, s.e, mem.data, mem.len);
    if (ok && !dma.copy(s.e, remote, reinterpret_cast<uint8_t *>(uintptr_t(addr)), false)) {
        fail("the DMA copy failed: " + dma.reason);
        ok = false;
    }
    dma.teardown(s.e);
    if (remote) {
        const doca_error_t rc = doca_mmap_destroy(remote);
        if (rc != DOCA_SUCCESS)
            fail_rc("doca_mmap_destroy (imported)", rc);
    }
    if (ok && !write_file(o.out, mem.data, mem.len, why)) {
        fail(why);
        ok = false;
    }
    comch_teardown(s);
    if (!ok || g_failed)
        return 1;
    std::printf("imported %zu bytes, ok\n", mem.len);
    std::fflush(stdout);
    return 0;
}

[[noreturn]] void usage(const char *why)
{
    std::fprintf(stderr,
                 "comch_dma_copy: %s\n"
                 "usage: comch_dma_copy --direction host-to-dpu|dpu-to-host --in FILE --out FILE "
                 "[--role both|dpu|host] [--name NAME] [--timeout SECONDS]\n"
                 "       comch_dma_copy --role export --desc-file PATH --in FILE [--timeout S]\n"
                 "       comch_dma_copy --role import --desc-file PATH --out FILE [--timeout S]\n",
                 why);
    std::exit(2);
}

options parse(int argc, char **argv)
{
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc)
            usage(("a value is missing after " + a).c_str());
        const std::string v = argv[++i];
        if (a == "--direction") {
            if (v == "host-to-dpu")
                o.dir = direction::host_to_dpu;
            else if (v == "dpu-to-host")
                o.dir = direction::dpu_to_host;
            else
                usage("--direction is host-to-dpu or dpu-to-host");
        } else if (a == "--in") {
            o.in = v;
        } else if (a == "--out") {
            o.out = v;
        } else if (a == "--role") {
            o.role = v;
        } else if (a == "--name") {
            o.name = v;
        } else if (a == "--desc-file") {
            o.desc_file = v;
        } else if (a == "--timeout") {
            char *end = nullptr;
            const long t = std::strtol(v.c_str(), &end, 10);
            if (*end != '\0' || t <= 0 || t > 86400)
                usage("--timeout is 1 to 86400 seconds");
            o.timeout_s = int(t);
        } else {
            usage(("unknown option " + a).c_str());
        }
    }
    if (o.name.empty())
        usage("--name is empty");
    if (o.role == "export" || o.role == "import") {
        if (o.desc_file.empty())
            usage("--desc-file is required");
        if (o.role == "export" ? o.in.empty() : o.out.empty())
            usage(o.role == "export" ? "--in is required" : "--out is required");
    } else if (o.role == "both" || o.role == "host") {
        if (o.dir == direction::none)
            usage("--direction is required");
        if (o.role == "both" && (o.in.empty() || o.out.empty()))
            usage("--in and --out are required");
        if (o.role == "host" && (o.dir == direction::host_to_dpu ? o.in.empty() : o.out.empty()))
            usage(o.dir == direction::host_to_dpu ? "--in is required" : "--out is required");
    } else if (o.role == "dpu") {
        if (o.in.empty() && o.out.empty())
            usage("--in or --out is required");
    } else {
        usage("--role is both, dpu, host, export or import");
    }
    return o;
}

} // namespace

int main(int argc, char **argv)
{
    const options o = parse(argc, argv);
    // SDK warnings and errors on stderr, as NVIDIA's applications set it up.
    doca_log_backend *sdk = nullptr;
    if (doca_log_backend_create_with_file_sdk(stderr, &sdk) == DOCA_SUCCESS)
        doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING);
    if (o.role == "export")
        return run_export(o);
    if (o.role == "import")
        return run_import(o);
    sc_prog::use_private_fabric("comch-dma-copy");
    if (o.role == "dpu") {
        dpu_run d(o);
        return d.run(-1);
    }
    page_buffer host_file;
    if (o.role == "host")
        return run_host(o, host_file);
    // both: the host's file is read first (a missing one must not leave the DPU side waiting),
    // then the DPU side listens before the host side starts.
    std::string why;
    if (o.dir == direction::host_to_dpu && !read_file(o.in, host_file, why)) {
        g_who = "host";
        fail(why);
        return 1;
    }
    int report_fd = -1;
    const pid_t dpu = sc_prog::fork_server(
        [&](int ready, int report) {
            ::close(report);
            dpu_run d(o);
            return d.run(ready);
        },
        &report_fd);
    if (dpu < 0) {
        std::fprintf(stderr, "comch_dma_copy: the DPU side did not start\n");
        return 1;
    }
    const int host_rc = run_host(o, host_file);
    int status = 0;
    while (waitpid(dpu, &status, 0) < 0 && errno == EINTR) {
    }
    ::close(report_fd);
    return host_rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
