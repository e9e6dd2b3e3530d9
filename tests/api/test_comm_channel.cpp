// SPDX-License-Identifier: Apache-2.0
//
// The legacy endpoint API (doca_comm_channel.h, docs/generations.md) through the public headers,
// in one process: its return codes for what a program may get wrong (NULLs, the order of the
// setters, listen and connect, addresses of another endpoint), the properties' rounding, a
// service and a client of the same process talking, and a connect to a name nobody listens on.
// The pair in two processes is Patterns.LegacyCommChannelPair (tests/programs/legacy_cc_pair.c).
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_comm_channel.h>
#include <doca_dev.h>
#include <gtest/gtest.h>
#include <poll.h>

#include <cstring>
#include <string>

#include "device_lookup.hpp"

namespace {

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    return 0;
}();

struct devices {
    doca_dev *dpu = sc_devices::open_dev("03:00.0");
    doca_dev *host = sc_devices::open_dev("b1:00.0");
    doca_dev_rep *rep = dpu ? sc_devices::open_rep(dpu, "b1:00.0") : nullptr;
    ~devices()
    {
        if (rep)
            doca_dev_rep_close(rep);
        if (dpu)
            doca_dev_close(dpu);
        if (host)
            doca_dev_close(host);
    }
};

TEST(CommChannel, CapabilitiesAndProperties)
{
    devices d;
    ASSERT_NE(d.dpu, nullptr);
    uint32_t v = 0;
    EXPECT_EQ(doca_comm_channel_get_max_service_name_len(&v), DOCA_SUCCESS);
    EXPECT_GT(v, 1u);
    EXPECT_EQ(doca_comm_channel_get_max_message_size(doca_dev_as_devinfo(d.host), &v),
              DOCA_SUCCESS);
    EXPECT_EQ(v, 4080u);
    EXPECT_EQ(doca_comm_channel_get_max_send_queue_size(doca_dev_as_devinfo(d.host), &v),
              DOCA_SUCCESS);
    EXPECT_GT(v, 0u);
    EXPECT_EQ(doca_comm_channel_get_max_recv_queue_size(doca_dev_as_devinfo(d.host), &v),
              DOCA_SUCCESS);
    EXPECT_GT(v, 0u);
    EXPECT_EQ(doca_comm_channel_get_service_max_num_connections(doca_dev_as_devinfo(d.dpu), &v),
              DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_get_service_max_num_connections(doca_dev_as_devinfo(d.host), &v),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_comm_channel_get_max_message_size(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comm_channel_get_max_service_name_len(nullptr), DOCA_ERROR_INVALID_VALUE);

    doca_comm_channel_ep_t *ep = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_create(&ep), DOCA_SUCCESS);
    uint16_t q = 0;
    EXPECT_EQ(doca_comm_channel_ep_get_max_msg_size(ep, &q), DOCA_SUCCESS);
    EXPECT_EQ(q, 4080);
    EXPECT_EQ(doca_comm_channel_ep_set_send_queue_size(ep, 100), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_get_send_queue_size(ep, &q), DOCA_SUCCESS);
    EXPECT_EQ(q, 128) << "rounded up to a power of 2";
    EXPECT_EQ(doca_comm_channel_ep_set_recv_queue_size(ep, 3), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_get_recv_queue_size(ep, &q), DOCA_SUCCESS);
    EXPECT_EQ(q, 16) << "at least 16";
    EXPECT_EQ(doca_comm_channel_ep_set_send_queue_size(ep, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comm_channel_ep_set_max_msg_size(ep, 0), DOCA_ERROR_INVALID_VALUE);
    doca_dev *dev = d.host;
    EXPECT_EQ(doca_comm_channel_ep_get_device(ep, &dev), DOCA_SUCCESS);
    EXPECT_EQ(dev, nullptr);
    EXPECT_EQ(doca_comm_channel_ep_set_device(ep, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comm_channel_ep_set_device(nullptr, d.dpu), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comm_channel_ep_destroy(ep), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_destroy(nullptr), DOCA_ERROR_NOT_CONNECTED);
}

TEST(CommChannel, OrderOfCallsIsChecked)
{
    devices d;
    doca_comm_channel_ep_t *ep = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_create(&ep), DOCA_SUCCESS);
    doca_event_channel_t s = -1, r = -1;
    EXPECT_EQ(doca_comm_channel_ep_get_event_channel(ep, &s, &r), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_comm_channel_ep_get_event_channel(ep, nullptr, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comm_channel_ep_listen(ep, "x"), DOCA_ERROR_BAD_STATE) << "no device";
    ASSERT_EQ(doca_comm_channel_ep_set_device(ep, d.dpu), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_listen(ep, "x"), DOCA_ERROR_BAD_STATE) << "no representor";
    ASSERT_EQ(doca_comm_channel_ep_set_device_rep(ep, d.rep), DOCA_SUCCESS);
    char buf[16];
    size_t len = sizeof buf;
    doca_comm_channel_addr_t *peer = nullptr;
    EXPECT_EQ(doca_comm_channel_ep_recvfrom(ep, buf, &len, 0, &peer), DOCA_ERROR_NOT_CONNECTED);
    ASSERT_EQ(doca_comm_channel_ep_listen(ep, "order-of-calls"), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_listen(ep, "again"), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_comm_channel_ep_set_max_msg_size(ep, 100), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_comm_channel_ep_connect(ep, "x", &peer), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_comm_channel_ep_get_event_channel(ep, &s, &r), DOCA_SUCCESS);
    EXPECT_GE(s, 0);
    EXPECT_GE(r, 0);
    EXPECT_EQ(doca_comm_channel_ep_recvfrom(ep, buf, &len, 0, &peer), DOCA_ERROR_AGAIN);
    EXPECT_EQ(doca_comm_channel_ep_update_service_state_info(ep), DOCA_SUCCESS);
    uint32_t n = 9;
    doca_comm_channel_addr_t **list = nullptr;
    EXPECT_EQ(doca_comm_channel_ep_get_peer_addr_list(ep, &list, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(doca_comm_channel_ep_get_pending_connections(ep, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 0u);
    // A server cannot run on the host side; a client not on the DPU side.
    doca_comm_channel_ep_t *wrong = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_create(&wrong), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_device(wrong, d.dpu), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_connect(wrong, "order-of-calls", &peer),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_comm_channel_ep_sendto(ep, "m", 1, 0, nullptr), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_comm_channel_ep_destroy(wrong), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_destroy(ep), DOCA_SUCCESS);
}

bool readable(doca_event_channel_t ch, int ms)
{
    pollfd p{ch, POLLIN, 0};
    return ::poll(&p, 1, ms) == 1;
}

// A service and a client in one process (the calls progress both engines): connect, messages both
// ways through the event channels, counters, an address of the other endpoint refused, a
// message larger than the buffer kept, disconnect and reconnect.
TEST(CommChannel, ServiceAndClientTalk)
{
    devices d;
    doca_comm_channel_ep_t *svc = nullptr, *cli = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_create(&svc), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_device(svc, d.dpu), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_device_rep(svc, d.rep), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_listen(svc, "talk"), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_create(&cli), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_device(cli, d.host), DOCA_SUCCESS);
    doca_comm_channel_addr_t *to_svc = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_connect(cli, "talk", &to_svc), DOCA_SUCCESS);
    // The service accepts in its recvfrom, the client learns it from update_info.
    char buf[64];
    size_t len = sizeof buf;
    doca_comm_channel_addr_t *from = nullptr;
    doca_error_t rc = DOCA_ERROR_CONNECTION_INPROGRESS;
    // Bounded by the library's own deadline (update_info says CONNECTION_ABORTED after it).
    while (rc == DOCA_ERROR_CONNECTION_INPROGRESS) {
        EXPECT_EQ(doca_comm_channel_ep_recvfrom(svc, buf, &len, 0, &from), DOCA_ERROR_AGAIN);
        rc = doca_comm_channel_peer_addr_update_info(to_svc);
    }
    ASSERT_EQ(rc, DOCA_SUCCESS);
    doca_event_channel_t svc_recv = -1;
    ASSERT_EQ(doca_comm_channel_ep_get_event_channel(svc, nullptr, &svc_recv), DOCA_SUCCESS);

    const char hello[] = "hello, service";
    ASSERT_EQ(doca_comm_channel_ep_sendto(cli, hello, sizeof hello, 0, to_svc), DOCA_SUCCESS);
    rc = DOCA_ERROR_AGAIN;
    for (int i = 0; i < 200 && rc == DOCA_ERROR_AGAIN; ++i) {
        ASSERT_EQ(doca_comm_channel_ep_event_handle_arm_recv(svc), DOCA_SUCCESS);
        (void)readable(svc_recv, 10);
        len = 4; // too small: the message stays first in line
        rc = doca_comm_channel_ep_recvfrom(svc, buf, &len, 0, &from);
    }
    ASSERT_EQ(rc, DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(len, sizeof hello);
    len = sizeof buf;
    ASSERT_EQ(doca_comm_channel_ep_recvfrom(svc, buf, &len, 0, &from), DOCA_SUCCESS);
    EXPECT_EQ(len, sizeof hello);
    EXPECT_STREQ(buf, hello);
    ASSERT_NE(from, nullptr);
    // The client's address is not the service's to use, nor the other way round.
    EXPECT_EQ(doca_comm_channel_ep_sendto(svc, "x", 1, 0, to_svc), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_comm_channel_ep_sendto(cli, "x", 1, 0, from), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_comm_channel_ep_sendto(svc, buf, 4081, 0, from), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_comm_channel_ep_sendto(svc, "back", 5, 0, from), DOCA_SUCCESS);
    rc = DOCA_ERROR_AGAIN;
    for (int i = 0; i < 2000 && rc == DOCA_ERROR_AGAIN; ++i) {
        len = sizeof buf;
        rc = doca_comm_channel_ep_recvfrom(cli, buf, &len, 0, &from);
    }
    ASSERT_EQ(rc, DOCA_SUCCESS);
    EXPECT_STREQ(buf, "back");
    EXPECT_EQ(from, to_svc);
    uint64_t v = 0;
    ASSERT_EQ(doca_comm_channel_peer_addr_update_info(to_svc), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_peer_addr_get_send_messages(to_svc, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 1u);
    EXPECT_EQ(doca_comm_channel_peer_addr_get_recv_bytes(to_svc, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 5u);

    // The client leaves; it may connect again.
    ASSERT_EQ(doca_comm_channel_ep_disconnect(cli, to_svc), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_connect(cli, "talk", &to_svc), DOCA_SUCCESS);
    rc = DOCA_ERROR_CONNECTION_INPROGRESS;
    while (rc == DOCA_ERROR_CONNECTION_INPROGRESS) {
        len = sizeof buf;
        (void)doca_comm_channel_ep_recvfrom(svc, buf, &len, 0, &from);
        rc = doca_comm_channel_peer_addr_update_info(to_svc);
    }
    EXPECT_EQ(rc, DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_destroy(cli), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_destroy(svc), DOCA_SUCCESS);
}

// A peer that sends while the program does not read: the endpoint keeps at most a receive queue
// of messages (the rest wait in the peer's ring, and the sender gets DOCA_ERROR_AGAIN), not an
// inbox that grows with the flood; everything kept arrives, in order, once the program reads.
TEST(CommChannel, AFloodWaitsForTheReaderInsteadOfGrowingTheInbox)
{
    devices d;
    doca_comm_channel_ep_t *svc = nullptr, *cli = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_create(&svc), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_device(svc, d.dpu), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_device_rep(svc, d.rep), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_recv_queue_size(svc, 16), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_listen(svc, "flood"), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_create(&cli), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_device(cli, d.host), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_send_queue_size(cli, 16), DOCA_SUCCESS);
    doca_comm_channel_addr_t *to_svc = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_connect(cli, "flood", &to_svc), DOCA_SUCCESS);
    doca_error_t rc = DOCA_ERROR_CONNECTION_INPROGRESS;
    while (rc == DOCA_ERROR_CONNECTION_INPROGRESS) { // bounded by the library's deadline
        (void)doca_comm_channel_ep_update_service_state_info(svc);
        rc = doca_comm_channel_peer_addr_update_info(to_svc);
    }
    ASSERT_EQ(rc, DOCA_SUCCESS);

    // Send while the service progresses (its state call) but never reads.
    uint32_t sent = 0;
    for (int again = 0; sent < 1000 && again < 500;) {
        if (doca_comm_channel_ep_sendto(cli, &sent, sizeof sent, 0, to_svc) == DOCA_SUCCESS) {
            ++sent;
            again = 0;
        } else {
            ++again;
        }
        (void)doca_comm_channel_ep_update_service_state_info(svc);
    }
    EXPECT_LT(sent, 200u) << "the service's endpoint took the whole flood";
    EXPECT_GE(sent, 16u);
    // Read: every message, in order; the sender may go on meanwhile.
    uint32_t got = 0;
    for (int idle = 0; got < sent && idle < 100000; ++idle) {
        uint32_t v = 0;
        size_t len = sizeof v;
        doca_comm_channel_addr_t *from = nullptr;
        if (doca_comm_channel_ep_recvfrom(svc, &v, &len, 0, &from) == DOCA_SUCCESS) {
            ASSERT_EQ(v, got);
            ++got;
            idle = 0;
        }
        (void)doca_comm_channel_peer_addr_update_info(to_svc);
    }
    EXPECT_EQ(got, sent);
    EXPECT_EQ(doca_comm_channel_ep_sendto(cli, &sent, sizeof sent, 0, to_svc), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_destroy(cli), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_destroy(svc), DOCA_SUCCESS);
}

TEST(CommChannel, ConnectWithoutAServiceFails)
{
    devices d;
    doca_comm_channel_ep_t *cli = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_create(&cli), DOCA_SUCCESS);
    ASSERT_EQ(doca_comm_channel_ep_set_device(cli, d.host), DOCA_SUCCESS);
    doca_comm_channel_addr_t *peer = nullptr;
    ASSERT_EQ(doca_comm_channel_ep_connect(cli, "nobody-listens", &peer), DOCA_SUCCESS);
    doca_error_t rc = DOCA_ERROR_CONNECTION_INPROGRESS;
    while (rc == DOCA_ERROR_CONNECTION_INPROGRESS) { // bounded by the library's 3 s deadline
        pollfd none{-1, 0, 0};
        (void)::poll(&none, 1, 5); // pacing between polls, not a synchronisation
        rc = doca_comm_channel_peer_addr_update_info(peer);
    }
    EXPECT_EQ(rc, DOCA_ERROR_CONNECTION_ABORTED);
    EXPECT_EQ(doca_comm_channel_ep_sendto(cli, "x", 1, 0, peer), DOCA_ERROR_CONNECTION_RESET);
    EXPECT_EQ(doca_comm_channel_ep_disconnect(cli, peer), DOCA_SUCCESS);
    EXPECT_EQ(doca_comm_channel_ep_destroy(cli), DOCA_SUCCESS);
}

} // namespace
