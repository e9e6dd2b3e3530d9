// SPDX-License-Identifier: Apache-2.0
//
// The legacy Comm Channel endpoint API (include/doca_comm_channel.h, DOCA 1.5 to 2.8) over the
// public doca_comch API (docs/generations.md, "DOCA 1.5 - 2.8: doca_comm_channel"). An endpoint
// is a Comch server (listen) or client (connect) on a progress engine of its own; every call that
// can make progress progresses it, so the program needs no thread and no progress calls of its
// own. Messages received by the engine's callbacks wait in the endpoint's inbox (copied: the
// receive buffer lives only during the callback) for recvfrom. The event channels the program
// waits on are epoll sets holding the engine's notification handle and an eventfd of ours, which
// the arm calls make readable at once when there is already something to do.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_comch.h>
#include <doca_comm_channel.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_pe.h>

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <unordered_map>
#include <vector>

DOCA_LOG_REGISTER(COMM_CHANNEL);

struct doca_comm_channel_addr_t {
    doca_comm_channel_ep_t *ep = nullptr;
    doca_comch_connection *conn = nullptr; // nullptr once the peer left (or never connected)
    uint64_t user = 0;
    uint32_t in_flight = 0;  // our sends to it not completed yet
    bool connecting = false; // a client's, until the service accepted it (or the wait ran out)
    // The snapshot of the last update_info.
    uint64_t sent_messages = 0, sent_bytes = 0, recv_messages = 0, recv_bytes = 0;
    uint64_t in_flight_snapshot = 0;
};

namespace {

constexpr uint16_t k_default_msg_size = 4080; // what BlueField reports and NVIDIA's samples use
constexpr uint16_t k_default_queue = 128;
constexpr uint16_t k_min_queue = 16;
// How long a connection may take to be accepted (the handshake itself takes milliseconds; a
// service that does not listen never accepts).
constexpr std::chrono::milliseconds k_connect_wait{3000};
// How long destroy or disconnect progress for the engine to close (bounded: never hangs).
constexpr std::chrono::milliseconds k_close_wait{5000};

uint16_t round_queue(uint16_t n) noexcept
{
    uint32_t p = k_min_queue;
    while (p < n && p < 0x8000)
        p <<= 1;
    return uint16_t(p);
}

struct message {
    doca_comm_channel_addr_t *from;
    std::vector<uint8_t> bytes;
};

} // namespace

struct doca_comm_channel_ep_t {
    enum class role { idle, service, client };

    doca_dev *dev = nullptr;
    doca_dev_rep *rep = nullptr;
    uint16_t max_msg = k_default_msg_size;
    uint16_t send_q = k_default_queue;
    uint16_t recv_q = k_default_queue;

    role r = role::idle;
    doca_pe *pe = nullptr;
    doca_notification_handle_t pe_handle = -1;
    bool notification_requested = false;
    doca_comch_server *server = nullptr;
    doca_comch_client *client = nullptr;
    doca_ctx *ctx = nullptr;

    std::chrono::steady_clock::time_point connect_deadline{};
    // Its peer addresses, by address: a pointer the program passes is checked here (it may be
    // stale), and so is the one a completion carries (its address may be gone since the send).
    std::unordered_map<const doca_comm_channel_addr_t *, std::unique_ptr<doca_comm_channel_addr_t>>
        peers;
    std::vector<doca_comm_channel_addr_t *> snapshot; // the last service state
    std::deque<message> inbox;
    uint32_t in_flight = 0;

    // Event channels: epoll sets of the engine's handle and an eventfd each.
    int send_channel = -1, recv_channel = -1, service_channel = -1;
    int send_event = -1, recv_event = -1, service_event = -1;
    bool send_armed = false, recv_armed = false, service_armed = false;

    ~doca_comm_channel_ep_t()
    {
        for (int fd :
             {send_channel, recv_channel, service_channel, send_event, recv_event, service_event})
            if (fd >= 0)
                ::close(fd);
    }

    bool owns(const doca_comm_channel_addr_t *a) const noexcept { return peers.count(a) != 0; }
};

