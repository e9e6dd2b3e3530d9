// SPDX-License-Identifier: Apache-2.0
//
// The context state machine and the delivery rules of Comch, through the public API only: a
// server (03:00.0 + representor b1:00.0) and a client (b1:00.0) in one process, each with its
// own progress engine, progressed alternately (both sides are visible with SOFTCOMCH_SIDE
// unset). Covers the start codes, every state-callback transition with its order and where it
// is reported from, stop from inside callbacks, completion-before-reply, send-pool exhaustion,
// destroy outside IDLE, counters, progress-engine destroy with contexts attached, queued sends,
// the notification handle waking an epoll wait, and when a message buffer may be reused.
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "comch_harness.hpp"

inline void PrintTo(doca_error e, std::ostream *os)
{
    *os << doca_error_get_name(e) << " (" << int(e) << ")";
}
inline void PrintTo(doca_ctx_states s, std::ostream *os)
{
    static const char *const names[] = {"IDLE", "STARTING", "RUNNING", "STOPPING"};
    *os << (unsigned(s) < 4 ? names[s] : "?") << " (" << int(s) << ")";
}

namespace {

using namespace std::chrono_literals;
using sc_test::clock;

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    return 0;
}();

const char *state_name(doca_ctx_states s)
{
    switch (s) {
    case DOCA_CTX_STATE_IDLE:
        return "IDLE";
    case DOCA_CTX_STATE_STARTING:
        return "STARTING";
    case DOCA_CTX_STATE_RUNNING:
        return "RUNNING";
    case DOCA_CTX_STATE_STOPPING:
        return "STOPPING";
    }
    return "?";
}

// One reported state change.
struct transition {
    doca_ctx_states prev, next;
    doca_ctx_states seen; // doca_ctx_get_state() inside the callback
    bool inside_progress; // reported from inside doca_pe_progress() of this side's engine
    bool operator==(const transition &) const = default;
};

std::ostream &operator<<(std::ostream &os, const transition &t)
{
    return os << state_name(t.prev) << "->" << state_name(t.next) << " (seen " << state_name(t.seen)
              << ", " << (t.inside_progress ? "in progress" : "in the call") << ")";
}

struct endpoint_options {
    uint32_t send_tasks = 64;
    uint32_t recv_queue = 64;
};

// A server or a client over the raw API, with its own progress engine. Everything its callbacks
// see is recorded, in order, in `events`.
class endpoint {
public:
    using options = endpoint_options;
    enum class role { server, client };

    endpoint(role r, const std::string &name, options o = {}) : role_(r)
    {
        dev_ = sc_test::open_dev(r == role::server ? "03:00.0" : "b1:00.0");
        EXPECT_NE(dev_, nullptr);
        if (r == role::server) {
            rep_ = sc_test::open_rep(dev_, "b1:00.0");
            EXPECT_NE(rep_, nullptr);
        }
        EXPECT_EQ(doca_pe_create(&pe_), DOCA_SUCCESS);
        if (r == role::server) {
            EXPECT_EQ(doca_comch_server_create(dev_, rep_, name.c_str(), &srv_), DOCA_SUCCESS);
            ctx_ = doca_comch_server_as_ctx(srv_);
            EXPECT_EQ(
                doca_comch_server_task_send_set_conf(srv_, send_ok_cb, send_err_cb, o.send_tasks),
                DOCA_SUCCESS);
            EXPECT_EQ(doca_comch_server_event_msg_recv_register(srv_, recv_cb), DOCA_SUCCESS);
            EXPECT_EQ(doca_comch_server_event_connection_status_changed_register(srv_, connect_cb,
                                                                                 disconnect_cb),
                      DOCA_SUCCESS);
            EXPECT_EQ(doca_comch_server_set_recv_queue_size(srv_, o.recv_queue), DOCA_SUCCESS);
        } else {
            EXPECT_EQ(doca_comch_client_create(dev_, name.c_str(), &cli_), DOCA_SUCCESS);
            ctx_ = doca_comch_client_as_ctx(cli_);
            EXPECT_EQ(
                doca_comch_client_task_send_set_conf(cli_, send_ok_cb, send_err_cb, o.send_tasks),
                DOCA_SUCCESS);
            EXPECT_EQ(doca_comch_client_event_msg_recv_register(cli_, recv_cb), DOCA_SUCCESS);
            EXPECT_EQ(doca_comch_client_set_recv_queue_size(cli_, o.recv_queue), DOCA_SUCCESS);
        }
        EXPECT_NE(ctx_, nullptr);
        EXPECT_EQ(doca_pe_connect_ctx(pe_, ctx_), DOCA_SUCCESS);
        EXPECT_EQ(doca_ctx_set_state_changed_cb(ctx_, state_cb), DOCA_SUCCESS);
        union doca_data ud {};
        ud.ptr = this;
        EXPECT_EQ(doca_ctx_set_user_data(ctx_, ud), DOCA_SUCCESS);
    }

    ~endpoint()
    {
        if (ctx_ && state() != DOCA_CTX_STATE_IDLE) {
            doca_ctx_stop(ctx_);
            auto end = clock::now() + teardown_timeout;
            while (state() != DOCA_CTX_STATE_IDLE && clock::now() < end)
                progress();
        }
        if (srv_ && doca_comch_server_destroy(srv_) != DOCA_SUCCESS)
            ADD_FAILURE() << "server not destroyed (state " << state_name(state()) << ")";
        if (cli_ && doca_comch_client_destroy(cli_) != DOCA_SUCCESS)
            ADD_FAILURE() << "client not destroyed (state " << state_name(state()) << ")";
        if (pe_)
            doca_pe_destroy(pe_);
        if (rep_)
            doca_dev_rep_close(rep_);
        if (dev_)
            doca_dev_close(dev_);
    }

    endpoint(const endpoint &) = delete;
    endpoint &operator=(const endpoint &) = delete;

