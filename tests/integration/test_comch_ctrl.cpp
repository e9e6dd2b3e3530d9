// SPDX-License-Identifier: Apache-2.0
//
// Multi-process control-path tests: the DPU side and the host side run in different processes
// (fork), connected by the real shared-memory transport in a private fabric.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "comch_harness.hpp"

using namespace sc_test;

namespace {

class ComchCtrl : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override
    {
        use_private_fabric(::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           std::string(GetParam() ? "-epoll" : "-poll"));
    }
    bool epoll_mode() const { return GetParam(); }
};

// Echo server in a child: echoes `count` messages back, then waits for the client to go.
int echo_server(const std::string &name, int count, bool epoll, server_options o = {})
{
    server s(name, o);
    CHILD_CHECK(s.ok());
    s.set_epoll_mode(epoll);
    size_t echoed = 0;
    s.on_recv = [&echoed](side &self, doca_comch_connection *c, const uint8_t *b, uint32_t n) {
        doca_error_t rc = self.send(c, b, n);
        if (rc != DOCA_SUCCESS)
            std::fprintf(stderr, "echo failed after %zu echoes (%zu completed): %s\n", echoed,
                         self.send_ok, doca_error_get_name(rc));
        CHILD_CHECK(rc == DOCA_SUCCESS);
        ++echoed;
        return 0;
    };
    CHILD_CHECK(s.start() == DOCA_SUCCESS);
    CHILD_CHECK(s.state() == DOCA_CTX_STATE_RUNNING);
    size_t expected_disconnects = size_t(count);
    CHILD_CHECK(
        s.progress_until([&] { return s.disconnected.size() >= expected_disconnects; }, 20000ms));
    CHILD_CHECK(s.stop_and_wait() == DOCA_SUCCESS);
    return 0;
}

} // namespace

// One client, many messages of every size, verified byte for byte, in polling and epoll modes.
TEST_P(ComchCtrl, PingPong)
{
    pid_t srv = spawn([&] { return echo_server("pingpong", 1, epoll_mode()); });
    {
        client c("pingpong");
        ASSERT_TRUE(c.ok());
        c.set_epoll_mode(epoll_mode());
        ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
        EXPECT_EQ(c.state(), DOCA_CTX_STATE_STARTING);
        ASSERT_TRUE(c.wait_running());
        doca_comch_connection *conn = c.connection();
        ASSERT_NE(conn, nullptr);
        uint32_t seed = 12345;
        for (uint32_t i = 0; i < 500; ++i) {
            uint32_t len = 1 + (i * 37) % 4080;
            if (i == 1)
                len = 4080;
            std::string msg(len, '\0');
            for (auto &ch : msg) {
                seed = seed * 1103515245 + 12345;
                ch = char(seed >> 16);
            }
            ASSERT_EQ(c.send(conn, msg), DOCA_SUCCESS);
            ASSERT_TRUE(c.progress_until([&] { return !c.received.empty(); }));
            ASSERT_EQ(c.received.front().data, msg) << "message " << i;
            c.received.pop_front();
        }
        EXPECT_EQ(c.send_ok, 500u);
        EXPECT_EQ(c.send_err, 0u);
        // A message above the negotiated maximum is refused at allocation.
        std::string big(4081, 'x');
        doca_comch_task_send *t = nullptr;
        EXPECT_EQ(doca_comch_client_task_send_alloc_init(c.handle(), conn, big.data(), 4081, &t),
                  DOCA_ERROR_INVALID_VALUE);
        ASSERT_EQ(doca_comch_connection_update_info(conn), DOCA_SUCCESS);
        uint64_t v = 0;
        ASSERT_EQ(doca_comch_connection_get_counter(conn, DOCA_COMCH_COUNTER_SENT_MESSAGES, &v),
                  DOCA_SUCCESS);
        EXPECT_EQ(v, 500u);
        ASSERT_EQ(doca_comch_connection_get_counter(conn, DOCA_COMCH_COUNTER_RECV_MESSAGES, &v),
                  DOCA_SUCCESS);
        EXPECT_EQ(v, 500u);
        ASSERT_EQ(c.stop_and_wait(), DOCA_SUCCESS);
        // STARTING, RUNNING, STOPPING, IDLE
        ASSERT_EQ(c.states.size(), 4u);
        EXPECT_EQ(c.states[0], DOCA_CTX_STATE_STARTING);
        EXPECT_EQ(c.states[1], DOCA_CTX_STATE_RUNNING);
        EXPECT_EQ(c.states[2], DOCA_CTX_STATE_STOPPING);
        EXPECT_EQ(c.states[3], DOCA_CTX_STATE_IDLE);
    }
    EXPECT_EQ(wait_child(srv), 0);
}

