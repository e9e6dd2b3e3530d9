// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_comch.h: argument checks and delegation only.
#include <doca_comch.h>

#include <cstring>
#include <memory>

#include "capi/comch/checks.hpp"
#include "comch/client.hpp"
#include "comch/connection.hpp"
#include "comch/diagnostics.hpp"
#include "comch/server.hpp"
#include "common/guard.hpp"
#include "core/device.hpp"

using namespace softcomch::capi;
using softcomch::comch::resolve;

namespace {

// Name length check shared by server and client create.
doca_error_t check_name(const doca_devinfo *info, const char *name)
{
    SC_CHECK_NOT_NULL(name);
    uint32_t max = info->comch().max_name_len; // includes the terminating NUL
    size_t len = strnlen(name, max);
    if (len == 0)
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: the name is empty", api_function());
    if (len >= max) {
        // How long it is, up to a bound (the name is the caller's and may not end soon).
        constexpr size_t k_shown = 40, k_measured = 4096;
        const size_t full = strnlen(name, k_measured);
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                  "%s: the name is too long (at most %u characters; see "
                  "doca_comch_cap_get_max_name_len, %u with the terminating NUL): \"%.*s%s\" has "
                  "%s%zu; the server and its clients must use the same shorter name",
                  api_function(), max - 1, max, int(k_shown), name, full > k_shown ? "..." : "",
                  full >= k_measured ? "at least " : "", full);
    }
    return DOCA_SUCCESS;
}

} // namespace

extern "C" {

// ---- connection ----

doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection,
                                                 union doca_data user_data)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(connection);
        resolve(connection)->set_user_data(user_data);
        return DOCA_SUCCESS;
    });
}

union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection)
{
    if (!usable(connection, "connection", __func__))
        return doca_data{};
    return resolve(connection)->user_data();
}

struct doca_comch_server *
doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection)
{
    if (!usable(connection, "connection", __func__))
        return nullptr;
    return resolve(connection)->owner_->as<doca_comch_server>();
}

struct doca_comch_client *
doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection)
{
    if (!usable(connection, "connection", __func__))
        return nullptr;
    return resolve(connection)->owner_->as<doca_comch_client>();
}

doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *comch_connection)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_RESOLVE_CONNECTION(conn, comch_connection);
        return doca_comch_connection::update_info(conn, api_function());
    });
}

doca_error_t doca_comch_connection_get_counter(const struct doca_comch_connection *comch_connection,
                                               enum doca_comch_counter counter_type,
                                               uint64_t *counter_value)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(comch_connection);
        SC_CHECK_NOT_NULL(counter_value);
        const auto &s = resolve(comch_connection)->reported_counters();
        // Read the raw value: a C caller may pass any int, which is not a valid C++ enum value.
        int counter;
        std::memcpy(&counter, &counter_type, sizeof counter);
        switch (counter) {
        case DOCA_COMCH_COUNTER_SENT_MESSAGES:
            *counter_value = s.sent_messages;
            return DOCA_SUCCESS;
        case DOCA_COMCH_COUNTER_SENT_BYTES:
            *counter_value = s.sent_bytes;
            return DOCA_SUCCESS;
        case DOCA_COMCH_COUNTER_RECV_MESSAGES:
            *counter_value = s.recv_messages;
            return DOCA_SUCCESS;
        case DOCA_COMCH_COUNTER_RECV_BYTES:
            *counter_value = s.recv_bytes;
            return DOCA_SUCCESS;
        }
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: unknown counter %d", api_function(), counter);
    });
}

// ---- capabilities ----

doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo,
                                             uint32_t *max_name_len)
{
    return cap_u32(__func__, devinfo, max_name_len, [](const auto &c) { return c.max_name_len; });
}

doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size)
{
    return cap_u32(__func__, devinfo, size, [](const auto &c) { return c.max_msg_size; });
}

doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo,
                                                    uint32_t *size)
{
    return cap_u32(__func__, devinfo, size, [](const auto &c) { return c.max_recv_queue_size; });
}

doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo,
                                            uint32_t *num_clients)
{
    return cap_u32(__func__, devinfo, num_clients, [](const auto &c) { return c.max_clients; });
}

doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo,
                                               uint32_t *max_send_tasks)
{
    return cap_u32(__func__, devinfo, max_send_tasks,
                   [](const auto &c) { return c.max_send_tasks; });
}

doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo)
{
    return delegate(__func__, SC_ARG(devinfo), [](auto &o) {
        return o.server_capable() ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
    });
}

doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo)
{
    return delegate(__func__, SC_ARG(devinfo), [](auto &o) {
        return o.client_capable() ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
    });
}

// ---- server ----

doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr,
                                      const char *name, struct doca_comch_server **comch_server)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_REQUIRE(repr);
        SC_CHECK_NOT_NULL(comch_server);
        doca_devinfo *info = dev->info();
        if (doca_error_t rc = check_name(info, name); rc != DOCA_SUCCESS)
            return rc;
        if (!info->server_capable())
            SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED,
                      "%s: device %s cannot run a Comch server (servers run on the DPU side; "
                      "doca_comch_cap_server_is_supported says so): %s",
                      api_function(), info->pci_addr().c_str(),
                      softcomch::comch::diag::wrong_side_hint(*info, true).c_str());
        if (repr->info()->manager() != info)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                      "%s: representor %s is not managed by device %s (list the device's "
                      "representors with "
                      "doca_devinfo_rep_create_list)",
                      api_function(), repr->info()->name().c_str(), info->pci_addr().c_str());
        *comch_server = new doca_comch_server(dev, repr, name);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server)
{
    // Its connections' consumers and producers hold the connections: they go first.
    return destroy_idle(__func__, SC_ARG(comch_server), "server");
}

doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server,
                                                uint32_t size)
{
    return delegate(__func__, SC_ARG(comch_server),
                    [&](auto &o) { return o.set_max_msg_size(size, api_function()); });
}

doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server,
                                                uint32_t *size)
{
    return get_into(__func__, SC_ARG(comch_server), SC_ARG(size),
                    [](auto &o) { return o.max_msg_size(); });
}

doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server,
                                                   uint32_t size)
{
    return delegate(__func__, SC_ARG(comch_server),
                    [&](auto &o) { return o.set_recv_queue_size(size, api_function()); });
}

doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server,
                                                   uint32_t *size)
{
    return get_into(__func__, SC_ARG(comch_server), SC_ARG(size),
                    [](auto &o) { return o.recv_queue_size(); });
}

doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server,
                                          struct doca_dev **dev)
{
    return get_into(__func__, SC_ARG(comch_server), SC_ARG(dev), [](auto &o) { return o.dev(); });
}

doca_error_t doca_comch_server_get_device_rep(const struct doca_comch_server *comch_server,
                                              struct doca_dev_rep **rep)
{
    return get_into(__func__, SC_ARG(comch_server), SC_ARG(rep), [](auto &o) { return o.rep(); });
}

struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server)
{
    return usable(comch_server, "comch_server", __func__) ? comch_server : nullptr;
}

doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
                                          struct doca_comch_connection *connection)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(comch_server);
        SC_RESOLVE_CONNECTION(conn, connection);
        return comch_server->disconnect(conn);
    });
}

doca_error_t doca_comch_server_task_send_set_conf(
    struct doca_comch_server *comch_server, doca_comch_task_send_completion_cb_t task_completion_cb,
    doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
    return delegate(__func__, SC_ARG(comch_server), [&](auto &o) {
        return o.task_send_set_conf(task_completion_cb, task_error_cb, num_send_tasks,
                                    api_function());
    });
}

doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
                                                    struct doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    struct doca_comch_task_send **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(comch_server);
        SC_RESOLVE_CONNECTION(conn, peer);
        SC_CHECK_NOT_NULL(msg);
        SC_CHECK_NOT_NULL(task);
        return comch_server->task_send_alloc_init(conn, msg, len, task, api_function());
    });
}

doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
                                                       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
    return delegate(__func__, SC_ARG(comch_server), [&](auto &o) {
        return o.event_msg_recv_register(recv_event_cb, api_function());
    });
}

