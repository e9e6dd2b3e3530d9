// SPDX-License-Identifier: Apache-2.0
//
// Test harness over the PUBLIC API only (include/): small C++ wrappers around a Comch server or
// client with its own progress engine, plus helpers to run one side in a forked child process.
// Used by the API and integration tests; nothing here touches SoftComch internals.
#pragma once

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#include <sys/epoll.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "device_lookup.hpp"

namespace sc_test {

using clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// ---- devices ----

using sc_devices::open_dev;
using sc_devices::open_rep;

// ---- a side: server or client with its own progress engine ----

struct message {
    doca_comch_connection *conn;
    std::string data;
};

class side {
public:
    virtual ~side() = default;

    doca_pe *pe() const { return pe_; }
    doca_ctx *ctx() const { return ctx_; }
    doca_ctx_states state() const
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        doca_ctx_get_state(ctx_, &s);
        return s;
    }

    // Progresses (polling or epoll mode) until `pred` holds or `timeout` passes.
    bool progress_until(const std::function<bool()> &pred,
                        std::chrono::milliseconds timeout = 5000ms)
    {
        auto end = clock::now() + timeout;
        while (!pred()) {
            if (clock::now() > end)
                return false;
            if (epoll_mode_)
                wait_event(5);
            else if (doca_pe_progress(pe_) == 0)
                std::this_thread::sleep_for(5us);
        }
        return true;
    }

    void progress_for(std::chrono::milliseconds d)
    {
        auto end = clock::now() + d;
        progress_until([&] { return clock::now() > end; }, d + 1000ms);
    }

    // One epoll round: arm, wait up to `ms`, clear, progress until idle.
    void wait_event(int ms)
    {
        if (epfd_ < 0) {
            doca_notification_handle_t h;
            doca_pe_get_notification_handle(pe_, &h);
            epfd_ = epoll_create1(EPOLL_CLOEXEC);
            epoll_event ev{};
            ev.events = EPOLLIN;
            epoll_ctl(epfd_, EPOLL_CTL_ADD, h, &ev);
            handle_ = h;
        }
        doca_pe_request_notification(pe_);
        epoll_event ev;
        epoll_wait(epfd_, &ev, 1, ms);
        doca_pe_clear_notification(pe_, handle_);
        while (doca_pe_progress(pe_)) {
        }
    }

    void set_epoll_mode(bool on) { epoll_mode_ = on; }

    // Sends a message on `conn` (allocating a task; retries on NO_MEMORY after progress).
    // The task refers to the message, which DOCA may read until the task completes (a send
    // queued behind a full receive queue is written later, from a progress call), so the bytes
    // are copied here and kept until the completion: callers pass temporaries and receive
    // buffers, which are gone or reused by then.
    doca_error_t send(doca_comch_connection *conn, const void *data, uint32_t len)
    {
        std::unique_ptr<char[]> copy;
        if (data != nullptr && len != 0) {
            copy = std::make_unique<char[]>(len);
            std::memcpy(copy.get(), data, len);
        }
        const void *msg = copy ? copy.get() : data;
        doca_comch_task_send *task = nullptr;
        doca_error_t rc;
        auto end = clock::now() + 5s;
        for (;;) {
            rc = alloc_send(conn, msg, len, &task);
            if (rc != DOCA_ERROR_NO_MEMORY || clock::now() > end)
                break;
            doca_pe_progress(pe_);
        }
        if (rc != DOCA_SUCCESS)
            return rc;
        // Kept from here: once submitted, the library may read the message until send_done.
        in_flight_[task] = std::move(copy);
        rc = doca_task_submit(doca_comch_task_send_as_task(task));
        if (rc != DOCA_SUCCESS) {
            in_flight_.erase(task);
            doca_task_free(doca_comch_task_send_as_task(task));
        }
        return rc;
    }
    doca_error_t send(doca_comch_connection *conn, const std::string &s)
    {
        return send(conn, s.data(), uint32_t(s.size()));
    }

    doca_error_t stop_and_wait(std::chrono::milliseconds timeout = 5000ms)
    {
        doca_error_t rc = doca_ctx_stop(ctx_);
        if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
            return rc;
        return progress_until([&] { return state() == DOCA_CTX_STATE_IDLE; }, timeout)
                   ? DOCA_SUCCESS
                   : DOCA_ERROR_TIME_OUT;
    }