// Sixteen clients on one server, each in its own process, interleaved traffic.
TEST_P(ComchCtrl, SixteenClients)
{
    constexpr int n = 16;
    pid_t srv = spawn([&] { return echo_server("many", n, epoll_mode()); });
    std::vector<pid_t> kids;
    for (int k = 0; k < n; ++k) {
        kids.push_back(spawn([&, k] {
            client c("many");
            CHILD_CHECK(c.ok());
            c.set_epoll_mode(epoll_mode());
            CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
            CHILD_CHECK(c.wait_running(10000ms));
            for (int i = 0; i < 50; ++i) {
                std::string msg = "client " + std::to_string(k) + " message " + std::to_string(i);
                CHILD_CHECK(c.send(c.connection(), msg) == DOCA_SUCCESS);
                CHILD_CHECK(c.progress_until([&] { return !c.received.empty(); }, 10000ms));
                CHILD_CHECK(c.received.front().data == msg);
                c.received.pop_front();
            }
            CHILD_CHECK(c.stop_and_wait() == DOCA_SUCCESS);
            return 0;
        }));
    }
    for (pid_t p : kids)
        EXPECT_EQ(wait_child(p, 30000ms), 0);
    EXPECT_EQ(wait_child(srv, 30000ms), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, ComchCtrl, ::testing::Values(false, true),
                         [](const auto &param_info) {
                             return param_info.param ? "epoll" : "polling";
                         });

class ComchLifecycle : public ::testing::Test {
protected:
    void SetUp() override
    {
        use_private_fabric(::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
};

// Two servers with different names on the same representor; each client reaches its own.
TEST_F(ComchLifecycle, TwoServersDifferentNames)
{
    pid_t a = spawn([] {
        server s("alpha");
        CHILD_CHECK(s.ok() && s.start() == DOCA_SUCCESS);
        s.on_recv = [](side &self, doca_comch_connection *c, const uint8_t *, uint32_t) {
            return int(self.send(c, std::string("from alpha")));
        };
        CHILD_CHECK(s.progress_until([&] { return !s.disconnected.empty(); }, 15000ms));
        return 0;
    });
    pid_t b = spawn([] {
        server s("beta");
        CHILD_CHECK(s.ok() && s.start() == DOCA_SUCCESS);
        s.on_recv = [](side &self, doca_comch_connection *c, const uint8_t *, uint32_t) {
            return int(self.send(c, std::string("from beta")));
        };
        CHILD_CHECK(s.progress_until([&] { return !s.disconnected.empty(); }, 15000ms));
        return 0;
    });
    for (const char *name : {"alpha", "beta"}) {
        client c(name);
        ASSERT_TRUE(c.ok());
        ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
        ASSERT_TRUE(c.wait_running());
        ASSERT_EQ(c.send(c.connection(), std::string("hello")), DOCA_SUCCESS);
        ASSERT_TRUE(c.progress_until([&] { return !c.received.empty(); }));
        EXPECT_EQ(c.received.front().data, std::string("from ") + name);
        ASSERT_EQ(c.stop_and_wait(), DOCA_SUCCESS);
    }
    EXPECT_EQ(wait_child(a), 0);
    EXPECT_EQ(wait_child(b), 0);
}

// A client that stops and starts again (same objects, then fresh ones) reconnects every time.
TEST_F(ComchLifecycle, ClientRestartReconnects)
{
    pid_t srv = spawn([] { return echo_server("restart", 3, false); });
    {
        client c("restart");
        ASSERT_TRUE(c.ok());
        for (int round = 0; round < 2; ++round) {
            ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS) << round;
            ASSERT_TRUE(c.wait_running()) << round;
            ASSERT_EQ(c.send(c.connection(), std::string("round ") + std::to_string(round)),
                      DOCA_SUCCESS);
            ASSERT_TRUE(c.progress_until([&] { return !c.received.empty(); }));
            c.received.clear();
            ASSERT_EQ(c.stop_and_wait(), DOCA_SUCCESS);
        }
    }
    {
        client c("restart");
        ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
        ASSERT_TRUE(c.wait_running());
        ASSERT_EQ(c.stop_and_wait(), DOCA_SUCCESS);
    }
    EXPECT_EQ(wait_child(srv), 0);
}

// The server goes away and comes back: the client sees its connection end (RUNNING -> IDLE
// through STOPPING), then a restarted client reaches the new server.
TEST_F(ComchLifecycle, ServerRestart)
{
    for (int round = 0; round < 2; ++round) {
        pid_t srv = spawn([] {
            server s("phoenix");
            CHILD_CHECK(s.ok() && s.start() == DOCA_SUCCESS);
            CHILD_CHECK(s.progress_until([&] { return !s.connections.empty(); }, 10000ms));
            CHILD_CHECK(s.stop_and_wait() == DOCA_SUCCESS);
            return 0;
        });
        client c("phoenix");
        ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
        ASSERT_TRUE(c.wait_running()) << round;
        // The server stops: the client context winds down by itself.
        ASSERT_TRUE(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; })) << round;
        EXPECT_EQ(c.states.back(), DOCA_CTX_STATE_IDLE);
        EXPECT_EQ(c.states[c.states.size() - 2], DOCA_CTX_STATE_STOPPING);
        EXPECT_EQ(wait_child(srv), 0);
    }
}

