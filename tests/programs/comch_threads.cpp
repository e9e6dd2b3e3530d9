// SPDX-License-Identifier: Apache-2.0
//
// Hundreds of client threads in one host process, the way a Comch scalability experiment writes
// them: every thread has its own doca_dev, doca_pe and doca_comch_client and sleeps in epoll on
// its engine's notification handle (NVIDIA's pe_event sequence: progress until 0, request,
// epoll_wait, clear with handle 0). One DPU-side server (a forked process, polling or sleeping
// in epoll the same way) echoes every message. Each thread sends its messages (sequence number
// + checksum, all checked on the way back), then stops its client; the server counts the
// disconnects.
//
// Measured in the same run, against a baseline of the same shape without DOCA (N threads, each
// connecting a Unix SEQPACKET socket to an epoll server process and doing one round trip):
//   connect_all   time from releasing the threads until the last client is RUNNING
//   exchange_all  time until every thread has all its echoes
//   shm_per_conn  shared memory the server maps per connection (memfd mappings / N)
//   fds_per_conn  descriptors the server holds per connection
//   client_rss    peak resident memory of this (host) process
// Output: `name,value,unit[,baseline_value,ratio]` lines; exit status 0 only if every client
// connected, every message came back intact, and the server saw every disconnect.
//
// Usage: comch_threads [--clients N (default 512)] [--messages M (16)] [--queue Q (8192)]
//                      [--tasks T (10240)] [--size BYTES (64)] [--server-poll]
//                      [--timeout SECONDS (120)] [--no-baseline]
// Defaults follow the published experiment: receive queue 8192 and 10240 send tasks per context.
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#include <dirent.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "program_util.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
    uint32_t clients = 512;
    uint32_t messages = 16;
    uint32_t queue = 8192;
    uint32_t tasks = 10240;
    uint32_t size = 64;
    bool server_poll = false;
    int timeout_s = 120;
    bool baseline = true;
};

constexpr const char *k_server_name = "comch-threads";
constexpr uint32_t k_hdr = sc_prog::k_msg_header;

[[noreturn]] void die(const char *what, doca_error_t rc)
{
    sc_prog::die("comch_threads", what, rc);
}

void check(doca_error_t rc, const char *what)
{
    if (rc != DOCA_SUCCESS)
        die(what, rc);
}

using sc_prog::open_dev;
using sc_prog::open_rep;

int epoll_on(doca_pe *pe)
{
    int ep = sc_prog::epoll_on(pe);
    if (ep < 0) {
        std::perror("comch_threads: epoll");
        std::exit(2);
    }
    return ep;
}

void event_wait(doca_pe *pe, int ep, int timeout_ms, uint64_t *wakeups)
{
    doca_error_t rc = DOCA_SUCCESS;
    sc_prog::event_wait(pe, ep, timeout_ms, wakeups, &rc);
    check(rc, "doca_pe_request/clear_notification");
}

// Sum of the sizes of this process's memfd mappings (the connections' segments), in bytes.
uint64_t memfd_mapped_bytes()
{
    std::ifstream maps("/proc/self/maps");
    std::string line;
    uint64_t total = 0;
    while (std::getline(maps, line)) {
        if (line.find("/memfd:softcomch-seg") == std::string::npos)
            continue;
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2)
            total += hi - lo;
    }
    return total;
}

unsigned open_fds()
{
    unsigned n = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (readdir(d))
            ++n;
        closedir(d);
    }
    return n > 2 ? n - 2 : 0;
}

// ---- server (the forked DPU side) ------------------------------------------------------------

struct server_report {
    uint64_t shm_bytes = 0; // memfd mappings with every client connected
    uint32_t fds_conn = 0;  // descriptors with every client connected, minus before
    uint32_t connects = 0;
    uint32_t disconnects = 0;
    uint64_t echoed = 0;
    uint64_t wakeups = 0;
    uint32_t errors = 0;
};

struct server_state {
    const options *opt = nullptr;
    doca_comch_server *server = nullptr;
    server_report rep;
    unsigned fds_before = 0;
    bool measured = false;
    std::vector<std::pair<doca_comch_connection *, std::vector<uint8_t>>> backlog; // no task free
};

