// SPDX-License-Identifier: Apache-2.0
//
// The control path's rate and scale through the public API, with the baselines of the same run:
//
//   rate       64-byte messages one way on one connection: a client (forked, CPU 1) sends as
//              fast as its send tasks allow, the server (this process, CPU 0) checks every
//              sequence number. Baseline: spin_rate, a shared ring of one-line slots between two
//              pinned processes, copy in and out (the limit for a one-way rate).
//   idle       what one doca_pe_progress call of the server costs with 1 and with N connected,
//              idle clients (target: N = 512 costs at most 2x one).
//   footprint  what one connection costs the server: memfd-backed shared memory (its rings) and
//              file descriptors, from /proc/self/maps and /proc/self/fd.
//
// Output: `name,value,unit[,ratio]` per line.
// Usage: comch_scale [messages for the rate (default 10000000)] [clients (default: the
//        smaller of 512 and the device's maximum)] [receive queue size and send tasks
//        for the rate (default 64)]
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
#include "bench_util.hpp"

using namespace softcomch::bench;

namespace {

constexpr const char *k_name = "comch_scale_bench";
constexpr uint32_t k_msg = 64;

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
    do {
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
} srv;

void srv_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void srv_recv(doca_comch_event_msg_recv *, uint8_t *buf, uint32_t len, doca_comch_connection *)
{
    uint64_t seq = ~uint64_t(0);
    if (len == k_msg)
        std::memcpy(&seq, buf, sizeof seq);
    if (seq != srv.received)
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
    std::vector<uint8_t> msgs;      // one 64-byte message per send task, kept until completion
    std::vector<uint32_t> free_msg; // indices of messages not in flight
    bool done = false;
} cli;

void cli_send_done(doca_comch_task_send *t, union doca_data user, union doca_data)
{
    cli.free_msg.push_back(uint32_t(user.u64));
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

// Sends `count` numbered messages as fast as the send tasks allow, then waits for "done".
int run_sender(uint64_t count, uint32_t send_tasks)
{
    open_client_device();
    doca_comch_client *c = add_client(send_tasks);
    wait_state(cli.pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_RUNNING);
    doca_comch_connection *conn = nullptr;
    check(doca_comch_client_get_connection(c, &conn), "connection");
    cli.msgs.assign(size_t(send_tasks) * k_msg, 0x5a);
    for (uint32_t i = 0; i < send_tasks; ++i)
        cli.free_msg.push_back(i);
    for (uint64_t seq = 0; seq < count;) {
        if (cli.free_msg.empty()) {
            doca_pe_progress(cli.pe);
            continue;
        }
        const uint32_t m = cli.free_msg.back();
        uint8_t *msg = &cli.msgs[size_t(m) * k_msg];
        std::memcpy(msg, &seq, sizeof seq);
        doca_comch_task_send *t = nullptr;
        doca_error_t rc = doca_comch_client_task_send_alloc_init(c, conn, msg, k_msg, &t);
        if (rc == DOCA_ERROR_NO_MEMORY) {
            doca_pe_progress(cli.pe);
            continue;
        }
        check(rc, "send alloc");
        union doca_data user;
        user.u64 = m;
        doca_task_set_user_data(doca_comch_task_send_as_task(t), user);
        cli.free_msg.pop_back();
        check(doca_task_submit(doca_comch_task_send_as_task(t)), "send submit");
        ++seq;
    }
    while (!cli.done)
        doca_pe_progress(cli.pe);
    doca_ctx_stop(doca_comch_client_as_ctx(c));
    wait_state(cli.pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_IDLE);
    return 0;
}

// Connects `first` clients, reports, connects up to `total`, reports, waits for the word to quit.
int run_idle_clients(uint32_t first, uint32_t total, int report_fd, int quit_fd)
{
    raise_fd_limit();
    open_client_device();
    auto connect_up_to = [](uint32_t n) {
        while (cli.clients.size() < n)
            add_client(4);
        for (doca_comch_client *c : cli.clients)
            wait_state(cli.pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_RUNNING);
    };
    char byte = 'r';
    connect_up_to(first);
    if (write(report_fd, &byte, 1) != 1)
        return 2;
    if (read(quit_fd, &byte, 1) != 1) // the server measured: go on
        return 3;
    connect_up_to(total);
    if (write(report_fd, &byte, 1) != 1)
        return 2;
    if (read(quit_fd, &byte, 1) != 1) // then idle until told to quit (or the server is gone)
        return 0;
    for (doca_comch_client *c : cli.clients)
        doca_ctx_stop(doca_comch_client_as_ctx(c));
    for (doca_comch_client *c : cli.clients)
        wait_state(cli.pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_IDLE);
    return 0;
}

// ---- measurements ----

double measure_rate(uint64_t count, uint32_t recv_queue, uint32_t send_tasks)
{
    start_server(recv_queue);
    srv.expected = count;
    std::fflush(stdout);
    const bool single = online_cpus() < 2;
    const pid_t pid = fork();
    if (pid == 0) {
        pin_to_cpu(single ? 0 : 1);
        _exit(run_sender(count, send_tasks));
    }
    pin_to_cpu(0);
    while (srv.received < count || srv.conns.empty())
        doca_pe_progress(srv.pe);
    server_send(srv.conns.front(), "done");
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0)
        doca_pe_progress(srv.pe);
    if (srv.bad != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "comch_scale: %lu messages out of sequence, sender status %d\n",
                     (unsigned long)srv.bad, status);
        std::exit(1);
    }
    const double rate = double(count - 1) / (double(srv.t1 - srv.t0) / ticks_per_us());
    stop_server();
    return rate;
}

