// SPDX-License-Identifier: Apache-2.0
//
// Bad input to every public function of doca_comch.h (and the doca_pe.h task functions, which
// need a real Comch task), through the public headers only: NULL for each pointer argument,
// objects of the wrong kind, calls in the wrong state and values over the device caps return
// the code the header documents, never crash, and leave an SDK log line naming the function.
// A server (03:00.0 + representor b1:00.0) and a client (b1:00.0) run in this process, each
// with its own progress engine, progressed alternately.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <mutex>
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

using sc_test::clock;
using sc_test::connected_pair;
using namespace std::chrono_literals;

class ComchBadInput : public ::testing::Test {
protected:
    void SetUp() override
    {
        sdk_log::mark();
        sc_test::use_private_fabric(
            std::string("bic-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
};

// Opened devices and representors of the built-in machine.
struct devices {
    doca_dev *dpu = sc_test::open_dev("03:00.0");
    doca_dev *dpu1 = sc_test::open_dev("03:00.1");
    doca_dev *host = sc_test::open_dev("b1:00.0");
    doca_dev_rep *rep =
        dpu ? sc_test::open_rep(dpu, "b1:00.0") : nullptr; // pf0hpf, managed by 03:00.0
    doca_dev_rep *rep1 =
        dpu1 ? sc_test::open_rep(dpu1, "b1:00.1") : nullptr; // pf1hpf, managed by 03:00.1
    devices()
    {
        EXPECT_NE(dpu, nullptr);
        EXPECT_NE(dpu1, nullptr);
        EXPECT_NE(host, nullptr);
        EXPECT_NE(rep, nullptr);
        EXPECT_NE(rep1, nullptr);
    }
    ~devices()
    {
        EXPECT_EQ(doca_dev_rep_close(rep1), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(dpu1), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
    }
    uint32_t cap(doca_error_t (*get)(const doca_devinfo *, uint32_t *)) const
    {
        uint32_t v = 0;
        EXPECT_EQ(get(doca_dev_as_devinfo(dpu), &v), DOCA_SUCCESS);
        return v;
    }
};

void send_cb(doca_comch_task_send *task, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(task));
}
void recv_cb(doca_comch_event_msg_recv *, uint8_t *, uint32_t, doca_comch_connection *) {}
void conn_cb(doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t) {}
void consumer_cb(doca_comch_event_consumer *, doca_comch_connection *, uint32_t) {}

} // namespace

// =============================================================================================
// Connection functions
// =============================================================================================

TEST_F(ComchBadInput, ConnectionFunctionsWithNullOrForeignConnections)
{
    union doca_data ud {};
    uint64_t v = 0;
    for (doca_comch_connection *c :
         {static_cast<doca_comch_connection *>(nullptr), junk<doca_comch_connection>()}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_connection_set_user_data, c, ud);
        EXPECT_LOGGED(doca_comch_connection_get_user_data,
                      EXPECT_EQ(doca_comch_connection_get_user_data(c).u64, 0u));
        EXPECT_LOGGED(doca_comch_server_get_server_ctx,
                      EXPECT_EQ(doca_comch_server_get_server_ctx(c), nullptr));
        EXPECT_LOGGED(doca_comch_client_get_client_ctx,
                      EXPECT_EQ(doca_comch_client_get_client_ctx(c), nullptr));
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_connection_update_info, c);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_connection_get_counter, c,
                       DOCA_COMCH_COUNTER_SENT_MESSAGES, &v);
    }
}

TEST_F(ComchBadInput, ConnectionFunctionsOnALiveConnection)
{
    connected_pair p("conn-live");
    uint64_t v = 7;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_connection_get_counter, p.cli_conn,
                   DOCA_COMCH_COUNTER_SENT_MESSAGES, nullptr);
    // Unknown counters, within the value range of the C++ enum (0..7); test_headers_c.c passes
    // 99 and -1 from C.
    for (int counter : {0, 5, 6, 7})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_connection_get_counter, p.cli_conn,
                       static_cast<doca_comch_counter>(counter), &v);
    EXPECT_EQ(v, 7u) << "outputs are written only on success";
    // Owners: each end belongs to its own side only.
    EXPECT_EQ(doca_comch_server_get_server_ctx(p.srv_conn), p.srv.handle());
    EXPECT_EQ(doca_comch_client_get_client_ctx(p.srv_conn), nullptr);
    EXPECT_EQ(doca_comch_client_get_client_ctx(p.cli_conn), p.cli.handle());
    EXPECT_EQ(doca_comch_server_get_server_ctx(p.cli_conn), nullptr);
    union doca_data ud {};
    EXPECT_EQ(doca_comch_connection_get_user_data(p.cli_conn).u64, 0u) << "zero if never set";
    ud.u64 = 77;
    EXPECT_EQ(doca_comch_connection_set_user_data(p.cli_conn, ud), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_connection_get_user_data(p.cli_conn).u64, 77u);
}