server_state *g_srv = nullptr;

void srv_send(doca_comch_connection *conn, const uint8_t *msg, uint32_t len)
{
    // The message must stay valid until the completion (the receive buffer does not): the task
    // carries a copy in its user data.
    auto *copy = new std::vector<uint8_t>(msg, msg + len);
    doca_comch_task_send *t = nullptr;
    if (doca_comch_server_task_send_alloc_init(g_srv->server, conn, copy->data(), len, &t) !=
        DOCA_SUCCESS) {
        // Every send task in flight: retried from the main loop as completions return them.
        g_srv->backlog.emplace_back(conn, std::move(*copy));
        delete copy;
        return;
    }
    union doca_data ud {};
    ud.ptr = copy;
    doca_task_set_user_data(doca_comch_task_send_as_task(t), ud);
    if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS) {
        ++g_srv->rep.errors;
        delete copy;
        doca_task_free(doca_comch_task_send_as_task(t));
    }
}

void srv_send_done(doca_comch_task_send *t, union doca_data ud, union doca_data)
{
    delete static_cast<std::vector<uint8_t> *>(ud.ptr);
    doca_task_free(doca_comch_task_send_as_task(t));
}

void srv_send_err(doca_comch_task_send *t, union doca_data ud, union doca_data)
{
    delete static_cast<std::vector<uint8_t> *>(ud.ptr);
    doca_task_free(doca_comch_task_send_as_task(t));
}

void srv_recv(doca_comch_event_msg_recv *, uint8_t *msg, uint32_t len, doca_comch_connection *conn)
{
    ++g_srv->rep.echoed;
    srv_send(conn, msg, len);
}

void srv_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t ok)
{
    if (ok)
        ++g_srv->rep.connects;
    if (g_srv->rep.connects == g_srv->opt->clients && !g_srv->measured) {
        g_srv->measured = true;
        g_srv->rep.shm_bytes = memfd_mapped_bytes();
        unsigned now = open_fds();
        g_srv->rep.fds_conn = now > g_srv->fds_before ? now - g_srv->fds_before : 0;
    }
}

void srv_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                    uint8_t)
{
    ++g_srv->rep.disconnects;
    auto &b = g_srv->backlog;
    b.erase(std::remove_if(b.begin(), b.end(), [&](const auto &e) { return e.first == conn; }),
            b.end());
}

int run_server(const options &opt, int ready_fd, int report_fd)
{
    server_state st;
    st.opt = &opt;
    g_srv = &st;
    doca_dev *dev = open_dev("03:00.0");
    if (!dev)
        die("open 03:00.0", DOCA_ERROR_NOT_FOUND);
    doca_dev_rep *rep = open_rep(dev, "b1:00.0");
    if (!rep)
        die("open representor b1:00.0", DOCA_ERROR_NOT_FOUND);
    doca_pe *pe = nullptr;
    check(doca_pe_create(&pe), "doca_pe_create");
    check(doca_comch_server_create(dev, rep, k_server_name, &st.server),
          "doca_comch_server_create");
    doca_ctx *ctx = doca_comch_server_as_ctx(st.server);
    check(doca_pe_connect_ctx(pe, ctx), "doca_pe_connect_ctx");
    check(doca_comch_server_set_max_msg_size(st.server, 4080), "set_max_msg_size");
    check(doca_comch_server_set_recv_queue_size(st.server, opt.queue), "set_recv_queue_size");
    check(doca_comch_server_task_send_set_conf(st.server, srv_send_done, srv_send_err, opt.tasks),
          "task_send_set_conf");
    check(doca_comch_server_event_msg_recv_register(st.server, srv_recv),
          "event_msg_recv_register");
    check(doca_comch_server_event_connection_status_changed_register(st.server, srv_connect,
                                                                     srv_disconnect),
          "event_connection_status_changed_register");
    st.fds_before = open_fds();
    check(doca_ctx_start(ctx), "doca_ctx_start (server)");
    int ep = epoll_on(pe);
    char one = 1;
    if (write(ready_fd, &one, 1) != 1)
        return 2;
    close(ready_fd);
    const auto deadline = clock_type::now() + std::chrono::seconds(opt.timeout_s);
    while (st.rep.disconnects < opt.clients && clock_type::now() < deadline) {
        while (doca_pe_progress(pe)) {
        }
        // Replies that found every send task in use: retry as tasks come back.
        if (!st.backlog.empty()) {
            auto pending = std::move(st.backlog);
            st.backlog.clear();
            for (auto &[conn, msg] : pending)
                srv_send(conn, msg.data(), uint32_t(msg.size()));
            continue;
        }
        if (!opt.server_poll)
            event_wait(pe, ep, 100, &st.rep.wakeups);
    }
    if (write(report_fd, &st.rep, sizeof st.rep) != sizeof st.rep)
        return 2;
    close(report_fd);
    doca_ctx_stop(ctx);
    doca_ctx_states s = DOCA_CTX_STATE_STOPPING;
    while (s != DOCA_CTX_STATE_IDLE && clock_type::now() < deadline + std::chrono::seconds(10)) {
        doca_pe_progress(pe);
        doca_ctx_get_state(ctx, &s);
    }
    doca_comch_server_destroy(st.server);
    doca_pe_destroy(pe);
    doca_dev_rep_close(rep);
    doca_dev_close(dev);
    close(ep);
    return st.rep.disconnects == opt.clients && st.rep.errors == 0 ? 0 : 1;
}

