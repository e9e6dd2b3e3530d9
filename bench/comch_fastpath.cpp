// SPDX-License-Identifier: Apache-2.0
//
// Fast-path throughput through the public API, next to baselines measured in the same run:
// single-core memcpy of the same size and process_vm_writev into another process.
//
// The DPU side (a forked process pinned to CPU 1) runs a server and 1 or 4 consumers on one
// connection, each keeping receive buffers posted and re-posting each from its completion
// callback. The host side (this process, CPU 0) runs a client and as many producers, producer k
// streaming `count` payloads to consumer k, round robin over the pairs. Throughput = bytes
// delivered / time from the first send to the consumer side's "done" message on the control
// path.
//
// Working sets (which copy is fastest depends on the memory the stream goes through,
// docs/performance.md, "copy policy"):
//   resident  each consumer posts one buffer set of 8 MiB / pairs (2 .. 16 buffers; 1 .. 16 with
//             4 pairs; in event mode up to event_depth(), where the buffers in flight cover the
//             wake-ups), all producers send from one source buffer: it fits in the L3 (at 4 MiB
//             the set is 8 MiB with 1 pair, 16 MiB with 4, plus the source). The memcpy and
//             process_vm_writev baselines copy round robin into as many destinations as the
//             1-pair polled consumer posts (16 x 256 KiB, 8 x 1 MiB, ...): the same working set
//             (with one destination, a 256 KiB baseline ran from the L2 while the stream it was
//             compared with went through 4 MiB: 55 against 44 GB/s on 2026-12-02).
//   rotating  the consumers cycle through 64 MiB of buffers (a pool per consumer, 64 of them
//             posted at a time, event_depth() in event mode, each completed task re-armed with
//             the pool's next buffer,
//             doca_comch_consumer_task_post_recv_set_buf): twice the LLC; the memcpy and
//             process_vm_writev baselines rotate through 64 MiB of destinations.
// Progress:
//   polled    both sides spin on doca_pe_progress.
//   event     both sides sleep in epoll on the progress engines' notification handles
//             (doca_pe_request_notification, epoll_wait, doca_pe_clear_notification, progress
//             until idle: include/doca_pe.h); one receive is re-posted per completion. A
//             producer whose consumer has no buffer posted (DOCA_ERROR_AGAIN: nothing will
//             complete on its own engine) sleeps 10 us in nanosleep, as NVIDIA's producer
//             sample retries (/work/shared/spec/doca-api.md, the data-path sample).
// The stream: one producer sends 64 KiB every 100 us (polled, resident); each payload carries
// its sequence number and the producer's CLOCK_MONOTONIC time, the consumer records the
// delivery latency and the inter-arrival time of each.
//
// Output: records (bench/bench_report.hpp):
//   base_memcpy_{resident,rotating}_<size>, base_pvw_{resident,rotating}_<size>       GB/s
//   fast_tput_{polled,event}_{resident,rotating}_{1pair,4pair}_<size>                  GB/s
//   fast_stream_64KiB_100us_{p50,p99,p999} (delivery latency), ..._jitter (p99 - p50 of the
//   inter-arrival time), us
// for sizes 4KiB 16KiB 64KiB 256KiB 1MiB 4MiB. Figures of the full run are medians of 3 runs,
// the kinds interleaved (the project machine's vCPUs drift by 10-20% between seconds).
// Usage: comch_fastpath [--smoke | --quick]
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

#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "bench_doca.hpp"
#include "bench_report.hpp"
#include "bench_util.hpp"

using namespace softcomch::bench;
using bench_clock = std::chrono::steady_clock;

