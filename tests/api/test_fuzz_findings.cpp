// SPDX-License-Identifier: Apache-2.0
//
// What the API-sequence fuzzer (tests/fuzz/fuzz_api.cpp) found, as plain tests through the public
// API: a server and a client in one process, each with its own engine, progressed together. Each
// case was a use after free (reported by AddressSanitizer) before its fix; here each checks the
// documented refusal that replaced it, and that the object can go once its user went.
//   - a server or client destroyed while a producer or consumer of its connection existed
//     (the connection went with it): DOCA_ERROR_IN_USE;
//   - an mmap stopped or destroyed under a consumer created on it: DOCA_ERROR_NOT_PERMITTED;
//   - a send task kept across a restart of its client, then submitted (its connection was freed
//     by the restart): DOCA_ERROR_NOT_CONNECTED;
//   - the send tasks reconfigured while one was still allocated (the pool's storage went):
//     DOCA_ERROR_BAD_STATE;
//   - a server that disconnects a client from inside the receive callback of that client's
//     message (the link went while the receive loop was still reading it; a UBSan "invalid vptr"
//     in the fuzzer): the connection closes, the messages after it are not delivered, the
//     server serves on.
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>

#include "comch_harness.hpp"

namespace {

using namespace std::chrono_literals;

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    return 0;
}();

// A connected pair; both engines progressed by pump().
struct pair {
    std::unique_ptr<sc_test::server> srv;
    std::unique_ptr<sc_test::client> cli;

    explicit pair(const std::string &name)
    {
        sc_test::use_private_fabric(name);
        srv = std::make_unique<sc_test::server>(name);
        cli = std::make_unique<sc_test::client>(name);
    }
    void pump() const
    {
        (void)doca_pe_progress(srv->pe());
        (void)doca_pe_progress(cli->pe());
    }
    bool until(const std::function<bool()> &pred) const
    {
        const auto end = sc_test::clock::now() + 5s;
        while (!pred()) {
            if (sc_test::clock::now() > end)
                return false;
            pump();
        }
        return true;
    }
    bool connect()
    {
        return srv->start() == DOCA_SUCCESS && cli->start() == DOCA_ERROR_IN_PROGRESS && until([&] {
                   return cli->state() == DOCA_CTX_STATE_RUNNING && !srv->connections.empty();
               });
    }
    bool stop(sc_test::side &s) const
    {
        const doca_error_t rc = doca_ctx_stop(s.ctx());
        return (rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS) &&
               until([&] { return s.state() == DOCA_CTX_STATE_IDLE; });
    }
};