// =============================================================================================
// Capabilities
// =============================================================================================

TEST_F(ComchBadInput, Capabilities)
{
    devices d;
    const doca_devinfo *dpu = doca_dev_as_devinfo(d.dpu);
    const doca_devinfo *host = doca_dev_as_devinfo(d.host);
    const doca_devinfo *bad = junk<doca_devinfo>();
    uint32_t v = 0;
    struct cap {
        const char *fn;
        doca_error_t (*get)(const doca_devinfo *, uint32_t *);
    };
    const cap caps[] = {
        {"doca_comch_cap_get_max_name_len", doca_comch_cap_get_max_name_len},
        {"doca_comch_cap_get_max_msg_size", doca_comch_cap_get_max_msg_size},
        {"doca_comch_cap_get_max_recv_queue_size", doca_comch_cap_get_max_recv_queue_size},
        {"doca_comch_cap_get_max_clients", doca_comch_cap_get_max_clients},
        {"doca_comch_cap_get_max_send_tasks", doca_comch_cap_get_max_send_tasks},
    };
    for (const auto &c : caps) {
        SCOPED_TRACE(c.fn);
        for (auto [info, out] : {std::pair<const doca_devinfo *, uint32_t *>{nullptr, &v},
                                 {bad, &v},
                                 {dpu, nullptr}}) {
            size_t m = sdk_log::mark();
            EXPECT_EQ(c.get(info, out), DOCA_ERROR_INVALID_VALUE);
            EXPECT_TRUE(sdk_log::named_since(m, c.fn))
                << "no SDK log line names " << c.fn << sdk_log::since(m);
        }
        v = 0;
        EXPECT_EQ(c.get(dpu, &v), DOCA_SUCCESS);
        EXPECT_GT(v, 0u);
        EXPECT_EQ(c.get(host, &v), DOCA_SUCCESS);
    }
    EXPECT_EQ(doca_comch_cap_get_max_msg_size(dpu, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 4080u); // doca_comch.h: 4080 bytes on the emulated BlueField

    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_cap_server_is_supported, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_cap_server_is_supported, bad);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_cap_client_is_supported, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_cap_client_is_supported, bad);
    EXPECT_EQ(doca_comch_cap_server_is_supported(dpu), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_cap_server_is_supported(host), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_comch_cap_client_is_supported(host), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_cap_client_is_supported(dpu), DOCA_ERROR_NOT_SUPPORTED);
}

// =============================================================================================
// Server
// =============================================================================================

TEST_F(ComchBadInput, ServerCreate)
{
    devices d;
    doca_comch_server *s = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, nullptr, d.rep, "srv", &s);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, junk<doca_dev>(), d.rep,
                   "srv", &s);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, d.dpu, nullptr, "srv", &s);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, d.dpu, junk<doca_dev_rep>(),
                   "srv", &s);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, d.dpu, d.rep, nullptr, &s);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, d.dpu, d.rep, "srv",
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, d.dpu, d.rep, "", &s);
    // Name length including the NUL at most max_name_len.
    const uint32_t max_name = d.cap(doca_comch_cap_get_max_name_len);
    ASSERT_GT(max_name, 1u);
    std::string too_long(max_name, 'n');
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, d.dpu, d.rep,
                   too_long.c_str(), &s);
    // A representor of another device (pf1hpf is managed by 03:00.1, not by 03:00.0).
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_create, d.dpu, d.rep1, "srv", &s);
    if (s) { // accepted after all: clean up so that the rest of the test runs
        EXPECT_EQ(doca_comch_server_destroy(s), DOCA_SUCCESS);
        s = nullptr;
    }

    std::string longest(max_name - 1, 'n');
    ASSERT_EQ(doca_comch_server_create(d.dpu, d.rep, longest.c_str(), &s), DOCA_SUCCESS);
    // While the server exists, its representor and device are in use (doca_dev.h).
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_dev_rep_close, d.rep);
    EXPECT_EQ(doca_comch_server_destroy(s), DOCA_SUCCESS);
}

