// SPDX-License-Identifier: Apache-2.0
//
// Round-trip time of the Comch control path through the public API, next to the spin baseline
// (two processes ping-ponging on one shared cache line) measured in the same run.
//
// A server (DPU side) and a client (host side) run in two processes pinned to CPU 1 and CPU 0.
// The client sends a message, the server's receive callback sends it back, the client's receive
// callback ends the round trip. Modes:
//   poll   both sides spin on doca_pe_progress()
//   epoll  both sides sleep in epoll_wait() on the notification handle
// Output: records (bench/bench_report.hpp):
//   ctrl_rtt_{polled,epoll}_{64B,1KiB,4080B}_{p50,p99,p999} (us); polled ones against the spin
//     ping-pong of the same size and statistic, epoll ones against the eventfd ping-pong of the
//     same size and statistic (both measured here too, just before and after: the better of the
//     two; the machine's vCPUs move between faster and slower placements from one minute to the
//     next, so a baseline from another program's minute can be off by 30%)
//   base_eventfd_rtt_mailbox_{64B,1KiB,4080B}_{p50,p99,p999} (us) that eventfd ping-pong: the
//     payload through shared mailboxes, one eventfd write and blocking read each way
//   cpu_per_msg_event_load_ns  user + system CPU time of both processes (getrusage) during the
//     epoll 64 B ping-pong, divided by the messages (two per round trip)
//   cpu_idle_event_pct  CPU % of a connected, idle client + server pair, both asleep in epoll
//
// Usage: comch_rtt [--smoke | --quick]
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>

#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "bench_doca.hpp"
#include "bench_report.hpp"
#include "bench_util.hpp"

using namespace softcomch::bench;

