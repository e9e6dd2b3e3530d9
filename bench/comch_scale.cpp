// SPDX-License-Identifier: Apache-2.0
//
// The control path's rate and scale through the public API, with the baselines of the same run.
// Output: records (bench/bench_report.hpp):
//
//   ctrl_rate_{64B,4080B}_{1conn,8conn}  Mmsg/s one way: a client process (forked, CPU 1) with
//              1 or 8 connections sends as fast as its send tasks allow, round robin over the
//              connections; the server (this process, CPU 0) checks every connection's sequence
//              numbers. The 64 B ones against base_spin_rate_64B.
//   base_spin_rate_64B  spin_rate: a shared ring of one-line slots between two pinned processes,
//              copy in and out (the limit for a one-way rate), measured before and after the
//              1-connection 64 B rate, the better of the two.
//   scale_connect_{1,64,512}conn_ms  time for N clients (a fresh client process) to be RUNNING.
//   scale_progress_idle_{1,64,512}conn_ns  one doca_pe_progress call of the server with N
//              connected, idle clients (target: 512 costs at most 2x one).
//   scale_shm_per_conn_KiB, scale_fds_per_conn  what one connection costs the server:
//              memfd-backed shared memory (its rings) and file descriptors, from /proc/self/maps
//              and /proc/self/fd, between 1 and 512 connections.
//
// Usage: comch_scale [--smoke | --quick]
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bench_doca.hpp"
#include "bench_report.hpp"
#include "bench_util.hpp"

using namespace softcomch::bench;