namespace {

using clock_type = std::chrono::steady_clock;
using ep_t = doca_comm_channel_ep_t;
using addr_t = doca_comm_channel_addr_t;

void signal(int fd) noexcept
{
    if (fd >= 0) {
        const uint64_t one = 1;
        (void)!::write(fd, &one, sizeof one);
    }
}

void drain(int fd) noexcept
{
    uint64_t v = 0;
    if (fd >= 0)
        (void)!::read(fd, &v, sizeof v);
}

// Progresses the engine until it has nothing more to do (bounded per call).
void progress(ep_t &ep) noexcept
{
    if (ep.pe == nullptr)
        return;
    if (ep.notification_requested) {
        (void)doca_pe_clear_notification(ep.pe, ep.pe_handle);
        ep.notification_requested = false;
    }
    for (int i = 0; i < 1024 && doca_pe_progress(ep.pe) != 0; ++i) {
    }
}

// progress() for the program's calls, but not while the inbox holds a receive queue's worth of
// messages: the rest stay in the peer's ring, whose sender then waits (DOCA_ERROR_AGAIN), instead
// of a flooding peer growing this process without bound. The program's recvfrom makes room.
void pump(ep_t &ep) noexcept
{
    if (ep.inbox.size() < ep.recv_q)
        progress(ep);
}

// Waits (up to `ms`) for the engine to have work, then progresses it, whatever the inbox holds:
// for the waits that must end (a connection being made, a context closing, sends draining).
void wait_and_progress(ep_t &ep, int ms) noexcept
{
    progress(ep);
    if (doca_pe_request_notification(ep.pe) == DOCA_SUCCESS) {
        ep.notification_requested = true;
        pollfd p{ep.pe_handle, POLLIN, 0};
        (void)::poll(&p, 1, ms);
    }
    progress(ep);
}

doca_ctx_states state_of(doca_ctx *ctx) noexcept
{
    doca_ctx_states s = DOCA_CTX_STATE_IDLE;
    (void)doca_ctx_get_state(ctx, &s);
    return s;
}

ep_t *ep_of_ctx(doca_ctx *ctx) noexcept
{
    union doca_data ud {};
    if (ctx == nullptr || doca_ctx_get_user_data(ctx, &ud) != DOCA_SUCCESS)
        return nullptr;
    return static_cast<ep_t *>(ud.ptr);
}

ep_t *ep_of(doca_comch_connection *conn) noexcept
{
    if (doca_comch_server *s = doca_comch_server_get_server_ctx(conn))
        return ep_of_ctx(doca_comch_server_as_ctx(s));
    if (doca_comch_client *c = doca_comch_client_get_client_ctx(conn))
        return ep_of_ctx(doca_comch_client_as_ctx(c));
    return nullptr;
}

addr_t *addr_of(doca_comch_connection *conn) noexcept
{
    return static_cast<addr_t *>(doca_comch_connection_get_user_data(conn).ptr);
}

// ---- the engine's callbacks ----

void on_send_done(doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
    auto *ep = static_cast<ep_t *>(ctx_ud.ptr);
    auto *a = static_cast<addr_t *>(task_ud.ptr);
    doca_task_free(doca_comch_task_send_as_task(task));
    if (ep == nullptr)
        return;
    if (ep->in_flight != 0)
        --ep->in_flight;
    if (a != nullptr && ep->owns(a) && a->in_flight != 0)
        --a->in_flight;
    if (ep->send_armed) {
        ep->send_armed = false;
        signal(ep->send_event);
    }
}

void on_recv(doca_comch_event_msg_recv *, uint8_t *buf, uint32_t len, doca_comch_connection *conn)
{
    ep_t *ep = ep_of(conn);
    addr_t *a = addr_of(conn);
    if (ep == nullptr || a == nullptr || !ep->owns(a))
        return;
    try {
        ep->inbox.push_back({a, std::vector<uint8_t>(buf, buf + len)});
    } catch (const std::bad_alloc &) {
        DOCA_LOG_ERR("a message of %u bytes was dropped: out of memory", len);
        return;
    }
    if (ep->recv_armed) {
        ep->recv_armed = false;
        signal(ep->recv_event);
    }
}

addr_t *new_peer(ep_t &ep, doca_comch_connection *conn) noexcept
{
    try {
        auto a = std::make_unique<addr_t>();
        a->ep = &ep;
        a->conn = conn;
        if (conn != nullptr) {
            union doca_data ud {};
            ud.ptr = a.get();
            (void)doca_comch_connection_set_user_data(conn, ud);
        }
        addr_t *raw = a.get();
        ep.peers.emplace(raw, std::move(a));
        return raw;
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}

void on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                uint8_t ok)
{
    ep_t *ep = ep_of(conn);
    if (ep == nullptr || !ok)
        return;
    if (new_peer(*ep, conn) == nullptr) {
        DOCA_LOG_ERR("a client was refused: out of memory for its peer address");
        (void)doca_comch_server_disconnect(ep->server, conn);
        return;
    }
    if (ep->service_armed) {
        ep->service_armed = false;
        signal(ep->service_event);
    }
}

void on_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                   uint8_t)
{
    ep_t *ep = ep_of(conn);
    addr_t *a = addr_of(conn);
    if (ep == nullptr)
        return;
    if (a != nullptr && ep->owns(a))
        a->conn = nullptr; // the program frees it with ep_disconnect
    if (ep->service_armed) {
        ep->service_armed = false;
        signal(ep->service_event);
    }
}

void close_context(ep_t &ep) noexcept;

