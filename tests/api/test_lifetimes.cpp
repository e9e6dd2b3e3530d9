// SPDX-License-Identifier: Apache-2.0
//
// Exact lifetimes through the public API (docs/failure-model.md, "Lifetimes: handles, parents
// and children, the engine"): closed connections are freed and their handles refused; a parent
// (client, server, mmap, inventory, engine) refuses to go while a child refers to it; stale
// handles to objects whose address could be reused are refused; a configuration error fails
// doca_ctx_start instead of wedging the engine. A server (03:00.0 + representor b1:00.0) and a
// client (b1:00.0) run in this process, each with its own progress engine.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "comch_harness.hpp"
#include "connected_pair.hpp"
#include "sdk_log_capture.hpp"

inline void PrintTo(doca_error e, std::ostream *os)
{
    *os << doca_error_get_name(e) << " (" << int(e) << ")";
}

namespace {

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    unsetenv("SOFTCOMCH_LOG_LEVEL");
    return 0;
}();

using sc_test::connected_pair;

class Lifetimes : public ::testing::Test {
protected:
    void SetUp() override
    {
        sdk_log::mark();
        sc_test::use_private_fabric(
            std::string("life-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
};

// The client starts again; true once it is RUNNING and the server has its new connection.
bool reconnect(connected_pair &p)
{
    if (doca_ctx_start(p.cli.ctx()) != DOCA_ERROR_IN_PROGRESS)
        return false;
    if (!p.progress([&] {
            return p.cli.state() == DOCA_CTX_STATE_RUNNING && p.srv.connections.size() == 1;
        }))
        return false;
    p.cli_conn = p.cli.connection();
    p.srv_conn = p.srv.connections.front();
    return true;
}

// A started mmap over a static buffer.
struct started_mmap {
    alignas(64) static inline char memory[8192];
    doca_mmap *m = nullptr;
    started_mmap()
    {
        EXPECT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_set_memrange(m, memory, sizeof memory), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    }
};

// ---- connections ----

TEST_F(Lifetimes, AClosedConnectionIsFreedAndItsHandleRefusedWithTheDocumentedCodes)
{
    connected_pair p("closed");
    doca_comch_connection *old = p.srv_conn;
    union doca_data ud {};
    ud.u64 = 77;
    ASSERT_EQ(doca_comch_connection_set_user_data(old, ud), DOCA_SUCCESS);
    p.stop_client();
    ASSERT_TRUE(p.progress([&] { return !p.srv.disconnected.empty(); }));
    EXPECT_EQ(p.srv.disconnected.front(), old) << "the disconnect event names the same handle";
    p.progress([] { return false; }, std::chrono::milliseconds(20)); // the reclaim has run

    // doca_comch.h: a stale connection is INVALID_VALUE for the accessors...
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_connection_set_user_data, old, ud);
    EXPECT_LOGGED(doca_comch_connection_get_user_data,
                  EXPECT_EQ(doca_comch_connection_get_user_data(old).u64, 0u));
    EXPECT_LOGGED(doca_comch_server_get_server_ctx,
                  EXPECT_EQ(doca_comch_server_get_server_ctx(old), nullptr));
    uint64_t counter = 0;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_connection_get_counter, old,
                   DOCA_COMCH_COUNTER_SENT_MESSAGES, &counter);
    // ...and the code each function documents for a closed connection elsewhere.
    EXPECT_EQ(doca_comch_connection_update_info(old), DOCA_ERROR_CONNECTION_ABORTED);
    const char msg[] = "late";
    doca_comch_task_send *t = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_NOT_CONNECTED, doca_comch_server_task_send_alloc_init, p.srv.handle(),
                   old, msg, 4, &t);
    EXPECT_REFUSED(DOCA_ERROR_NOT_CONNECTED, doca_comch_server_disconnect, p.srv.handle(), old);
    started_mmap mm;
    doca_comch_consumer *consumer = nullptr;
    doca_comch_producer *producer = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_consumer_create, old, mm.m, &consumer);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_producer_create, old, &producer);
    EXPECT_EQ(doca_mmap_destroy(mm.m), DOCA_SUCCESS);

    // A new connection gets a new handle; the old one stays refused.
    ASSERT_TRUE(reconnect(p));
    EXPECT_NE(p.srv_conn, old);
    EXPECT_EQ(doca_comch_connection_get_user_data(p.srv_conn).u64, 0u) << "nothing carried over";
    EXPECT_EQ(doca_comch_connection_set_user_data(old, ud), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Lifetimes, ReconnectingDoesNotGrowTheServerAndOldHandlesStayStale)
{
    // Every closed connection used to stay allocated until the server stopped (+367 bytes per
    // connect/disconnect). Capture at ERROR only while measuring: the capture keeps its lines.
    connected_pair p("churn");
    ASSERT_EQ(doca_log_backend_set_sdk_level(sdk_log::backend(), DOCA_LOG_LEVEL_ERROR),
              DOCA_SUCCESS);
    std::vector<doca_comch_connection *> seen{p.srv_conn};
    auto cycle = [&] {
        p.stop_client();
        EXPECT_TRUE(p.progress([&] { return p.srv.connections.empty(); }));
        EXPECT_TRUE(reconnect(p));
        seen.push_back(p.srv_conn);
        p.srv.disconnected.clear();
    };
    for (int i = 0; i < 50; ++i) // warm-up: vectors and caches reach their size
        cycle();
    const size_t before = mallinfo2().uordblks;
    constexpr int k_cycles = 300;
    for (int i = 0; i < k_cycles; ++i)
        cycle();
    const size_t after = mallinfo2().uordblks;
    ASSERT_EQ(doca_log_backend_set_sdk_level(sdk_log::backend(), DOCA_LOG_LEVEL_DEBUG),
              DOCA_SUCCESS);
    EXPECT_LT(after, before + k_cycles * 64)
        << "heap grew by " << (after - before) << " bytes over " << k_cycles << " reconnections";
    // Every handle was new, and every one but the live one is refused.
    std::vector<doca_comch_connection *> sorted = seen;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
    for (size_t i = 0; i + 1 < seen.size(); ++i)
        ASSERT_EQ(doca_comch_connection_update_info(seen[i]), DOCA_ERROR_CONNECTION_ABORTED)
            << "handle " << i;
    EXPECT_EQ(doca_comch_connection_update_info(seen.back()), DOCA_SUCCESS);
}