    doca_ctx *ctx() const { return ctx_; }
    doca_pe *pe() const { return pe_; }
    doca_comch_server *server() const { return srv_; }
    doca_comch_client *client() const { return cli_; }

    doca_ctx_states state() const
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        EXPECT_EQ(doca_ctx_get_state(ctx_, &s), DOCA_SUCCESS);
        return s;
    }

    doca_error_t start() { return doca_ctx_start(ctx_); }

    // One progress call; checks that it returns 1 whenever a callback ran during it.
    uint8_t progress()
    {
        const size_t before = events.size();
        in_progress_ = true;
        uint8_t r = doca_pe_progress(pe_);
        in_progress_ = false;
        if (events.size() != before && r != 1)
            ++progress_returned_zero_after_work;
        return r;
    }

    doca_comch_connection *connection() const
    {
        doca_comch_connection *c = nullptr;
        return doca_comch_client_get_connection(cli_, &c) == DOCA_SUCCESS ? c : nullptr;
    }

    doca_error_t alloc(doca_comch_connection *conn, const void *msg, uint32_t len,
                       doca_comch_task_send **t)
    {
        return srv_ ? doca_comch_server_task_send_alloc_init(srv_, conn, msg, len, t)
                    : doca_comch_client_task_send_alloc_init(cli_, conn, msg, len, t);
    }

    // Allocates and submits a send whose task user data is `tag`; the bytes stay alive here.
    doca_error_t send(doca_comch_connection *conn, const std::string &msg, uint64_t tag = 0)
    {
        storage_.push_back(msg);
        doca_comch_task_send *t = nullptr;
        doca_error_t rc = alloc(conn, storage_.back().data(), uint32_t(msg.size()), &t);
        if (rc != DOCA_SUCCESS)
            return rc;
        union doca_data ud {};
        ud.u64 = tag;
        doca_task_set_user_data(doca_comch_task_send_as_task(t), ud);
        rc = doca_task_submit(doca_comch_task_send_as_task(t));
        if (rc != DOCA_SUCCESS)
            doca_task_free(doca_comch_task_send_as_task(t));
        return rc;
    }

    size_t count(const std::string &prefix) const
    {
        size_t n = 0;
        for (const auto &e : events)
            n += e.rfind(prefix, 0) == 0;
        return n;
    }
    // Index of the first event equal to `e`, or -1.
    long index_of(const std::string &e) const
    {
        for (size_t i = 0; i < events.size(); ++i)
            if (events[i] == e)
                return long(i);
        return -1;
    }

    std::vector<transition> transitions;
    std::vector<std::string>
        events; // "state A->B", "send-ok <tag>", "send-err <tag>", "recv <msg>", "connect", "disconnect"
    std::deque<std::string> received;
    std::vector<doca_comch_connection *> connections, disconnected;
    std::vector<uint64_t> ctx_user_data_seen;
    int progress_returned_zero_after_work = 0;
    std::chrono::milliseconds teardown_timeout = 2000ms;

    // Hooks, run inside the callbacks after recording.
    std::function<void(endpoint &, doca_comch_task_send *)> on_send_done; // default: doca_task_free
    std::function<void(endpoint &, doca_comch_connection *, const std::string &)> on_recv;
    std::function<void(endpoint &, doca_ctx_states, doca_ctx_states)> on_state;

private:
    static endpoint *of_connection(const doca_comch_connection *conn)
    {
        doca_ctx *ctx = nullptr;
        if (doca_comch_server *s = doca_comch_server_get_server_ctx(conn))
            ctx = doca_comch_server_as_ctx(s);
        else if (doca_comch_client *c = doca_comch_client_get_client_ctx(conn))
            ctx = doca_comch_client_as_ctx(c);
        union doca_data ud {};
        EXPECT_EQ(doca_ctx_get_user_data(ctx, &ud), DOCA_SUCCESS);
        return static_cast<endpoint *>(ud.ptr);
    }

    static void state_cb(const union doca_data ud, doca_ctx *ctx, doca_ctx_states prev,
                         doca_ctx_states next)
    {
        auto *self = static_cast<endpoint *>(ud.ptr);
        EXPECT_EQ(ctx, self->ctx_);
        doca_ctx_states seen = DOCA_CTX_STATE_IDLE;
        EXPECT_EQ(doca_ctx_get_state(ctx, &seen), DOCA_SUCCESS);
        self->transitions.push_back({prev, next, seen, self->in_progress_});
        self->events.push_back(std::string("state ") + state_name(prev) + "->" + state_name(next));
        if (self->on_state)
            self->on_state(*self, prev, next);
    }

    static void send_done(doca_comch_task_send *task, union doca_data task_ud,
                          union doca_data ctx_ud, bool ok)
    {
        auto *self = static_cast<endpoint *>(ctx_ud.ptr);
        self->ctx_user_data_seen.push_back(reinterpret_cast<uintptr_t>(ctx_ud.ptr));
        doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));
        EXPECT_EQ(status == DOCA_SUCCESS, ok)
            << "the callback kind matches the task status " << doca_error_get_name(status);
        EXPECT_EQ(doca_task_get_user_data(doca_comch_task_send_as_task(task)).u64, task_ud.u64);
        self->events.push_back((ok ? "send-ok " : "send-err ") + std::to_string(task_ud.u64));
        if (self->on_send_done)
            self->on_send_done(*self, task);
        else
            doca_task_free(doca_comch_task_send_as_task(task));
    }
    static void send_ok_cb(doca_comch_task_send *t, union doca_data tu, union doca_data cu)
    {
        send_done(t, tu, cu, true);
    }
    static void send_err_cb(doca_comch_task_send *t, union doca_data tu, union doca_data cu)
    {
        send_done(t, tu, cu, false);
    }

    static void recv_cb(doca_comch_event_msg_recv *, uint8_t *buf, uint32_t len,
                        doca_comch_connection *conn)
    {
        endpoint *self = of_connection(conn);
        std::string msg(reinterpret_cast<const char *>(buf), len);
        self->events.push_back("recv " + msg);
        self->received.push_back(msg);
        if (self->on_recv)
            self->on_recv(*self, conn, msg);
    }
    static void connect_cb(doca_comch_event_connection_status_changed *,
                           doca_comch_connection *conn, uint8_t ok)
    {
        endpoint *self = of_connection(conn);
        self->events.push_back(ok ? "connect" : "connect-failed");
        if (ok)
            self->connections.push_back(conn);
    }
    static void disconnect_cb(doca_comch_event_connection_status_changed *,
                              doca_comch_connection *conn, uint8_t)
    {
        endpoint *self = of_connection(conn);
        self->events.push_back("disconnect");
        self->disconnected.push_back(conn);
    }

    role role_;
    doca_dev *dev_ = nullptr;
    doca_dev_rep *rep_ = nullptr;
    doca_pe *pe_ = nullptr;
    doca_comch_server *srv_ = nullptr;
    doca_comch_client *cli_ = nullptr;
    doca_ctx *ctx_ = nullptr;
    bool in_progress_ = false;
    std::deque<std::string> storage_;
};