    std::deque<message> received;
    size_t send_ok = 0, send_err = 0;
    std::vector<doca_ctx_states> states;
    std::function<void(side &, doca_comch_connection *, const uint8_t *, uint32_t)> on_recv;

protected:
    virtual doca_error_t alloc_send(doca_comch_connection *, const void *, uint32_t,
                                    doca_comch_task_send **) = 0;

    static side *of(doca_ctx *ctx)
    {
        union doca_data d;
        doca_ctx_get_user_data(ctx, &d);
        return static_cast<side *>(d.ptr);
    }

    void attach_common()
    {
        doca_pe_connect_ctx(pe_, ctx_);
        doca_ctx_set_state_changed_cb(
            ctx_, [](const union doca_data ud, doca_ctx *, doca_ctx_states, doca_ctx_states next) {
                static_cast<side *>(ud.ptr)->states.push_back(next);
            });
        union doca_data d;
        d.ptr = this;
        doca_ctx_set_user_data(ctx_, d);
    }

    static void send_done(doca_comch_task_send *task, union doca_data, union doca_data ctx_ud)
    {
        side *s = static_cast<side *>(ctx_ud.ptr);
        if (doca_task_get_status(doca_comch_task_send_as_task(task)) == DOCA_SUCCESS)
            s->send_ok++;
        else
            s->send_err++;
        s->in_flight_.erase(task);
        doca_task_free(doca_comch_task_send_as_task(task));
    }

public:
    void deliver(doca_comch_connection *conn, const uint8_t *buf, uint32_t len)
    {
        if (on_recv)
            on_recv(*this, conn, buf, len);
        else
            received.push_back({conn, std::string(reinterpret_cast<const char *>(buf), len)});
    }

protected:
    doca_pe *pe_ = nullptr;
    doca_ctx *ctx_ = nullptr;
    // The message copies of submitted send tasks, until their completion (see send()).
    std::unordered_map<doca_comch_task_send *, std::unique_ptr<char[]>> in_flight_;
    int epfd_ = -1;
    doca_notification_handle_t handle_ = -1;
    bool epoll_mode_ = false;
};

struct server_options {
    const char *dev_pci = "03:00.0";
    const char *rep_pci = "b1:00.0";
    uint32_t recv_queue_size = 64;
    uint32_t send_tasks = 256;
};

class server : public side {
public:
    explicit server(const std::string &name, server_options o = {})
    {
        dev_ = open_dev(o.dev_pci);
        rep_ = dev_ ? open_rep(dev_, o.rep_pci) : nullptr;
        if (!dev_ || !rep_ || doca_pe_create(&pe_) != DOCA_SUCCESS ||
            doca_comch_server_create(dev_, rep_, name.c_str(), &srv_) != DOCA_SUCCESS) {
            ok_ = false;
            return;
        }
        ctx_ = doca_comch_server_as_ctx(srv_);
        attach_common();
        doca_comch_server_task_send_set_conf(srv_, send_done, send_done, o.send_tasks);
        doca_comch_server_event_msg_recv_register(srv_, [](doca_comch_event_msg_recv *,
                                                           uint8_t *buf, uint32_t len,
                                                           doca_comch_connection *conn) {
            of(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn)))
                ->deliver(conn, buf, len);
        });
        doca_comch_server_event_connection_status_changed_register(
            srv_,
            [](doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
               uint8_t ok) {
                auto *s = static_cast<server *>(
                    of(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn))));
                if (ok)
                    s->connections.push_back(conn);
            },
            [](doca_comch_event_connection_status_changed *, doca_comch_connection *conn, uint8_t) {
                auto *s = static_cast<server *>(
                    of(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn))));
                s->disconnected.push_back(conn);
                std::erase(s->connections, conn);
            });
        doca_comch_server_set_recv_queue_size(srv_, o.recv_queue_size);
    }
    ~server() override
    {
        if (srv_) {
            if (state() != DOCA_CTX_STATE_IDLE)
                stop_and_wait();
            doca_comch_server_destroy(srv_);
        }
        if (pe_)
            doca_pe_destroy(pe_);
        if (rep_)
            doca_dev_rep_close(rep_);
        if (dev_)
            doca_dev_close(dev_);
    }
    bool ok() const { return ok_; }
    doca_comch_server *handle() const { return srv_; }
    doca_error_t start() { return doca_ctx_start(ctx_); }

    std::vector<doca_comch_connection *> connections;
    std::vector<doca_comch_connection *> disconnected;