TEST_F(ComchBadInput, ServerConfigurationWhileIdle)
{
    devices d;
    doca_comch_server *s = nullptr;
    ASSERT_EQ(doca_comch_server_create(d.dpu, d.rep, "srv-config", &s), DOCA_SUCCESS);
    doca_comch_server *bad = junk<doca_comch_server>();
    uint32_t v = 0;
    doca_dev *dev = nullptr;
    doca_dev_rep *rep = nullptr;
    for (doca_comch_server *x : {static_cast<doca_comch_server *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_destroy, x);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_set_max_msg_size, x, 100);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_get_max_msg_size, x, &v);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_set_recv_queue_size, x, 16);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_get_recv_queue_size, x, &v);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_get_device, x, &dev);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_get_device_rep, x, &rep);
        EXPECT_LOGGED(doca_comch_server_as_ctx, EXPECT_EQ(doca_comch_server_as_ctx(x), nullptr));
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_disconnect, x,
                       junk<doca_comch_connection>());
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_set_conf, x, send_cb,
                       send_cb, 8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_event_msg_recv_register, x,
                       recv_cb);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE,
                       doca_comch_server_event_connection_status_changed_register, x, conn_cb,
                       conn_cb);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_event_consumer_register, x,
                       consumer_cb, consumer_cb);
    }
    // NULL outputs and callbacks.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_get_max_msg_size, s, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_get_recv_queue_size, s, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_get_device, s, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_get_device_rep, s, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_disconnect, s, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_set_conf, s, nullptr,
                   send_cb, 8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_set_conf, s, send_cb,
                   nullptr, 8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_event_msg_recv_register, s, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE,
                   doca_comch_server_event_connection_status_changed_register, s, nullptr, conn_cb);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE,
                   doca_comch_server_event_connection_status_changed_register, s, conn_cb, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_event_consumer_register, s, nullptr,
                   consumer_cb);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_event_consumer_register, s,
                   consumer_cb, nullptr);

    // Defaults, then values over the caps.
    const uint32_t max_msg = d.cap(doca_comch_cap_get_max_msg_size);
    const uint32_t max_queue = d.cap(doca_comch_cap_get_max_recv_queue_size);
    const uint32_t max_tasks = d.cap(doca_comch_cap_get_max_send_tasks);
    ASSERT_EQ(doca_comch_server_get_max_msg_size(s, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 4080u) << "doca_comch.h: 4080 bytes by default";
    for (uint32_t size : {0u, max_msg + 1, UINT32_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_set_max_msg_size, s, size);
    for (uint32_t size : {0u, max_queue + 1, UINT32_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_set_recv_queue_size, s, size);
    for (uint32_t n : {0u, max_tasks + 1, UINT32_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_set_conf, s, send_cb,
                       send_cb, n);
    ASSERT_EQ(doca_comch_server_get_max_msg_size(s, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 4080u) << "refused setters change nothing";
    // The limits themselves are accepted.
    EXPECT_EQ(doca_comch_server_set_max_msg_size(s, max_msg), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_server_set_max_msg_size(s, 1), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_server_set_recv_queue_size(s, max_queue), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_server_set_recv_queue_size(s, 1), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_server_task_send_set_conf(s, send_cb, send_cb, max_tasks), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_server_get_max_msg_size(s, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 1u);
    ASSERT_EQ(doca_comch_server_get_recv_queue_size(s, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 1u);
    ASSERT_EQ(doca_comch_server_get_device(s, &dev), DOCA_SUCCESS);
    EXPECT_EQ(dev, d.dpu);
    ASSERT_EQ(doca_comch_server_get_device_rep(s, &rep), DOCA_SUCCESS);
    EXPECT_EQ(rep, d.rep);
    EXPECT_EQ(doca_comch_server_as_ctx(s), doca_comch_server_as_ctx(s));
    EXPECT_EQ(doca_comch_server_destroy(s), DOCA_SUCCESS);
}

TEST_F(ComchBadInput, ServerWhileRunning)
{
    connected_pair p("srv-running");
    doca_comch_server *s = p.srv.handle();
    // Configuration after start.
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_server_set_max_msg_size, s, 100);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_server_set_recv_queue_size, s, 16);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_server_task_send_set_conf, s, send_cb, send_cb,
                   8);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_server_event_msg_recv_register, s, recv_cb);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_server_event_connection_status_changed_register,
                   s, conn_cb, conn_cb);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_server_event_consumer_register, s, consumer_cb,
                   consumer_cb);
    // Destroy while running.
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_comch_server_destroy, s);
    // Getters work in any state.
    uint32_t v = 0;
    EXPECT_EQ(doca_comch_server_get_max_msg_size(s, &v), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_server_get_recv_queue_size(s, &v), DOCA_SUCCESS);
    doca_dev *dev = nullptr;
    EXPECT_EQ(doca_comch_server_get_device(s, &dev), DOCA_SUCCESS);

    // Disconnect: a connection of another server; the client's end of the connection.
    sc_test::server other("srv-running-other");
    ASSERT_TRUE(other.ok());
    ASSERT_EQ(other.start(), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_disconnect, other.handle(),
                   p.srv_conn);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_disconnect, s, p.cli_conn);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_disconnect, s,
                   junk<doca_comch_connection>());
    ASSERT_EQ(other.stop_and_wait(), DOCA_SUCCESS);
    // Not RUNNING: disconnect is refused.
    p.stop_client();
    p.stop_server();
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_server_disconnect, s, p.srv_conn);
}

