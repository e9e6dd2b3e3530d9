// SPDX-License-Identifier: Apache-2.0
//
// Fast-path throughput through the public API, next to baselines measured in the same run:
// single-core memcpy of the same size and process_vm_writev into another process.
//
// The DPU side (a forked process pinned to CPU 1) runs a server and a consumer that keeps
// `depth` receive buffers posted, re-posting each from its completion callback. The host side
// (this process, CPU 0) runs a client and a producer that streams `count` payloads of each size
// to that consumer. Throughput = bytes delivered / time from the first send to the consumer's
// "done" message on the control path.
//
// Every payload size runs in two regimes, because which copy is fastest depends on the memory
// the stream rotates through (docs/performance.md, "copy policy"):
//   resident  the consumer posts 8 MiB of buffers (at least 2, at most 16): the stream's working
//             set fits in the cache, like the memcpy baseline (one source, one destination).
//   rotating  the consumer posts 64 MiB of buffers (sizes from 64 KiB on): the working set does
//             not fit; the memcpy and process_vm_writev baselines rotate through the same 64 MiB
//             of destinations.
// Each figure is the median of `reps` runs (default 5), the three kinds interleaved: the
// project machine's vCPUs drift by 10-20% between seconds, and both sides of a ratio drift alike.
//
// Output: `name,regime,payload_bytes,posted_buffers,GB_per_s,ratio_vs_memcpy,ratio_vs_pvw`.
// Usage: comch_fastpath [total MiB per size and run (default 1024)] [reps (default 5)]
//                       [payload bytes ... (default 4096 65536 1048576 4194304)]
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_doca.hpp"
#include "bench_util.hpp"

using namespace softcomch::bench;
using bench_clock = std::chrono::steady_clock;

namespace {

constexpr const char *k_name = "comch_fastpath_bench";

[[noreturn]] void die(const char *what, doca_error_t rc)
{
    softcomch::bench::die("comch_fastpath", what, rc);
}

void check(doca_error_t rc, const char *what)
{
    if (rc != DOCA_SUCCESS)
        die(what, rc);
}

doca_dev *open_dev(const char *pci)
{
    doca_dev *dev = softcomch::bench::open_dev(pci);
    if (!dev)
        die("open device", DOCA_ERROR_NOT_FOUND);
    return dev;
}

doca_dev_rep *open_rep(doca_dev *dev, const char *pci)
{
    doca_dev_rep *rep = softcomch::bench::open_rep(dev, pci);
    if (!rep)
        die("open representor", DOCA_ERROR_NOT_FOUND);
    return rep;
}

// Registered memory: an mmap over an aligned allocation and an inventory for its bufs.
struct region {
    void *mem = nullptr;
    size_t len = 0;
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    void init(doca_dev *dev, size_t bytes, size_t nbufs)
    {
        len = (bytes + 4095) & ~size_t(4095);
        mem = std::aligned_alloc(4096, len);
        std::memset(mem, 0x5a, len); // fault the pages in before measuring
        check(doca_mmap_create(&mmap), "mmap create");
        check(doca_mmap_add_dev(mmap, dev), "mmap add dev");
        check(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE), "mmap permissions");
        check(doca_mmap_set_memrange(mmap, mem, len), "mmap memrange");
        check(doca_mmap_start(mmap), "mmap start");
        check(doca_buf_inventory_create(nbufs, &inv), "inventory create");
        check(doca_buf_inventory_start(inv), "inventory start");
    }
};

// ---- DPU side: server + consumer ----

struct dpu_state {
    doca_pe *pe = nullptr;
    doca_pe *cpe = nullptr;
    doca_comch_server *server = nullptr;
    doca_comch_connection *conn = nullptr;
    doca_comch_consumer *consumer = nullptr;
    uint64_t expected = 0, received = 0;
    bool quit = false;
} dpu;

void dpu_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void recv_done(doca_comch_consumer_task_post_recv *task, union doca_data, union doca_data)
{
    ++dpu.received;
    doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
    doca_buf_reset_data_len(buf);
    if (dpu.received < dpu.expected) {
        check(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)), "repost");
    } else {
        // Not needed any more: a context reaches IDLE only once all its tasks are freed.
        doca_buf_dec_refcount(buf, nullptr);
        doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
    }
    if (dpu.received == dpu.expected) {
        doca_comch_task_send *t = nullptr;
        check(doca_comch_server_task_send_alloc_init(dpu.server, dpu.conn, "done", 4, &t),
              "done alloc");
        check(doca_task_submit(doca_comch_task_send_as_task(t)), "done submit");
    }
}