// Progresses both engines alternately until `pred` holds.
template <typename Pred>
bool progress_both(endpoint &a, endpoint &b, Pred pred, std::chrono::milliseconds timeout = 5000ms)
{
    auto end = clock::now() + timeout;
    while (!pred()) {
        if (clock::now() > end)
            return false;
        if (!(a.progress() | b.progress()))
            std::this_thread::sleep_for(10us);
    }
    return true;
}

class StateMachine : public ::testing::Test {
protected:
    void SetUp() override
    {
        sc_test::use_private_fabric(
            std::string("sm-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    }

    // Starts both and waits until the client is RUNNING and the server has the connection.
    static void connect(endpoint &srv, endpoint &cli)
    {
        ASSERT_EQ(srv.start(), DOCA_SUCCESS);
        ASSERT_EQ(cli.start(), DOCA_ERROR_IN_PROGRESS);
        ASSERT_TRUE(progress_both(srv, cli, [&] {
            return cli.state() == DOCA_CTX_STATE_RUNNING && srv.connections.size() == 1;
        }));
        ASSERT_NE(cli.connection(), nullptr);
    }
};

} // namespace

// ---------------------------------------------------------------------------------------------

TEST_F(StateMachine, StartCodesAndEveryTransitionInOrder)
{
    endpoint srv(endpoint::role::server, "transitions");
    endpoint cli(endpoint::role::client, "transitions");

    // Server: synchronous start, reported inside doca_ctx_start.
    ASSERT_EQ(srv.start(), DOCA_SUCCESS);
    EXPECT_EQ(srv.state(), DOCA_CTX_STATE_RUNNING);
    ASSERT_EQ(srv.transitions.size(), 1u);
    EXPECT_EQ(srv.transitions[0], (transition{DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_RUNNING,
                                              DOCA_CTX_STATE_RUNNING, false}));

    // Client: asynchronous start; no connection until RUNNING.
    ASSERT_EQ(cli.start(), DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(cli.state(), DOCA_CTX_STATE_STARTING);
    ASSERT_EQ(cli.transitions.size(), 1u);
    EXPECT_EQ(cli.transitions[0], (transition{DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_STARTING,
                                              DOCA_CTX_STATE_STARTING, false}));
    doca_comch_connection *conn = nullptr;
    EXPECT_EQ(doca_comch_client_get_connection(cli.client(), &conn), DOCA_ERROR_BAD_STATE);

    // STARTING -> RUNNING is reported from inside the client's progress.
    ASSERT_TRUE(progress_both(srv, cli, [&] {
        return cli.state() == DOCA_CTX_STATE_RUNNING && srv.connections.size() == 1;
    }));
    ASSERT_EQ(cli.transitions.size(), 2u);
    EXPECT_EQ(cli.transitions[1], (transition{DOCA_CTX_STATE_STARTING, DOCA_CTX_STATE_RUNNING,
                                              DOCA_CTX_STATE_RUNNING, true}));
    ASSERT_EQ(doca_comch_client_get_connection(cli.client(), &conn), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_client_get_client_ctx(conn), cli.client());
    EXPECT_EQ(srv.count("connect"), 1u);
    EXPECT_EQ(doca_comch_server_get_server_ctx(srv.connections[0]), srv.server());

    // Client stop: IN_PROGRESS, STOPPING at once (inside doca_ctx_stop), IDLE inside progress.
    ASSERT_EQ(doca_ctx_stop(cli.ctx()), DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(cli.state(), DOCA_CTX_STATE_STOPPING);
    ASSERT_EQ(cli.transitions.size(), 3u);
    EXPECT_EQ(cli.transitions[2], (transition{DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING,
                                              DOCA_CTX_STATE_STOPPING, false}));
    ASSERT_TRUE(progress_both(
        srv, cli, [&] { return cli.state() == DOCA_CTX_STATE_IDLE && !srv.disconnected.empty(); }));
    ASSERT_EQ(cli.transitions.size(), 4u);
    EXPECT_EQ(cli.transitions[3], (transition{DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE,
                                              DOCA_CTX_STATE_IDLE, true}));
    EXPECT_EQ(doca_comch_client_get_connection(cli.client(), &conn), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(srv.disconnected.size(), 1u);

    // Server stop with no connection left: nothing to drain, so STOPPING and IDLE both inside
    // doca_ctx_stop, which returns DOCA_SUCCESS (include/doca_ctx.h).
    ASSERT_EQ(doca_ctx_stop(srv.ctx()), DOCA_SUCCESS);
    EXPECT_EQ(srv.state(), DOCA_CTX_STATE_IDLE);
    ASSERT_EQ(srv.transitions.size(), 3u);
    EXPECT_EQ(srv.transitions[1], (transition{DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING,
                                              DOCA_CTX_STATE_STOPPING, false}));
    EXPECT_EQ(srv.transitions[2], (transition{DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE,
                                              DOCA_CTX_STATE_IDLE, false}));
    EXPECT_EQ(doca_ctx_stop(srv.ctx()), DOCA_SUCCESS) << "stop while IDLE";
    EXPECT_EQ(srv.transitions.size(), 3u);

    EXPECT_EQ(srv.progress_returned_zero_after_work, 0)
        << "doca_pe_progress returned 0 after delivering something";
    EXPECT_EQ(cli.progress_returned_zero_after_work, 0)
        << "doca_pe_progress returned 0 after delivering something";

    // A stopped pair starts again: same codes, same order.
    ASSERT_EQ(srv.start(), DOCA_SUCCESS);
    ASSERT_EQ(cli.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return cli.state() == DOCA_CTX_STATE_RUNNING; }));
    EXPECT_EQ(cli.transitions.size(), 6u);
}

// The IDLE callback destroys the context, and that callback runs inside doca_ctx_stop (a server
// with no connection, a client still looking for its server: nothing to drain). Nothing of the
// context may be touched afterwards; ASan reports any access.
std::vector<doca_ctx_states> g_destroyed_from;

TEST_F(StateMachine, TheIdleCallbackMayDestroyTheContextInsideStop)
{
    g_destroyed_from.clear();
    doca_dev *dpu = sc_test::open_dev("03:00.0");
    doca_dev *host = sc_test::open_dev("b1:00.0");
    ASSERT_NE(dpu, nullptr);
    ASSERT_NE(host, nullptr);
    doca_dev_rep *rep = sc_test::open_rep(dpu, "b1:00.0");
    ASSERT_NE(rep, nullptr);
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);

    static doca_comch_server *srv;
    static doca_comch_client *cli;
    srv = nullptr;
    cli = nullptr;
    ASSERT_EQ(doca_comch_server_create(dpu, rep, "destroy-in-stop", &srv), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_client_create(host, "nobody-serves-this", &cli), DOCA_SUCCESS);
    auto cb = [](const union doca_data, doca_ctx *, doca_ctx_states prev, doca_ctx_states next) {
        if (next != DOCA_CTX_STATE_IDLE)
            return;
        g_destroyed_from.push_back(prev);
        if (srv) {
            EXPECT_EQ(doca_comch_server_destroy(srv), DOCA_SUCCESS);
            srv = nullptr;
        } else if (cli) {
            EXPECT_EQ(doca_comch_client_destroy(cli), DOCA_SUCCESS);
            cli = nullptr;
        }
    };
    for (doca_ctx *ctx : {doca_comch_server_as_ctx(srv), doca_comch_client_as_ctx(cli)}) {
        ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
        ASSERT_EQ(doca_ctx_set_state_changed_cb(ctx, cb), DOCA_SUCCESS);
    }
    ASSERT_EQ(doca_ctx_start(doca_comch_server_as_ctx(srv)), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_stop(doca_comch_server_as_ctx(srv)), DOCA_SUCCESS);
    EXPECT_EQ(srv, nullptr) << "destroyed inside doca_ctx_stop";
    ASSERT_EQ(doca_ctx_start(doca_comch_client_as_ctx(cli)), DOCA_ERROR_IN_PROGRESS);
    for (int i = 0; i < 20; ++i)
        doca_pe_progress(pe);
    ASSERT_EQ(doca_ctx_stop(doca_comch_client_as_ctx(cli)), DOCA_SUCCESS);
    EXPECT_EQ(cli, nullptr);
    EXPECT_EQ(g_destroyed_from,
              (std::vector<doca_ctx_states>{DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_STOPPING}));
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(doca_pe_progress(pe), 0);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
}

TEST_F(StateMachine, AnUnknownTransportFailsTheStart)
{
    // SOFTCOMCH_TRANSPORT is read at every start; a name this build lacks is a configuration
    // error the start reports, with the context still IDLE.
    endpoint srv(endpoint::role::server, "no-such-transport");
    endpoint cli(endpoint::role::client, "no-such-transport");
    setenv("SOFTCOMCH_TRANSPORT", "carrier-pigeon", 1);
    EXPECT_EQ(srv.start(), DOCA_ERROR_BAD_CONFIG);
    EXPECT_EQ(cli.start(), DOCA_ERROR_BAD_CONFIG);
    EXPECT_EQ(srv.state(), DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(cli.state(), DOCA_CTX_STATE_IDLE);
    EXPECT_TRUE(srv.transitions.empty());
    EXPECT_TRUE(cli.transitions.empty());
    setenv("SOFTCOMCH_TRANSPORT", "shm", 1);
    ASSERT_EQ(srv.start(), DOCA_SUCCESS);
    ASSERT_EQ(cli.start(), DOCA_ERROR_IN_PROGRESS);
    EXPECT_TRUE(progress_both(srv, cli, [&] { return cli.state() == DOCA_CTX_STATE_RUNNING; }));
    unsetenv("SOFTCOMCH_TRANSPORT");
}

TEST_F(StateMachine, StopWhileStarting)
{
    endpoint cli(endpoint::role::client, "nobody-listens");
    ASSERT_EQ(cli.start(), DOCA_ERROR_IN_PROGRESS);
    for (int i = 0; i < 50; ++i)
        cli.progress();
    ASSERT_EQ(cli.state(), DOCA_CTX_STATE_STARTING) << "a client keeps looking for its server";
    // Nothing to drain or tell a server: IDLE inside the call.
    ASSERT_EQ(doca_ctx_stop(cli.ctx()), DOCA_SUCCESS);
    EXPECT_EQ(cli.state(), DOCA_CTX_STATE_IDLE);
    const std::vector<transition> expected{
        {DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_STARTING, DOCA_CTX_STATE_STARTING, false},
        {DOCA_CTX_STATE_STARTING, DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_STOPPING, false},
        {DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_IDLE, false},
    };
    EXPECT_EQ(cli.transitions, expected);
}

TEST_F(StateMachine, StopFromTheSendCompletionCallback)
{
    endpoint srv(endpoint::role::server, "stop-in-send");
    endpoint cli(endpoint::role::client, "stop-in-send");
    connect(srv, cli);
    doca_error_t stop_rc = DOCA_ERROR_UNKNOWN;
    cli.on_send_done = [&](endpoint &self, doca_comch_task_send *t) {
        doca_task_free(doca_comch_task_send_as_task(t)); // every task freed: IDLE becomes reachable
        stop_rc = doca_ctx_stop(self.ctx());
    };
    ASSERT_EQ(cli.send(cli.connection(), "bye", 1), DOCA_SUCCESS);
    ASSERT_TRUE(progress_both(
        srv, cli, [&] { return cli.state() == DOCA_CTX_STATE_IDLE && !srv.disconnected.empty(); }));
    EXPECT_EQ(stop_rc, DOCA_ERROR_IN_PROGRESS);
    ASSERT_EQ(cli.transitions.size(), 4u);
    EXPECT_EQ(cli.transitions[2], (transition{DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING,
                                              DOCA_CTX_STATE_STOPPING, true}));
    EXPECT_EQ(cli.transitions[3], (transition{DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE,
                                              DOCA_CTX_STATE_IDLE, true}));
    EXPECT_EQ(cli.count("send-ok"), 1u);
    EXPECT_EQ(cli.count("send-err"), 0u);
    ASSERT_EQ(srv.received.size(), 1u);
    EXPECT_EQ(srv.received[0], "bye");
    EXPECT_LT(srv.index_of("recv bye"), srv.index_of("disconnect"))
        << "the message arrives before the disconnect";
}

TEST_F(StateMachine, StopFromTheReceiveCallback)
{
    endpoint srv(endpoint::role::server, "stop-in-recv");
    endpoint cli(endpoint::role::client, "stop-in-recv");
    connect(srv, cli);
    srv.on_recv = [](endpoint &self, doca_comch_connection *c, const std::string &m) {
        EXPECT_EQ(self.send(c, m, 2), DOCA_SUCCESS);
    };
    doca_error_t stop_rc = DOCA_ERROR_UNKNOWN;
    cli.on_recv = [&](endpoint &self, doca_comch_connection *, const std::string &) {
        stop_rc = doca_ctx_stop(self.ctx());
    };
    ASSERT_EQ(cli.send(cli.connection(), "ping", 1), DOCA_SUCCESS);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return cli.state() == DOCA_CTX_STATE_IDLE; }));
    EXPECT_EQ(stop_rc, DOCA_ERROR_IN_PROGRESS);
    // The client's own send completed before the reply, so stopping flushed nothing.
    EXPECT_EQ(cli.count("send-err"), 0u);
    EXPECT_LT(cli.index_of("send-ok 1"), cli.index_of("recv ping"));
    EXPECT_LT(cli.index_of("recv ping"), cli.index_of("state RUNNING->STOPPING"));
    EXPECT_EQ(cli.events.back(), "state STOPPING->IDLE");
    ASSERT_TRUE(progress_both(srv, cli, [&] { return !srv.disconnected.empty(); }));
    EXPECT_EQ(srv.count("send-err"), 0u);
}

