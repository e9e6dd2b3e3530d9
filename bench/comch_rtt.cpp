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
// Output: one line per measurement, `name,payload,p50_us,p99_us,ratio_p50,ratio_p99`; polled
// figures are compared with the spin baseline, event-mode ones with a raw eventfd ping-pong.
//
// Usage: comch_rtt [iterations (default 200000)]
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_doca.hpp"
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

void send_msg(doca_comch_connection *conn, const void *buf, uint32_t len)
{
    doca_comch_task_send *t = nullptr;
    doca_error_t rc;
    do {
        rc = st.server ? doca_comch_server_task_send_alloc_init(st.server, conn, buf, len, &t)
                       : doca_comch_client_task_send_alloc_init(st.client, conn, buf, len, &t);
    } while (rc == DOCA_ERROR_NO_MEMORY); // cannot happen with one message in flight
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
    epoll_wait(st.epfd, &ev, 1, 100);
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
        });
    doca_comch_server_event_connection_status_changed_register(
        st.server,
        [](doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t) {},
        [](doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t) {
            st.disconnected = true;
        });
    if ((rc = doca_ctx_start(ctx)) != DOCA_SUCCESS)
        die("server start", rc);
    if (epoll_mode)
        setup_epoll();
    while (!st.disconnected)
        wait_once(epoll_mode);
    doca_ctx_stop(ctx);
    doca_ctx_states s = DOCA_CTX_STATE_STOPPING;
    while (s != DOCA_CTX_STATE_IDLE) {
        doca_pe_progress(st.pe);
        doca_ctx_get_state(ctx, &s);
    }
    doca_comch_server_destroy(st.server);
    doca_pe_destroy(st.pe);
    doca_dev_rep_close(rep);
    doca_dev_close(dev);
    return 0;
}

percentiles run_client(bool epoll_mode, uint32_t payload, size_t iters, size_t warmup)
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
    while (s != DOCA_CTX_STATE_RUNNING) {
        doca_pe_progress(st.pe);
        doca_ctx_get_state(ctx, &s);
    }
    doca_comch_client_get_connection(st.client, &st.conn);
    if (epoll_mode)
        setup_epoll();

    std::vector<char> msg(payload, 'x');
    std::vector<uint64_t> samples;
    samples.reserve(iters);
    for (size_t i = 0; i < warmup + iters; ++i) {
        st.got_reply = false;
        uint64_t t0 = ticks();
        send_msg(st.conn, msg.data(), payload);
        while (!st.got_reply)
            wait_once(epoll_mode);
        uint64_t t1 = ticks();
        if (i >= warmup)
            samples.push_back(t1 - t0);
    }
    percentiles p = summarize(samples);
    doca_ctx_stop(ctx);
    while (s != DOCA_CTX_STATE_IDLE) {
        doca_pe_progress(st.pe);
        doca_ctx_get_state(ctx, &s);
    }
    doca_comch_client_destroy(st.client);
    doca_pe_destroy(st.pe);
    doca_dev_close(dev);
    return p;
}

// One measurement: fork the server on CPU 1, run the client here on CPU 0.
percentiles measure(bool epoll_mode, uint32_t payload, size_t iters)
{
    bool single = online_cpus() < 2;
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        pin_to_cpu(single ? 0 : 1);
        _exit(run_server(epoll_mode));
    }
    pin_to_cpu(0);
    percentiles p = run_client(epoll_mode, payload, iters, iters / 10 + 100);
    st = side_state{};
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "comch_rtt: server process failed\n");
        std::exit(1);
    }
    return p;
}

// Baseline of event mode: two pinned processes ping-pong through a pair of eventfds, each
// sleeping in epoll_wait() until its eventfd is written (the wake-up cost of a halted vCPU).
percentiles eventfd_rtt(size_t iters)
{
    int to_child = eventfd(0, EFD_CLOEXEC), to_parent = eventfd(0, EFD_CLOEXEC);
    bool single = online_cpus() < 2;
    auto wait_fd = [](int ep) {
        epoll_event ev;
        while (epoll_wait(ep, &ev, 1, -1) != 1) {
        }
    };
    std::fflush(stdout);
    pid_t pid = fork();
    uint64_t one = 1, v;
    if (pid == 0) {
        pin_to_cpu(single ? 0 : 1);
        int ep = epoll_create1(0);
        epoll_event ev{};
        ev.events = EPOLLIN;
        epoll_ctl(ep, EPOLL_CTL_ADD, to_child, &ev);
        for (size_t i = 0; i < iters + iters / 10; ++i) {
            wait_fd(ep);
            if (read(to_child, &v, sizeof v) != sizeof v ||
                write(to_parent, &one, sizeof one) != sizeof one)
                _exit(1);
        }
        _exit(0);
    }
    pin_to_cpu(0);
    int ep = epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    epoll_ctl(ep, EPOLL_CTL_ADD, to_parent, &ev);
    std::vector<uint64_t> samples;
    for (size_t i = 0; i < iters + iters / 10; ++i) {
        uint64_t t0 = ticks();
        if (write(to_child, &one, sizeof one) != sizeof one)
            break;
        wait_fd(ep);
        if (read(to_parent, &v, sizeof v) != sizeof v)
            break;
        if (i >= iters / 10)
            samples.push_back(ticks() - t0);
    }
    waitpid(pid, nullptr, 0);
    close(ep);
    close(to_child);
    close(to_parent);
    return summarize(samples);
}

void report(const char *name, uint32_t payload, percentiles p, percentiles base)
{
    std::printf("%s,%u,%.3f,%.3f,%.2f,%.2f\n", name, payload, p.p50_us, p.p99_us,
                p.p50_us / base.p50_us, p.p99_us / base.p99_us);
}

} // namespace

int main(int argc, char **argv)
{
    size_t iters = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
    // A private fabric: the benchmark never meets another program's server.
    std::string fabric = "bench-rtt-" + std::to_string(getpid());
    setenv("SOFTCOMCH_FABRIC", fabric.c_str(), 1);
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");

    print_context("comch_rtt");
    std::printf("# name,payload_bytes,p50_us,p99_us,p50_vs_baseline,p99_vs_baseline\n");
    percentiles spin64 = spin_rtt(64, iters, iters / 10);
    report("spin_baseline", 64, spin64, spin64);
    percentiles spin4080 = spin_rtt(4080, iters, iters / 10);
    report("spin_baseline", 4080, spin4080, spin4080);

    report("comch_poll", 64, measure(false, 64, iters), spin64);
    report("comch_poll", 4080, measure(false, 4080, iters), spin4080);
    percentiles efd = eventfd_rtt(iters / 20);
    report("eventfd_baseline", 8, efd, efd);
    report("comch_epoll", 64, measure(true, 64, iters / 20), efd);
    return 0;
}