TEST_F(Lifetimes, ASendTaskKeptPastItsConnectionIsRefusedAtSubmit)
{
    // The task outlives the connection it was allocated for (the program keeps it); it holds
    // the connection's handle, not its address.
    connected_pair p("kept-task");
    const char msg[] = "kept";
    doca_comch_task_send *task = nullptr;
    ASSERT_EQ(doca_comch_server_task_send_alloc_init(p.srv.handle(), p.srv_conn, msg, 4, &task),
              DOCA_SUCCESS);
    p.stop_client();
    ASSERT_TRUE(p.progress([&] { return !p.srv.disconnected.empty(); }));
    p.progress([] { return false; }, std::chrono::milliseconds(20));
    doca_task *t = doca_comch_task_send_as_task(task);
    EXPECT_REFUSED(DOCA_ERROR_NOT_CONNECTED, doca_task_submit, t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_task_try_submit, t);
    doca_task_free(t);
}

TEST_F(Lifetimes, TheHandleIsTheSameInEveryCallbackAndGetter)
{
    connected_pair p("same");
    ASSERT_EQ(p.cli.send(p.cli_conn, "hello"), DOCA_SUCCESS);
    ASSERT_TRUE(p.progress([&] { return !p.srv.received.empty(); }));
    EXPECT_EQ(p.srv.received.front().conn, p.srv_conn) << "receive event vs connect event";
    ASSERT_EQ(p.srv.send(p.srv_conn, "world"), DOCA_SUCCESS);
    ASSERT_TRUE(p.progress([&] { return !p.cli.received.empty(); }));
    EXPECT_EQ(p.cli.received.front().conn, p.cli_conn) << "receive event vs get_connection";
    EXPECT_EQ(doca_comch_server_get_server_ctx(p.srv_conn), p.srv.handle());
    EXPECT_EQ(doca_comch_client_get_client_ctx(p.cli_conn), p.cli.handle());
    // A connection handle passed as another kind of object is refused, not dereferenced.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_ctx_start,
                   reinterpret_cast<doca_ctx *>(p.srv_conn));
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_destroy,
                   reinterpret_cast<doca_pe *>(p.cli_conn));
}

// ---- parents and children ----