TEST_F(StateMachine, ServerStopRightAfterItsReplyStillDeliversTheReply)
{
    // NVIDIA's data-path server submits its last reply and stops at once: stop must drain.
    endpoint srv(endpoint::role::server, "drain");
    endpoint cli(endpoint::role::client, "drain");
    connect(srv, cli);
    doca_error_t stop_rc = DOCA_ERROR_UNKNOWN;
    srv.on_recv = [&](endpoint &self, doca_comch_connection *c, const std::string &) {
        EXPECT_EQ(self.send(c, "last reply", 9), DOCA_SUCCESS);
        stop_rc = doca_ctx_stop(self.ctx());
    };
    ASSERT_EQ(cli.send(cli.connection(), "stop please", 1), DOCA_SUCCESS);
    ASSERT_TRUE(progress_both(srv, cli, [&] {
        return srv.state() == DOCA_CTX_STATE_IDLE && cli.state() == DOCA_CTX_STATE_IDLE;
    }));
    EXPECT_EQ(stop_rc, DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(srv.count("send-ok 9"), 1u);
    EXPECT_EQ(srv.count("send-err"), 0u);
    ASSERT_EQ(cli.received.size(), 1u);
    EXPECT_EQ(cli.received[0], "last reply");
    // The server's stop ended the connection: the client went RUNNING -> STOPPING -> IDLE on its
    // own (docs/design.md), after the reply, reported from inside its progress.
    ASSERT_EQ(cli.transitions.size(), 4u);
    EXPECT_EQ(cli.transitions[2], (transition{DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING,
                                              DOCA_CTX_STATE_STOPPING, true}));
    EXPECT_EQ(cli.transitions[3], (transition{DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE,
                                              DOCA_CTX_STATE_IDLE, true}));
    EXPECT_LT(cli.index_of("recv last reply"), cli.index_of("state RUNNING->STOPPING"));
    // A server does not get a disconnect event for disconnections it made itself.
    EXPECT_EQ(srv.count("disconnect"), 0u);
}

TEST_F(StateMachine, ServerDisconnectStopsTheClient)
{
    endpoint srv(endpoint::role::server, "disconnect");
    endpoint cli(endpoint::role::client, "disconnect");
    connect(srv, cli);
    doca_comch_connection *conn = srv.connections[0];
    ASSERT_EQ(doca_comch_server_disconnect(srv.server(), conn), DOCA_SUCCESS);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return cli.state() == DOCA_CTX_STATE_IDLE; }));
    ASSERT_EQ(cli.transitions.size(), 4u);
    EXPECT_EQ(cli.transitions[2].next, DOCA_CTX_STATE_STOPPING);
    EXPECT_EQ(cli.transitions[3].next, DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(srv.count("disconnect"), 0u) << "no event for a disconnection the server asked for";
    EXPECT_EQ(srv.state(), DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(doca_comch_connection_update_info(conn), DOCA_ERROR_CONNECTION_ABORTED);
}

TEST_F(StateMachine, SendCompletionComesBeforeTheReplyItTriggers)
{
    endpoint srv(endpoint::role::server, "order");
    endpoint cli(endpoint::role::client, "order");
    connect(srv, cli);
    srv.on_recv = [](endpoint &self, doca_comch_connection *c, const std::string &m) {
        EXPECT_EQ(self.send(c, "re:" + m), DOCA_SUCCESS);
    };
    for (int i = 0; i < 50; ++i) {
        const std::string m = std::string("m").append(std::to_string(i)); // GCC bug 105651
        ASSERT_EQ(cli.send(cli.connection(), m, uint64_t(100 + i)), DOCA_SUCCESS);
        const std::string reply =
            std::string("recv re:").append(m); // not "..." + m: GCC bug 105651
        ASSERT_TRUE(progress_both(srv, cli, [&] { return cli.index_of(reply) >= 0; }));
        const long ok = cli.index_of("send-ok " + std::to_string(100 + i));
        ASSERT_GE(ok, 0) << m;
        EXPECT_LT(ok, cli.index_of(reply)) << "completion of " << m << " after its reply";
    }
    // ctx_user_data of every completion is the context's user data.
    for (uint64_t seen : cli.ctx_user_data_seen)
        EXPECT_EQ(seen, reinterpret_cast<uintptr_t>(&cli));
    EXPECT_EQ(cli.count("send-err"), 0u);
}

TEST_F(StateMachine, ExhaustedSendPool)
{
    endpoint::options o;
    o.send_tasks = 4;
    endpoint srv(endpoint::role::server, "pool");
    endpoint cli(endpoint::role::client, "pool", o);
    connect(srv, cli);
    doca_comch_connection *conn = cli.connection();
    const char msg[] = "x";
    // Allocated, not submitted.
    doca_comch_task_send *t[5] = {};
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(cli.alloc(conn, msg, 1, &t[i]), DOCA_SUCCESS) << i;
    EXPECT_EQ(cli.alloc(conn, msg, 1, &t[4]), DOCA_ERROR_NO_MEMORY);
    for (int i = 0; i < 4; ++i)
        doca_task_free(doca_comch_task_send_as_task(t[i]));
    // Submitted and in flight until their completion is delivered.
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(cli.send(conn, "in flight", uint64_t(i)), DOCA_SUCCESS) << i;
    EXPECT_EQ(cli.send(conn, "one too many"), DOCA_ERROR_NO_MEMORY);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return cli.count("send-ok") == 4; }));
    EXPECT_EQ(cli.send(conn, "room again", 9), DOCA_SUCCESS);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return srv.received.size() == 5; }));
}