namespace {

constexpr const char *k_name = "comch_rtt_bench";

[[noreturn]] void die(const char *what, doca_error_t rc)
{
    softcomch::bench::die("comch_rtt", what, rc);
}

// Per-process state reached from the callbacks.
struct side_state {
    doca_pe *pe = nullptr;
    doca_comch_server *server = nullptr;
    doca_comch_client *client = nullptr;
    doca_comch_connection *conn = nullptr;
    bool got_reply = false;
    bool disconnected = false;
    int epfd = -1;
    doca_notification_handle_t handle = -1;
} st;

// What the server process measured, in a page shared with the client process (fork).
struct server_report {
    uint64_t cpu_ns = 0;  // its CPU time from the connection to the disconnection
    uint64_t wall_ns = 0; // and the wall time of that window
    uint64_t echoed = 0;  // messages it echoed
};
server_report *g_report = nullptr;
uint64_t g_conn_cpu = 0, g_conn_wall = 0;

void send_msg(doca_comch_connection *conn, const void *buf, uint32_t len)
{
    doca_comch_task_send *t = nullptr;
    doca_error_t rc;
    do {
        rc = st.server ? doca_comch_server_task_send_alloc_init(st.server, conn, buf, len, &t)
                       : doca_comch_client_task_send_alloc_init(st.client, conn, buf, len, &t);
        if (rc == DOCA_ERROR_NO_MEMORY) // cannot happen with one message in flight
            doca_pe_progress(st.pe);
    } while (rc == DOCA_ERROR_NO_MEMORY);
    if (rc != DOCA_SUCCESS)
        die("send alloc", rc);
    if ((rc = doca_task_submit(doca_comch_task_send_as_task(t))) != DOCA_SUCCESS)
        die("submit", rc);
}

void send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void wait_once(bool epoll_mode)
{
    if (!epoll_mode) {
        doca_pe_progress(st.pe);
        return;
    }
    doca_pe_request_notification(st.pe);
    epoll_event ev;
    epoll_wait(st.epfd, &ev, 1, 100); // bounded: a lost wake-up costs 100 ms, never a hang
    doca_pe_clear_notification(st.pe, st.handle);
    while (doca_pe_progress(st.pe)) {
    }
}

void setup_epoll()
{
    doca_pe_get_notification_handle(st.pe, &st.handle);
    st.epfd = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    epoll_ctl(st.epfd, EPOLL_CTL_ADD, st.handle, &ev);
}

int run_server(bool epoll_mode)
{
    doca_dev *dev = open_dev("03:00.0");
    doca_dev_rep *rep = dev ? open_rep(dev, "b1:00.0") : nullptr;
    if (!rep)
        die("open DPU device", DOCA_ERROR_NOT_FOUND);
    doca_error_t rc;
    if ((rc = doca_pe_create(&st.pe)) != DOCA_SUCCESS)
        die("pe", rc);
    if ((rc = doca_comch_server_create(dev, rep, k_name, &st.server)) != DOCA_SUCCESS)
        die("server create", rc);
    doca_ctx *ctx = doca_comch_server_as_ctx(st.server);
    doca_pe_connect_ctx(st.pe, ctx);
    doca_comch_server_task_send_set_conf(st.server, send_done, send_done, 64);
    doca_comch_server_event_msg_recv_register(
        st.server,
        [](doca_comch_event_msg_recv *, uint8_t *buf, uint32_t len, doca_comch_connection *c) {
            send_msg(c, buf, len); // echo
            ++g_report->echoed;
        });
    doca_comch_server_event_connection_status_changed_register(
        st.server,
        [](doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t) {
            g_conn_cpu = cpu_ns_self();
            g_conn_wall = mono_ns();
        },
        [](doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t) {
            g_report->cpu_ns = cpu_ns_self() - g_conn_cpu;
            g_report->wall_ns = mono_ns() - g_conn_wall;
            st.disconnected = true;
        });
    if ((rc = doca_ctx_start(ctx)) != DOCA_SUCCESS)
        die("server start", rc);
    if (epoll_mode)
        setup_epoll();
    // The client's whole run, at most: a stuck client ends the server too.
    spin_bound alive("comch_rtt server", 300);
    while (!st.disconnected) {
        wait_once(epoll_mode);
        alive.tick();
    }
    doca_ctx_stop(ctx);
    doca_ctx_states s = DOCA_CTX_STATE_STOPPING;
    spin_bound bound("comch_rtt server stop");
    while (s != DOCA_CTX_STATE_IDLE) {
        bound.tick();
        doca_pe_progress(st.pe);
        doca_ctx_get_state(ctx, &s);
    }
    doca_comch_server_destroy(st.server);
    doca_pe_destroy(st.pe);
    doca_dev_rep_close(rep);
    doca_dev_close(dev);
    return 0;
}

// What one client run measured.
struct client_result {
    percentiles rtt;
    uint64_t cpu_ns = 0;   // the client's CPU time over the measured loop (warm-up included)
    uint64_t wall_ns = 0;  // that loop's wall time
    uint64_t messages = 0; // messages both ways in that loop
};

// idle_s > 0: no ping-pong; the connected client sleeps in epoll for idle_s seconds.
client_result run_client(bool epoll_mode, uint32_t payload, size_t iters, size_t warmup,
                         double idle_s)
{
    doca_dev *dev = open_dev("b1:00.0");
    if (!dev)
        die("open host device", DOCA_ERROR_NOT_FOUND);
    doca_error_t rc;
    if ((rc = doca_pe_create(&st.pe)) != DOCA_SUCCESS)
        die("pe", rc);
    if ((rc = doca_comch_client_create(dev, k_name, &st.client)) != DOCA_SUCCESS)
        die("client create", rc);
    doca_ctx *ctx = doca_comch_client_as_ctx(st.client);
    doca_pe_connect_ctx(st.pe, ctx);
    doca_comch_client_task_send_set_conf(st.client, send_done, send_done, 64);
    doca_comch_client_event_msg_recv_register(st.client,
                                              [](doca_comch_event_msg_recv *, uint8_t *, uint32_t,
                                                 doca_comch_connection *) { st.got_reply = true; });
    if ((rc = doca_ctx_start(ctx)) != DOCA_ERROR_IN_PROGRESS)
        die("client start", rc);
    doca_ctx_states s = DOCA_CTX_STATE_STARTING;
    spin_bound connecting("comch_rtt connect");
    while (s != DOCA_CTX_STATE_RUNNING) {
        connecting.tick();
        doca_pe_progress(st.pe);
        doca_ctx_get_state(ctx, &s);
    }
    doca_comch_client_get_connection(st.client, &st.conn);
    if (epoll_mode)
        setup_epoll();

    client_result res;
    std::vector<char> msg(payload, 'x');
    std::vector<uint64_t> samples;
    samples.reserve(iters);
    spin_bound reply("comch_rtt reply", 300);
    const uint64_t cpu0 = cpu_ns_self(), wall0 = mono_ns();
    if (idle_s > 0) {
        while (mono_ns() - wall0 < uint64_t(idle_s * 1e9))
            wait_once(true);
    }
    for (size_t i = 0; idle_s <= 0 && i < warmup + iters; ++i) {
        st.got_reply = false;
        uint64_t t0 = ticks();
        send_msg(st.conn, msg.data(), payload);
        while (!st.got_reply) {
            wait_once(epoll_mode);
            reply.tick();
        }
        uint64_t t1 = ticks();
        if (i >= warmup)
            samples.push_back(t1 - t0);
        res.messages += 2;
    }
    res.cpu_ns = cpu_ns_self() - cpu0;
    res.wall_ns = mono_ns() - wall0;
    res.rtt = summarize(samples);
    doca_ctx_stop(ctx);
    spin_bound stopping("comch_rtt client stop");
    while (s != DOCA_CTX_STATE_IDLE) {
        stopping.tick();
        doca_pe_progress(st.pe);
        doca_ctx_get_state(ctx, &s);
    }
    doca_comch_client_destroy(st.client);
    doca_pe_destroy(st.pe);
    doca_dev_close(dev);
    return res;
}

struct measurement {
    client_result client;
    server_report server;
};

// One measurement: fork the server on CPU 1, run the client here on CPU 0.
measurement measure(bool epoll_mode, uint32_t payload, size_t iters, double idle_s = 0)
{
    bool single = online_cpus() < 2;
    *g_report = server_report{};
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        pin_to_cpu(single ? 0 : 1);
        _exit(run_server(epoll_mode));
    }
    pin_to_cpu(0);
    measurement m;
    m.client = run_client(epoll_mode, payload, iters, iters / 10 + 10, idle_s);
    st = side_state{};
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "comch_rtt: server process failed\n");
        std::exit(1);
    }
    m.server = *g_report;
    // Every ping came back (the client counted the replies), and the server saw no other.
    if (idle_s <= 0 && m.server.echoed != m.client.messages / 2) {
        std::fprintf(stderr, "comch_rtt: the server echoed %llu messages, the client sent %llu\n",
                     (unsigned long long)m.server.echoed,
                     (unsigned long long)(m.client.messages / 2));
        std::exit(1);
    }
    return m;
}