namespace {

constexpr const char *k_name = "comch_fastpath_bench";
constexpr size_t k_resident_bytes = size_t(8) << 20;
// 64 MiB (twice the LLC), 4 MiB in the smoke run (which measures nothing, only that it works).
size_t k_rotating_bytes = size_t(64) << 20;
constexpr uint32_t k_max_posted = 64; // posted receives per consumer when rotating
// Event mode: the bytes in flight must cover a wake-up of the consumer (about 25 us on the
// project machine, whose idle vCPUs halt) at the rate the producer copies, as a program sized
// for event mode does: at least k_max_posted buffers and at least this many bytes (1 MiB is
// 256 buffers of 4 KiB; 64 buffers moved 6 GB/s at 4 KiB, 256 moved 29-31 GB/s).
constexpr size_t k_event_inflight_bytes = size_t(1) << 20;

size_t event_depth(size_t payload)
{
    return std::max<size_t>(k_max_posted, k_event_inflight_bytes / payload);
}

// Buffers a resident consumer posts: one set of 8 MiB / pairs, 2 .. 16 of them (1 .. 16 with
// several pairs: the pairs interleave; event mode up to event_depth(), where the buffers in
// flight must cover a wake-up). The resident memcpy baseline copies into as many destinations
// as the 1-pair polled stream, so both move the same working set.
size_t resident_buffers(size_t payload, uint32_t pairs, bool event)
{
    const size_t most = event ? event_depth(payload) : 16;
    return std::clamp<size_t>(k_resident_bytes / pairs / payload, pairs > 1 ? 1 : 2, most);
}
constexpr uint32_t k_stream_slots = 8;

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

// One measurement's shape; set before the fork, so both sides see it.
struct run_params {
    size_t payload = 0;
    uint32_t pairs = 1;
    bool rotating = false;
    bool event = false;
    uint64_t count = 0;     // payloads per pair
    uint64_t period_ns = 0; // > 0: the paced stream (1 pair)
} g;

// What the DPU side found, in a page shared with the host side.
struct dpu_report {
    uint64_t received = 0;
    uint64_t bad = 0; // wrong length, or (stream) a sequence number out of order
    percentiles latency;
    percentiles gap;
};
dpu_report *g_report = nullptr;

// Sleeps on the notification handles of `pes` (armed, epoll_wait bounded at 100 ms, cleared),
// after draining them: the loop of include/doca_pe.h.
struct event_waiter {
    int ep = -1;
    std::vector<std::pair<doca_pe *, doca_notification_handle_t>> pes;
    void add(doca_pe *pe)
    {
        if (ep < 0)
            ep = epoll_create1(EPOLL_CLOEXEC);
        doca_notification_handle_t h = -1;
        check(doca_pe_get_notification_handle(pe, &h), "notification handle");
        epoll_event ev{};
        ev.events = EPOLLIN;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev) != 0)
            die("epoll_ctl", DOCA_ERROR_OPERATING_SYSTEM);
        pes.emplace_back(pe, h);
    }
    void wait(int timeout_ms = 100)
    {
        for (auto &[pe, h] : pes)
            check(doca_pe_request_notification(pe), "request notification");
        epoll_event evs[4];
        epoll_wait(ep, evs, 4, timeout_ms);
        for (auto &[pe, h] : pes)
            doca_pe_clear_notification(pe, h);
        bool any = true;
        while (any) {
            any = false;
            for (auto &[pe, h] : pes)
                any |= doca_pe_progress(pe) != 0;
        }
    }
    ~event_waiter()
    {
        if (ep >= 0)
            close(ep);
    }
};

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

// ---- DPU side: server + consumers ----

struct consumer_side {
    doca_comch_consumer *consumer = nullptr;
    region r;
    std::vector<doca_buf *> pool; // all its buffers; `posted` of them posted at a time
    uint32_t posted = 0;
    size_t next = 0; // the pool's next buffer to post (rotating)
    uint64_t received = 0;
};

struct dpu_state {
    doca_pe *pe = nullptr;
    doca_pe *cpe = nullptr;
    doca_comch_server *server = nullptr;
    doca_comch_connection *conn = nullptr;
    std::vector<consumer_side> cons;
    uint64_t received = 0, expected = 0, bad = 0, next_seq = 0, last_arrival = 0;
    std::vector<uint64_t> latency_ns, gap_ns;
    bool quit = false;
} dpu;