// A client on host function b1:00.1 does not reach a server bound to pf0hpf (b1:00.0): it is
// refused and goes back to IDLE, with a log line naming the mismatch.
TEST_F(ComchLifecycle, WrongHostFunctionRefused)
{
    gate listening, done;
    pid_t srv = spawn([&] {
        server s("scoped");
        CHILD_CHECK(s.ok() && s.start() == DOCA_SUCCESS);
        listening.open();
        CHILD_CHECK(s.progress_until([&] { return done.opened(); }, 10000ms));
        CHILD_CHECK(s.connections.empty());
        return 0;
    });
    ASSERT_TRUE(listening.wait(5000ms));
    client_options o;
    o.dev_pci = "0000:b1:00.1";
    client c("scoped", o);
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 3000ms));
    EXPECT_FALSE(std::count(c.states.begin(), c.states.end(), DOCA_CTX_STATE_RUNNING));
    done.open();
    EXPECT_EQ(wait_child(srv), 0);
}

// Kill the client with SIGKILL mid-stream: the server sees the disconnect and keeps working.
TEST_F(ComchLifecycle, ClientKilledServerSeesDisconnect)
{
    server s("victim");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    pid_t cli = spawn([] {
        client c("victim");
        CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
        CHILD_CHECK(c.wait_running());
        for (;;) {
            c.send(c.connection(), std::string("flood"));
            doca_pe_progress(c.pe());
        }
    });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && s.received.size() > 100; }));
    kill(cli, SIGKILL);
    EXPECT_EQ(wait_child(cli), 128 + SIGKILL);
    ASSERT_TRUE(s.progress_until([&] { return s.disconnected.size() == 1; }, 3000ms));
    EXPECT_TRUE(s.connections.empty());
    EXPECT_EQ(s.state(), DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// Kill the server with SIGKILL: the client's context stops by itself, sends queued behind a
// full ring fail through the error callback, and nothing hangs.
TEST_F(ComchLifecycle, ServerKilledClientStops)
{
    int parked[2];
    ASSERT_EQ(pipe(parked), 0);
    pid_t srv = spawn([&] {
        server_options o;
        o.recv_queue_size = 4;
        server s("doomed", o);
        CHILD_CHECK(s.start() == DOCA_SUCCESS);
        CHILD_CHECK(s.progress_until([&] { return !s.connections.empty(); }, 10000ms));
        CHILD_CHECK(write(parked[1], "p", 1) == 1);
        for (;;)
            pause(); // never progress again: the client's sends pile up
    });
    client c("doomed");
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(c.wait_running());
    // Send only once the server has stopped progressing: its last progress call could
    // otherwise take the first messages out of the queue and make room for more.
    close(parked[1]); // a server that dies before parking ends the read with 0
    char p = 0;
    const ssize_t got = read(parked[0], &p, 1);
    close(parked[0]);
    ASSERT_EQ(got, 1) << "the server did not see the connection";
    for (int i = 0; i < 20; ++i)
        ASSERT_EQ(c.send(c.connection(), std::string("queued")), DOCA_SUCCESS);
    ASSERT_TRUE(c.progress_until([&] { return c.send_ok >= 4; }, 5000ms));
    c.progress_for(50ms);     // and no more than 4
    EXPECT_EQ(c.send_ok, 4u); // the server's receive queue holds 4
    kill(srv, SIGKILL);
    EXPECT_EQ(wait_child(srv), 128 + SIGKILL);
    ASSERT_TRUE(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 3000ms));
    EXPECT_EQ(c.send_ok, 4u);
    EXPECT_EQ(c.send_err, 16u);
}

