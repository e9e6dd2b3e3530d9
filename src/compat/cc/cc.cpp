// SPDX-License-Identifier: Apache-2.0
//
// DOCA 2.6's doca_cc API (include/doca_cc*.h) as thunks over the doca_comch API it was renamed to:
// the same objects under their old names (docs/generations.md). Public headers only: this layer
// knows nothing of the implementation; each call is the doca_comch call of the table, with its
// validation, return codes and log lines.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_cc.h>
#include <doca_cc_consumer.h>
#include <doca_cc_producer.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>

#include "compat/pun.hpp"

using softcomch::compat::forward;

doca_error_t doca_cc_connection_set_user_data(struct doca_cc_connection *connection,
                                              union doca_data user_data)
{
    return forward<doca_error_t>(&doca_comch_connection_set_user_data, connection, user_data);
}

union doca_data doca_cc_connection_get_user_data(const struct doca_cc_connection *connection)
{
    return forward<union doca_data>(&doca_comch_connection_get_user_data, connection);
}

struct doca_cc_server *doca_cc_server_get_server_ctx(const struct doca_cc_connection *connection)
{
    return forward<struct doca_cc_server *>(&doca_comch_server_get_server_ctx, connection);
}

struct doca_cc_client *doca_cc_client_get_client_ctx(const struct doca_cc_connection *connection)
{
    return forward<struct doca_cc_client *>(&doca_comch_client_get_client_ctx, connection);
}

doca_error_t doca_cc_cap_get_max_name_len(const struct doca_devinfo *devinfo,
                                          uint32_t *max_name_len)
{
    return forward<doca_error_t>(&doca_comch_cap_get_max_name_len, devinfo, max_name_len);
}

doca_error_t doca_cc_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size)
{
    return forward<doca_error_t>(&doca_comch_cap_get_max_msg_size, devinfo, size);
}

doca_error_t doca_cc_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *size)
{
    return forward<doca_error_t>(&doca_comch_cap_get_max_recv_queue_size, devinfo, size);
}

doca_error_t doca_cc_cap_get_max_clients(const struct doca_devinfo *devinfo, uint32_t *num_clients)
{
    return forward<doca_error_t>(&doca_comch_cap_get_max_clients, devinfo, num_clients);
}

doca_error_t doca_cc_server_create(struct doca_dev *dev, struct doca_dev_rep *repr,
                                   const char *name, struct doca_cc_server **cc_server)
{
    return forward<doca_error_t>(&doca_comch_server_create, dev, repr, name, cc_server);
}

doca_error_t doca_cc_server_destroy(struct doca_cc_server *cc_server)
{
    return forward<doca_error_t>(&doca_comch_server_destroy, cc_server);
}

doca_error_t doca_cc_cap_server_is_supported(const struct doca_devinfo *devinfo)
{
    return forward<doca_error_t>(&doca_comch_cap_server_is_supported, devinfo);
}

doca_error_t doca_cc_server_set_max_msg_size(struct doca_cc_server *cc_server, uint32_t size)
{
    return forward<doca_error_t>(&doca_comch_server_set_max_msg_size, cc_server, size);
}

doca_error_t doca_cc_server_get_max_msg_size(const struct doca_cc_server *cc_server, uint32_t *size)
{
    return forward<doca_error_t>(&doca_comch_server_get_max_msg_size, cc_server, size);
}

doca_error_t doca_cc_server_set_recv_queue_size(struct doca_cc_server *cc_server, uint32_t size)
{
    return forward<doca_error_t>(&doca_comch_server_set_recv_queue_size, cc_server, size);
}

doca_error_t doca_cc_server_get_recv_queue_size(const struct doca_cc_server *cc_server,
                                                uint32_t *size)
{
    return forward<doca_error_t>(&doca_comch_server_get_recv_queue_size, cc_server, size);
}

doca_error_t doca_cc_server_get_device(const struct doca_cc_server *cc_server,
                                       struct doca_dev **dev)
{
    return forward<doca_error_t>(&doca_comch_server_get_device, cc_server, dev);
}

doca_error_t doca_cc_server_get_device_repr(const struct doca_cc_server *cc_server,
                                            struct doca_dev_rep **repr)
{
    return forward<doca_error_t>(&doca_comch_server_get_device_rep, cc_server, repr);
}

struct doca_ctx *doca_cc_server_as_ctx(struct doca_cc_server *cc_server)
{
    return forward<struct doca_ctx *>(&doca_comch_server_as_ctx, cc_server);
}