TEST_F(ComchBadInput, DuplicateServerNameOnTheSameHostFunction)
{
    // docs/design.md: the second start fails with DOCA_ERROR_ALREADY_EXIST.
    sc_test::server a("same-name"), b("same-name");
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    ASSERT_EQ(a.start(), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_ALREADY_EXIST, doca_ctx_start, b.ctx());
    EXPECT_EQ(b.state(), DOCA_CTX_STATE_IDLE);
}

// =============================================================================================
// Client
// =============================================================================================

TEST_F(ComchBadInput, ClientCreate)
{
    devices d;
    doca_comch_client *c = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_create, nullptr, "cli", &c);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_create, junk<doca_dev>(), "cli", &c);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_create, d.host, nullptr, &c);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_create, d.host, "cli", nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_create, d.host, "", &c);
    const uint32_t max_name = d.cap(doca_comch_cap_get_max_name_len);
    std::string too_long(max_name, 'c');
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_create, d.host, too_long.c_str(),
                   &c);
    // A DPU-side device cannot run a client.
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_comch_client_create, d.dpu, "cli", &c);
    EXPECT_EQ(c, nullptr);
    std::string longest(max_name - 1, 'c');
    ASSERT_EQ(doca_comch_client_create(d.host, longest.c_str(), &c), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

TEST_F(ComchBadInput, ClientConfigurationAndStates)
{
    devices d;
    doca_comch_client *c = nullptr;
    ASSERT_EQ(doca_comch_client_create(d.host, "cli-config", &c), DOCA_SUCCESS);
    doca_comch_client *bad = junk<doca_comch_client>();
    uint32_t v = 0;
    doca_dev *dev = nullptr;
    doca_comch_connection *conn = nullptr;
    doca_comch_task_send *task = nullptr;
    const char msg[] = "hello";
    for (doca_comch_client *x : {static_cast<doca_comch_client *>(nullptr), bad}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_destroy, x);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_set_max_msg_size, x, 100);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_get_max_msg_size, x, &v);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_set_recv_queue_size, x, 16);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_get_recv_queue_size, x, &v);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_get_device, x, &dev);
        EXPECT_LOGGED(doca_comch_client_as_ctx, EXPECT_EQ(doca_comch_client_as_ctx(x), nullptr));
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_get_connection, x, &conn);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_set_conf, x, send_cb,
                       send_cb, 8);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_alloc_init, x,
                       junk<doca_comch_connection>(), msg, 5, &task);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_event_msg_recv_register, x,
                       recv_cb);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_event_consumer_register, x,
                       consumer_cb, consumer_cb);
    }
    // A server handle where a client is expected (and the reverse): a context of the wrong kind.
    {
        doca_comch_server *s = nullptr;
        ASSERT_EQ(doca_comch_server_create(d.dpu, d.rep, "cli-config-srv", &s), DOCA_SUCCESS);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_set_max_msg_size,
                       reinterpret_cast<doca_comch_client *>(s), 100);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_set_max_msg_size,
                       reinterpret_cast<doca_comch_server *>(c), 100);
        EXPECT_EQ(doca_comch_server_destroy(s), DOCA_SUCCESS);
    }
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_get_max_msg_size, c, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_get_recv_queue_size, c, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_get_device, c, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_get_connection, c, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_set_conf, c, nullptr,
                   send_cb, 8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_set_conf, c, send_cb,
                   nullptr, 8);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_event_msg_recv_register, c, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_event_consumer_register, c, nullptr,
                   consumer_cb);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_event_consumer_register, c,
                   consumer_cb, nullptr);
    const uint32_t max_msg = d.cap(doca_comch_cap_get_max_msg_size);
    const uint32_t max_queue = d.cap(doca_comch_cap_get_max_recv_queue_size);
    const uint32_t max_tasks = d.cap(doca_comch_cap_get_max_send_tasks);
    for (uint32_t size : {0u, max_msg + 1, UINT32_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_set_max_msg_size, c, size);
    for (uint32_t size : {0u, max_queue + 1, UINT32_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_set_recv_queue_size, c, size);
    for (uint32_t n : {0u, max_tasks + 1, UINT32_MAX})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_set_conf, c, send_cb,
                       send_cb, n);
    ASSERT_EQ(doca_comch_client_get_max_msg_size(c, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 4080u) << "doca_comch.h: 4080 bytes by default";
    ASSERT_EQ(doca_comch_client_get_device(c, &dev), DOCA_SUCCESS);
    EXPECT_EQ(dev, d.host);
    EXPECT_EQ(doca_comch_client_as_ctx(c), doca_comch_client_as_ctx(c));

    // IDLE: no connection yet.
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_client_get_connection, c, &conn);
    // STARTING (no server with this name): still no connection, no configuration, no destroy.
    ASSERT_EQ(doca_comch_client_task_send_set_conf(c, send_cb, send_cb, 8), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_client_event_msg_recv_register(c, recv_cb), DOCA_SUCCESS);
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    doca_ctx *ctx = doca_comch_client_as_ctx(c);
    ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
    for (int i = 0; i < 20; ++i)
        doca_pe_progress(pe);
    doca_ctx_states st = DOCA_CTX_STATE_IDLE;
    ASSERT_EQ(doca_ctx_get_state(ctx, &st), DOCA_SUCCESS);
    ASSERT_EQ(st, DOCA_CTX_STATE_STARTING);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_client_get_connection, c, &conn);
    EXPECT_EQ(conn, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_client_set_max_msg_size, c, 100);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_client_set_recv_queue_size, c, 16);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_client_task_send_set_conf, c, send_cb, send_cb,
                   8);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_client_event_msg_recv_register, c, recv_cb);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_client_event_consumer_register, c, consumer_cb,
                   consumer_cb);
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_comch_client_destroy, c);
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_pe_destroy, pe);
    // Stop while STARTING: nothing to drain, so IDLE when the call returns.
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    auto end = clock::now() + 5s;
    while (st != DOCA_CTX_STATE_IDLE && clock::now() < end) {
        doca_pe_progress(pe);
        doca_ctx_get_state(ctx, &st);
    }
    ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(doca_comch_client_destroy(c), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}