// The better of two baseline runs, per statistic (a slow moment only ever makes a run slower).
percentiles better_of(const percentiles &a, const percentiles &b)
{
    percentiles p;
    p.p50_us = std::min(a.p50_us, b.p50_us);
    p.p99_us = std::min(a.p99_us, b.p99_us);
    p.p999_us = std::min(a.p999_us, b.p999_us);
    return p;
}

// One record per statistic, named `prefix<size>_<stat>`; with `base`, against the record
// `base_prefix<size>_<stat>` of the same run, whose value it carries.
void emit_stats(const std::string &prefix, const char *subject, const char *mode, uint32_t payload,
                const percentiles &p, const percentiles *base = nullptr,
                const std::string &base_prefix = {})
{
    const char *stats[] = {"p50", "p99", "p999"};
    const double value[] = {p.p50_us, p.p99_us, p.p999_us};
    const double base_value[] = {base ? base->p50_us : 0, base ? base->p99_us : 0,
                                 base ? base->p999_us : 0};
    for (int i = 0; i < 3; ++i) {
        record r;
        r.metric = prefix + size_name(payload) + "_" + stats[i];
        r.value = value[i];
        r.unit = "us";
        r.subject = subject;
        r.group = "ctrl_rtt";
        r.size = payload;
        r.mode = mode;
        if (base) {
            r.baseline = base_prefix + size_name(payload) + "_" + stats[i];
            r.baseline_value = base_value[i];
        }
        emit(r);
    }
}

} // namespace