void recv_error(doca_comch_consumer_task_post_recv *task, union doca_data, union doca_data)
{
    doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
    doca_buf_dec_refcount(buf, nullptr);
    doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

int run_dpu(size_t payload, uint64_t count, uint32_t depth)
{
    doca_dev *dev = open_dev("03:00.0");
    doca_dev_rep *rep = open_rep(dev, "b1:00.0");
    check(doca_pe_create(&dpu.pe), "pe");
    check(doca_pe_create(&dpu.cpe), "consumer pe");
    check(doca_comch_server_create(dev, rep, k_name, &dpu.server), "server create");
    doca_ctx *ctx = doca_comch_server_as_ctx(dpu.server);
    check(doca_pe_connect_ctx(dpu.pe, ctx), "connect");
    check(doca_comch_server_task_send_set_conf(dpu.server, dpu_send_done, dpu_send_done, 16),
          "send conf");
    check(doca_comch_server_event_msg_recv_register(
              dpu.server, [](doca_comch_event_msg_recv *, uint8_t *, uint32_t,
                             doca_comch_connection *) { dpu.quit = true; }),
          "recv register");
    check(doca_comch_server_event_connection_status_changed_register(
              dpu.server,
              [](doca_comch_event_connection_status_changed *, doca_comch_connection *c, uint8_t) {
                  dpu.conn = c;
              },
              [](doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t) {
                  dpu.quit = true;
              }),
          "connection register");
    check(doca_ctx_start(ctx), "server start");
    while (!dpu.conn)
        doca_pe_progress(dpu.pe);

    region r;
    r.init(dev, payload * depth, depth);
    check(doca_comch_consumer_create(dpu.conn, r.mmap, &dpu.consumer), "consumer create");
    doca_ctx *cctx = doca_comch_consumer_as_ctx(dpu.consumer);
    check(doca_pe_connect_ctx(dpu.cpe, cctx), "consumer connect");
    check(doca_comch_consumer_task_post_recv_set_conf(dpu.consumer, recv_done, recv_error, depth),
          "recv conf");
    dpu.expected = count;
    if (doca_ctx_start(cctx) != DOCA_ERROR_IN_PROGRESS)
        die("consumer start", DOCA_ERROR_UNEXPECTED);
    doca_ctx_states st = DOCA_CTX_STATE_STARTING;
    while (st != DOCA_CTX_STATE_RUNNING) {
        doca_pe_progress(dpu.pe);
        doca_pe_progress(dpu.cpe);
        doca_ctx_get_state(cctx, &st);
    }
    for (uint32_t i = 0; i < depth; ++i) {
        doca_buf *buf = nullptr;
        check(doca_buf_inventory_buf_get_by_addr(
                  r.inv, r.mmap, static_cast<char *>(r.mem) + i * payload, payload, &buf),
              "buf");
        doca_comch_consumer_task_post_recv *t = nullptr;
        check(doca_comch_consumer_task_post_recv_alloc_init(dpu.consumer, buf, &t), "recv alloc");
        check(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)), "recv submit");
    }
    while (!dpu.quit) {
        doca_pe_progress(dpu.cpe);
        doca_pe_progress(dpu.pe);
    }
    // Teardown: the consumer flushes its posted receives, then everything goes IDLE.
    doca_ctx_stop(cctx);
    do {
        doca_pe_progress(dpu.cpe);
        doca_ctx_get_state(cctx, &st);
    } while (st != DOCA_CTX_STATE_IDLE);
    doca_comch_consumer_destroy(dpu.consumer);
    doca_ctx_stop(ctx);
    do {
        doca_pe_progress(dpu.pe);
        doca_ctx_get_state(ctx, &st);
    } while (st != DOCA_CTX_STATE_IDLE);
    return 0;
}

// ---- host side: client + producer ----

struct host_state {
    doca_pe *pe = nullptr;
    doca_pe *ppe = nullptr;
    doca_comch_client *client = nullptr;
    uint32_t consumer_id = 0;
    bool done = false;
    uint64_t completed = 0;
} host;

void host_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void produced(doca_comch_producer_task_send *t, union doca_data, union doca_data)
{
    ++host.completed;
    doca_task_free(doca_comch_producer_task_send_as_task(t));
}