// =============================================================================================
// Send tasks (doca_comch.h) and the task functions of doca_pe.h on them
// =============================================================================================

TEST_F(ComchBadInput, SendTaskAllocation)
{
    sc_test::server_options so;
    so.send_tasks = 2;
    connected_pair p("alloc", so, {}, 100); // the server allows 100 bytes: negotiated maximum 100
    doca_comch_server *s = p.srv.handle();
    doca_comch_client *c = p.cli.handle();
    const std::string msg(200, 'm');
    doca_comch_task_send *t = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_alloc_init, nullptr,
                   p.srv_conn, msg.data(), 10, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_alloc_init, s, nullptr,
                   msg.data(), 10, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_alloc_init, s,
                   junk<doca_comch_connection>(), msg.data(), 10, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_alloc_init, s, p.srv_conn,
                   nullptr, 10, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_alloc_init, s, p.srv_conn,
                   msg.data(), 10, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_alloc_init, nullptr,
                   p.cli_conn, msg.data(), 10, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_alloc_init, c, nullptr,
                   msg.data(), 10, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_alloc_init, c, p.cli_conn,
                   nullptr, 10, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_alloc_init, c, p.cli_conn,
                   msg.data(), 10, nullptr);
    // Lengths: 0, over the negotiated maximum (100), over the device cap.
    for (uint32_t len : {0u, 101u, 4081u, UINT32_MAX}) {
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_alloc_init, s,
                       p.srv_conn, msg.data(), len, &t);
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_alloc_init, c,
                       p.cli_conn, msg.data(), len, &t);
    }
    // The other side's end of the connection.
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_server_task_send_alloc_init, s, p.cli_conn,
                   msg.data(), 10, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_comch_client_task_send_alloc_init, c, p.srv_conn,
                   msg.data(), 10, &t);
    EXPECT_EQ(t, nullptr) << "outputs are written only on success";
    // The maximum itself works.
    ASSERT_EQ(doca_comch_client_task_send_alloc_init(c, p.cli_conn, msg.data(), 100, &t),
              DOCA_SUCCESS);
    doca_task_free(doca_comch_task_send_as_task(t));

    // The pool (2 tasks) runs dry; freeing one makes room again.
    doca_comch_task_send *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_comch_server_task_send_alloc_init(s, p.srv_conn, msg.data(), 10, &a),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_server_task_send_alloc_init(s, p.srv_conn, msg.data(), 10, &b),
              DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_NO_MEMORY, doca_comch_server_task_send_alloc_init, s, p.srv_conn,
                   msg.data(), 10, &t);
    doca_task_free(doca_comch_task_send_as_task(a));
    ASSERT_EQ(doca_comch_server_task_send_alloc_init(s, p.srv_conn, msg.data(), 10, &a),
              DOCA_SUCCESS);
    doca_task_free(doca_comch_task_send_as_task(a));
    doca_task_free(doca_comch_task_send_as_task(b));

    EXPECT_LOGGED(doca_comch_task_send_as_task,
                  EXPECT_EQ(doca_comch_task_send_as_task(nullptr), nullptr));
    EXPECT_LOGGED(doca_comch_task_send_as_task,
                  EXPECT_EQ(doca_comch_task_send_as_task(junk<doca_comch_task_send>()), nullptr));
}