void dpu_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void recv_done(doca_comch_consumer_task_post_recv *task, union doca_data user, union doca_data)
{
    consumer_side &c = dpu.cons[user.u64];
    ++c.received;
    ++dpu.received;
    doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
    size_t len = 0;
    doca_buf_get_data_len(buf, &len);
    if (len != g.payload)
        ++dpu.bad;
    if (g.period_ns > 0) {
        const uint64_t now = mono_ns();
        void *data = nullptr;
        doca_buf_get_data(buf, &data);
        uint64_t hdr[2];
        std::memcpy(hdr, data, sizeof hdr);
        if (hdr[0] != dpu.next_seq++)
            ++dpu.bad;
        dpu.latency_ns.push_back(now - hdr[1]);
        if (dpu.last_arrival)
            dpu.gap_ns.push_back(now - dpu.last_arrival);
        dpu.last_arrival = now;
    }
    doca_buf_reset_data_len(buf);
    if (c.received < g.count) {
        if (g.rotating) {
            doca_comch_consumer_task_post_recv_set_buf(task, c.pool[c.next]);
            c.next = (c.next + 1) % c.pool.size();
        }
        check(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)), "repost");
    } else {
        // Not needed any more: a context reaches IDLE only once all its tasks are freed.
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
    doca_task_free(doca_comch_consumer_task_post_recv_as_task(task)); // flushed at stop
}

// ns -> us percentiles (summarize() works in ticks).
percentiles ns_percentiles(std::vector<uint64_t> &v)
{
    percentiles p;
    if (v.empty())
        return p;
    std::sort(v.begin(), v.end());
    auto at = [&](size_t permille) {
        return double(v[std::min(v.size() - 1, v.size() * permille / 1000)]) / 1e3;
    };
    p.p50_us = at(500);
    p.p99_us = at(990);
    p.p999_us = at(999);
    return p;
}

int run_dpu()
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
    spin_bound setup("comch_fastpath DPU setup");
    while (!dpu.conn) {
        doca_pe_progress(dpu.pe);
        setup.tick();
    }
    uint32_t max_tasks = 0;
    check(doca_comch_consumer_cap_get_max_num_tasks(doca_dev_as_devinfo(dev), &max_tasks),
          "max tasks");

    // The buffers: resident = one set (resident_buffers()), all posted; rotating = 64 MiB /
    // pairs cycled through k_max_posted posted ones (event_depth() in event mode).
    const size_t depth = g.event ? event_depth(g.payload) : k_max_posted;
    const size_t nbufs = g.rotating ? std::max<size_t>(k_rotating_bytes / g.pairs / g.payload, 2)
                                    : resident_buffers(g.payload, g.pairs, g.event);
    dpu.cons.resize(g.pairs);
    dpu.expected = g.count * g.pairs;
    dpu.latency_ns.reserve(g.period_ns ? g.count : 0);
    dpu.gap_ns.reserve(g.period_ns ? g.count : 0);
    for (uint32_t k = 0; k < g.pairs; ++k) {
        consumer_side &c = dpu.cons[k];
        c.r.init(dev, g.payload * nbufs, nbufs);
        for (size_t i = 0; i < nbufs; ++i) {
            doca_buf *buf = nullptr;
            check(doca_buf_inventory_buf_get_by_addr(c.r.inv, c.r.mmap,
                                                     static_cast<char *>(c.r.mem) + i * g.payload,
                                                     g.payload, &buf),
                  "buf");
            c.pool.push_back(buf);
        }
        c.posted = uint32_t(std::min<size_t>({nbufs, depth, max_tasks}));
        check(doca_comch_consumer_create(dpu.conn, c.r.mmap, &c.consumer), "consumer create");
        doca_ctx *cctx = doca_comch_consumer_as_ctx(c.consumer);
        check(doca_pe_connect_ctx(dpu.cpe, cctx), "consumer connect");
        check(doca_comch_consumer_task_post_recv_set_conf(c.consumer, recv_done, recv_error,
                                                          c.posted),
              "recv conf");
        if (doca_ctx_start(cctx) != DOCA_ERROR_IN_PROGRESS)
            die("consumer start", DOCA_ERROR_UNEXPECTED);
    }
    for (consumer_side &c : dpu.cons) {
        doca_ctx *cctx = doca_comch_consumer_as_ctx(c.consumer);
        doca_ctx_states st = DOCA_CTX_STATE_STARTING;
        while (st != DOCA_CTX_STATE_RUNNING) {
            doca_pe_progress(dpu.pe);
            doca_pe_progress(dpu.cpe);
            doca_ctx_get_state(cctx, &st);
            setup.tick();
        }
    }
    for (uint32_t k = 0; k < g.pairs; ++k) {
        consumer_side &c = dpu.cons[k];
        for (uint32_t i = 0; i < c.posted; ++i) {
            doca_comch_consumer_task_post_recv *t = nullptr;
            check(doca_comch_consumer_task_post_recv_alloc_init(c.consumer, c.pool[i], &t),
                  "recv alloc");
            union doca_data user;
            user.u64 = k;
            doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(t), user);
            check(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)), "recv submit");
        }
        c.next = c.posted % c.pool.size();
    }
    spin_bound alive("comch_fastpath DPU", 300);
    if (g.event) {
        event_waiter w;
        w.add(dpu.cpe);
        w.add(dpu.pe);
        while (!dpu.quit) {
            w.wait();
            alive.tick();
        }
    } else {
        while (!dpu.quit) {
            doca_pe_progress(dpu.cpe);
            doca_pe_progress(dpu.pe);
            alive.tick();
        }
    }
    g_report->received = dpu.received;
    g_report->bad = dpu.bad;
    g_report->latency = ns_percentiles(dpu.latency_ns);
    if (dpu.gap_ns.size() > 1)
        g_report->gap = ns_percentiles(dpu.gap_ns);
    // Teardown: the consumers flush their posted receives, then everything goes IDLE.
    spin_bound teardown("comch_fastpath DPU teardown");
    for (consumer_side &c : dpu.cons)
        doca_ctx_stop(doca_comch_consumer_as_ctx(c.consumer));
    for (consumer_side &c : dpu.cons) {
        doca_ctx_states st;
        do {
            doca_pe_progress(dpu.cpe);
            doca_ctx_get_state(doca_comch_consumer_as_ctx(c.consumer), &st);
            teardown.tick();
        } while (st != DOCA_CTX_STATE_IDLE);
        doca_comch_consumer_destroy(c.consumer);
        for (doca_buf *b : c.pool)
            doca_buf_dec_refcount(b, nullptr);
    }
    doca_ctx_stop(ctx);
    doca_ctx_states st;
    do {
        doca_pe_progress(dpu.pe);
        doca_ctx_get_state(ctx, &st);
        teardown.tick();
    } while (st != DOCA_CTX_STATE_IDLE);
    return 0;
}