namespace {

constexpr const char *k_name = "comch_scale_bench";
constexpr uint32_t k_max_conns = 8; // of the rate measurement
uint32_t g_msg_len = 64;            // of the rate measurement (each message: seq, client index)

[[noreturn]] void fail(const char *what, doca_error_t rc)
{
    die("comch_scale", what, rc);
}

void check(doca_error_t rc, const char *what)
{
    if (rc != DOCA_SUCCESS)
        fail(what, rc);
}

void wait_state(doca_pe *pe, doca_ctx *ctx, doca_ctx_states want)
{
    doca_ctx_states s;
    spin_bound bound("comch_scale context state");
    do {
        bound.tick();
        doca_pe_progress(pe);
        doca_ctx_get_state(ctx, &s);
    } while (s != want);
}

// Room for one descriptor per connection and then some, as far as the hard limit allows.
void raise_fd_limit()
{
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

// ---- the server (this process) ----

struct server_side {
    doca_dev *dev = nullptr;
    doca_dev_rep *rep = nullptr;
    doca_pe *pe = nullptr;
    doca_comch_server *server = nullptr;
    doca_ctx *ctx = nullptr;
    std::vector<doca_comch_connection *> conns;
    uint64_t received = 0, expected = 0, bad = 0, t0 = 0, t1 = 0;
    uint64_t next_seq[k_max_conns] = {};
} srv;

void srv_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void srv_recv(doca_comch_event_msg_recv *, uint8_t *buf, uint32_t len, doca_comch_connection *)
{
    uint64_t seq = ~uint64_t(0);
    uint32_t from = k_max_conns;
    if (len == g_msg_len) {
        std::memcpy(&seq, buf, sizeof seq);
        std::memcpy(&from, buf + 8, sizeof from);
    }
    if (from >= k_max_conns || seq != srv.next_seq[from]++)
        ++srv.bad;
    if (srv.received == 0)
        srv.t0 = ticks();
    if (++srv.received == srv.expected)
        srv.t1 = ticks();
}

void start_server(uint32_t recv_queue)
{
    srv.dev = open_dev("03:00.0");
    srv.rep = srv.dev ? open_rep(srv.dev, "b1:00.0") : nullptr;
    if (!srv.rep)
        fail("open the DPU device", DOCA_ERROR_NOT_FOUND);
    check(doca_pe_create(&srv.pe), "pe");
    check(doca_comch_server_create(srv.dev, srv.rep, k_name, &srv.server), "server create");
    srv.ctx = doca_comch_server_as_ctx(srv.server);
    check(doca_pe_connect_ctx(srv.pe, srv.ctx), "connect");
    check(doca_comch_server_task_send_set_conf(srv.server, srv_send_done, srv_send_done, 64),
          "send conf");
    check(doca_comch_server_set_recv_queue_size(srv.server, recv_queue), "recv queue");
    check(doca_comch_server_event_msg_recv_register(srv.server, srv_recv), "recv register");
    check(doca_comch_server_event_connection_status_changed_register(
              srv.server,
              [](doca_comch_event_connection_status_changed *, doca_comch_connection *c, uint8_t) {
                  srv.conns.push_back(c);
              },
              [](doca_comch_event_connection_status_changed *, doca_comch_connection *c, uint8_t) {
                  srv.conns.erase(std::remove(srv.conns.begin(), srv.conns.end(), c),
                                  srv.conns.end());
              }),
          "connection register");
    check(doca_ctx_start(srv.ctx), "server start");
}

void stop_server()
{
    doca_ctx_stop(srv.ctx);
    wait_state(srv.pe, srv.ctx, DOCA_CTX_STATE_IDLE);
    doca_comch_server_destroy(srv.server);
    doca_pe_destroy(srv.pe);
    doca_dev_rep_close(srv.rep);
    doca_dev_close(srv.dev);
    srv = server_side{};
}

void server_send(doca_comch_connection *c, const char *text)
{
    doca_comch_task_send *t = nullptr;
    check(doca_comch_server_task_send_alloc_init(srv.server, c, text, uint32_t(std::strlen(text)),
                                                 &t),
          "send");
    check(doca_task_submit(doca_comch_task_send_as_task(t)), "submit");
}

// ---- the clients (a forked process) ----

struct client_side {
    doca_dev *dev = nullptr;
    doca_pe *pe = nullptr;
    std::vector<doca_comch_client *> clients;
    // Per connection: one message per send task, kept until completion, and the indices of the
    // messages not in flight.
    std::vector<std::vector<uint8_t>> msgs;
    std::vector<std::vector<uint32_t>> free_msg;
    bool done = false;
} cli;

void cli_send_done(doca_comch_task_send *t, union doca_data user, union doca_data)
{
    cli.free_msg[user.u64 >> 32].push_back(uint32_t(user.u64));
    doca_task_free(doca_comch_task_send_as_task(t));
}

doca_comch_client *add_client(uint32_t send_tasks)
{
    doca_comch_client *c = nullptr;
    check(doca_comch_client_create(cli.dev, k_name, &c), "client create");
    doca_ctx *ctx = doca_comch_client_as_ctx(c);
    check(doca_pe_connect_ctx(cli.pe, ctx), "client connect");
    check(doca_comch_client_task_send_set_conf(c, cli_send_done, cli_send_done, send_tasks),
          "client send conf");
    check(doca_comch_client_event_msg_recv_register(
              c, [](doca_comch_event_msg_recv *, uint8_t *, uint32_t,
                    doca_comch_connection *) { cli.done = true; }),
          "client recv register");
    if (doca_error_t rc = doca_ctx_start(ctx); rc != DOCA_ERROR_IN_PROGRESS)
        fail("client start", rc);
    cli.clients.push_back(c);
    return c;
}

void open_client_device()
{
    cli.dev = open_dev("b1:00.0");
    if (!cli.dev)
        fail("open the host device", DOCA_ERROR_NOT_FOUND);
    check(doca_pe_create(&cli.pe), "client pe");
}

// Sends `count` numbered messages on each of `conns` connections, round robin, as fast as the
// send tasks allow, then waits for "done".
int run_sender(uint64_t count, uint32_t conns, uint32_t send_tasks)
{
    open_client_device();
    std::vector<doca_comch_connection *> conn(conns);
    for (uint32_t k = 0; k < conns; ++k)
        add_client(send_tasks);
    for (uint32_t k = 0; k < conns; ++k) {
        wait_state(cli.pe, doca_comch_client_as_ctx(cli.clients[k]), DOCA_CTX_STATE_RUNNING);
        check(doca_comch_client_get_connection(cli.clients[k], &conn[k]), "connection");
    }
    cli.msgs.assign(conns, std::vector<uint8_t>(size_t(send_tasks) * g_msg_len, 0x5a));
    cli.free_msg.assign(conns, {});
    for (uint32_t k = 0; k < conns; ++k)
        for (uint32_t i = 0; i < send_tasks; ++i)
            cli.free_msg[k].push_back(i);
    std::vector<uint64_t> seq(conns, 0);
    uint64_t left = count * conns;
    spin_bound bound("comch_scale sender", 120);
    while (left > 0) {
        bool sent_any = false;
        for (uint32_t k = 0; k < conns; ++k) {
            if (seq[k] == count || cli.free_msg[k].empty())
                continue;
            const uint32_t m = cli.free_msg[k].back();
            uint8_t *msg = &cli.msgs[k][size_t(m) * g_msg_len];
            std::memcpy(msg, &seq[k], sizeof seq[k]);
            std::memcpy(msg + 8, &k, sizeof k);
            doca_comch_task_send *t = nullptr;
            doca_error_t rc =
                doca_comch_client_task_send_alloc_init(cli.clients[k], conn[k], msg, g_msg_len, &t);
            if (rc == DOCA_ERROR_NO_MEMORY)
                continue;
            check(rc, "send alloc");
            union doca_data user;
            user.u64 = (uint64_t(k) << 32) | m;
            doca_task_set_user_data(doca_comch_task_send_as_task(t), user);
            cli.free_msg[k].pop_back();
            check(doca_task_submit(doca_comch_task_send_as_task(t)), "send submit");
            ++seq[k];
            --left;
            sent_any = true;
        }
        if (!sent_any) {
            doca_pe_progress(cli.pe);
            bound.tick();
        }
    }
    while (!cli.done) {
        doca_pe_progress(cli.pe);
        bound.tick();
    }
    for (doca_comch_client *c : cli.clients)
        doca_ctx_stop(doca_comch_client_as_ctx(c));
    for (doca_comch_client *c : cli.clients)
        wait_state(cli.pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_IDLE);
    return 0;
}

// Connects `n` clients, reports the time until all are RUNNING (8 bytes, ns) on `report_fd`,
// then idles until a byte arrives on `quit_fd` (or the server is gone).
int run_idle_clients(uint32_t n, int report_fd, int quit_fd)
{
    raise_fd_limit();
    open_client_device();
    const uint64_t t0 = mono_ns();
    while (cli.clients.size() < n)
        add_client(4);
    for (doca_comch_client *c : cli.clients)
        wait_state(cli.pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_RUNNING);
    const uint64_t ns = mono_ns() - t0;
    if (write(report_fd, &ns, sizeof ns) != sizeof ns)
        return 2;
    char byte;
    if (read(quit_fd, &byte, 1) != 1)
        return 0;
    for (doca_comch_client *c : cli.clients)
        doca_ctx_stop(doca_comch_client_as_ctx(c));
    for (doca_comch_client *c : cli.clients)
        wait_state(cli.pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_IDLE);
    return 0;
}

// ---- measurements ----

double measure_rate(uint64_t count, uint32_t conns, uint32_t recv_queue, uint32_t send_tasks)
{
    start_server(recv_queue);
    srv.expected = count * conns;
    std::fflush(stdout);
    const bool single = online_cpus() < 2;
    const pid_t pid = fork();
    if (pid == 0) {
        pin_to_cpu(single ? 0 : 1);
        _exit(run_sender(count, conns, send_tasks));
    }
    pin_to_cpu(0);
    spin_bound bound("comch_scale receiver", 120);
    int status = 0;
    while (srv.received < srv.expected || srv.conns.size() < conns) {
        doca_pe_progress(srv.pe);
        bound.tick();
        if ((srv.received & 0xffff) == 0 && waitpid(pid, &status, WNOHANG) == pid) {
            std::fprintf(stderr, "comch_scale: the sender process ended early (status %d)\n",
                         status);
            std::exit(1);
        }
    }
    server_send(srv.conns.front(), "done");
    while (waitpid(pid, &status, WNOHANG) == 0) {
        doca_pe_progress(srv.pe);
        bound.tick();
    }
    if (srv.bad != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "comch_scale: %lu messages out of sequence, sender status %d\n",
                     (unsigned long)srv.bad, status);
        std::exit(1);
    }
    const double rate = double(srv.expected - 1) / (double(srv.t1 - srv.t0) / ticks_per_us());
    stop_server();
    return rate;
}

// Nanoseconds per doca_pe_progress call of the server, median of 5 batches of about
// `batch_s` seconds each.
double progress_ns(double batch_s)
{
    uint64_t calls = 1000;
    const uint64_t c0 = ticks();
    for (uint64_t i = 0; i < calls; ++i)
        doca_pe_progress(srv.pe);
    const double per_call_us = double(ticks() - c0) / ticks_per_us() / double(calls);
    calls = std::max<uint64_t>(1000, uint64_t(batch_s * 1e6 / std::max(per_call_us, 1e-3)));
    std::vector<double> v;
    for (int r = 0; r < 5; ++r) {
        const uint64_t t0 = ticks();
        for (uint64_t i = 0; i < calls; ++i)
            doca_pe_progress(srv.pe);
        v.push_back(double(ticks() - t0) * 1000.0 / ticks_per_us() / double(calls));
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct footprint {
    uint64_t memfd_bytes = 0;
    uint64_t fds = 0;
};

footprint read_footprint()
{
    footprint f;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        if (line.find("/memfd:") == std::string::npos)
            continue;
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2)
            f.memfd_bytes += hi - lo;
    }
    if (DIR *d = opendir("/proc/self/fd")) {
        while (readdir(d) != nullptr)
            ++f.fds;
        closedir(d);
    }
    return f;
}

record rec(std::string metric, double value, const char *unit, const char *group, uint64_t size,
           std::string mode)
{
    record r;
    r.metric = std::move(metric);
    r.value = value;
    r.unit = unit;
    r.group = group;
    r.size = size;
    r.mode = std::move(mode);
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    const run_mode mode = parse_mode(argc, argv, "comch_scale");
    std::string fabric = "bench-scale-" + std::to_string(getpid());
    setenv("SOFTCOMCH_FABRIC", fabric.c_str(), 1);
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    raise_fd_limit();

    doca_dev *dev = open_dev("03:00.0");
    if (!dev)
        fail("open the DPU device", DOCA_ERROR_NOT_FOUND);
    uint32_t max_clients = 0, max_queue = 0;
    check(doca_comch_cap_get_max_clients(doca_dev_as_devinfo(dev), &max_clients), "max clients");
    check(doca_comch_cap_get_max_recv_queue_size(doca_dev_as_devinfo(dev), &max_queue),
          "max recv queue");
    doca_dev_close(dev);
    // The client process holds about 3 descriptors per connection.
    uint32_t fit = max_clients;
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < uint64_t(fit) * 4 + 64)
        fit = uint32_t((rl.rlim_cur - 64) / 4);