TEST_F(ComchBadInput, SendOnAClosedConnection)
{
    connected_pair p("closed-conn");
    doca_comch_connection *old = p.srv_conn;
    p.stop_client();
    ASSERT_TRUE(p.progress([&] { return !p.srv.disconnected.empty(); }));
    ASSERT_EQ(p.srv.state(), DOCA_CTX_STATE_RUNNING);
    const char msg[] = "too late";
    doca_comch_task_send *t = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_NOT_CONNECTED, doca_comch_server_task_send_alloc_init, p.srv.handle(),
                   old, msg, 8, &t);
    EXPECT_EQ(doca_comch_connection_update_info(old), DOCA_ERROR_CONNECTION_ABORTED);
    // docs/design.md: a closed connection refuses use with NOT_CONNECTED.
    EXPECT_REFUSED(DOCA_ERROR_NOT_CONNECTED, doca_comch_server_disconnect, p.srv.handle(), old);
    // Not RUNNING: allocation is refused before anything else.
    p.stop_server();
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_server_task_send_alloc_init, p.srv.handle(),
                   old, msg, 8, &t);
}

TEST_F(ComchBadInput, TaskFunctionsOnRealTasks)
{
    connected_pair p("tasks");
    doca_comch_client *c = p.cli.handle();
    const char msg[] = "task";
    doca_comch_task_send *st = nullptr;
    ASSERT_EQ(doca_comch_client_task_send_alloc_init(c, p.cli_conn, msg, 4, &st), DOCA_SUCCESS);
    doca_task *t = doca_comch_task_send_as_task(st);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(doca_task_get_ctx(t), p.cli.ctx());
    EXPECT_EQ(doca_task_get_user_data(t).u64, 0u) << "zero when never set";
    union doca_data ud {};
    ud.u64 = 1234;
    doca_task_set_user_data(t, ud);
    EXPECT_EQ(doca_task_get_user_data(t).u64, 1234u);
    // A task of another kind, cast by the program: refused by every typed accessor (it would be
    // read or written at another kind's offsets).
    auto *as_producer = reinterpret_cast<doca_comch_producer_task_send *>(st);
    auto *as_consumer = reinterpret_cast<doca_comch_consumer_task_post_recv *>(st);
    EXPECT_LOGGED(doca_comch_producer_task_send_as_task,
                  EXPECT_EQ(doca_comch_producer_task_send_as_task(as_producer), nullptr));
    EXPECT_LOGGED(doca_comch_consumer_task_post_recv_as_task,
                  EXPECT_EQ(doca_comch_consumer_task_post_recv_as_task(as_consumer), nullptr));
    EXPECT_EQ(doca_comch_producer_task_send_get_buf(as_producer), nullptr);
    EXPECT_EQ(doca_comch_consumer_task_post_recv_get_buf(as_consumer), nullptr);
    EXPECT_LOGGED(doca_comch_producer_task_send_set_consumer_id,
                  doca_comch_producer_task_send_set_consumer_id(as_producer, 7));
    EXPECT_EQ(doca_comch_task_send_as_task(st), t) << "its own kind still works";
    // Flags that doca_task_submit_flag does not define.
    for (uint32_t flags : {1u << 2, 1u << 31, 0xffffffffu})
        EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_task_submit_ex, t, flags);

    // In flight: a second submit is refused; a free is accepted (doca_task_free returns void
    // and NVIDIA's code frees tasks in flight): the message still arrives, the task returns to
    // its pool without a callback.
    ASSERT_EQ(doca_task_submit_ex(t, DOCA_TASK_SUBMIT_FLAG_FLUSH |
                                         DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS),
              DOCA_SUCCESS);
    size_t inflight = 0;
    EXPECT_EQ(doca_pe_get_num_inflight_tasks(p.cli.pe(), &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 1u);
    EXPECT_EQ(doca_ctx_get_num_inflight_tasks(p.cli.ctx(), &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 1u);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_task_submit, t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_task_try_submit, t);
    size_t mark = sdk_log::mark();
    doca_task_free(t);
    EXPECT_EQ(sdk_log::errors_since(mark), 0u) << "freeing a task in flight is not an error";
    EXPECT_LOGGED(doca_task_free, doca_task_free(t)); // freeing it twice is
    ASSERT_TRUE(p.progress([&] { return !p.srv.received.empty(); }));
    EXPECT_EQ(p.srv.received.front().data, "task");
    p.progress([] { return false; }, 20ms);
    EXPECT_EQ(p.cli.send_ok, 0u);
    EXPECT_EQ(p.cli.send_err, 0u);
    EXPECT_EQ(doca_pe_get_num_inflight_tasks(p.cli.pe(), &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 0u);

    // try_submit of a valid task.
    ASSERT_EQ(doca_comch_client_task_send_alloc_init(c, p.cli_conn, msg, 4, &st), DOCA_SUCCESS);
    EXPECT_EQ(doca_task_try_submit(doca_comch_task_send_as_task(st)), DOCA_SUCCESS);
    ASSERT_TRUE(p.progress([&] { return p.cli.send_ok == 1; }));

    // Submit outside RUNNING. A task the program still holds does not keep the client from
    // IDLE (only tasks in flight do); it stays the program's to free.
    ASSERT_EQ(doca_comch_client_task_send_alloc_init(c, p.cli_conn, msg, 4, &st), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_stop(p.cli.ctx()), DOCA_ERROR_IN_PROGRESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_task_submit, doca_comch_task_send_as_task(st));
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_comch_client_task_send_alloc_init, c, p.cli_conn, msg,
                   4, &st);
    EXPECT_REFUSED(DOCA_ERROR_IN_USE, doca_comch_client_destroy, c);
    EXPECT_TRUE(p.progress([&] { return p.cli.state() == DOCA_CTX_STATE_IDLE; }));
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_task_submit, doca_comch_task_send_as_task(st));
    doca_task_free(doca_comch_task_send_as_task(st));
}