// ---- clients (threads of this process) -------------------------------------------------------

struct client_result {
    bool running = false;
    bool exchanged = false;
    bool idle = false;
    uint32_t bad = 0;
    uint64_t wakeups = 0;
    clock_type::time_point running_at{};
    clock_type::time_point done_at{};
    std::string error;
};

struct client_thread {
    const options *opt = nullptr;
    uint32_t index = 0;
    client_result res;
    doca_comch_client *client = nullptr;
    doca_comch_connection *conn = nullptr;
    uint64_t next_expected = 0;
    uint64_t sent = 0;
    std::vector<std::vector<uint8_t>> in_flight; // messages referenced by send tasks
};

void cli_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void cli_send_err(doca_comch_task_send *t, union doca_data, union doca_data ctx_ud)
{
    auto *self = static_cast<client_thread *>(ctx_ud.ptr);
    self->res.error = "a send failed";
    doca_task_free(doca_comch_task_send_as_task(t));
}

void cli_recv(doca_comch_event_msg_recv *, uint8_t *msg, uint32_t len, doca_comch_connection *conn)
{
    doca_comch_client *c = doca_comch_client_get_client_ctx(conn);
    union doca_data ud {};
    doca_ctx_get_user_data(doca_comch_client_as_ctx(c), &ud);
    auto *self = static_cast<client_thread *>(ud.ptr);
    if (len != self->opt->size || !sc_prog::check_msg(msg, len, self->next_expected, self->index))
        ++self->res.bad;
    ++self->next_expected;
}

void cli_state(const union doca_data ud, doca_ctx *, doca_ctx_states, doca_ctx_states next)
{
    auto *self = static_cast<client_thread *>(ud.ptr);
    if (next == DOCA_CTX_STATE_RUNNING) {
        self->res.running = true;
        self->res.running_at = clock_type::now();
    } else if (next == DOCA_CTX_STATE_IDLE) {
        self->res.idle = true;
    }
}

// Clients hold their connections until every one of them is RUNNING (so the server's footprint
// is measured with all of them connected), then exchange: the last one to connect writes this
// eventfd, which is in every client's epoll set (never drained: it stays readable).
std::atomic<uint32_t> g_connected{0};
int g_all_connected_fd = -1;

struct start_gate {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    uint32_t waiting = 0;
};