// ---- host side: client + producers ----

struct producer_side {
    doca_comch_producer *producer = nullptr;
    uint32_t consumer_id = 0;
    uint64_t sent = 0, completed = 0;
    doca_comch_producer_task_send *pending = nullptr; // allocated, refused with AGAIN
};

struct host_state {
    doca_pe *pe = nullptr;
    doca_pe *ppe = nullptr;
    doca_comch_client *client = nullptr;
    std::vector<uint32_t> consumer_ids;
    std::vector<producer_side> prods;
    // The source: one buffer all producers send from (the stream: k_stream_slots of them).
    region r;
    std::vector<doca_buf *> src;
    bool done = false;
} host;

void host_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void produced(doca_comch_producer_task_send *t, union doca_data user, union doca_data)
{
    ++host.prods[user.u64].completed;
    doca_task_free(doca_comch_producer_task_send_as_task(t));
}

void sleep_ns(long ns)
{
    timespec ts{0, ns};
    nanosleep(&ts, nullptr);
}

// Allocates (or takes back the refused) task of pair k and submits it. AGAIN: the consumer has
// no buffer posted; NO_MEMORY: all of the producer's tasks are in flight.
doca_error_t try_send(uint32_t k, doca_buf *src)
{
    producer_side &p = host.prods[k];
    doca_comch_producer_task_send *t = p.pending;
    if (!t) {
        doca_error_t rc = doca_comch_producer_task_send_alloc_init(p.producer, src, nullptr, 0,
                                                                   p.consumer_id, &t);
        if (rc != DOCA_SUCCESS)
            return rc;
        union doca_data user;
        user.u64 = k;
        doca_task_set_user_data(doca_comch_producer_task_send_as_task(t), user);
    }
    doca_error_t rc = doca_task_submit(doca_comch_producer_task_send_as_task(t));
    p.pending = rc == DOCA_ERROR_AGAIN ? t : nullptr;
    if (rc == DOCA_SUCCESS)
        ++p.sent;
    return rc;
}