// A client's connection: accepted (DOCA_SUCCESS), still being made (IN_PROGRESS), or failed
// (CONNECTION_ABORTED: refused, or not accepted within k_connect_wait). With `wait`, progresses
// until it is settled (bounded by the same deadline).
doca_error_t settle(ep_t &ep, addr_t &a, bool wait) noexcept
{
    if (!a.connecting)
        return a.conn != nullptr ? DOCA_SUCCESS : DOCA_ERROR_CONNECTION_ABORTED;
    do {
        if (wait)
            wait_and_progress(ep, 10);
        else
            pump(ep);
        const doca_ctx_states s = ep.ctx != nullptr ? state_of(ep.ctx) : DOCA_CTX_STATE_IDLE;
        doca_comch_connection *conn = nullptr;
        if (s == DOCA_CTX_STATE_RUNNING &&
            doca_comch_client_get_connection(ep.client, &conn) == DOCA_SUCCESS) {
            a.connecting = false;
            a.conn = conn;
            union doca_data ud {};
            ud.ptr = &a;
            (void)doca_comch_connection_set_user_data(conn, ud);
            return DOCA_SUCCESS;
        }
        if (s != DOCA_CTX_STATE_STARTING || clock_type::now() >= ep.connect_deadline) {
            a.connecting = false;
            DOCA_LOG_ERR("the connection was not accepted within %lld ms (a service must listen "
                         "on the name before a client connects)",
                         static_cast<long long>(k_connect_wait.count()));
            close_context(ep); // the client stops trying; ep_disconnect frees the address
            return DOCA_ERROR_CONNECTION_ABORTED;
        }
    } while (wait);
    return DOCA_ERROR_CONNECTION_INPROGRESS;
}

// ---- setting up ----

int epoll_of(int a, int b) noexcept
{
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        return -1;
    for (int fd : {a, b}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        if (::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            ::close(ep);
            return -1;
        }
    }
    return ep;
}

// The engine and the event channels, the first time the endpoint becomes active.
doca_error_t make_engine(ep_t &ep) noexcept
{
    if (ep.pe != nullptr)
        return DOCA_SUCCESS;
    doca_error_t rc = doca_pe_create(&ep.pe);
    if (rc != DOCA_SUCCESS)
        return rc;
    if ((rc = doca_pe_get_notification_handle(ep.pe, &ep.pe_handle)) != DOCA_SUCCESS)
        return rc;
    ep.send_event = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    ep.recv_event = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    ep.service_event = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (ep.send_event < 0 || ep.recv_event < 0 || ep.service_event < 0)
        return DOCA_ERROR_NO_MEMORY;
    ep.send_channel = epoll_of(ep.pe_handle, ep.send_event);
    ep.recv_channel = epoll_of(ep.pe_handle, ep.recv_event);
    ep.service_channel = epoll_of(ep.pe_handle, ep.service_event);
    if (ep.send_channel < 0 || ep.recv_channel < 0 || ep.service_channel < 0)
        return DOCA_ERROR_NO_MEMORY;
    return DOCA_SUCCESS;
}

doca_error_t configure(ep_t &ep) noexcept
{
    union doca_data ud {};
    ud.ptr = &ep;
    doca_error_t rc = doca_ctx_set_user_data(ep.ctx, ud);
    if (rc == DOCA_SUCCESS)
        rc = doca_pe_connect_ctx(ep.pe, ep.ctx);
    if (ep.server != nullptr) {
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_server_set_max_msg_size(ep.server, ep.max_msg);
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_server_set_recv_queue_size(ep.server, ep.recv_q);
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_server_task_send_set_conf(ep.server, on_send_done, on_send_done,
                                                      ep.send_q);
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_server_event_msg_recv_register(ep.server, on_recv);
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_server_event_connection_status_changed_register(ep.server, on_connect,
                                                                            on_disconnect);
    } else {
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_client_set_max_msg_size(ep.client, ep.max_msg);
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_client_set_recv_queue_size(ep.client, ep.recv_q);
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_client_task_send_set_conf(ep.client, on_send_done, on_send_done,
                                                      ep.send_q);
        if (rc == DOCA_SUCCESS)
            rc = doca_comch_client_event_msg_recv_register(ep.client, on_recv);
    }
    return rc;
}

// Stops the context (bounded), then destroys it; the endpoint is idle again.
void close_context(ep_t &ep) noexcept
{
    if (ep.ctx != nullptr) {
        const doca_error_t rc = doca_ctx_stop(ep.ctx);
        const auto end = clock_type::now() + k_close_wait;
        if (rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS)
            while (state_of(ep.ctx) != DOCA_CTX_STATE_IDLE && clock_type::now() < end)
                wait_and_progress(ep, 10);
        if (state_of(ep.ctx) != DOCA_CTX_STATE_IDLE)
            DOCA_LOG_ERR("the endpoint's %s did not stop in time; it is left behind",
                         ep.server ? "service" : "client");
        else if (ep.server != nullptr)
            (void)doca_comch_server_destroy(ep.server);
        else
            (void)doca_comch_client_destroy(ep.client);
    }
    ep.server = nullptr;
    ep.client = nullptr;
    ep.ctx = nullptr;
    ep.r = ep_t::role::idle;
}