doca_error_t doca_cc_client_create(struct doca_dev *dev, const char *name,
                                   struct doca_cc_client **cc_client)
{
    return forward<doca_error_t>(&doca_comch_client_create, dev, name, cc_client);
}

doca_error_t doca_cc_client_destroy(struct doca_cc_client *cc_client)
{
    return forward<doca_error_t>(&doca_comch_client_destroy, cc_client);
}

doca_error_t doca_cc_cap_client_is_supported(const struct doca_devinfo *devinfo)
{
    return forward<doca_error_t>(&doca_comch_cap_client_is_supported, devinfo);
}

doca_error_t doca_cc_client_set_max_msg_size(struct doca_cc_client *cc_client, uint32_t size)
{
    return forward<doca_error_t>(&doca_comch_client_set_max_msg_size, cc_client, size);
}

doca_error_t doca_cc_client_get_max_msg_size(const struct doca_cc_client *cc_client, uint32_t *size)
{
    return forward<doca_error_t>(&doca_comch_client_get_max_msg_size, cc_client, size);
}

doca_error_t doca_cc_client_set_recv_queue_size(struct doca_cc_client *cc_client, uint32_t size)
{
    return forward<doca_error_t>(&doca_comch_client_set_recv_queue_size, cc_client, size);
}

doca_error_t doca_cc_client_get_recv_queue_size(const struct doca_cc_client *cc_client,
                                                uint32_t *size)
{
    return forward<doca_error_t>(&doca_comch_client_get_recv_queue_size, cc_client, size);
}

doca_error_t doca_cc_client_get_device(const struct doca_cc_client *cc_client,
                                       struct doca_dev **dev)
{
    return forward<doca_error_t>(&doca_comch_client_get_device, cc_client, dev);
}

struct doca_ctx *doca_cc_client_as_ctx(struct doca_cc_client *cc_client)
{
    return forward<struct doca_ctx *>(&doca_comch_client_as_ctx, cc_client);
}

doca_error_t doca_cc_client_get_connection(const struct doca_cc_client *cc_client,
                                           struct doca_cc_connection **connection)
{
    return forward<doca_error_t>(&doca_comch_client_get_connection, cc_client, connection);
}

doca_error_t doca_cc_cap_get_max_send_tasks(const struct doca_devinfo *devinfo,
                                            uint32_t *max_send_tasks)
{
    return forward<doca_error_t>(&doca_comch_cap_get_max_send_tasks, devinfo, max_send_tasks);
}

doca_error_t doca_cc_server_task_send_set_conf(struct doca_cc_server *cc_server,
                                               doca_cc_task_send_completion_cb_t task_completion_cb,
                                               doca_cc_task_send_completion_cb_t task_error_cb,
                                               uint32_t num_send_tasks)
{
    return forward<doca_error_t>(&doca_comch_server_task_send_set_conf, cc_server,
                                 task_completion_cb, task_error_cb, num_send_tasks);
}

doca_error_t doca_cc_client_task_send_set_conf(struct doca_cc_client *cc_client,
                                               doca_cc_task_send_completion_cb_t task_completion_cb,
                                               doca_cc_task_send_completion_cb_t task_error_cb,
                                               uint32_t num_send_tasks)
{
    return forward<doca_error_t>(&doca_comch_client_task_send_set_conf, cc_client,
                                 task_completion_cb, task_error_cb, num_send_tasks);
}

doca_error_t doca_cc_server_task_send_alloc_init(struct doca_cc_server *cc_server,
                                                 struct doca_cc_connection *peer, const void *msg,
                                                 uint32_t len, struct doca_cc_task_send **task)
{
    return forward<doca_error_t>(&doca_comch_server_task_send_alloc_init, cc_server, peer, msg, len,
                                 task);
}

doca_error_t doca_cc_client_task_send_alloc_init(struct doca_cc_client *cc_client,
                                                 struct doca_cc_connection *peer, const void *msg,
                                                 uint32_t len, struct doca_cc_task_send **task)
{
    return forward<doca_error_t>(&doca_comch_client_task_send_alloc_init, cc_client, peer, msg, len,
                                 task);
}

struct doca_task *doca_cc_task_send_as_task(struct doca_cc_task_send *task)
{
    return forward<struct doca_task *>(&doca_comch_task_send_as_task, task);
}

doca_error_t doca_cc_server_event_msg_recv_register(struct doca_cc_server *cc_server,
                                                    doca_cc_event_msg_recv_cb_t recv_event_cb)
{
    return forward<doca_error_t>(&doca_comch_server_event_msg_recv_register, cc_server,
                                 recv_event_cb);
}

