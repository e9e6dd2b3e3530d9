// SPDX-License-Identifier: Apache-2.0
//
// The fast path's one copy against its baselines, in the same run:
//   memcpy         single-core memcpy, source and destination cache hot (CPU 0)
//   memcpy_nt      the same with copy_streaming() (non-temporal stores + sfence)
//   fast_shared    two processes through the real fast path: this process is the consumer
//                  (CPU 1), a forked child the producer (CPU 0). The consumer exports `depth`
//                  receive buffers with share_range and posts them on a fast_channel; the
//                  producer claims, copies the payload straight into the peer-mapped buffer
//                  (copy_to_peer), completes; the consumer peeks, touches, releases, reposts.
//                  touch = ack: reads the first word; read: reads every cache line (the
//                  payload is consumed in place, its lines move to the consumer's core).
//   fast_shared_nt the same with non-temporal stores for the copy
//   fast_pvw       the same with the pvw mechanism (process_vm_writev into the consumer)
// Throughput is measured by the consumer over ~0.2 s after a warm-up, in GB/s (1e9 bytes).
//
// Output (CSV-ish):
//   <variant>,<bytes>,<depth>,<GB_per_s>
//   ratio,<what>,<value>
// Optional argument: a factor for the measuring time.
#include "bench_util.hpp"
#include "transport/shm/fast_channel.hpp"
#include "transport/shm/shared_memory.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace softcomch::bench;
using namespace softcomch::transport::shm;