bool null_arg(const char *func, bool bad) noexcept
{
    if (bad)
        DOCA_LOG_ERR("%s: NULL argument", func);
    return bad;
}

doca_error_t require_idle(const char *func, const ep_t *ep) noexcept
{
    if (null_arg(func, ep == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    if (ep->r != ep_t::role::idle) {
        DOCA_LOG_ERR("%s: the endpoint is already active (after listen or connect)", func);
        return DOCA_ERROR_BAD_STATE;
    }
    return DOCA_SUCCESS;
}

template <class F>
doca_error_t cap(const char *func, const doca_devinfo *devinfo, uint32_t *out, F f)
{
    if (null_arg(func, devinfo == nullptr || out == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    return f(devinfo, out);
}

} // namespace

extern "C" {

// ---- capabilities ----

doca_error_t doca_comm_channel_get_max_service_name_len(uint32_t *max_service_name_len)
{
    if (null_arg(__func__, max_service_name_len == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    // Device independent in this API: the name limit of the first device (all alike here).
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    uint32_t len = 120;
    if (doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS) {
        if (n != 0)
            (void)doca_comch_cap_get_max_name_len(list[0], &len);
        (void)doca_devinfo_destroy_list(list);
    }
    *max_service_name_len = len;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_get_max_message_size(struct doca_devinfo *devinfo,
                                                    uint32_t *max_message_size)
{
    return cap(__func__, devinfo, max_message_size, doca_comch_cap_get_max_msg_size);
}

doca_error_t doca_comm_channel_get_max_send_queue_size(struct doca_devinfo *devinfo,
                                                       uint32_t *max_send_queue_size)
{
    return cap(__func__, devinfo, max_send_queue_size, [](const doca_devinfo *d, uint32_t *out) {
        const doca_error_t rc = doca_comch_cap_get_max_send_tasks(d, out);
        if (rc == DOCA_SUCCESS)
            *out = std::min<uint32_t>(*out, 0x8000); // a uint16_t setting
        return rc;
    });
}

doca_error_t doca_comm_channel_get_max_recv_queue_size(struct doca_devinfo *devinfo,
                                                       uint32_t *max_recv_queue_size)
{
    return cap(__func__, devinfo, max_recv_queue_size, [](const doca_devinfo *d, uint32_t *out) {
        const doca_error_t rc = doca_comch_cap_get_max_recv_queue_size(d, out);
        if (rc == DOCA_SUCCESS)
            *out = std::min<uint32_t>(*out, 0x8000);
        return rc;
    });
}

doca_error_t doca_comm_channel_get_service_max_num_connections(struct doca_devinfo *devinfo,
                                                               uint32_t *max_num_connections)
{
    return cap(__func__, devinfo, max_num_connections, [](const doca_devinfo *d, uint32_t *out) {
        if (doca_comch_cap_server_is_supported(d) != DOCA_SUCCESS)
            return DOCA_ERROR_NOT_SUPPORTED;
        return doca_comch_cap_get_max_clients(d, out);
    });
}

// ---- endpoint properties ----

doca_error_t doca_comm_channel_ep_create(struct doca_comm_channel_ep_t **ep)
{
    if (null_arg(__func__, ep == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    *ep = new (std::nothrow) doca_comm_channel_ep_t();
    return *ep != nullptr ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

doca_error_t doca_comm_channel_ep_get_device(struct doca_comm_channel_ep_t *ep,
                                             struct doca_dev **device)
{
    if (null_arg(__func__, ep == nullptr || device == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    *device = ep->dev;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_get_device_rep(struct doca_comm_channel_ep_t *ep,
                                                 struct doca_dev_rep **device_rep)
{
    if (null_arg(__func__, ep == nullptr || device_rep == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    *device_rep = ep->rep;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_get_max_msg_size(struct doca_comm_channel_ep_t *ep,
                                                   uint16_t *max_msg_size)
{
    if (null_arg(__func__, ep == nullptr || max_msg_size == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    *max_msg_size = ep->max_msg;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_get_send_queue_size(struct doca_comm_channel_ep_t *ep,
                                                      uint16_t *send_queue_size)
{
    if (null_arg(__func__, ep == nullptr || send_queue_size == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    *send_queue_size = ep->send_q;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_get_recv_queue_size(struct doca_comm_channel_ep_t *ep,
                                                      uint16_t *recv_queue_size)
{
    if (null_arg(__func__, ep == nullptr || recv_queue_size == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    *recv_queue_size = ep->recv_q;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_set_device(struct doca_comm_channel_ep_t *ep,
                                             struct doca_dev *device)
{
    if (doca_error_t rc = require_idle(__func__, ep); rc != DOCA_SUCCESS)
        return rc;
    if (null_arg(__func__, device == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep->dev = device;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_set_device_rep(struct doca_comm_channel_ep_t *ep,
                                                 struct doca_dev_rep *device_rep)
{
    if (doca_error_t rc = require_idle(__func__, ep); rc != DOCA_SUCCESS)
        return rc;
    if (null_arg(__func__, device_rep == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep->rep = device_rep;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_set_max_msg_size(struct doca_comm_channel_ep_t *ep,
                                                   uint16_t max_msg_size)
{
    if (doca_error_t rc = require_idle(__func__, ep); rc != DOCA_SUCCESS)
        return rc;
    if (max_msg_size == 0) {
        DOCA_LOG_ERR("%s: a maximum message size of 0", __func__);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ep->max_msg = max_msg_size;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_set_send_queue_size(struct doca_comm_channel_ep_t *ep,
                                                      uint16_t send_queue_size)
{
    if (doca_error_t rc = require_idle(__func__, ep); rc != DOCA_SUCCESS)
        return rc;
    if (send_queue_size == 0) {
        DOCA_LOG_ERR("%s: a send queue of 0", __func__);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ep->send_q = round_queue(send_queue_size);
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_set_recv_queue_size(struct doca_comm_channel_ep_t *ep,
                                                      uint16_t recv_queue_size)
{
    if (doca_error_t rc = require_idle(__func__, ep); rc != DOCA_SUCCESS)
        return rc;
    if (recv_queue_size == 0) {
        DOCA_LOG_ERR("%s: a receive queue of 0", __func__);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ep->recv_q = round_queue(recv_queue_size);
    return DOCA_SUCCESS;
}

// ---- event channels ----

doca_error_t doca_comm_channel_ep_get_event_channel(struct doca_comm_channel_ep_t *local_ep,
                                                    doca_event_channel_t *send_event_channel,
                                                    doca_event_channel_t *recv_event_channel)
{
    if (null_arg(__func__, local_ep == nullptr ||
                               (send_event_channel == nullptr && recv_event_channel == nullptr)))
        return DOCA_ERROR_INVALID_VALUE;
    if (local_ep->r == ep_t::role::idle) {
        DOCA_LOG_ERR("%s: the endpoint has no event channels before listen or connect", __func__);
        return DOCA_ERROR_BAD_STATE;
    }
    if (send_event_channel != nullptr)
        *send_event_channel = local_ep->send_channel;
    if (recv_event_channel != nullptr)
        *recv_event_channel = local_ep->recv_channel;
    return DOCA_SUCCESS;
}

doca_error_t
doca_comm_channel_ep_get_service_event_channel(struct doca_comm_channel_ep_t *local_ep,
                                               doca_event_channel_t *service_event_channel)
{
    if (null_arg(__func__, local_ep == nullptr || service_event_channel == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    if (local_ep->r == ep_t::role::client) {
        DOCA_LOG_ERR("%s: a client endpoint has no service event channel", __func__);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (local_ep->r != ep_t::role::service) {
        DOCA_LOG_ERR("%s: called before doca_comm_channel_ep_listen", __func__);
        return DOCA_ERROR_BAD_STATE;
    }
    *service_event_channel = local_ep->service_channel;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_event_handle_arm_send(struct doca_comm_channel_ep_t *local_ep)
{
    if (null_arg(__func__, local_ep == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep_t &ep = *local_ep;
    if (ep.pe == nullptr)
        return DOCA_SUCCESS;
    drain(ep.send_event);
    pump(ep);
    if (ep.in_flight < ep.send_q) {
        signal(ep.send_event); // room already: readable at once
        return DOCA_SUCCESS;
    }
    ep.send_armed = true;
    if (doca_pe_request_notification(ep.pe) == DOCA_SUCCESS)
        ep.notification_requested = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_event_handle_arm_recv(struct doca_comm_channel_ep_t *local_ep)
{
    if (null_arg(__func__, local_ep == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep_t &ep = *local_ep;
    if (ep.pe == nullptr)
        return DOCA_SUCCESS;
    drain(ep.recv_event);
    pump(ep);
    if (!ep.inbox.empty()) {
        signal(ep.recv_event); // a message waits already: readable at once
        return DOCA_SUCCESS;
    }
    ep.recv_armed = true;
    if (doca_pe_request_notification(ep.pe) == DOCA_SUCCESS)
        ep.notification_requested = true;
    return DOCA_SUCCESS;
}

// ---- listen, connect ----

doca_error_t doca_comm_channel_ep_listen(struct doca_comm_channel_ep_t *local_ep, const char *name)
{
    if (null_arg(__func__, local_ep == nullptr || name == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep_t &ep = *local_ep;
    if (ep.r != ep_t::role::idle) {
        DOCA_LOG_ERR("%s: the endpoint is already listening or connected", __func__);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (ep.dev == nullptr || ep.rep == nullptr) {
        DOCA_LOG_ERR("%s: set a device and a representor first (doca_comm_channel_ep_set_device, "
                     "doca_comm_channel_ep_set_device_rep)",
                     __func__);
        return DOCA_ERROR_BAD_STATE;
    }
    if (doca_comch_cap_server_is_supported(doca_dev_as_devinfo(ep.dev)) != DOCA_SUCCESS) {
        DOCA_LOG_ERR("%s: the device cannot be the service side (a DPU-side device is needed)",
                     __func__);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    doca_error_t rc = make_engine(ep);
    if (rc == DOCA_SUCCESS)
        rc = doca_comch_server_create(ep.dev, ep.rep, name, &ep.server);
    if (rc != DOCA_SUCCESS) {
        DOCA_LOG_ERR("%s: cannot create the service '%s': %s", __func__, name,
                     doca_error_get_name(rc));
        return rc == DOCA_ERROR_INVALID_VALUE ? rc : DOCA_ERROR_INITIALIZATION;
    }
    ep.ctx = doca_comch_server_as_ctx(ep.server);
    ep.r = ep_t::role::service;
    if ((rc = configure(ep)) == DOCA_SUCCESS)
        rc = doca_ctx_start(ep.ctx);
    if (rc != DOCA_SUCCESS) {
        DOCA_LOG_ERR("%s: cannot start the service '%s': %s", __func__, name,
                     doca_error_get_name(rc));
        close_context(ep);
        return rc == DOCA_ERROR_INVALID_VALUE ? rc : DOCA_ERROR_CONNECTION_ABORTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_connect(struct doca_comm_channel_ep_t *local_ep, const char *name,
                                          struct doca_comm_channel_addr_t **peer_addr)
{
    if (null_arg(__func__, local_ep == nullptr || name == nullptr || peer_addr == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep_t &ep = *local_ep;
    if (ep.r != ep_t::role::idle) {
        DOCA_LOG_ERR("%s: the endpoint is already connected or listening", __func__);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (ep.dev == nullptr) {
        DOCA_LOG_ERR("%s: set a device first (doca_comm_channel_ep_set_device)", __func__);
        return DOCA_ERROR_BAD_STATE;
    }
    if (doca_comch_cap_client_is_supported(doca_dev_as_devinfo(ep.dev)) != DOCA_SUCCESS) {
        DOCA_LOG_ERR("%s: the device cannot be the client side (a host-side device is needed)",
                     __func__);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    doca_error_t rc = make_engine(ep);
    if (rc == DOCA_SUCCESS)
        rc = doca_comch_client_create(ep.dev, name, &ep.client);
    if (rc != DOCA_SUCCESS) {
        DOCA_LOG_ERR("%s: cannot create a client of '%s': %s", __func__, name,
                     doca_error_get_name(rc));
        return rc == DOCA_ERROR_INVALID_VALUE ? rc : DOCA_ERROR_INITIALIZATION;
    }
    ep.ctx = doca_comch_client_as_ctx(ep.client);
    ep.r = ep_t::role::client;
    if ((rc = configure(ep)) == DOCA_SUCCESS)
        rc = doca_ctx_start(ep.ctx);
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS) {
        DOCA_LOG_ERR("%s: cannot start a client of '%s': %s", __func__, name,
                     doca_error_get_name(rc));
        close_context(ep);
        return DOCA_ERROR_INITIALIZATION;
    }
    // The handshake goes on while the program calls update_info (as DOCA 2.x programs wait for
    // it), sendto (as DOCA 1.x programs send at once) or recvfrom.
    addr_t *a = new_peer(ep, nullptr);
    if (a == nullptr) {
        close_context(ep);
        return DOCA_ERROR_NO_MEMORY;
    }
    a->connecting = true;
    ep.connect_deadline = clock_type::now() + k_connect_wait;
    *peer_addr = a;
    return DOCA_SUCCESS;
}

// ---- messages ----

doca_error_t doca_comm_channel_ep_sendto(struct doca_comm_channel_ep_t *local_ep, const void *msg,
                                         size_t len, int flags,
                                         struct doca_comm_channel_addr_t *peer_addr)
{
    if (null_arg(__func__, local_ep == nullptr || msg == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep_t &ep = *local_ep;
    if (peer_addr == nullptr || !ep.owns(peer_addr)) {
        DOCA_LOG_ERR("%s: the peer address is not connected on this endpoint", __func__);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (flags != DOCA_CC_MSG_FLAG_NONE || len == 0 || len > ep.max_msg) {
        DOCA_LOG_ERR("%s: %zu bytes (flags %d): a message is 1 to %u bytes, flags 0", __func__, len,
                     flags, unsigned(ep.max_msg));
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (peer_addr->connecting && settle(ep, *peer_addr, true) != DOCA_SUCCESS)
        return DOCA_ERROR_NOT_CONNECTED;
    pump(ep);
    if (peer_addr->conn == nullptr ||
        (ep.client != nullptr && state_of(ep.ctx) != DOCA_CTX_STATE_RUNNING)) {
        peer_addr->conn = nullptr;
        return DOCA_ERROR_CONNECTION_RESET;
    }
    if (ep.in_flight >= ep.send_q)
        return DOCA_ERROR_AGAIN;
    doca_comch_task_send *task = nullptr;
    doca_error_t rc = ep.server != nullptr
                          ? doca_comch_server_task_send_alloc_init(ep.server, peer_addr->conn, msg,
                                                                   uint32_t(len), &task)
                          : doca_comch_client_task_send_alloc_init(ep.client, peer_addr->conn, msg,
                                                                   uint32_t(len), &task);
    if (rc == DOCA_ERROR_NO_MEMORY)
        return DOCA_ERROR_AGAIN; // every task in use
    if (rc != DOCA_SUCCESS)
        return rc == DOCA_ERROR_NOT_CONNECTED ? DOCA_ERROR_CONNECTION_RESET : rc;
    union doca_data ud {};
    ud.ptr = peer_addr;
    doca_task_set_user_data(doca_comch_task_send_as_task(task), ud);
    rc = doca_task_submit(doca_comch_task_send_as_task(task));
    if (rc != DOCA_SUCCESS) {
        doca_task_free(doca_comch_task_send_as_task(task));
        return rc == DOCA_ERROR_AGAIN || rc == DOCA_ERROR_NO_MEMORY ? DOCA_ERROR_AGAIN
                                                                    : DOCA_ERROR_CONNECTION_RESET;
    }
    ++ep.in_flight;
    ++peer_addr->in_flight;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_recvfrom(struct doca_comm_channel_ep_t *local_ep, void *msg,
                                           size_t *len, int flags,
                                           struct doca_comm_channel_addr_t **peer_addr)
{
    if (null_arg(__func__,
                 local_ep == nullptr || msg == nullptr || len == nullptr || peer_addr == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep_t &ep = *local_ep;
    (void)flags;
    if (ep.r == ep_t::role::idle) {
        DOCA_LOG_ERR("%s: the endpoint neither listens nor is connected", __func__);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    drain(ep.recv_event);
    if (ep.client != nullptr) // only a client's address is ever being connected
        for (auto &[key, p] : ep.peers)
            if (p->connecting)
                (void)settle(ep, *p, false);
    if (ep.inbox.empty())
        pump(ep);
    if (ep.inbox.empty())
        return DOCA_ERROR_AGAIN;
    message &m = ep.inbox.front();
    if (m.bytes.size() > *len) {
        DOCA_LOG_ERR("%s: the next message has %zu bytes, the buffer %zu; it stays first in line",
                     __func__, m.bytes.size(), *len);
        *len = m.bytes.size();
        return DOCA_ERROR_INVALID_VALUE;
    }
    std::memcpy(msg, m.bytes.data(), m.bytes.size());
    *len = m.bytes.size();
    *peer_addr = m.from;
    ep.inbox.pop_front();
    return DOCA_SUCCESS;
}

// ---- disconnect, destroy ----

doca_error_t doca_comm_channel_ep_disconnect(struct doca_comm_channel_ep_t *local_ep,
                                             struct doca_comm_channel_addr_t *peer_addr)
{
    if (null_arg(__func__, local_ep == nullptr || peer_addr == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep_t &ep = *local_ep;
    if (!ep.owns(peer_addr)) {
        DOCA_LOG_ERR("%s: the peer address is not this endpoint's", __func__);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (ep.server != nullptr && peer_addr->conn != nullptr) {
        // Sends still queued make the server say AGAIN: deliver them first (bounded).
        const auto end = clock_type::now() + k_close_wait;
        doca_error_t rc;
        while ((rc = doca_comch_server_disconnect(ep.server, peer_addr->conn)) ==
                   DOCA_ERROR_AGAIN &&
               clock_type::now() < end)
            wait_and_progress(ep, 10);
        pump(ep);
    } else if (ep.client != nullptr) {
        close_context(ep); // a client has one connection: it may connect again
    }
    // Its messages not taken yet go with it.
    std::erase_if(ep.inbox, [&](const message &m) { return m.from == peer_addr; });
    std::erase(ep.snapshot, peer_addr);
    ep.peers.erase(peer_addr);
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_destroy(struct doca_comm_channel_ep_t *local_ep)
{
    if (local_ep == nullptr) {
        DOCA_LOG_ERR("%s: NULL endpoint", __func__);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    ep_t &ep = *local_ep;
    close_context(ep);
    if (ep.pe != nullptr && ep.ctx == nullptr)
        (void)doca_pe_destroy(ep.pe);
    delete local_ep;
    return DOCA_SUCCESS;
}

// ---- peer addresses ----

doca_error_t doca_comm_channel_peer_addr_get_user_data(struct doca_comm_channel_addr_t *peer_addr,
                                                       uint64_t *user_data)
{
    if (null_arg(__func__, peer_addr == nullptr || user_data == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    *user_data = peer_addr->user;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_peer_addr_set_user_data(struct doca_comm_channel_addr_t *peer_addr,
                                                       uint64_t user_context)
{
    if (null_arg(__func__, peer_addr == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    peer_addr->user = user_context;
    return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_peer_addr_update_info(struct doca_comm_channel_addr_t *peer_addr)
{
    if (null_arg(__func__, peer_addr == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    addr_t &a = *peer_addr;
    ep_t &ep = *a.ep;
    if (a.connecting)
        return settle(ep, a, false);
    pump(ep);
    if (ep.client != nullptr && state_of(ep.ctx) != DOCA_CTX_STATE_RUNNING)
        a.conn = nullptr; // the service went away
    if (a.conn == nullptr)
        return DOCA_ERROR_CONNECTION_ABORTED;
    (void)doca_comch_connection_update_info(a.conn);
    (void)doca_comch_connection_get_counter(a.conn, DOCA_COMCH_COUNTER_SENT_MESSAGES,
                                            &a.sent_messages);
    (void)doca_comch_connection_get_counter(a.conn, DOCA_COMCH_COUNTER_SENT_BYTES, &a.sent_bytes);
    (void)doca_comch_connection_get_counter(a.conn, DOCA_COMCH_COUNTER_RECV_MESSAGES,
                                            &a.recv_messages);
    (void)doca_comch_connection_get_counter(a.conn, DOCA_COMCH_COUNTER_RECV_BYTES, &a.recv_bytes);
    a.in_flight_snapshot = a.in_flight;
    return DOCA_SUCCESS;
}

#define SC_PEER_FIGURE(fn, field)                                                                  \
    doca_error_t fn(const struct doca_comm_channel_addr_t *peer_addr, uint64_t *out)               \
    {                                                                                              \
        if (null_arg(__func__, peer_addr == nullptr || out == nullptr))                            \
            return DOCA_ERROR_INVALID_VALUE;                                                       \
        *out = peer_addr->field;                                                                   \
        return DOCA_SUCCESS;                                                                       \
    }
SC_PEER_FIGURE(doca_comm_channel_peer_addr_get_send_messages, sent_messages)
SC_PEER_FIGURE(doca_comm_channel_peer_addr_get_send_bytes, sent_bytes)
SC_PEER_FIGURE(doca_comm_channel_peer_addr_get_recv_messages, recv_messages)
SC_PEER_FIGURE(doca_comm_channel_peer_addr_get_recv_bytes, recv_bytes)
SC_PEER_FIGURE(doca_comm_channel_peer_addr_get_send_in_flight_messages, in_flight_snapshot)
#undef SC_PEER_FIGURE

// ---- service state ----

doca_error_t doca_comm_channel_ep_update_service_state_info(struct doca_comm_channel_ep_t *local_ep)
{
    if (null_arg(__func__, local_ep == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    ep_t &ep = *local_ep;
    if (ep.r == ep_t::role::client) {
        DOCA_LOG_ERR("%s: a client endpoint has no service state", __func__);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (ep.r != ep_t::role::service) {
        DOCA_LOG_ERR("%s: called before doca_comm_channel_ep_listen", __func__);
        return DOCA_ERROR_BAD_STATE;
    }
    drain(ep.service_event);
    pump(ep);
    ep.snapshot.clear();
    for (const auto &[key, p] : ep.peers)
        if (p->conn != nullptr)
            ep.snapshot.push_back(p.get());
    ep.service_armed = true;
    if (doca_pe_request_notification(ep.pe) == DOCA_SUCCESS)
        ep.notification_requested = true;
    return DOCA_SUCCESS;
}

doca_error_t
doca_comm_channel_ep_get_peer_addr_list(const struct doca_comm_channel_ep_t *local_ep,
                                        struct doca_comm_channel_addr_t ***peer_addr_array,
                                        uint32_t *peer_addr_array_len)
{
    if (null_arg(__func__, local_ep == nullptr || peer_addr_array == nullptr ||
                               peer_addr_array_len == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    if (local_ep->r == ep_t::role::client) {
        DOCA_LOG_ERR("%s: a client endpoint has no service state", __func__);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    auto &snap = const_cast<ep_t *>(local_ep)->snapshot;
    *peer_addr_array = snap.empty() ? nullptr : snap.data();
    *peer_addr_array_len = uint32_t(snap.size());
    return DOCA_SUCCESS;
}

doca_error_t
doca_comm_channel_ep_get_pending_connections(const struct doca_comm_channel_ep_t *local_ep,
                                             uint32_t *pending_connections)
{
    if (null_arg(__func__, local_ep == nullptr || pending_connections == nullptr))
        return DOCA_ERROR_INVALID_VALUE;
    if (local_ep->r == ep_t::role::client) {
        DOCA_LOG_ERR("%s: a client endpoint has no service state", __func__);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *pending_connections = 0;
    return DOCA_SUCCESS;
}

} // extern "C"