doca_error_t doca_cc_client_event_msg_recv_register(struct doca_cc_client *cc_client,
                                                    doca_cc_event_msg_recv_cb_t recv_event_cb)
{
    return forward<doca_error_t>(&doca_comch_client_event_msg_recv_register, cc_client,
                                 recv_event_cb);
}

doca_error_t doca_cc_server_event_connection_register(
    struct doca_cc_server *cc_server, doca_cc_event_connection_status_changed_cb_t connect_event_cb,
    doca_cc_event_connection_status_changed_cb_t disconnect_event_cb)
{
    return forward<doca_error_t>(&doca_comch_server_event_connection_status_changed_register,
                                 cc_server, connect_event_cb, disconnect_event_cb);
}

doca_error_t doca_cc_connection_update_info(struct doca_cc_connection *cc_connection)
{
    return forward<doca_error_t>(&doca_comch_connection_update_info, cc_connection);
}

doca_error_t doca_cc_connection_get_counter(const struct doca_cc_connection *cc_connection,
                                            enum doca_cc_counter counter_type,
                                            uint64_t *counter_value)
{
    return forward<doca_error_t>(&doca_comch_connection_get_counter, cc_connection, counter_type,
                                 counter_value);
}

doca_error_t
doca_cc_server_event_consumer_register(struct doca_cc_server *cc_server,
                                       doca_cc_event_consumer_cb_t new_consumer_event_cb,
                                       doca_cc_event_consumer_cb_t expired_consumer_event_cb)
{
    return forward<doca_error_t>(&doca_comch_server_event_consumer_register, cc_server,
                                 new_consumer_event_cb, expired_consumer_event_cb);
}

doca_error_t
doca_cc_client_event_consumer_register(struct doca_cc_client *cc_client,
                                       doca_cc_event_consumer_cb_t new_consumer_event_cb,
                                       doca_cc_event_consumer_cb_t expired_consumer_event_cb)
{
    return forward<doca_error_t>(&doca_comch_client_event_consumer_register, cc_client,
                                 new_consumer_event_cb, expired_consumer_event_cb);
}

doca_error_t doca_cc_consumer_create(struct doca_cc_connection *cc_connection,
                                     struct doca_mmap *buf_mmap, struct doca_cc_consumer **consumer)
{
    return forward<doca_error_t>(&doca_comch_consumer_create, cc_connection, buf_mmap, consumer);
}

doca_error_t doca_cc_consumer_destroy(struct doca_cc_consumer *consumer)
{
    return forward<doca_error_t>(&doca_comch_consumer_destroy, consumer);
}

doca_error_t doca_cc_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
    return forward<doca_error_t>(&doca_comch_consumer_cap_is_supported, devinfo);
}

doca_error_t doca_cc_consumer_get_id(const struct doca_cc_consumer *consumer, uint32_t *id)
{
    return forward<doca_error_t>(&doca_comch_consumer_get_id, consumer, id);
}

doca_error_t doca_cc_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                    uint32_t *max_num_tasks)
{
    return forward<doca_error_t>(&doca_comch_consumer_cap_get_max_num_tasks, devinfo,
                                 max_num_tasks);
}

doca_error_t doca_cc_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                   uint32_t *max_buf_size)
{
    return forward<doca_error_t>(&doca_comch_consumer_cap_get_max_buf_size, devinfo, max_buf_size);
}

doca_error_t doca_cc_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
                                                    uint32_t *max_consumers)
{
    return forward<doca_error_t>(&doca_comch_consumer_cap_get_max_consumers, devinfo,
                                 max_consumers);
}

struct doca_ctx *doca_cc_consumer_as_ctx(struct doca_cc_consumer *consumer)
{
    return forward<struct doca_ctx *>(&doca_comch_consumer_as_ctx, consumer);
}

doca_error_t doca_cc_consumer_task_post_recv_set_conf(
    struct doca_cc_consumer *consumer,
    doca_cc_consumer_task_post_recv_completion_cb_t task_completion_cb,
    doca_cc_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks)
{
    return forward<doca_error_t>(&doca_comch_consumer_task_post_recv_set_conf, consumer,
                                 task_completion_cb, task_error_cb, num_post_recv_tasks);
}

doca_error_t
doca_cc_consumer_task_post_recv_alloc_init(struct doca_cc_consumer *consumer, struct doca_buf *buf,
                                           struct doca_cc_consumer_task_post_recv **task)
{
    return forward<doca_error_t>(&doca_comch_consumer_task_post_recv_alloc_init, consumer, buf,
                                 task);
}