double run_host(size_t payload, uint64_t count)
{
    doca_dev *dev = open_dev("b1:00.0");
    check(doca_pe_create(&host.pe), "pe");
    check(doca_pe_create(&host.ppe), "producer pe");
    check(doca_comch_client_create(dev, k_name, &host.client), "client create");
    doca_ctx *ctx = doca_comch_client_as_ctx(host.client);
    check(doca_pe_connect_ctx(host.pe, ctx), "connect");
    check(doca_comch_client_task_send_set_conf(host.client, host_send_done, host_send_done, 16),
          "send conf");
    check(doca_comch_client_event_msg_recv_register(
              host.client, [](doca_comch_event_msg_recv *, uint8_t *, uint32_t,
                              doca_comch_connection *) { host.done = true; }),
          "recv register");
    check(doca_comch_client_event_consumer_register(
              host.client,
              [](doca_comch_event_consumer *, doca_comch_connection *, uint32_t id) {
                  host.consumer_id = id;
              },
              [](doca_comch_event_consumer *, doca_comch_connection *, uint32_t) {}),
          "consumer register");
    if (doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
        die("client start", DOCA_ERROR_UNEXPECTED);
    doca_ctx_states st = DOCA_CTX_STATE_STARTING;
    while (st != DOCA_CTX_STATE_RUNNING) {
        doca_pe_progress(host.pe);
        doca_ctx_get_state(ctx, &st);
    }
    doca_comch_connection *conn = nullptr;
    check(doca_comch_client_get_connection(host.client, &conn), "connection");
    while (!host.consumer_id)
        doca_pe_progress(host.pe);

    doca_comch_producer *producer = nullptr;
    check(doca_comch_producer_create(conn, &producer), "producer create");
    doca_ctx *pctx = doca_comch_producer_as_ctx(producer);
    check(doca_pe_connect_ctx(host.ppe, pctx), "producer connect");
    check(doca_comch_producer_task_send_set_conf(producer, produced, produced, 64),
          "producer conf");
    check(doca_ctx_start(pctx), "producer start");
    region r;
    r.init(dev, payload, 4);
    doca_buf *buf = nullptr;
    check(doca_buf_inventory_buf_get_by_data(r.inv, r.mmap, r.mem, payload, &buf), "source buf");

    auto t0 = bench_clock::now();
    for (uint64_t i = 0; i < count; ++i) {
        doca_comch_producer_task_send *t = nullptr;
        doca_error_t rc;
        while ((rc = doca_comch_producer_task_send_alloc_init(
                    producer, buf, nullptr, 0, host.consumer_id, &t)) == DOCA_ERROR_NO_MEMORY)
            doca_pe_progress(host.ppe);
        check(rc, "send alloc");
        while ((rc = doca_task_submit(doca_comch_producer_task_send_as_task(t))) ==
               DOCA_ERROR_AGAIN)
            doca_pe_progress(host.ppe); // every buffer is full: the consumer re-posts as it drains
        check(rc, "send submit");
    }
    while (!host.done) {
        doca_pe_progress(host.ppe);
        doca_pe_progress(host.pe);
    }
    double seconds = std::chrono::duration<double>(bench_clock::now() - t0).count();
    while (host.completed < count)
        doca_pe_progress(host.ppe);

    doca_ctx_stop(pctx);
    do {
        doca_pe_progress(host.ppe);
        doca_ctx_get_state(pctx, &st);
    } while (st != DOCA_CTX_STATE_IDLE);
    doca_comch_producer_destroy(producer);
    doca_buf_dec_refcount(buf, nullptr);
    doca_ctx_stop(ctx);
    do {
        doca_pe_progress(host.pe);
        doca_ctx_get_state(ctx, &st);
    } while (st != DOCA_CTX_STATE_IDLE);
    return double(payload) * double(count) / seconds / 1e9;
}

double measure_comch(size_t payload, uint64_t count, uint32_t depth)
{
    bool single = online_cpus() < 2;
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        pin_to_cpu(single ? 0 : 1);
        _exit(run_dpu(payload, count, depth));
    }
    pin_to_cpu(0);
    host = host_state{};
    double gbps = run_host(payload, count);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "comch_fastpath: DPU side failed\n");
        std::exit(1);
    }
    return gbps;
}

// ---- baselines ----

// One source, `depth` destinations of `payload` bytes each, copied round robin.
double measure_memcpy(size_t payload, uint64_t count, uint32_t depth)
{
    // Destinations offset by half a page from the source: when the two are a multiple of 4 KiB
    // apart, loads alias the preceding stores (4K aliasing) and memcpy runs ~10x slower, which
    // is not the machine's memcpy speed.
    std::vector<char> src(payload, 1), dst_storage(payload * depth + 4096, 0);
    char *dst0 = dst_storage.data() + ((reinterpret_cast<uintptr_t>(src.data()) + 2048 -
                                        reinterpret_cast<uintptr_t>(dst_storage.data())) &
                                       4095);
    for (uint32_t d = 0; d < depth; ++d)
        std::memcpy(dst0 + d * payload, src.data(), payload); // warm
    auto t0 = bench_clock::now();
    for (uint64_t i = 0; i < count; ++i) {
        char *dst = dst0 + (i % depth) * payload;
        // Compiler barriers: every copy really happens.
        asm volatile("" : : "r"(src.data()) : "memory");
        std::memcpy(dst, src.data(), payload);
        asm volatile("" : : "r"(dst) : "memory");
    }
    return double(payload) * double(count) /
           std::chrono::duration<double>(bench_clock::now() - t0).count() / 1e9;
}