    print_context("comch_scale");
    std::printf("# mode %s; the device allows %u clients, RLIMIT_NOFILE %u\n", mode_name(mode),
                max_clients, fit);

    // Rate: the baseline next to the API (the machine drifts between seconds), median of `reps`.
    // Ring slots are as large as the largest message (4 KiB), so a deep queue spreads 64-byte
    // messages over many lines; the depth made no consistent difference (16 .. 1024).
    const uint32_t queue = std::min<uint32_t>(max_queue, 64);
    const int reps = by_mode(mode, 1, 1, 3);
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::vector<double> spin;
    for (uint32_t len : {64u, 4080u}) {
        g_msg_len = len;
        const uint64_t total = len == 64 ? by_mode<uint64_t>(mode, 20000, 2000000, 10000000)
                                         : by_mode<uint64_t>(mode, 5000, 300000, 2000000);
        for (uint32_t conns : {1u, 8u}) {
            std::vector<double> api;
            for (int r = 0; r < reps; ++r) {
                // The baseline before and after the API run, the better of the two (a slow
                // moment only ever makes a spin run slower).
                double before = 0;
                if (len == 64 && conns == 1)
                    before = spin_rate(total / 2, queue);
                api.push_back(measure_rate(total / conns, conns, queue, queue));
                if (len == 64 && conns == 1)
                    spin.push_back(std::max(before, spin_rate(total / 2, queue)));
            }
            record r =
                rec("ctrl_rate_" + size_name(len) + "_" + std::to_string(conns) + "conn",
                    median(api), "Mmsg/s", "ctrl_rate", len, std::to_string(conns) + " conn");
            r.better = "higher";
            if (len == 64) {
                r.baseline = "base_spin_rate_64B";
                r.baseline_value = median(spin);
            }
            if (len == 64 && conns == 1) {
                record b =
                    rec("base_spin_rate_64B", median(spin), "Mmsg/s", "ctrl_rate", 64, "spin ring");
                b.better = "higher";
                b.subject = "spin_ring";
                emit(b);
            }
            emit(r);
        }
    }

