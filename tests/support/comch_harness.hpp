// SPDX-License-Identifier: Apache-2.0
//
// Test harness over the PUBLIC API only (include/): small C++ wrappers around a Comch server or
// client with its own progress engine, plus helpers to run one side in a forked child process.
// Used by the API and integration tests; nothing here touches SoftComch internals. The
// definitions are in comch_harness.cpp (the test-support library, tests/support/CMakeLists.txt).
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

#include "child_process.hpp"
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
    virtual ~side();

    doca_pe *pe() const { return pe_; }
    doca_ctx *ctx() const { return ctx_; }
    doca_ctx_states state() const;

    // Progresses (polling or epoll mode) until `pred` holds or `timeout` passes.
    bool progress_until(const std::function<bool()> &pred,
                        std::chrono::milliseconds timeout = 5000ms);

    // Progresses for `d`, at least once however late this thread runs.
    void progress_for(std::chrono::milliseconds d);
    // One step: a progress call (in epoll mode an epoll round of at most 5 ms).
    void progress();

    // One epoll round: arm, wait up to `ms`, clear, progress until idle.
    void wait_event(int ms);

    void set_epoll_mode(bool on) { epoll_mode_ = on; }

    // Sends a message on `conn` (allocating a task; retries on NO_MEMORY after progress).
    // The task refers to the message, which DOCA may read until the task completes (a send
    // queued behind a full receive queue is written later, from a progress call), so the bytes
    // are copied here and kept until the completion: callers pass temporaries and receive
    // buffers, which are gone or reused by then.
    doca_error_t send(doca_comch_connection *conn, const void *data, uint32_t len);
    doca_error_t send(doca_comch_connection *conn, const std::string &s)
    {
        return send(conn, s.data(), uint32_t(s.size()));
    }

    doca_error_t stop_and_wait(std::chrono::milliseconds timeout = 5000ms);

    std::deque<message> received;
    // send(): a submit that returns DOCA_ERROR_AGAIN is retried after progress (as a program
    // does) instead of returned.
    bool retry_again = false;
    size_t send_ok = 0, send_err = 0;
    std::vector<doca_error_t> send_errors; // the status of each failed send, in order
    std::vector<doca_ctx_states> states;
    std::function<void(side &, doca_comch_connection *, const uint8_t *, uint32_t)> on_recv;

protected:
    virtual doca_error_t alloc_send(doca_comch_connection *, const void *, uint32_t,
                                    doca_comch_task_send **) = 0;

    static side *of(doca_ctx *ctx);

    void attach_common();

    static void send_done(doca_comch_task_send *task, union doca_data, union doca_data ctx_ud);

public:
    void deliver(doca_comch_connection *conn, const uint8_t *buf, uint32_t len);

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
    explicit server(const std::string &name, server_options o = {});
    ~server() override;
    bool ok() const { return ok_; }
    doca_comch_server *handle() const { return srv_; }
    doca_error_t start() { return doca_ctx_start(ctx_); }

    std::vector<doca_comch_connection *> connections;
    std::vector<doca_comch_connection *> disconnected;

protected:
    doca_error_t alloc_send(doca_comch_connection *c, const void *d, uint32_t l,
                            doca_comch_task_send **t) override;

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
    explicit client(const std::string &name, client_options o = {});
    ~client() override;
    bool ok() const { return ok_; }
    doca_comch_client *handle() const { return cli_; }
    doca_error_t start() { return doca_ctx_start(ctx_); }
    bool wait_running(std::chrono::milliseconds t = 5000ms);
    doca_comch_connection *connection() const;

protected:
    doca_error_t alloc_send(doca_comch_connection *c, const void *d, uint32_t l,
                            doca_comch_task_send **t) override;

private:
    bool ok_ = true;
    doca_dev *dev_ = nullptr;
    doca_comch_client *cli_ = nullptr;
};

} // namespace sc_test