TEST_F(StateMachine, DestroyWhileNotIdleIsRefused)
{
    endpoint srv(endpoint::role::server, "destroy");
    endpoint cli(endpoint::role::client, "destroy");
    // STARTING (no server yet).
    ASSERT_EQ(cli.start(), DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(doca_comch_client_destroy(cli.client()), DOCA_ERROR_IN_USE);
    // RUNNING.
    ASSERT_EQ(srv.start(), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_server_destroy(srv.server()), DOCA_ERROR_IN_USE);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return cli.state() == DOCA_CTX_STATE_RUNNING; }));
    EXPECT_EQ(doca_comch_client_destroy(cli.client()), DOCA_ERROR_IN_USE);
    // STOPPING: the disconnect notice still has to reach the server. An allocated task does not
    // hold the client there; it is still the program's after IDLE.
    doca_comch_task_send *t = nullptr;
    ASSERT_EQ(cli.alloc(cli.connection(), "held", 4, &t), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_stop(cli.ctx()), DOCA_ERROR_IN_PROGRESS);
    ASSERT_EQ(cli.state(), DOCA_CTX_STATE_STOPPING);
    EXPECT_EQ(doca_comch_client_destroy(cli.client()), DOCA_ERROR_IN_USE);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return cli.state() == DOCA_CTX_STATE_IDLE; }));
    doca_task_free(doca_comch_task_send_as_task(t));
    // The destructors destroy both (IDLE) and check that it works.
}