protected:
    doca_error_t alloc_send(doca_comch_connection *c, const void *d, uint32_t l,
                            doca_comch_task_send **t) override
    {
        return doca_comch_server_task_send_alloc_init(srv_, c, d, l, t);
    }

private:
    bool ok_ = true;
    doca_dev *dev_ = nullptr;
    doca_dev_rep *rep_ = nullptr;
    doca_comch_server *srv_ = nullptr;
};

struct client_options {
    const char *dev_pci = "b1:00.0";
    uint32_t recv_queue_size = 64;
    uint32_t send_tasks = 256;
};

class client : public side {
public:
    explicit client(const std::string &name, client_options o = {})
    {
        dev_ = open_dev(o.dev_pci);
        if (!dev_ || doca_pe_create(&pe_) != DOCA_SUCCESS ||
            doca_comch_client_create(dev_, name.c_str(), &cli_) != DOCA_SUCCESS) {
            ok_ = false;
            return;
        }
        ctx_ = doca_comch_client_as_ctx(cli_);
        attach_common();
        doca_comch_client_task_send_set_conf(cli_, send_done, send_done, o.send_tasks);
        doca_comch_client_event_msg_recv_register(cli_, [](doca_comch_event_msg_recv *,
                                                           uint8_t *buf, uint32_t len,
                                                           doca_comch_connection *conn) {
            of(doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn)))
                ->deliver(conn, buf, len);
        });
        doca_comch_client_set_recv_queue_size(cli_, o.recv_queue_size);
    }
    ~client() override
    {
        if (cli_) {
            if (state() != DOCA_CTX_STATE_IDLE)
                stop_and_wait();
            doca_comch_client_destroy(cli_);
        }
        if (pe_)
            doca_pe_destroy(pe_);
        if (dev_)
            doca_dev_close(dev_);
    }
    bool ok() const { return ok_; }
    doca_comch_client *handle() const { return cli_; }
    doca_error_t start() { return doca_ctx_start(ctx_); }
    bool wait_running(std::chrono::milliseconds t = 5000ms)
    {
        return progress_until([&] { return state() == DOCA_CTX_STATE_RUNNING; }, t);
    }
    doca_comch_connection *connection() const
    {
        doca_comch_connection *c = nullptr;
        doca_comch_client_get_connection(cli_, &c);
        return c;
    }

protected:
    doca_error_t alloc_send(doca_comch_connection *c, const void *d, uint32_t l,
                            doca_comch_task_send **t) override
    {
        return doca_comch_client_task_send_alloc_init(cli_, c, d, l, t);
    }

private:
    bool ok_ = true;
    doca_dev *dev_ = nullptr;
    doca_comch_client *cli_ = nullptr;
};

// ---- child processes ----

// Runs `body` in a forked child; its return value is the exit status. Failures inside the child
// are reported with child_check().
inline pid_t spawn(const std::function<int()> &body)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int rc = 99;
        try {
            rc = body();
        } catch (...) {
            rc = 98;
        }
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    return pid;
}

// Waits for `pid`; kills it after `timeout`. Returns its exit status, or 128+signal, or -1 on
// timeout.
inline int wait_child(pid_t pid, std::chrono::milliseconds timeout = 20000ms)
{
    auto end = clock::now() + timeout;
    for (;;) {
        int st = 0;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (clock::now() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        std::this_thread::sleep_for(1ms);
    }
}

#define CHILD_CHECK(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "child check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
            return __LINE__ % 200 + 1;                                                             \
        }                                                                                          \
    } while (0)

// A unique fabric per test so tests never see each other's servers.
inline void use_private_fabric(const std::string &tag)
{
    std::string clean;
    for (char ch : tag)
        clean += (isalnum((unsigned char)ch) || ch == '.' || ch == '_' || ch == '-') ? ch : '-';
    std::string name = "t-" + clean.substr(0, 40) + "-" + std::to_string(getpid());
    setenv("SOFTCOMCH_FABRIC", name.c_str(), 1);
}

} // namespace sc_test