namespace {

using clk = std::chrono::steady_clock;

double since(clk::time_point t0)
{
    return std::chrono::duration<double>(clk::now() - t0).count();
}

[[noreturn]] void die(const char *what, int err)
{
    std::fprintf(stderr, "fastpath_bench: %s failed (%d)\n", what, err);
    std::exit(1);
}

uint8_t *alloc_touched(size_t n, uint8_t v)
{
    auto *p = static_cast<uint8_t *>(std::aligned_alloc(4096, (n + 4095) & ~size_t(4095)));
    if (p == nullptr)
        die("aligned_alloc", 0);
    std::memset(p, v, n);
    return p;
}

// Keeps the compiler from treating repeated copies into `p` as dead stores.
inline void clobber(void *p)
{
    asm volatile("" : : "r"(p) : "memory");
}

// Single-core copy rate of `size` bytes between two cache-hot buffers.
double memcpy_gbps(size_t size, double dur, bool streaming)
{
    pin_to_cpu(0);
    uint8_t *src = alloc_touched(size, 1);
    uint8_t *dst = alloc_touched(size, 2);
    for (int i = 0; i < 16; ++i)
        std::memcpy(dst, src, size);
    const size_t batch = size >= (1u << 20) ? 4 : (1u << 20) / size;
    uint64_t bytes = 0;
    const auto t0 = clk::now();
    double t = 0;
    do {
        for (size_t i = 0; i < batch; ++i) {
            if (streaming)
                copy_streaming(dst, src, size);
            else
                std::memcpy(dst, src, size);
            clobber(dst);
        }
        bytes += batch * size;
        t = since(t0);
    } while (t < dur);
    std::free(src);
    std::free(dst);
    return double(bytes) / t / 1e9;
}

enum class copy_kind { shared_memcpy, shared_streaming, pvw };
enum class touch_kind { ack, read };

volatile uint64_t g_sink;

// Reads the buffer the way a consumer would.
void touch(const uint8_t *p, size_t n, touch_kind t)
{
    uint64_t s = 0;
    if (t == touch_kind::ack) {
        std::memcpy(&s, p, n < 8 ? n : 8);
    } else {
        for (size_t i = 0; i + 8 <= n; i += 64) {
            uint64_t w;
            std::memcpy(&w, p + i, 8);
            s += w;
        }
    }
    g_sink = s;
}

// Producer process: claims, copies `size` bytes into the claimed buffer, completes, until the
// consumer expires the channel.
int producer(int ch_fd, uint64_t ch_size, std::vector<exported_memory> &exps, size_t size,
             copy_kind ck)
{
    pin_to_cpu(0);
    fast_channel ch;
    if (fast_channel::attach(ch_fd, ch_size, ch) != DOCA_SUCCESS)
        return 10;
    fast_producer prod;
    if (prod.attach(ch) != DOCA_SUCCESS)
        return 11;
    std::vector<peer_mapping> views(exps.size());
    for (size_t i = 0; i < exps.size(); ++i) {
        const int fd = exps[i].range.valid() ? exps[i].range.fd.get() : -1;
        if (map_peer(fd, exps[i].desc, views[i]) != DOCA_SUCCESS)
            return 12;
    }
    uint8_t *src = alloc_touched(size, 0x5a);
    const bool single = online_cpus() < 2;
    for (;;) {
        post_entry e;
        const doca_error_t err = prod.try_claim(size, &e);
        if (err == DOCA_ERROR_NOT_CONNECTED)
            break;
        if (err != DOCA_SUCCESS) {
            spin_pause(single);
            continue;
        }
        // The task index is the buffer index (the consumer posts buffer i as task i).
        const peer_mapping &v = views[e.task % views.size()];
        doca_error_t cerr = DOCA_SUCCESS;
        if (ck == copy_kind::shared_streaming) {
            uint8_t *dst = v.translate(e.addr, size);
            if (dst == nullptr)
                cerr = DOCA_ERROR_INVALID_VALUE;
            else
                copy_streaming(dst, src, size);
        } else {
            cerr = copy_to_peer(v.target(), e.addr, src, size);
        }
        fast_completion c;
        c.task = e.task;
        c.status = uint32_t(cerr);
        c.len = cerr == DOCA_SUCCESS ? size : 0;
        c.producer_id = 1;
        bool wake;
        while (prod.complete(c, &wake) != DOCA_SUCCESS)
            spin_pause(single);
    }
    std::free(src);
    return 0;
}

// Consumer side (this process): GB/s delivered through the fast path.
double fast_gbps(size_t size, uint32_t depth, copy_kind ck, touch_kind tk, double dur)
{
    std::vector<uint8_t *> bufs(depth);
    std::vector<exported_memory> exps(depth);
    const memory_policy policy = ck == copy_kind::pvw ? memory_policy::pvw : memory_policy::shared;
    for (uint32_t i = 0; i < depth; ++i) {
        bufs[i] = alloc_touched(size, 0);
        const doca_error_t err = export_memory(bufs[i], size, policy, exps[i]);
        if (err != DOCA_SUCCESS)
            die("export_memory", err);
    }
    fast_channel ch;
    fast_channel_params cp;
    cp.num_tasks = depth;
    if (fast_channel::create(cp, ch) != DOCA_SUCCESS)
        die("fast_channel::create", 0);
    fast_consumer cons;
    if (cons.attach(ch) != DOCA_SUCCESS)
        die("fast_consumer::attach", 0);

    std::fflush(stdout);
    const pid_t child = fork();
    if (child < 0)
        die("fork", errno);
    if (child == 0)
        _exit(producer(ch.fd(), ch.size(), exps, size, ck));
    (void)allow_peer_access(child);
    pin_to_cpu(1);
    const bool single = online_cpus() < 2;

    for (uint32_t i = 0; i < depth; ++i) {
        if (cons.post(i, reinterpret_cast<uint64_t>(bufs[i]), size) != DOCA_SUCCESS)
            die("post", 0);
    }
    const double warmup = dur / 4;
    uint64_t bytes = 0;
    bool measuring = false;
    const auto t0 = clk::now();
    clk::time_point tm;
    double t = 0;
    for (;;) {
        const fast_completion *c = cons.peek();
        if (c == nullptr) {
            if (cons.corrupted())
                die("fast path (corrupted completion)", 0);
            spin_pause(single);
            continue;
        }
        if (c->status != 0 || c->len != size)
            die("fast path (bad completion)", int(c->status));
        const uint32_t task = c->task;
        touch(bufs[task], size, tk);
        cons.release();
        while (cons.post(task, reinterpret_cast<uint64_t>(bufs[task]), size) == DOCA_ERROR_AGAIN)
            spin_pause(single);
        if (measuring) {
            bytes += size;
            t = since(tm);
            if (t >= dur)
                break;
        } else if (since(t0) >= warmup) {
            measuring = true;
            tm = clk::now();
        }
    }
    // Stop the producer: expire, take back unclaimed buffers, drain the claimed ones.
    cons.expire();
    post_entry e;
    while (cons.revoke(&e)) {
    }
    const auto deadline = clk::now() + std::chrono::seconds(5);
    while (cons.outstanding() != 0 && clk::now() < deadline) {
        if (cons.peek() != nullptr)
            cons.release();
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("producer process", status);
    for (uint32_t i = 0; i < depth; ++i) {
        (void)unexport_memory(exps[i]);
        std::free(bufs[i]);
    }
    return double(bytes) / t / 1e9;
}

} // namespace

int main(int argc, char **argv)
{
    const double scale = argc > 1 ? std::strtod(argv[1], nullptr) : 1.0;
    const double dur = 0.2 * (scale > 0 ? scale : 1.0);
    print_context("fastpath_bench");
    std::printf("# copy rates in GB/s (1e9 B/s); fast_* = claim + one copy + complete, consumer "
                "peeks/touches/reposts; streaming threshold in copy_to_peer: %zu\n",
                k_streaming_threshold);
    std::printf("# name,bytes,depth,GB_per_s\n");
    const size_t sizes[] = {4096, 65536, 1u << 20, 4u << 20};
    const uint32_t depth = 4;
    struct row {
        double memcpy_hot, memcpy_nt, shared_ack, shared_read, shared_nt_read, pvw_read;
    };
    std::vector<row> rows;
    for (size_t s : sizes) {
        row r{};
        r.memcpy_hot = memcpy_gbps(s, dur, false);
        std::printf("memcpy,%zu,1,%.2f\n", s, r.memcpy_hot);
        r.memcpy_nt = memcpy_gbps(s, dur, true);
        std::printf("memcpy_nt,%zu,1,%.2f\n", s, r.memcpy_nt);
        r.shared_ack = fast_gbps(s, depth, copy_kind::shared_memcpy, touch_kind::ack, dur);
        std::printf("fast_shared_ack,%zu,%u,%.2f\n", s, depth, r.shared_ack);
        r.shared_read = fast_gbps(s, depth, copy_kind::shared_memcpy, touch_kind::read, dur);
        std::printf("fast_shared_read,%zu,%u,%.2f\n", s, depth, r.shared_read);
        r.shared_nt_read =
            fast_gbps(s, depth, copy_kind::shared_streaming, touch_kind::read, dur);
        std::printf("fast_shared_nt_read,%zu,%u,%.2f\n", s, depth, r.shared_nt_read);
        r.pvw_read = fast_gbps(s, depth, copy_kind::pvw, touch_kind::read, dur);
        std::printf("fast_pvw_read,%zu,%u,%.2f\n", s, depth, r.pvw_read);
        std::fflush(stdout);
        rows.push_back(r);
    }
    for (size_t i = 0; i < rows.size(); ++i) {
        const size_t s = sizes[i];
        const row &r = rows[i];
        std::printf("ratio,fast_shared_read_%zu/memcpy_%zu,%.2f\n", s, s,
                    r.shared_read / r.memcpy_hot);
        std::printf("ratio,fast_shared_ack_%zu/memcpy_%zu,%.2f\n", s, s,
                    r.shared_ack / r.memcpy_hot);
        std::printf("ratio,fast_shared_read_%zu/fast_pvw_read_%zu,%.2f\n", s, s,
                    r.shared_read / r.pvw_read);
        std::printf("ratio,fast_shared_nt_read_%zu/fast_shared_read_%zu,%.2f\n", s, s,
                    r.shared_nt_read / r.shared_read);
    }
    return 0;
}