// Nanoseconds per doca_pe_progress call of the server, median of 5 batches of `calls`.
double progress_ns(uint64_t calls)
{
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

} // namespace

int main(int argc, char **argv)
{
    const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
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
    // 512 idle connections is the target's figure (performance.md); the device allows more.
    uint32_t clients = argc > 2 ? uint32_t(std::strtoul(argv[2], nullptr, 10))
                                : std::min<uint32_t>(512, max_clients);
    // The client process holds about 3 descriptors per connection.
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        clients * 4 + 64 > rl.rlim_cur) {
        const uint32_t fit = uint32_t((rl.rlim_cur - 64) / 4);
        std::printf("# RLIMIT_NOFILE %lu allows %u clients, not %u\n", (unsigned long)rl.rlim_cur,
                    fit, clients);
        clients = fit;
    }
    if (clients < 2 || clients > max_clients) {
        std::fprintf(stderr, "comch_scale: clients must be 2..%u\n", max_clients);
        return 2;
    }

    print_context("comch_scale");
    std::printf("# name,value,unit,ratio\n");

    // Rate: the baseline, then the API, interleaved twice; medians would need more runs than
    // this benchmark's budget, so both runs are printed.
    // Ring slots are as large as the largest message (4 KiB), so a deep queue spreads 64-byte
    // messages over many lines. The depth made no consistent difference here: 16, 64, 256 and
    // 1024 all gave 4.6-13.6 M msg/s, in two modes (~5 and ~10-13) whatever the depth.
    const uint32_t queue =
        std::min<uint32_t>(max_queue, argc > 3 ? uint32_t(std::strtoul(argv[3], nullptr, 10)) : 64);
    for (int r = 0; r < 2; ++r) {
        const double base = spin_rate(count, queue);
        const double api = measure_rate(count, queue, queue);
        std::printf("spin_rate_64B,%.1f,M msg/s\n", base);
        std::printf("comch_rate_64B,%.1f,M msg/s,%.2f\n", api, api / base);
        std::fflush(stdout);
    }

    // Idle connections: progress cost with 1, then `clients` connections.
    start_server(64);
    const footprint none = read_footprint();
    int report[2], quit[2];
    if (pipe(report) != 0 || pipe(quit) != 0)
        return 1;
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        close(report[0]);
        close(quit[1]);
        pin_to_cpu(online_cpus() < 2 ? 0 : 1);
        _exit(run_idle_clients(1, clients, report[1], quit[0]));
    }
    close(report[1]);
    close(quit[0]);
    pin_to_cpu(0);
    // The server progresses (it accepts the connections) until the clients say they run.
    auto wait_for = [&](size_t n) {
        bool reported = false;
        while (!reported || srv.conns.size() < n) {
            doca_pe_progress(srv.pe);
            pollfd p{report[0], POLLIN, 0};
            if (!reported && poll(&p, 1, 0) == 1) {
                char byte;
                if (read(report[0], &byte, 1) != 1) {
                    std::fprintf(stderr, "comch_scale: the client process failed\n");
                    std::exit(1);
                }
                reported = true;
            }
        }
    };
    wait_for(1);
    const double one = progress_ns(200000);
    const footprint with_one = read_footprint();
    if (write(quit[1], "g", 1) != 1)
        return 1;
    wait_for(clients);
    const double many = progress_ns(200000);
    const footprint with_many = read_footprint();
    if (write(quit[1], "q", 1) != 1)
        return 1;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0)
        doca_pe_progress(srv.pe);
    stop_server();

    std::printf("progress_1_connection,%.1f,ns/call\n", one);
    std::printf("progress_%u_connections,%.1f,ns/call,%.2f\n", clients, many, many / one);
    const double n = double(clients - 1);
    std::printf("server_shm_per_connection,%.0f,bytes\n",
                double(with_many.memfd_bytes - with_one.memfd_bytes) / n);
    std::printf("server_fds_per_connection,%.2f,fds\n", double(with_many.fds - with_one.fds) / n);
    std::printf("server_shm_listening,%lu,bytes\n", (unsigned long)none.memfd_bytes);
    return 0;
}