TEST_F(Lifetimes, AClientOrServerIsNotDestroyedUnderItsConsumersAndProducers)
{
    connected_pair p("parents");
    started_mmap mm;
    doca_comch_consumer *consumer = nullptr;
    doca_comch_producer *producer = nullptr;
    ASSERT_EQ(doca_comch_consumer_create(p.cli_conn, mm.m, &consumer), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_producer_create(p.srv_conn, &producer), DOCA_SUCCESS);
    doca_comch_connection *srv_conn = p.srv_conn;

    // Stopping is allowed (the children see their connection end, as when the peer dies)...
    p.stop_client();
    ASSERT_TRUE(p.progress([&] { return !p.srv.disconnected.empty(); }));
    p.progress([] { return false; }, std::chrono::milliseconds(20));
    // ...and the server's closed connection is kept while its producer refers to it.
    EXPECT_EQ(doca_comch_server_get_server_ctx(srv_conn), p.srv.handle());
    p.stop_server();

    // Destroying is not: the children point at the connection (use after free before).
    size_t m = sdk_log::mark();
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_comch_client_destroy, p.cli.handle());
    EXPECT_NE(sdk_log::since(m).find("1 consumer(s) and 0 producer(s)"), std::string::npos)
        << "the line names the children" << sdk_log::since(m);
    m = sdk_log::mark();
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_comch_server_destroy, p.srv.handle());
    EXPECT_NE(sdk_log::since(m).find("0 consumer(s) and 1 producer(s)"), std::string::npos)
        << sdk_log::since(m);
    // Nor does the client start a new connection while its old one has children.
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_ctx_start, p.cli.ctx());
    // The consumer's mmap is held too: stop or destroy would leave its memory shared.
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_stop, mm.m);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_destroy, mm.m);

    // Children first, then the parents go (the harness destroys the server and the client).
    EXPECT_EQ(doca_comch_consumer_destroy(consumer), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_producer_destroy(producer), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_stop(mm.m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(mm.m), DOCA_SUCCESS);
    // The server's connection is freed with the server's next start (it was kept for the
    // producer), and the client may start again.
    ASSERT_EQ(p.srv.start(), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_connection_update_info(srv_conn), DOCA_ERROR_CONNECTION_ABORTED);
    EXPECT_EQ(doca_comch_connection_set_user_data(srv_conn, doca_data{}), DOCA_ERROR_INVALID_VALUE);
    EXPECT_TRUE(reconnect(p));
}

TEST_F(Lifetimes, AClosedConnectionIsFreedOnceItsLastChildGoes)
{
    connected_pair p("last-child");
    doca_comch_producer *producer = nullptr;
    ASSERT_EQ(doca_comch_producer_create(p.srv_conn, &producer), DOCA_SUCCESS);
    doca_comch_connection *srv_conn = p.srv_conn;
    p.stop_client();
    ASSERT_TRUE(p.progress([&] { return !p.srv.disconnected.empty(); }));
    p.progress([] { return false; }, std::chrono::milliseconds(20));
    EXPECT_EQ(doca_comch_connection_update_info(srv_conn), DOCA_ERROR_CONNECTION_ABORTED);
    union doca_data ud {};
    EXPECT_EQ(doca_comch_connection_set_user_data(srv_conn, ud), DOCA_SUCCESS) << "still there";
    EXPECT_EQ(doca_comch_producer_destroy(producer), DOCA_SUCCESS);
    // The running server frees it within a few milliseconds of progress.
    EXPECT_TRUE(p.progress([&] {
        return doca_comch_connection_set_user_data(srv_conn, ud) == DOCA_ERROR_INVALID_VALUE;
    }));
}

TEST_F(Lifetimes, CoreParentsRefuseWhileChildrenExist)
{
    // The engine under a connected context.
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    doca_dev *host = sc_test::open_dev("b1:00.0");
    ASSERT_NE(host, nullptr);
    doca_comch_client *cli = nullptr;
    ASSERT_EQ(doca_comch_client_create(host, "orphan", &cli), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(pe, doca_comch_client_as_ctx(cli)), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_pe_destroy, pe);
    EXPECT_EQ(doca_comch_client_destroy(cli), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);

    // The inventory and the mmap under a buf.
    started_mmap mm;
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_buf *buf = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mm.m, started_mmap::memory, 64, &buf),
              DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_buf_inventory_destroy, inv);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_destroy, mm.m);
    EXPECT_REFUSED(DOCA_ERROR_NOT_PERMITTED, doca_mmap_stop, mm.m);
    EXPECT_EQ(doca_buf_dec_refcount(buf, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);

    // The device under an mmap: closing it is allowed (NVIDIA's secure_channel closes the device
    // before destroying its mmap); the device object lives until the mmap lets go.
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(m, host), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, started_mmap::memory, 128), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(mm.m), DOCA_SUCCESS);
}

// ---- stale handles ----