struct doca_buf *
doca_cc_consumer_task_post_recv_get_buf(struct doca_cc_consumer_task_post_recv *task)
{
    return forward<struct doca_buf *>(&doca_comch_consumer_task_post_recv_get_buf, task);
}

void doca_cc_consumer_task_post_recv_set_buf(struct doca_cc_consumer_task_post_recv *task,
                                             struct doca_buf *buf)
{
    forward<void>(&doca_comch_consumer_task_post_recv_set_buf, task, buf);
}

uint32_t
doca_cc_consumer_task_post_recv_get_producer_id(struct doca_cc_consumer_task_post_recv *task)
{
    return forward<uint32_t>(&doca_comch_consumer_task_post_recv_get_producer_id, task);
}

struct doca_task *
doca_cc_consumer_task_post_recv_as_task(struct doca_cc_consumer_task_post_recv *task)
{
    return forward<struct doca_task *>(&doca_comch_consumer_task_post_recv_as_task, task);
}

doca_error_t doca_cc_producer_create(struct doca_cc_connection *cc_connection,
                                     struct doca_cc_producer **producer)
{
    return forward<doca_error_t>(&doca_comch_producer_create, cc_connection, producer);
}

doca_error_t doca_cc_producer_destroy(struct doca_cc_producer *producer)
{
    return forward<doca_error_t>(&doca_comch_producer_destroy, producer);
}

doca_error_t doca_cc_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
    return forward<doca_error_t>(&doca_comch_producer_cap_is_supported, devinfo);
}

doca_error_t doca_cc_producer_get_id(const struct doca_cc_producer *producer, uint32_t *id)
{
    return forward<doca_error_t>(&doca_comch_producer_get_id, producer, id);
}

doca_error_t doca_cc_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                    uint32_t *max_num_tasks)
{
    return forward<doca_error_t>(&doca_comch_producer_cap_get_max_num_tasks, devinfo,
                                 max_num_tasks);
}

doca_error_t doca_cc_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                   uint32_t *max_buf_size)
{
    return forward<doca_error_t>(&doca_comch_producer_cap_get_max_buf_size, devinfo, max_buf_size);
}

doca_error_t doca_cc_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
                                                    uint32_t *max_producers)
{
    return forward<doca_error_t>(&doca_comch_producer_cap_get_max_producers, devinfo,
                                 max_producers);
}

struct doca_ctx *doca_cc_producer_as_ctx(struct doca_cc_producer *producer)
{
    return forward<struct doca_ctx *>(&doca_comch_producer_as_ctx, producer);
}

doca_error_t
doca_cc_producer_task_send_set_conf(struct doca_cc_producer *producer,
                                    doca_cc_producer_task_send_completion_cb_t task_completion_cb,
                                    doca_cc_producer_task_send_completion_cb_t task_error_cb,
                                    uint32_t num_send_tasks)
{
    return forward<doca_error_t>(&doca_comch_producer_task_send_set_conf, producer,
                                 task_completion_cb, task_error_cb, num_send_tasks);
}

doca_error_t doca_cc_producer_task_send_alloc_init(struct doca_cc_producer *producer,
                                                   struct doca_buf *buf, uint32_t consumer_id,
                                                   struct doca_cc_producer_task_send **task)
{
    return forward<doca_error_t>(&doca_comch_producer_task_send_alloc_init, producer, buf,
                                 static_cast<uint8_t *>(nullptr), uint32_t(0), consumer_id, task);
}

struct doca_buf *doca_cc_producer_task_send_get_buf(struct doca_cc_producer_task_send *task)
{
    return forward<struct doca_buf *>(&doca_comch_producer_task_send_get_buf, task);
}

void doca_cc_producer_task_send_set_buf(struct doca_cc_producer_task_send *task,
                                        struct doca_buf *buf)
{
    forward<void>(&doca_comch_producer_task_send_set_buf, task, buf);
}

uint32_t doca_cc_producer_task_send_get_consumer_id(struct doca_cc_producer_task_send *task)
{
    return forward<uint32_t>(&doca_comch_producer_task_send_get_consumer_id, task);
}

void doca_cc_producer_task_send_set_consumer_id(struct doca_cc_producer_task_send *task,
                                                const uint32_t consumer_id)
{
    forward<void>(&doca_comch_producer_task_send_set_consumer_id, task, consumer_id);
}

struct doca_task *doca_cc_producer_task_send_as_task(struct doca_cc_producer_task_send *task)
{
    return forward<struct doca_task *>(&doca_comch_producer_task_send_as_task, task);
}