int main(int argc, char **argv)
{
    const run_mode mode = parse_mode(argc, argv, "comch_rtt");
    const size_t iters = by_mode<size_t>(mode, 2000, 50000, 200000);
    const size_t epoll_iters = by_mode<size_t>(mode, 200, 5000, 20000);
    const double idle_s = by_mode(mode, 0.2, 0.5, 1.0);
    // A private fabric: the benchmark never meets another program's server.
    std::string fabric = "bench-rtt-" + std::to_string(getpid());
    setenv("SOFTCOMCH_FABRIC", fabric.c_str(), 1);
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    void *page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        std::perror("mmap");
        return 1;
    }
    g_report = new (page) server_report();

    print_context("comch_rtt");
    std::printf("# mode %s: %zu polled and %zu epoll round trips per size\n", mode_name(mode),
                iters, epoll_iters);
    // Polled: each size between two spin baselines of its own (the machine drifts between
    // seconds); the baseline is the better of the two per statistic, the nearer to the limit
    // (a slow moment only ever makes a spin run slower).
    for (uint32_t payload : {64u, 1024u, 4080u}) {
        const size_t n = payload == 64 ? iters : iters / 2;
        const percentiles before = spin_rtt(payload, n / 2, n / 20);
        const percentiles api = measure(false, payload, n).client.rtt;
        const percentiles after = spin_rtt(payload, n / 2, n / 20);
        const percentiles spin = better_of(before, after);
        emit_stats("ctrl_rtt_polled_", "softcomch", "polled", payload, api, &spin,
                   "base_spin_rtt_");
    }
    // Epoll: each size between two eventfd ping-pongs of its own, the same way.
    measurement load{};
    for (uint32_t payload : {64u, 1024u, 4080u}) {
        const size_t n = epoll_iters;
        const percentiles before = eventfd_rtt(payload, n / 2, n / 20);
        const measurement m = measure(true, payload, n);
        const percentiles after = eventfd_rtt(payload, n / 2, n / 20);
        const percentiles efd = better_of(before, after);
        emit_stats("base_eventfd_rtt_mailbox_", "eventfd", "blocking", payload, efd);
        emit_stats("ctrl_rtt_epoll_", "softcomch", "epoll", payload, m.client.rtt, &efd,
                   "base_eventfd_rtt_mailbox_");
        if (payload == 64)
            load = m;
    }

    record cpu;
    cpu.metric = "cpu_per_msg_event_load_ns";
    cpu.value = double(load.client.cpu_ns + load.server.cpu_ns) / double(load.client.messages);
    cpu.unit = "ns";
    cpu.group = "cpu";
    cpu.size = 64;
    cpu.mode = "epoll ping-pong";
    emit(cpu);

    const measurement idle = measure(true, 64, 0, idle_s);
    record ip;
    ip.metric = "cpu_idle_event_pct";
    ip.value = 100.0 * (double(idle.client.cpu_ns) / double(idle.client.wall_ns) +
                        double(idle.server.cpu_ns) / double(idle.server.wall_ns));
    ip.unit = "%";
    ip.group = "cpu";
    ip.mode = "epoll idle";
    emit(ip);
    std::printf("# idle pair: client %.3f ms CPU in %.0f ms, server %.3f ms CPU in %.0f ms\n",
                idle.client.cpu_ns / 1e6, idle.client.wall_ns / 1e6, idle.server.cpu_ns / 1e6,
                idle.server.wall_ns / 1e6);
    return 0;
}