TEST_F(StateMachine, ProgressEngineDestroyWithContextsAttached)
{
    endpoint srv(endpoint::role::server, "pe-destroy");
    endpoint cli(endpoint::role::client, "pe-destroy");
    EXPECT_EQ(doca_pe_destroy(srv.pe()), DOCA_ERROR_IN_USE) << "IDLE context attached";
    EXPECT_EQ(doca_pe_destroy(cli.pe()), DOCA_ERROR_IN_USE) << "IDLE context attached";
    connect(srv, cli);
    EXPECT_EQ(doca_pe_destroy(srv.pe()), DOCA_ERROR_IN_USE) << "RUNNING context attached";
    EXPECT_EQ(doca_pe_destroy(cli.pe()), DOCA_ERROR_IN_USE) << "RUNNING context attached";
    // Both engines still work after the refusals.
    ASSERT_EQ(cli.send(cli.connection(), "still alive"), DOCA_SUCCESS);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return srv.received.size() == 1; }));
}

TEST_F(StateMachine, ConnectionCountersAfterUpdateInfo)
{
    endpoint srv(endpoint::role::server, "counters");
    endpoint cli(endpoint::role::client, "counters");
    connect(srv, cli);
    doca_comch_connection *cc = cli.connection();
    doca_comch_connection *sc = srv.connections[0];
    auto counter = [](doca_comch_connection *c, doca_comch_counter which) {
        uint64_t v = ~0ull;
        EXPECT_EQ(doca_comch_connection_get_counter(c, which, &v), DOCA_SUCCESS);
        return v;
    };
    for (size_t len : {10u, 20u, 30u})
        ASSERT_EQ(cli.send(cc, std::string(len, 'c')), DOCA_SUCCESS);
    for (size_t len : {5u, 7u})
        ASSERT_EQ(srv.send(sc, std::string(len, 's')), DOCA_SUCCESS);
    ASSERT_TRUE(progress_both(
        srv, cli, [&] { return srv.received.size() == 3 && cli.received.size() == 2; }));
    // Nothing snapshotted yet.
    EXPECT_EQ(counter(cc, DOCA_COMCH_COUNTER_SENT_MESSAGES), 0u);
    ASSERT_EQ(doca_comch_connection_update_info(cc), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_connection_update_info(sc), DOCA_SUCCESS);
    EXPECT_EQ(counter(cc, DOCA_COMCH_COUNTER_SENT_MESSAGES), 3u);
    EXPECT_EQ(counter(cc, DOCA_COMCH_COUNTER_SENT_BYTES), 60u);
    EXPECT_EQ(counter(cc, DOCA_COMCH_COUNTER_RECV_MESSAGES), 2u);
    EXPECT_EQ(counter(cc, DOCA_COMCH_COUNTER_RECV_BYTES), 12u);
    EXPECT_EQ(counter(sc, DOCA_COMCH_COUNTER_SENT_MESSAGES), 2u);
    EXPECT_EQ(counter(sc, DOCA_COMCH_COUNTER_SENT_BYTES), 12u);
    EXPECT_EQ(counter(sc, DOCA_COMCH_COUNTER_RECV_MESSAGES), 3u);
    EXPECT_EQ(counter(sc, DOCA_COMCH_COUNTER_RECV_BYTES), 60u);
    // A snapshot: more traffic is invisible until the next update_info.
    ASSERT_EQ(cli.send(cc, std::string(40, 'c')), DOCA_SUCCESS);
    ASSERT_TRUE(progress_both(srv, cli, [&] { return srv.received.size() == 4; }));
    EXPECT_EQ(counter(cc, DOCA_COMCH_COUNTER_SENT_MESSAGES), 3u);
    EXPECT_EQ(counter(sc, DOCA_COMCH_COUNTER_RECV_BYTES), 60u);
    ASSERT_EQ(doca_comch_connection_update_info(cc), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_connection_update_info(sc), DOCA_SUCCESS);
    EXPECT_EQ(counter(cc, DOCA_COMCH_COUNTER_SENT_MESSAGES), 4u);
    EXPECT_EQ(counter(cc, DOCA_COMCH_COUNTER_SENT_BYTES), 100u);
    EXPECT_EQ(counter(sc, DOCA_COMCH_COUNTER_RECV_BYTES), 100u);
}