// Streams g.count payloads per pair; returns the seconds from the first send to "done".
double stream_all(event_waiter &w)
{
    spin_bound bound("comch_fastpath producer", 300);
    const auto t0 = bench_clock::now();
    for (;;) {
        bool any = false, again = false, unfinished = false;
        for (uint32_t k = 0; k < g.pairs; ++k) {
            producer_side &p = host.prods[k];
            if (p.sent == g.count)
                continue;
            unfinished = true;
            const doca_error_t rc = try_send(k, host.src[0]);
            if (rc == DOCA_SUCCESS)
                any = true;
            else if (rc == DOCA_ERROR_AGAIN)
                again = true;
            else if (rc != DOCA_ERROR_NO_MEMORY)
                die("producer send", rc);
        }
        if (!unfinished)
            break;
        if (!g.event) {
            doca_pe_progress(host.ppe);
        } else if (!any) {
            // Nothing could be sent: completions may be waiting, else sleep.
            if (doca_pe_progress(host.ppe) == 0) {
                if (again)
                    sleep_ns(10000);
                else
                    w.wait(10);
            }
        }
        bound.tick();
    }
    while (!host.done) {
        if (g.event)
            w.wait();
        else {
            doca_pe_progress(host.ppe);
            doca_pe_progress(host.pe);
        }
        bound.tick();
    }
    return std::chrono::duration<double>(bench_clock::now() - t0).count();
}

// The paced stream: payload i leaves at start + i * period, carrying (i, CLOCK_MONOTONIC).
void stream_paced()
{
    producer_side &p = host.prods[0];
    spin_bound bound("comch_fastpath paced producer", 300);
    const uint64_t start = mono_ns() + 1000000;
    for (uint64_t i = 0; i < g.count; ++i) {
        const uint64_t due = start + i * g.period_ns;
        while (mono_ns() < due) {
            doca_pe_progress(host.ppe);
            bound.tick();
        }
        // The slot is rewritten only once its previous send completed.
        while (i >= k_stream_slots && p.completed < i - k_stream_slots + 1) {
            doca_pe_progress(host.ppe);
            bound.tick();
        }
        const uint32_t slot = uint32_t(i % k_stream_slots);
        const uint64_t hdr[2] = {i, mono_ns()};
        std::memcpy(static_cast<char *>(host.r.mem) + slot * g.payload, hdr, sizeof hdr);
        doca_error_t rc;
        while ((rc = try_send(0, host.src[slot])) == DOCA_ERROR_AGAIN ||
               rc == DOCA_ERROR_NO_MEMORY) {
            doca_pe_progress(host.ppe);
            bound.tick();
        }
        check(rc, "paced send");
    }
    while (!host.done) {
        doca_pe_progress(host.ppe);
        doca_pe_progress(host.pe);
        bound.tick();
    }
}

double run_host()
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
                  host.consumer_ids.push_back(id);
              },
              [](doca_comch_event_consumer *, doca_comch_connection *, uint32_t) {}),
          "consumer register");
    if (doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
        die("client start", DOCA_ERROR_UNEXPECTED);
    doca_ctx_states st = DOCA_CTX_STATE_STARTING;
    spin_bound setup("comch_fastpath host setup");
    while (st != DOCA_CTX_STATE_RUNNING) {
        doca_pe_progress(host.pe);
        doca_ctx_get_state(ctx, &st);
        setup.tick();
    }
    doca_comch_connection *conn = nullptr;
    check(doca_comch_client_get_connection(host.client, &conn), "connection");
    while (host.consumer_ids.size() < g.pairs) {
        doca_pe_progress(host.pe);
        setup.tick();
    }

    host.prods.resize(g.pairs);
    const uint32_t slots = g.period_ns ? k_stream_slots : 1;
    for (uint32_t k = 0; k < g.pairs; ++k) {
        producer_side &p = host.prods[k];
        p.consumer_id = host.consumer_ids[k];
        check(doca_comch_producer_create(conn, &p.producer), "producer create");
        doca_ctx *pctx = doca_comch_producer_as_ctx(p.producer);
        check(doca_pe_connect_ctx(host.ppe, pctx), "producer connect");
        check(doca_comch_producer_task_send_set_conf(p.producer, produced, produced, 64),
              "producer conf");
        check(doca_ctx_start(pctx), "producer start");
    }
    host.r.init(dev, g.payload * slots, slots);
    for (uint32_t i = 0; i < slots; ++i) {
        doca_buf *buf = nullptr;
        check(doca_buf_inventory_buf_get_by_data(host.r.inv, host.r.mmap,
                                                 static_cast<char *>(host.r.mem) + i * g.payload,
                                                 g.payload, &buf),
              "source buf");
        host.src.push_back(buf);
    }
    event_waiter w;
    if (g.event) {
        w.add(host.ppe);
        w.add(host.pe);
    }
    double seconds = 0;
    if (g.period_ns)
        stream_paced();
    else
        seconds = stream_all(w);
    spin_bound teardown("comch_fastpath host teardown");
    for (producer_side &p : host.prods) {
        while (p.completed < g.count) {
            doca_pe_progress(host.ppe);
            teardown.tick();
        }
    }
    for (producer_side &p : host.prods)
        doca_ctx_stop(doca_comch_producer_as_ctx(p.producer));
    for (producer_side &p : host.prods) {
        do {
            doca_pe_progress(host.ppe);
            doca_ctx_get_state(doca_comch_producer_as_ctx(p.producer), &st);
            teardown.tick();
        } while (st != DOCA_CTX_STATE_IDLE);
        doca_comch_producer_destroy(p.producer);
    }
    for (doca_buf *b : host.src)
        doca_buf_dec_refcount(b, nullptr);
    doca_ctx_stop(ctx);
    do {
        doca_pe_progress(host.pe);
        doca_ctx_get_state(ctx, &st);
        teardown.tick();
    } while (st != DOCA_CTX_STATE_IDLE);
    return seconds > 0 ? double(g.payload) * double(g.count) * g.pairs / seconds / 1e9 : 0;
}