    // Scaling: a fresh client process per N, connecting N clients to the one server; the server
    // measures its progress cost and footprint while they idle.
    start_server(64);
    const double batch_s = by_mode(mode, 0.002, 0.02, 0.1);
    footprint with_one{}, with_many{};
    uint32_t many = 0;
    double idle_one = 0;
    for (uint32_t n : {1u, 64u, 512u}) {
        const std::string tag = std::to_string(n) + "conn";
        if (n > max_clients || n > fit) {
            const std::string why =
                n > max_clients ? "the device allows " + std::to_string(max_clients) + " clients"
                                : "RLIMIT_NOFILE allows " + std::to_string(fit) + " clients";
            emit_unavailable("scale_connect_" + tag + "_ms", why);
            emit_unavailable("scale_progress_idle_" + tag + "_ns", why);
            continue;
        }
        int report[2], quit[2];
        if (pipe(report) != 0 || pipe(quit) != 0)
            return 1;
        std::fflush(stdout);
        const pid_t pid = fork();
        if (pid == 0) {
            close(report[0]);
            close(quit[1]);
            pin_to_cpu(online_cpus() < 2 ? 0 : 1);
            _exit(run_idle_clients(n, report[1], quit[0]));
        }
        close(report[1]);
        close(quit[0]);
        pin_to_cpu(0);
        // The server progresses (it accepts the connections) until the clients say they run.
        uint64_t connect_ns = 0;
        bool reported = false;
        spin_bound bound("comch_scale connect", 120);
        while (!reported || srv.conns.size() < n) {
            doca_pe_progress(srv.pe);
            bound.tick();
            pollfd p{report[0], POLLIN, 0};
            if (!reported && poll(&p, 1, 0) == 1) {
                if (read(report[0], &connect_ns, sizeof connect_ns) != sizeof connect_ns) {
                    std::fprintf(stderr, "comch_scale: the client process failed\n");
                    return 1;
                }
                reported = true;
            }
        }
        const double idle = progress_ns(batch_s);
        if (n == 1) {
            idle_one = idle;
            with_one = read_footprint();
        } else {
            many = n;
            with_many = read_footprint();
        }
        if (write(quit[1], "q", 1) != 1)
            return 1;
        int status = 0;
        while (waitpid(pid, &status, WNOHANG) == 0 || !srv.conns.empty()) {
            doca_pe_progress(srv.pe);
            bound.tick();
        }
        close(report[0]);
        close(quit[1]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "comch_scale: the client process failed (status %d)\n", status);
            return 1;
        }
        emit(rec("scale_connect_" + tag + "_ms", double(connect_ns) / 1e6, "ms", "scale", 0,
                 std::to_string(n) + " clients"));
        record r = rec("scale_progress_idle_" + tag + "_ns", idle, "ns", "scale", 0,
                       std::to_string(n) + " idle");
        if (n > 1) {
            r.baseline = "scale_progress_idle_1conn_ns";
            r.baseline_value = idle_one;
        }
        emit(r);
    }
    stop_server();
    if (many > 1) {
        const double k = double(many - 1);
        emit(rec("scale_shm_per_conn_KiB",
                 double(with_many.memfd_bytes - with_one.memfd_bytes) / k / 1024.0, "KiB", "scale",
                 0, "server side"));
        emit(rec("scale_fds_per_conn", double(with_many.fds - with_one.fds) / k, "count", "scale",
                 0, "server side"));
    } else {
        emit_unavailable("scale_shm_per_conn_KiB", "fewer than 2 connections were possible");
        emit_unavailable("scale_fds_per_conn", "fewer than 2 connections were possible");
    }
    return 0;
}