TEST_F(StateMachine, NotificationHandleWakesEpollWhenAMessageArrives)
{
    endpoint srv(endpoint::role::server, "notify");
    endpoint cli(endpoint::role::client, "notify");
    connect(srv, cli);
    doca_notification_handle_t h = doca_event_invalid_handle;
    ASSERT_EQ(doca_pe_get_notification_handle(cli.pe(), &h), DOCA_SUCCESS);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    ASSERT_GE(ep, 0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev), 0);

    // Quiescent: once everything is delivered, an armed handle is not readable.
    int ready = -1;
    for (int attempt = 0; attempt < 200 && ready != 0; ++attempt) {
        ASSERT_EQ(doca_pe_request_notification(cli.pe()), DOCA_SUCCESS);
        ready = epoll_wait(ep, &ev, 1, 0);
        if (ready != 0) {
            ASSERT_EQ(doca_pe_clear_notification(cli.pe(), h), DOCA_SUCCESS);
            while (cli.progress()) {
            }
            std::this_thread::sleep_for(1ms);
        }
    }
    ASSERT_EQ(ready, 0) << "an idle, armed engine keeps its handle unreadable";

    // A message sent by the server wakes the wait (the client does not progress meanwhile).
    ASSERT_EQ(srv.send(srv.connections[0], "wake up"), DOCA_SUCCESS);
    for (int i = 0; i < 5; ++i)
        srv.progress();
    auto t0 = clock::now();
    ready = epoll_wait(ep, &ev, 1, 3000);
    auto waited = clock::now() - t0;
    EXPECT_EQ(ready, 1) << "no wake-up after 3 s";
    // Well before the 3 s: the handle woke the wait, the timeout did not (a loaded machine can
    // hold this thread for a while, so not much tighter).
    EXPECT_LT(waited, 2500ms);
    ASSERT_EQ(doca_pe_clear_notification(cli.pe(), h), DOCA_SUCCESS);
    auto end = clock::now() + 2s;
    while (cli.received.empty() && clock::now() < end)
        cli.progress();
    ASSERT_EQ(cli.received.size(), 1u);
    EXPECT_EQ(cli.received[0], "wake up");

    // Work already pending when arming: the handle is readable at once.
    ASSERT_EQ(srv.send(srv.connections[0], "already here"), DOCA_SUCCESS);
    for (int i = 0; i < 5; ++i)
        srv.progress();
    ASSERT_EQ(doca_pe_request_notification(cli.pe()), DOCA_SUCCESS);
    EXPECT_EQ(epoll_wait(ep, &ev, 1, 0), 1) << "a wait after arming must not miss pending work";
    ASSERT_EQ(doca_pe_clear_notification(cli.pe(), h), DOCA_SUCCESS);
    end = clock::now() + 2s;
    while (cli.received.size() < 2 && clock::now() < end)
        cli.progress();
    EXPECT_EQ(cli.received.size(), 2u);
    close(ep);
}