double measure_pvw(size_t payload, uint64_t count, uint32_t depth)
{
    // A child with a buffer at the same address as ours (fork keeps the layout): we write into it.
    std::vector<char> dst(payload * depth, 0), src(payload, 1);
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        [[maybe_unused]] ssize_t r = read(pipefd[0], &c, 1); // wait until the parent is done
        _exit(0);
    }
    iovec local{src.data(), payload};
    for (uint32_t d = 0; d < depth; ++d) { // warm (and fault in) every destination
        iovec remote{dst.data() + d * payload, payload};
        process_vm_writev(pid, &local, 1, &remote, 1, 0);
    }
    auto t0 = bench_clock::now();
    for (uint64_t i = 0; i < count; ++i) {
        iovec remote{dst.data() + (i % depth) * payload, payload};
        if (process_vm_writev(pid, &local, 1, &remote, 1, 0) != ssize_t(payload))
            break;
    }
    double s = std::chrono::duration<double>(bench_clock::now() - t0).count();
    [[maybe_unused]] ssize_t w = write(pipefd[1], "x", 1);
    waitpid(pid, nullptr, 0);
    close(pipefd[0]);
    close(pipefd[1]);
    return double(payload) * double(count) / s / 1e9;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    const double total_mib = argc > 1 ? std::strtod(argv[1], nullptr) : 1024;
    const long reps_arg = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 5;
    const int reps = reps_arg >= 1 && reps_arg <= 99 ? int(reps_arg) : 5;
    std::string fabric = "bench-fastpath-" + std::to_string(getpid());
    setenv("SOFTCOMCH_FABRIC", fabric.c_str(), 1);
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");

    print_context("comch_fastpath");
    const char *copy = std::getenv("SOFTCOMCH_COPY");
    std::printf("# SOFTCOMCH_COPY=%s; median of %d runs per figure\n",
                copy && *copy ? copy : "auto", reps);
    std::printf(
        "# name,regime,payload_bytes,posted_buffers,GB_per_s,ratio_vs_memcpy,ratio_vs_pvw\n");
    constexpr size_t k_resident_bytes = size_t(8) << 20, k_rotating_bytes = size_t(64) << 20;
    std::vector<size_t> payloads;
    for (int i = 3; i < argc; ++i)
        if (const size_t p = std::strtoull(argv[i], nullptr, 0); p > 0 && p <= (size_t(64) << 20))
            payloads.push_back(p);
    if (payloads.empty())
        payloads = {size_t(4) << 10, size_t(64) << 10, size_t(1) << 20, size_t(4) << 20};
    for (size_t payload : payloads) {
        for (bool rotating : {false, true}) {
            if (rotating && payload < (size_t(64) << 10))
                continue; // 64 MiB of 4 KiB buffers is more tasks than a consumer may post
            const uint32_t depth =
                rotating ? uint32_t(k_rotating_bytes / payload)
                         : uint32_t(std::clamp<size_t>(k_resident_bytes / payload, 2, 16));
            uint64_t count = uint64_t(total_mib * 1048576.0 / double(payload));
            count = std::max<uint64_t>(count, 4 * depth);
            std::vector<double> mc, pvw, comch;
            for (int r = 0; r < reps; ++r) {
                mc.push_back(measure_memcpy(payload, count, rotating ? depth : 1));
                pvw.push_back(measure_pvw(payload, count, rotating ? depth : 1));
                comch.push_back(measure_comch(payload, count, depth));
            }
            const double m = median(mc), p = median(pvw), c = median(comch);
            const char *regime = rotating ? "rotating" : "resident";
            const uint32_t base_depth = rotating ? depth : 1;
            std::printf("memcpy,%s,%zu,%u,%.2f,1.00,%.2f\n", regime, payload, base_depth, m, m / p);
            std::printf("process_vm_writev,%s,%zu,%u,%.2f,%.2f,1.00\n", regime, payload, base_depth,
                        p, p / m);
            std::printf("comch_fastpath,%s,%zu,%u,%.2f,%.2f,%.2f\n", regime, payload, depth, c,
                        c / m, c / p);
            std::fflush(stdout);
        }
    }
    std::printf("# load average %.2f at end\n", load_average());
    return 0;
}