// One measurement (fork the DPU side on CPU 1, the host side here on CPU 0): GB/s.
double measure_comch(const run_params &params)
{
    g = params;
    *g_report = dpu_report{};
    bool single = online_cpus() < 2;
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        pin_to_cpu(single ? 0 : 1);
        _exit(run_dpu());
    }
    pin_to_cpu(0);
    host = host_state{};
    const double gbps = run_host();
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "comch_fastpath: DPU side failed\n");
        std::exit(1);
    }
    if (g_report->received != g.count * g.pairs || g_report->bad != 0) {
        std::fprintf(stderr, "comch_fastpath: %llu payloads delivered of %llu, %llu bad\n",
                     (unsigned long long)g_report->received,
                     (unsigned long long)(g.count * g.pairs), (unsigned long long)g_report->bad);
        std::exit(1);
    }
    host = host_state{};
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
    const run_mode mode = parse_mode(argc, argv, "comch_fastpath");
    std::string fabric = "bench-fastpath-" + std::to_string(getpid());
    setenv("SOFTCOMCH_FABRIC", fabric.c_str(), 1);
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    // The event-mode producer's 10 us nanosleep: without this, the kernel's default 50 us slack.
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    void *page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        std::perror("mmap");
        return 1;
    }
    g_report = new (page) dpu_report();

    const int reps = by_mode(mode, 1, 1, 3);
    if (mode == run_mode::smoke)
        k_rotating_bytes = size_t(4) << 20;
    // Bytes moved per figure and run (a rotating run goes through its 64 MiB at least twice).
    const double resident_mib = by_mode(mode, 2.0, 48.0, 1024.0);
    const double rotating_mib = by_mode(mode, 2.0, 128.0, 1024.0);
    print_context("comch_fastpath");
    const char *copy = std::getenv("SOFTCOMCH_COPY");
    std::printf("# mode %s; SOFTCOMCH_COPY=%s; median of %d run(s) per figure; %.0f MiB "
                "(resident) / %.0f MiB (rotating) per run\n",
                mode_name(mode), copy && *copy ? copy : "auto", reps, resident_mib, rotating_mib);

    auto gbps_record = [](std::string metric, double v, const char *subject, size_t payload,
                          std::string m) {
        record r;
        r.metric = std::move(metric);
        r.value = v;
        r.unit = "GB/s";
        r.better = "higher";
        r.subject = subject;
        r.group = "fast_tput";
        r.size = payload;
        r.mode = std::move(m);
        return r;
    };
    std::vector<size_t> sizes = {size_t(4) << 10,   size_t(16) << 10, size_t(64) << 10,
                                 size_t(256) << 10, size_t(1) << 20,  size_t(4) << 20};
    // COMCH_FASTPATH_SIZES=4096,262144: only these payload sizes (experiments; the figures the
    // report needs come from the full list).
    if (const char *only = std::getenv("COMCH_FASTPATH_SIZES"); only && *only) {
        sizes.clear();
        for (const char *p = only; *p;) {
            char *end = nullptr;
            // Digits only (strtoull would take "-1" as 2^64 - 1), at most 1 GiB.
            const unsigned long long v = *p >= '0' && *p <= '9' ? std::strtoull(p, &end, 10) : 0;
            if (end == p || end == nullptr || v == 0 || v > (1ull << 30)) {
                std::fprintf(stderr, "comch_fastpath: COMCH_FASTPATH_SIZES: bad size at '%s'\n", p);
                return 2;
            }
            sizes.push_back(size_t(v));
            p = *end == ',' ? end + 1 : end;
        }
    }
    for (size_t payload : sizes) {
        for (bool rotating : {false, true}) {
            const char *regime = rotating ? "rotating" : "resident";
            const double mib = rotating ? rotating_mib : resident_mib;
            const uint64_t total = std::max<uint64_t>(8, uint64_t(mib * 1048576.0 / payload));
            // The baselines write the working set the 1-pair polled stream writes.
            const uint32_t base_depth = uint32_t(rotating ? k_rotating_bytes / payload
                                                          : resident_buffers(payload, 1, false));
            std::vector<double> mc, pvw, api[2][2];
            const uint64_t started = mono_ns();
            for (int r = 0; r < reps; ++r) {
                mc.push_back(measure_memcpy(payload, total, base_depth));
                pvw.push_back(measure_pvw(payload, total, base_depth));
                for (int ev = 0; ev < 2; ++ev) {
                    for (int four = 0; four < 2; ++four) {
                        run_params rp;
                        rp.payload = payload;
                        rp.pairs = four ? 4 : 1;
                        rp.rotating = rotating;
                        rp.event = ev != 0;
                        rp.count = std::max<uint64_t>(4, total / rp.pairs);
                        api[ev][four].push_back(measure_comch(rp));
                    }
                }
            }
            std::printf("# %s %s: %.0f ms\n", regime, size_name(payload).c_str(),
                        double(mono_ns() - started) / 1e6);
            const std::string tail = std::string(regime) + "_" + size_name(payload);
            const double m = median(mc);
            emit(gbps_record("base_memcpy_" + tail, m, "memcpy", payload, regime));
            emit(
                gbps_record("base_pvw_" + tail, median(pvw), "process_vm_writev", payload, regime));
            for (int ev = 0; ev < 2; ++ev) {
                for (int four = 0; four < 2; ++four) {
                    const char *prog = ev ? "event" : "polled";
                    const char *pairs = four ? "4pair" : "1pair";
                    record r = gbps_record(std::string("fast_tput_") + prog + "_" + regime + "_" +
                                               pairs + "_" + size_name(payload),
                                           median(api[ev][four]), "softcomch", payload,
                                           std::string(regime) + "/" + pairs + "/" + prog);
                    r.baseline = "base_memcpy_" + tail;
                    r.baseline_value = m;
                    emit(r);
                }
            }
        }
    }

    // The stream: 64 KiB every 100 us.
    run_params rp;
    rp.payload = size_t(64) << 10;
    rp.period_ns = 100000;
    rp.count = by_mode<uint64_t>(mode, 200, 5000, 20000);
    measure_comch(rp);
    const percentiles lat = g_report->latency, gap = g_report->gap;
    const std::pair<const char *, double> stats[] = {
        {"p50", lat.p50_us}, {"p99", lat.p99_us}, {"p999", lat.p999_us}};
    for (const auto &[stat, v] : stats) {
        record r;
        r.metric = std::string("fast_stream_64KiB_100us_") + stat;
        r.value = v;
        r.unit = "us";
        r.group = "fast_stream";
        r.size = rp.payload;
        r.mode = "polled, 64 KiB every 100 us";
        emit(r);
    }
    record j;
    j.metric = "fast_stream_64KiB_100us_jitter";
    j.value = gap.p99_us - gap.p50_us;
    j.unit = "us";
    j.group = "fast_stream";
    j.size = rp.payload;
    j.mode = "p99 - p50 of the inter-arrival time";
    emit(j);
    std::printf("# stream inter-arrival p50 %.2f us, p99 %.2f us, p999 %.2f us\n", gap.p50_us,
                gap.p99_us, gap.p999_us);
    std::printf("# load average %.2f at end\n", load_average());
    return 0;
}