// Creates and destroys `n` objects with `make`/`destroy`; each new one must have an address
// none of the last `recent` destroyed ones had, and every stale handle is refused by `destroy`.
template <typename T, typename Make, typename Destroy>
void churn(const char *what, int n, Make make, Destroy destroy)
{
    std::vector<T *> stale;
    for (int i = 0; i < n; ++i) {
        T *obj = make();
        ASSERT_NE(obj, nullptr) << what;
        EXPECT_EQ(std::find(stale.begin(), stale.end(), obj), stale.end())
            << what << " " << i << " got the address of a destroyed one";
        ASSERT_EQ(destroy(obj), DOCA_SUCCESS) << what;
        stale.push_back(obj);
    }
    for (T *obj : stale)
        EXPECT_EQ(destroy(obj), DOCA_ERROR_INVALID_VALUE) << what << ": a stale handle";
}

TEST_F(Lifetimes, StaleHandlesAreRefusedNotServedByANewerObject)
{
    // The case: a stale engine handle destroyed a newer engine at the same address and
    // the next doca_pe_progress crashed.
    doca_pe *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_pe_create(&a), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_destroy(a), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_create(&b), DOCA_SUCCESS);
    EXPECT_NE(a, b);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_pe_destroy, a);
    EXPECT_LOGGED(doca_pe_progress, EXPECT_EQ(doca_pe_progress(a), 0));
    EXPECT_EQ(doca_pe_progress(b), 0) << "the newer engine is untouched";
    EXPECT_EQ(doca_pe_destroy(b), DOCA_SUCCESS);

    // 100 of each kind (the quarantine holds 128 per size): no address comes back.
    churn<doca_pe>(
        "doca_pe", 100,
        [] {
            doca_pe *p = nullptr;
            return doca_pe_create(&p) == DOCA_SUCCESS ? p : nullptr;
        },
        doca_pe_destroy);
    churn<doca_mmap>(
        "doca_mmap", 100,
        [] {
            doca_mmap *m = nullptr;
            return doca_mmap_create(&m) == DOCA_SUCCESS ? m : nullptr;
        },
        doca_mmap_destroy);
    churn<doca_buf_inventory>(
        "doca_buf_inventory", 100,
        [] {
            doca_buf_inventory *i = nullptr;
            return doca_buf_inventory_create(8, &i) == DOCA_SUCCESS ? i : nullptr;
        },
        doca_buf_inventory_destroy);
    doca_dev *host = sc_test::open_dev("b1:00.0");
    ASSERT_NE(host, nullptr);
    churn<doca_comch_client>(
        "doca_comch_client", 100,
        [host] {
            doca_comch_client *c = nullptr;
            return doca_comch_client_create(host, "churn", &c) == DOCA_SUCCESS ? c : nullptr;
        },
        doca_comch_client_destroy);
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
}

// ---- the engine ----

TEST_F(Lifetimes, AnUnusableSocketPathFailsTheStartAndTheEngineGoesOn)
{
    // A fabric path too long for a Unix socket used to throw inside doca_pe_progress (the
    // client builds it there) and leave the engine refusing every later call.
    const char *xdg = std::getenv("XDG_RUNTIME_DIR");
    const std::string saved = xdg ? xdg : "";
    std::string longdir = "/tmp/softcomch-life-" + std::to_string(::getpid()) + "-";
    longdir.append(100, 'x');
    ASSERT_EQ(::mkdir(longdir.c_str(), 0700), 0);
    setenv("XDG_RUNTIME_DIR", longdir.c_str(), 1);

    sc_test::client cli("too-long");
    ASSERT_TRUE(cli.ok());
    const size_t m = sdk_log::mark();
    EXPECT_EQ(cli.start(), DOCA_ERROR_INITIALIZATION) << "refused at doca_ctx_start";
    EXPECT_TRUE(sdk_log::named_since(m, "doca_ctx_start")) << sdk_log::since(m);
    EXPECT_EQ(cli.state(), DOCA_CTX_STATE_IDLE);
    sc_test::server srv("too-long");
    ASSERT_TRUE(srv.ok());
    EXPECT_EQ(srv.start(), DOCA_ERROR_INITIALIZATION);

    if (xdg)
        setenv("XDG_RUNTIME_DIR", saved.c_str(), 1);
    else
        unsetenv("XDG_RUNTIME_DIR");
    ::rmdir((longdir + "/softcomch/" + std::getenv("SOFTCOMCH_FABRIC")).c_str());
    ::rmdir((longdir + "/softcomch").c_str());
    ::rmdir(longdir.c_str());
    // The same contexts and engines work once the path is usable.
    EXPECT_EQ(srv.start(), DOCA_SUCCESS);
    EXPECT_EQ(cli.start(), DOCA_ERROR_IN_PROGRESS);
    EXPECT_TRUE(cli.progress_until([&] {
        doca_pe_progress(srv.pe());
        return cli.state() == DOCA_CTX_STATE_RUNNING;
    }));
}

} // namespace