void run_client(client_thread &ct, start_gate &gate, clock_type::time_point deadline)
{
    const options &opt = *ct.opt;
    auto fail = [&](const std::string &why) {
        if (ct.res.error.empty())
            ct.res.error = why;
    };
    doca_dev *dev = open_dev("b1:00.0");
    doca_pe *pe = nullptr;
    if (!dev || doca_pe_create(&pe) != DOCA_SUCCESS ||
        doca_comch_client_create(dev, k_server_name, &ct.client) != DOCA_SUCCESS) {
        fail("set-up failed");
        std::unique_lock<std::mutex> g(gate.mu);
        ++gate.waiting;
        gate.cv.notify_all();
        return;
    }
    doca_ctx *ctx = doca_comch_client_as_ctx(ct.client);
    union doca_data ud {};
    ud.ptr = &ct;
    bool ok = doca_pe_connect_ctx(pe, ctx) == DOCA_SUCCESS &&
              doca_ctx_set_user_data(ctx, ud) == DOCA_SUCCESS &&
              doca_ctx_set_state_changed_cb(ctx, cli_state) == DOCA_SUCCESS &&
              doca_comch_client_set_max_msg_size(ct.client, 4080) == DOCA_SUCCESS &&
              doca_comch_client_set_recv_queue_size(ct.client, opt.queue) == DOCA_SUCCESS &&
              doca_comch_client_task_send_set_conf(ct.client, cli_send_done, cli_send_err,
                                                   opt.tasks) == DOCA_SUCCESS &&
              doca_comch_client_event_msg_recv_register(ct.client, cli_recv) == DOCA_SUCCESS;
    int ep = epoll_on(pe);
    epoll_event all{};
    all.events = EPOLLIN;
    epoll_ctl(ep, EPOLL_CTL_ADD, g_all_connected_fd, &all);
    {
        std::unique_lock<std::mutex> g(gate.mu);
        ++gate.waiting;
        gate.cv.notify_all();
        gate.cv.wait(g, [&] { return gate.open; });
    }
    if (ok && doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
        ok = false;
    if (!ok)
        fail("configuration or start failed");
    // Connect, exchange, stop: all driven from the event loop.
    ct.in_flight.reserve(opt.messages);
    bool stopping = false;
    bool released = false; // every client connected: the eventfd left this thread's epoll set
    while (ok && !ct.res.idle && clock_type::now() < deadline) {
        while (doca_pe_progress(pe)) {
        }
        if (ct.res.running && !ct.conn) {
            if (doca_comch_client_get_connection(ct.client, &ct.conn) != DOCA_SUCCESS) {
                fail("no connection once RUNNING");
                break;
            }
            if (g_connected.fetch_add(1) + 1 == opt.clients) {
                const uint64_t one = 1;
                if (write(g_all_connected_fd, &one, sizeof one) != sizeof one)
                    fail("eventfd write");
            }
        }
        const bool go = g_connected.load() == opt.clients;
        if (go && !released) {
            epoll_ctl(ep, EPOLL_CTL_DEL, g_all_connected_fd, nullptr);
            released = true;
        }
        while (go && ct.conn && ct.sent < opt.messages && !stopping) {
            if (ct.in_flight.size() <= ct.sent)
                ct.in_flight.emplace_back(opt.size);
            std::vector<uint8_t> &m = ct.in_flight[ct.sent];
            sc_prog::fill_msg(m.data(), opt.size, ct.sent, ct.index);
            doca_comch_task_send *t = nullptr;
            doca_error_t rc =
                doca_comch_client_task_send_alloc_init(ct.client, ct.conn, m.data(), opt.size, &t);
            if (rc == DOCA_ERROR_NO_MEMORY)
                break; // every task in flight: progress gives them back
            if (rc != DOCA_SUCCESS ||
                doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS) {
                fail("send failed");
                break;
            }
            ++ct.sent;
        }
        if (!stopping && ct.conn && ct.next_expected == opt.messages) {
            ct.res.exchanged = true;
            ct.res.done_at = clock_type::now();
            stopping = true;
            doca_error_t rc = doca_ctx_stop(ctx);
            if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
                fail("stop failed");
            continue;
        }
        if (!ct.res.idle)
            event_wait(pe, ep, 1000, &ct.res.wakeups);
    }
    if (!ct.res.idle)
        fail(ct.res.running ? "did not finish in time" : "did not connect in time");
    if (ct.res.bad)
        fail("corrupt or out-of-order echoes");
    close(ep);
    if (ct.res.idle) {
        doca_comch_client_destroy(ct.client);
        doca_pe_destroy(pe);
        doca_dev_close(dev);
    }
}

// ---- baseline: the same shape without DOCA ---------------------------------------------------

// N threads, each: connect a SEQPACKET socket to an epoll server process, send 64 bytes, read
// the echo. Returns the wall time in ms from the release of the threads to the last echo.
double baseline_connect_all(uint32_t n, const std::string &dir)
{
    std::string path = dir + "/baseline.sock";
    unlink(path.c_str());
    int ls = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path.c_str());
    if (ls < 0 || bind(ls, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 ||
        listen(ls, SOMAXCONN) != 0) {
        std::perror("comch_threads: baseline listen");
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int ep = epoll_create1(0);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = ls;
        epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
        uint32_t done = 0;
        while (done < n) {
            epoll_event evs[64];
            int k = epoll_wait(ep, evs, 64, 10000);
            if (k <= 0)
                _exit(1);
            for (int i = 0; i < k; ++i) {
                if (evs[i].data.fd == ls) {
                    int c;
                    while ((c = accept4(ls, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                        epoll_event ce{};
                        ce.events = EPOLLIN;
                        ce.data.fd = c;
                        epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
                    }
                    continue;
                }
                char buf[64];
                ssize_t r = recv(evs[i].data.fd, buf, sizeof buf, 0);
                if (r > 0 && send(evs[i].data.fd, buf, size_t(r), MSG_NOSIGNAL) == r)
                    ++done;
                close(evs[i].data.fd);
            }
        }
        _exit(0);
    }
    close(ls);
    std::vector<std::thread> th;
    start_gate gate;
    std::atomic<uint32_t> ok{0};
    for (uint32_t i = 0; i < n; ++i)
        th.emplace_back([&] {
            {
                std::unique_lock<std::mutex> g(gate.mu);
                ++gate.waiting;
                gate.cv.notify_all();
                gate.cv.wait(g, [&] { return gate.open; });
            }
            int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
            for (int tries = 0; tries < 1000; ++tries) {
                if (connect(s, reinterpret_cast<const sockaddr *>(&sa), sizeof sa) == 0)
                    break;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            char buf[64] = {1};
            if (send(s, buf, sizeof buf, MSG_NOSIGNAL) == 64 && recv(s, buf, sizeof buf, 0) == 64)
                ok.fetch_add(1);
            close(s);
        });
    {
        std::unique_lock<std::mutex> g(gate.mu);
        gate.cv.wait(g, [&] { return gate.waiting == n; });
    }
    auto t0 = clock_type::now();
    {
        std::lock_guard<std::mutex> g(gate.mu);
        gate.open = true;
    }
    gate.cv.notify_all();
    for (auto &t : th)
        t.join();
    auto t1 = clock_type::now();
    int status = 0;
    waitpid(pid, &status, 0);
    unlink(path.c_str());
    if (ok.load() != n)
        return -1;
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

void usage()
{
    std::fprintf(
        stderr,
        "usage: comch_threads [--clients N] [--messages M] [--queue Q] [--tasks T] [--size BYTES]\n"
        "                     [--server-poll] [--timeout SECONDS] [--no-baseline]\n");
    std::exit(2);
}

uint32_t arg_u32(int &i, int argc, char **argv)
{
    if (i + 1 >= argc)
        usage();
    char *end = nullptr;
    unsigned long v = std::strtoul(argv[++i], &end, 10);
    if (!end || *end || v == 0 || v > 1000000)
        usage();
    return uint32_t(v);
}

} // namespace

int main(int argc, char **argv)
{
    options opt;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--clients")
            opt.clients = arg_u32(i, argc, argv);
        else if (a == "--messages")
            opt.messages = arg_u32(i, argc, argv);
        else if (a == "--queue")
            opt.queue = arg_u32(i, argc, argv);
        else if (a == "--tasks")
            opt.tasks = arg_u32(i, argc, argv);
        else if (a == "--size")
            opt.size = arg_u32(i, argc, argv);
        else if (a == "--server-poll")
            opt.server_poll = true;
        else if (a == "--timeout")
            opt.timeout_s = int(arg_u32(i, argc, argv));
        else if (a == "--no-baseline")
            opt.baseline = false;
        else
            usage();
    }
    if (opt.size < k_hdr || opt.size > 4080)
        usage();
    sc_prog::raise_fd_limit();
    sc_prog::use_private_fabric("comch-threads");
    std::string tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

    double base_ms = -1;
    if (opt.baseline)
        base_ms = baseline_connect_all(opt.clients, tmp);

    int report_fd = -1;
    pid_t srv = sc_prog::fork_server(
        [&](int ready, int report) { return run_server(opt, ready, report); }, &report_fd);
    if (srv < 0) {
        std::fprintf(stderr, "comch_threads: the server did not start\n");
        return 2;
    }

    const auto deadline = clock_type::now() + std::chrono::seconds(opt.timeout_s);
    g_all_connected_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    std::vector<client_thread> cts(opt.clients);
    start_gate gate;
    std::vector<std::thread> threads;
    threads.reserve(opt.clients);
    for (uint32_t i = 0; i < opt.clients; ++i) {
        cts[i].opt = &opt;
        cts[i].index = i;
        threads.emplace_back([&, i] { run_client(cts[i], gate, deadline); });
    }
    {
        std::unique_lock<std::mutex> g(gate.mu);
        gate.cv.wait(g, [&] { return gate.waiting == opt.clients; });
    }
    const auto t0 = clock_type::now();
    {
        std::lock_guard<std::mutex> g(gate.mu);
        gate.open = true;
    }
    gate.cv.notify_all();
    for (auto &t : threads)
        t.join();

    server_report sr;
    bool have_report = read(report_fd, &sr, sizeof sr) == sizeof sr;
    int status = 0;
    waitpid(srv, &status, 0);

    uint32_t connected = 0, exchanged = 0, idle = 0;
    clock_type::time_point last_running = t0, last_done = t0;
    uint64_t wakeups = 0;
    for (auto &ct : cts) {
        if (ct.res.running) {
            ++connected;
            last_running = std::max(last_running, ct.res.running_at);
        }
        if (ct.res.exchanged) {
            ++exchanged;
            last_done = std::max(last_done, ct.res.done_at);
        }
        if (ct.res.idle)
            ++idle;
        wakeups += ct.res.wakeups;
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    auto ms = [&](clock_type::time_point t) {
        return std::chrono::duration<double, std::milli>(t - t0).count();
    };

    std::printf("# comch_threads: %u client threads, %u messages of %u B each, queue %u, %u send "
                "tasks; server %s\n",
                opt.clients, opt.messages, opt.size, opt.queue, opt.tasks,
                opt.server_poll ? "polling" : "epoll");
    std::printf("# name,value,unit[,baseline_value,ratio]\n");
    if (base_ms > 0)
        std::printf("connect_all,%.1f,ms,%.1f,%.2f\n", ms(last_running), base_ms,
                    ms(last_running) / base_ms);
    else
        std::printf("connect_all,%.1f,ms\n", ms(last_running));
    std::printf("exchange_all,%.1f,ms\n", ms(last_done));
    std::printf("clients_connected,%u,of %u\n", connected, opt.clients);
    std::printf("clients_exchanged,%u,of %u\n", exchanged, opt.clients);
    std::printf("clients_idle,%u,of %u\n", idle, opt.clients);
    std::printf("client_rss_peak,%.1f,MiB\n", double(ru.ru_maxrss) / 1024.0);
    std::printf("client_wakeups_per_client,%.1f,wakeups\n", double(wakeups) / opt.clients);
    if (have_report) {
        std::printf("shm_per_conn,%.1f,KiB\n", double(sr.shm_bytes) / opt.clients / 1024.0);
        std::printf("fds_per_conn,%.2f,fds\n", double(sr.fds_conn) / opt.clients);
        std::printf("server_connects,%u,of %u\n", sr.connects, opt.clients);
        std::printf("server_disconnects,%u,of %u\n", sr.disconnects, opt.clients);
        std::printf("server_echoed,%llu,of %llu\n", (unsigned long long)sr.echoed,
                    (unsigned long long)opt.clients * opt.messages);
    }
    bool ok = connected == opt.clients && exchanged == opt.clients && idle == opt.clients &&
              have_report && sr.disconnects == opt.clients && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0;
    for (auto &ct : cts)
        if (!ct.res.error.empty()) {
            std::fprintf(stderr, "comch_threads: client %u: %s\n", ct.index, ct.res.error.c_str());
            ok = false;
            break;
        }
    std::printf("result,%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