// A producer on `conn`, progressed on `pe`, RUNNING.
doca_comch_producer *running_producer(doca_comch_connection *conn, doca_pe *pe)
{
    doca_comch_producer *p = nullptr;
    if (doca_comch_producer_create(conn, &p) != DOCA_SUCCESS)
        return nullptr;
    auto done = [](doca_comch_producer_task_send *t, union doca_data, union doca_data) {
        doca_task_free(doca_comch_producer_task_send_as_task(t));
    };
    EXPECT_EQ(doca_comch_producer_task_send_set_conf(p, done, done, 4), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
    EXPECT_EQ(doca_ctx_start(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
    return p;
}

TEST(FuzzFindings, ServerAndClientOutliveTheirConnectionsProducers)
{
    pair p("fuzz-srv-producer");
    ASSERT_TRUE(p.srv->ok() && p.cli->ok());
    ASSERT_TRUE(p.connect());
    doca_comch_producer *on_srv = running_producer(p.srv->connections.front(), p.srv->pe());
    doca_comch_producer *on_cli = running_producer(p.cli->connection(), p.cli->pe());
    ASSERT_NE(on_srv, nullptr);
    ASSERT_NE(on_cli, nullptr);
    for (doca_comch_producer *prod : {on_srv, on_cli}) {
        doca_ctx *c = doca_comch_producer_as_ctx(prod);
        const doca_error_t rc = doca_ctx_stop(c);
        ASSERT_TRUE(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS) << doca_error_get_name(rc);
        ASSERT_TRUE(p.until([&] {
            doca_ctx_states s = DOCA_CTX_STATE_RUNNING;
            doca_ctx_get_state(c, &s);
            return s == DOCA_CTX_STATE_IDLE;
        }));
    }
    ASSERT_TRUE(p.stop(*p.cli));
    ASSERT_TRUE(p.stop(*p.srv));
    // Both IDLE, each with a producer on its (closed) connection.
    EXPECT_EQ(doca_comch_client_destroy(p.cli->handle()), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_comch_server_destroy(p.srv->handle()), DOCA_ERROR_IN_USE);
    // A restart: the client's one connection would be replaced under its producer (refused);
    // the server keeps a closed connection while a producer refers to it, and starts.
    EXPECT_EQ(doca_ctx_start(p.cli->ctx()), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_ctx_start(p.srv->ctx()), DOCA_SUCCESS);
    ASSERT_TRUE(p.stop(*p.srv));
    EXPECT_EQ(doca_comch_server_destroy(p.srv->handle()), DOCA_ERROR_IN_USE);
    // The producers go first; then the owners may (the harness destroys them at the end).
    EXPECT_EQ(doca_comch_producer_destroy(on_srv), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_producer_destroy(on_cli), DOCA_SUCCESS);
}

TEST(FuzzFindings, MmapOutlivesItsConsumer)
{
    pair p("fuzz-mmap-consumer");
    ASSERT_TRUE(p.srv->ok() && p.cli->ok());
    ASSERT_TRUE(p.connect());
    alignas(4096) static uint8_t memory[16384];
    doca_mmap *mmap = nullptr;
    ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory, sizeof memory), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_comch_consumer *cons = nullptr;
    ASSERT_EQ(doca_comch_consumer_create(p.cli->connection(), mmap, &cons), DOCA_SUCCESS);
    // IDLE consumer: the map is still its map (it reads the range at every start).
    EXPECT_EQ(doca_mmap_stop(mmap), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_comch_consumer_destroy(cons), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
}

TEST(FuzzFindings, SendTaskKeptAcrossARestartIsRefused)
{
    pair p("fuzz-task-restart");
    ASSERT_TRUE(p.srv->ok() && p.cli->ok());
    ASSERT_TRUE(p.connect());
    static const char msg[] = "kept";
    doca_comch_task_send *task = nullptr;
    ASSERT_EQ(doca_comch_client_task_send_alloc_init(p.cli->handle(), p.cli->connection(), msg,
                                                     sizeof msg, &task),
              DOCA_SUCCESS);
    ASSERT_TRUE(p.stop(*p.cli));
    // Reconfiguring the pool under the allocated task is refused.
    auto done = [](doca_comch_task_send *t, union doca_data, union doca_data) {
        doca_task_free(doca_comch_task_send_as_task(t));
    };
    EXPECT_EQ(doca_comch_client_task_send_set_conf(p.cli->handle(), done, done, 8),
              DOCA_ERROR_BAD_STATE);
    // The restart drops the old connection; the task names none any more.
    ASSERT_EQ(doca_ctx_start(p.cli->ctx()), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(p.until([&] { return p.cli->state() == DOCA_CTX_STATE_RUNNING; }));
    EXPECT_EQ(doca_task_submit(doca_comch_task_send_as_task(task)), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_task_try_submit(doca_comch_task_send_as_task(task)), DOCA_ERROR_INVALID_VALUE);
    doca_task_free(doca_comch_task_send_as_task(task));
    ASSERT_TRUE(p.stop(*p.cli));
    // Nothing allocated any more: reconfiguring is fine again.
    EXPECT_EQ(doca_comch_client_task_send_set_conf(p.cli->handle(), done, done, 8), DOCA_SUCCESS);
}

TEST(FuzzFindings, DisconnectFromTheReceiveCallbackOfThatConnection)
{
    pair p("fuzz-disconnect-in-recv");
    ASSERT_TRUE(p.srv->ok() && p.cli->ok());
    doca_comch_server *srv = p.srv->handle();
    size_t delivered = 0;
    doca_error_t disconnect_rc = DOCA_ERROR_UNKNOWN;
    p.srv->on_recv = [&](sc_test::side &, doca_comch_connection *conn, const uint8_t *, uint32_t) {
        if (delivered++ == 0)
            disconnect_rc = doca_comch_server_disconnect(srv, conn);
    };
    ASSERT_TRUE(p.connect());
    // Three messages in the ring before the server looks: it reads them in one loop.
    for (const char *m : {"one", "two", "three"})
        ASSERT_EQ(p.cli->send(p.cli->connection(), std::string(m)), DOCA_SUCCESS);
    ASSERT_TRUE(p.until([&] { return delivered > 0; }));
    EXPECT_EQ(disconnect_rc, DOCA_SUCCESS);
    // The client sees the server's end; the server delivered nothing after the disconnect and
    // reports no disconnect event of its own making.
    ASSERT_TRUE(p.until([&] { return p.cli->state() == DOCA_CTX_STATE_IDLE; }));
    for (int i = 0; i < 100; ++i)
        p.pump();
    EXPECT_EQ(delivered, 1u);
    EXPECT_TRUE(p.srv->disconnected.empty());
    EXPECT_EQ(p.srv->state(), DOCA_CTX_STATE_RUNNING);
    // And it still serves: a new client connects.
    ASSERT_EQ(p.cli->start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(p.until([&] { return p.cli->state() == DOCA_CTX_STATE_RUNNING; }));
}

} // namespace