doca_error_t doca_comch_server_event_connection_status_changed_register(
    struct doca_comch_server *comch_server,
    doca_comch_event_connection_status_changed_cb_t connect_event_cb,
    doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
    return delegate(__func__, SC_ARG(comch_server), [&](auto &o) {
        return o.event_connection_register(connect_event_cb, disconnect_event_cb, api_function());
    });
}

doca_error_t
doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
                                          doca_comch_event_consumer_cb_t new_consumer_event_cb,
                                          doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
    return delegate(__func__, SC_ARG(comch_server), [&](auto &o) {
        return o.event_consumer_register(new_consumer_event_cb, expired_consumer_event_cb,
                                         api_function());
    });
}

// ---- client ----

doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name,
                                      struct doca_comch_client **comch_client)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(comch_client);
        doca_devinfo *info = dev->info();
        if (doca_error_t rc = check_name(info, name); rc != DOCA_SUCCESS)
            return rc;
        if (!info->client_capable())
            SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED,
                      "%s: device %s cannot run a Comch client (clients run on the host side; "
                      "doca_comch_cap_client_is_supported says so): %s",
                      api_function(), info->pci_addr().c_str(),
                      softcomch::comch::diag::wrong_side_hint(*info, false).c_str());
        *comch_client = new doca_comch_client(dev, name);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client)
{
    // Its connection's consumers and producers hold the connection: they go first.
    return destroy_idle(__func__, SC_ARG(comch_client), "client");
}

doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client,
                                                uint32_t size)
{
    return delegate(__func__, SC_ARG(comch_client),
                    [&](auto &o) { return o.set_max_msg_size(size, api_function()); });
}

doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client,
                                                uint32_t *size)
{
    return get_into(__func__, SC_ARG(comch_client), SC_ARG(size),
                    [](auto &o) { return o.max_msg_size(); });
}

doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client,
                                                   uint32_t size)
{
    return delegate(__func__, SC_ARG(comch_client),
                    [&](auto &o) { return o.set_recv_queue_size(size, api_function()); });
}

doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client,
                                                   uint32_t *size)
{
    return get_into(__func__, SC_ARG(comch_client), SC_ARG(size),
                    [](auto &o) { return o.recv_queue_size(); });
}

doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client,
                                          struct doca_dev **dev)
{
    return get_into(__func__, SC_ARG(comch_client), SC_ARG(dev), [](auto &o) { return o.dev(); });
}

struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client)
{
    return usable(comch_client, "comch_client", __func__) ? comch_client : nullptr;
}

doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
                                              struct doca_comch_connection **connection)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(comch_client);
        SC_CHECK_NOT_NULL(connection);
        if (comch_client->state() != DOCA_CTX_STATE_RUNNING || !comch_client->connection())
            SC_REFUSE(DOCA_ERROR_BAD_STATE,
                      "%s: the client is %s; its connection exists once it is RUNNING",
                      api_function(), softcomch::core::state_name(comch_client->state()));
        *connection = comch_client->connection()->handle();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_client_task_send_set_conf(
    struct doca_comch_client *comch_client, doca_comch_task_send_completion_cb_t task_completion_cb,
    doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
    return delegate(__func__, SC_ARG(comch_client), [&](auto &o) {
        return o.task_send_set_conf(task_completion_cb, task_error_cb, num_send_tasks,
                                    api_function());
    });
}

doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
                                                    struct doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    struct doca_comch_task_send **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(comch_client);
        SC_RESOLVE_CONNECTION(conn, peer);
        SC_CHECK_NOT_NULL(msg);
        SC_CHECK_NOT_NULL(task);
        return comch_client->task_send_alloc_init(conn, msg, len, task, api_function());
    });
}

doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
                                                       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
    return delegate(__func__, SC_ARG(comch_client), [&](auto &o) {
        return o.event_msg_recv_register(recv_event_cb, api_function());
    });
}

doca_error_t
doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
                                          doca_comch_event_consumer_cb_t new_consumer_event_cb,
                                          doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
    return delegate(__func__, SC_ARG(comch_client), [&](auto &o) {
        return o.event_consumer_register(new_consumer_event_cb, expired_consumer_event_cb,
                                         api_function());
    });
}

struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

} // extern "C"