// A send that has to wait for ring space carries its own copy of the message: NVIDIA's
// file_compression frees its buffer as soon as its last send is submitted, and on hardware the
// message leaves with the submission. The server does not progress until the client submitted
// 20 sends (4 fit its receive queue) and overwrote and freed every message; all 20 arrive as
// they were when submitted.
TEST_F(ComchLifecycle, QueuedSendsKeepTheirMessageAfterTheProgramFreesIt)
{
    int go[2], seen[2];
    ASSERT_EQ(pipe(go), 0);
    ASSERT_EQ(pipe(seen), 0);
    pid_t srv = spawn([&] {
        close(go[1]);
        close(seen[0]);
        server_options o;
        o.recv_queue_size = 4;
        server s("copied", o);
        CHILD_CHECK(s.start() == DOCA_SUCCESS);
        CHILD_CHECK(s.progress_until([&] { return !s.connections.empty(); }, 10000ms));
        CHILD_CHECK(write(seen[1], "c", 1) == 1);
        char g = 0;
        CHILD_CHECK(read(go[0], &g, 1) == 1); // the client submitted everything
        CHILD_CHECK(s.progress_until([&] { return s.received.size() >= 20; }, 10000ms));
        for (int i = 0; i < 20; ++i)
            CHILD_CHECK(s.received[size_t(i)].data == "message " + std::to_string(i));
        CHILD_CHECK(s.progress_until([&] { return !s.disconnected.empty(); }, 10000ms));
        CHILD_CHECK(s.stop_and_wait() == DOCA_SUCCESS);
        return 0;
    });
    close(go[0]);
    close(seen[1]);
    client c("copied");
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(c.wait_running());
    char p = 0;
    ASSERT_EQ(read(seen[0], &p, 1), 1);
    close(seen[0]);
    for (int i = 0; i < 20; ++i) {
        const std::string text = "message " + std::to_string(i);
        auto msg = std::make_unique<char[]>(text.size());
        std::memcpy(msg.get(), text.data(), text.size());
        doca_comch_task_send *t = nullptr;
        ASSERT_EQ(doca_comch_client_task_send_alloc_init(c.handle(), c.connection(), msg.get(),
                                                         uint32_t(text.size()), &t),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
        std::memset(msg.get(), 'X', text.size()); // the program reuses its buffer...
    }                                             // ...and frees it
    ASSERT_EQ(write(go[1], "g", 1), 1);
    close(go[1]);
    ASSERT_TRUE(c.progress_until([&] { return c.send_ok >= 20; }, 10000ms));
    EXPECT_EQ(c.send_err, 0u);
    ASSERT_EQ(c.stop_and_wait(), DOCA_SUCCESS);
    EXPECT_EQ(wait_child(srv), 0);
}