TEST_F(StateMachine, SendsQueuedBehindAFullReceiveQueueAreDeliveredInOrder)
{
    // docs/design.md: a send to a full receive queue is accepted, waits in order and is
    // written as the peer consumes. The client's queue holds 2 messages; the server sends 8
    // before the client progresses at all.
    endpoint::options small;
    small.recv_queue = 2;
    endpoint srv(endpoint::role::server, "queued");
    endpoint cli(endpoint::role::client, "queued", small);
    srv.teardown_timeout = 300ms;
    connect(srv, cli);
    constexpr int n = 8;
    for (int i = 0; i < n; ++i)
        ASSERT_EQ(srv.send(srv.connections[0], "queued " + std::to_string(i), uint64_t(i)),
                  DOCA_SUCCESS)
            << i;
    progress_both(
        srv, cli, [&] { return cli.received.size() == size_t(n); }, 2000ms);
    ASSERT_EQ(cli.received.size(), size_t(n)) << "queued sends were not all delivered";
    for (int i = 0; i < n; ++i)
        EXPECT_EQ(cli.received[size_t(i)], "queued " + std::to_string(i));
    EXPECT_TRUE(progress_both(
        srv, cli, [&] { return srv.count("send-ok") == size_t(n); }, 2000ms));
    // And the server can still stop.
    ASSERT_EQ(doca_ctx_stop(srv.ctx()), DOCA_ERROR_IN_PROGRESS);
    EXPECT_TRUE(progress_both(
        srv, cli, [&] { return srv.state() == DOCA_CTX_STATE_IDLE; }, 2000ms));
}

TEST_F(StateMachine, LargeQueueOfLargeMessagesBeyondTheRingWaitsInOrder)
{
    // A receive queue of 8192 maximal messages does not fit the connection's ring (512 KiB per
    // direction, docs/shm_layout.md): 1000 sends of 4080 bytes (4 MB) submitted before the server
    // progresses at all are all accepted, wait for room as for a full queue, and arrive whole
    // and in order; nothing is lost.
    endpoint::options big;
    big.recv_queue = 8192;
    big.send_tasks = 1024;
    endpoint srv(endpoint::role::server, "bytes", big);
    endpoint cli(endpoint::role::client, "bytes", big);
    srv.teardown_timeout = 300ms;
    connect(srv, cli);
    constexpr int n = 1000;
    auto body = [](int i) {
        std::string m(4080, char('a' + i % 26));
        std::memcpy(m.data(), &i, sizeof i);
        return m;
    };
    for (int i = 0; i < n; ++i)
        ASSERT_EQ(cli.send(cli.connection(), body(i), uint64_t(i)), DOCA_SUCCESS) << i;
    progress_both(
        srv, cli, [&] { return srv.received.size() == size_t(n); }, 20000ms);
    ASSERT_EQ(srv.received.size(), size_t(n))
        << "sends beyond the ring's bytes were not all delivered";
    for (int i = 0; i < n; ++i)
        ASSERT_EQ(srv.received[size_t(i)], body(i)) << "message " << i;
    EXPECT_TRUE(progress_both(
        srv, cli, [&] { return cli.count("send-ok") == size_t(n); }, 5000ms));
}

TEST_F(StateMachine, MessageBufferIsFreeOnceTheSendCompletes)
{
    // doca_comch.h: the message must stay unchanged from submit until the task completes, so a
    // completed send no longer needs it: the bytes are in the peer's receive queue by then. Each
    // buffer is overwritten in its send's completion callback, also for sends that had to wait
    // for room (the client's receive queue holds 2 messages and it does not progress while the
    // server sends 8).
    char buffers[8][32] = {}; // declared before the endpoints: in-flight sends point at them
    endpoint::options small;
    small.recv_queue = 2;
    endpoint srv(endpoint::role::server, "reuse");
    endpoint cli(endpoint::role::client, "reuse", small);
    srv.teardown_timeout = 300ms;
    connect(srv, cli);
    srv.on_send_done = [&](endpoint &, doca_comch_task_send *t) {
        uint64_t i = doca_task_get_user_data(doca_comch_task_send_as_task(t)).u64;
        std::memset(buffers[i], 'X', sizeof buffers[i] - 1); // the program reuses its buffer
        doca_task_free(doca_comch_task_send_as_task(t));
    };
    constexpr int n = 8;
    for (int i = 0; i < n; ++i) {
        std::snprintf(buffers[i], sizeof buffers[i], "reuse %d", i);
        doca_comch_task_send *t = nullptr;
        ASSERT_EQ(srv.alloc(srv.connections[0], buffers[i], uint32_t(std::strlen(buffers[i])), &t),
                  DOCA_SUCCESS);
        union doca_data ud {};
        ud.u64 = uint64_t(i);
        doca_task_set_user_data(doca_comch_task_send_as_task(t), ud);
        ASSERT_EQ(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
    }
    // Completions run before the client consumes anything: only what is in its queue completes.
    for (int k = 0; k < 20; ++k)
        srv.progress();
    EXPECT_LT(srv.count("send-ok"), size_t(n)) << "sends completed before room existed for them";
    progress_both(
        srv, cli, [&] { return cli.received.size() == size_t(n); }, 2000ms);
    for (size_t i = 0; i < cli.received.size(); ++i)
        EXPECT_EQ(cli.received[i], "reuse " + std::to_string(i))
            << "message " << i << " was read after its completion";
    EXPECT_EQ(cli.received.size(), size_t(n));
    EXPECT_TRUE(progress_both(
        srv, cli, [&] { return srv.count("send-ok") == size_t(n); }, 2000ms));
}
