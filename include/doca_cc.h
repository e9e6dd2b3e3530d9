/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_cc.h
 * @brief DOCA 2.6 Comch control path (doca_cc): servers, clients, connections, send tasks, events.
 *
 * The Comch API of DOCA 2.6 (`doca_cc`, "Comm Channel - New"), the context API that DOCA 2.7
 * renamed to doca_comch with the same behaviour. Each function here is its doca_comch twin under
 * the 2.6 name (the table in docs/generations.md); the objects are the same objects, so a 2.6
 * program and a 3.0 program talk to each other, and doca_ctx, doca_pe and doca_task calls take
 * them as they are. What 2.6 did not have (server-side disconnect, immediate data) is not here.
 *
 * Every function is DOCA_EXPERIMENTAL, as in 2.6: define DOCA_ALLOW_EXPERIMENTAL_API (NVIDIA's
 * sample builds do). Link with libdoca_cc (pkg-config module doca-cc).
 */
#ifndef DOCA_CC_H_
#define DOCA_CC_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dev_rep;
struct doca_devinfo;
struct doca_ctx;
struct doca_task;

struct doca_cc_connection;                      /**< one client <-> server connection */
struct doca_cc_server;                          /**< server context (DPU side) */
struct doca_cc_client;                          /**< client context (host side) */
struct doca_cc_task_send;                       /**< control-path send task */
struct doca_cc_event_msg_recv;                  /**< control-path receive event */
struct doca_cc_event_connection_status_changed; /**< server connect / disconnect event */
struct doca_cc_event_consumer;                  /**< remote consumer created / expired event */

/** @brief Completion (or error) callback of a send task. */
typedef void (*doca_cc_task_send_completion_cb_t)(struct doca_cc_task_send *task,
						  union doca_data task_user_data,
						  union doca_data ctx_user_data);

/** @brief Called once per received message (the buffer is valid during the call only). */
typedef void (*doca_cc_event_msg_recv_cb_t)(struct doca_cc_event_msg_recv *event,
					    uint8_t *recv_buffer,
					    uint32_t msg_len,
					    struct doca_cc_connection *cc_connection);

/** @brief A server's connection was made or closed (`change_successful` non-zero on success). */
typedef void (*doca_cc_event_connection_status_changed_cb_t)(struct doca_cc_event_connection_status_changed *event,
							     struct doca_cc_connection *cc_connection,
							     uint8_t change_successful);

/** @brief A consumer of the peer appeared or went (`id` is its id). */
typedef void (*doca_cc_event_consumer_cb_t)(struct doca_cc_event_consumer *event,
					    struct doca_cc_connection *cc_connection,
					    uint32_t id);

/** @brief The counters of a connection (values as doca_comch_counter). */
enum doca_cc_counter {
	DOCA_CC_COUNTER_SENT_MESSAGES = 1, /**< messages sent by this side */
	DOCA_CC_COUNTER_SENT_BYTES = 2,    /**< bytes sent by this side */
	DOCA_CC_COUNTER_RECV_MESSAGES = 3, /**< messages received by this side */
	DOCA_CC_COUNTER_RECV_BYTES = 4,    /**< bytes received by this side */
};

/** @brief Stores a value of the program's on a connection. 2.6 name of doca_comch_connection_set_user_data(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_connection_set_user_data(struct doca_cc_connection *connection,
								union doca_data user_data);

/** @brief The value stored with doca_cc_connection_set_user_data() (0 if none). 2.6 name of doca_comch_connection_get_user_data(). */
DOCA_EXPERIMENTAL union doca_data doca_cc_connection_get_user_data(const struct doca_cc_connection *connection);

/** @brief The server a connection belongs to (NULL on the client side). 2.6 name of doca_comch_server_get_server_ctx(). */
DOCA_EXPERIMENTAL struct doca_cc_server *doca_cc_server_get_server_ctx(const struct doca_cc_connection *connection);

/** @brief The client a connection belongs to (NULL on the server side). 2.6 name of doca_comch_client_get_client_ctx(). */
DOCA_EXPERIMENTAL struct doca_cc_client *doca_cc_client_get_client_ctx(const struct doca_cc_connection *connection);

/** @brief Capability: as doca_comch_cap_get_max_name_len(). 2.6 name of doca_comch_cap_get_max_name_len(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_cap_get_max_name_len(const struct doca_devinfo *devinfo, uint32_t *max_name_len);

/** @brief Capability: as doca_comch_cap_get_max_msg_size(). 2.6 name of doca_comch_cap_get_max_msg_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size);

/** @brief Capability: as doca_comch_cap_get_max_recv_queue_size(). 2.6 name of doca_comch_cap_get_max_recv_queue_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *size);

/** @brief Capability: as doca_comch_cap_get_max_clients(). 2.6 name of doca_comch_cap_get_max_clients(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_cap_get_max_clients(const struct doca_devinfo *devinfo, uint32_t *num_clients);

/** @brief Creates a server on a DPU-side device for the host function of `repr`, named `name`. 2.6 name of doca_comch_server_create(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_create(struct doca_dev *dev,
						     struct doca_dev_rep *repr,
						     const char *name,
						     struct doca_cc_server **cc_server);

/** @brief Destroys an idle server. 2.6 name of doca_comch_server_destroy(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_destroy(struct doca_cc_server *cc_server);

/** @brief DOCA_SUCCESS if a server can run on the device. 2.6 name of doca_comch_cap_server_is_supported(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_cap_server_is_supported(const struct doca_devinfo *devinfo);

/** @brief Largest message this side sends and accepts (IDLE only). 2.6 name of doca_comch_server_set_max_msg_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_set_max_msg_size(struct doca_cc_server *cc_server, uint32_t size);

/** @brief The maximum message size set (or the default). 2.6 name of doca_comch_server_get_max_msg_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_get_max_msg_size(const struct doca_cc_server *cc_server, uint32_t *size);

/** @brief Messages this side can hold before the program takes them (IDLE only). 2.6 name of doca_comch_server_set_recv_queue_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_set_recv_queue_size(struct doca_cc_server *cc_server, uint32_t size);

/** @brief The receive queue size set (or the default). 2.6 name of doca_comch_server_get_recv_queue_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_get_recv_queue_size(const struct doca_cc_server *cc_server,
								  uint32_t *size);

/** @brief The device it was created with. 2.6 name of doca_comch_server_get_device(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_get_device(const struct doca_cc_server *cc_server, struct doca_dev **dev);

/** @brief The representor it was created with. 2.6 name of doca_comch_server_get_device_rep(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_get_device_repr(const struct doca_cc_server *cc_server,
							      struct doca_dev_rep **repr);

/** @brief The server or client as a DOCA context (NULL for NULL). 2.6 name of doca_comch_server_as_ctx(). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_cc_server_as_ctx(struct doca_cc_server *cc_server);

/** @brief Creates a client on a host-side device that will connect to the server `name`. 2.6 name of doca_comch_client_create(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_create(struct doca_dev *dev,
						     const char *name,
						     struct doca_cc_client **cc_client);

/** @brief Destroys an idle client. 2.6 name of doca_comch_client_destroy(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_destroy(struct doca_cc_client *cc_client);

/** @brief DOCA_SUCCESS if a client can run on the device. 2.6 name of doca_comch_cap_client_is_supported(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_cap_client_is_supported(const struct doca_devinfo *devinfo);

/** @brief Largest message this side sends and accepts (IDLE only). 2.6 name of doca_comch_client_set_max_msg_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_set_max_msg_size(struct doca_cc_client *cc_client, uint32_t size);

/** @brief The maximum message size set (or the default). 2.6 name of doca_comch_client_get_max_msg_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_get_max_msg_size(const struct doca_cc_client *cc_client, uint32_t *size);

/** @brief Messages this side can hold before the program takes them (IDLE only). 2.6 name of doca_comch_client_set_recv_queue_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_set_recv_queue_size(struct doca_cc_client *cc_client, uint32_t size);

/** @brief The receive queue size set (or the default). 2.6 name of doca_comch_client_get_recv_queue_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_get_recv_queue_size(const struct doca_cc_client *cc_client,
								  uint32_t *size);

/** @brief The device it was created with. 2.6 name of doca_comch_client_get_device(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_get_device(const struct doca_cc_client *cc_client, struct doca_dev **dev);

/** @brief The server or client as a DOCA context (NULL for NULL). 2.6 name of doca_comch_client_as_ctx(). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_cc_client_as_ctx(struct doca_cc_client *cc_client);

/** @brief The client's connection (RUNNING only). 2.6 name of doca_comch_client_get_connection(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_get_connection(const struct doca_cc_client *cc_client,
							     struct doca_cc_connection **connection);

/** @brief Capability: the most send tasks one context may configure. 2.6 name of doca_comch_cap_get_max_send_tasks(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_cap_get_max_send_tasks(const struct doca_devinfo *devinfo,
							      uint32_t *max_send_tasks);

/** @brief Configures the send tasks: their callbacks and how many (IDLE only). 2.6 name of doca_comch_server_task_send_set_conf(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_task_send_set_conf(struct doca_cc_server *cc_server,
								 doca_cc_task_send_completion_cb_t task_completion_cb,
								 doca_cc_task_send_completion_cb_t task_error_cb,
								 uint32_t num_send_tasks);

/** @brief Configures the send tasks: their callbacks and how many (IDLE only). 2.6 name of doca_comch_client_task_send_set_conf(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_task_send_set_conf(struct doca_cc_client *cc_client,
								 doca_cc_task_send_completion_cb_t task_completion_cb,
								 doca_cc_task_send_completion_cb_t task_error_cb,
								 uint32_t num_send_tasks);

/** @brief Allocates a send task of `len` bytes of `msg` to `peer` (the message is copied). 2.6 name of doca_comch_server_task_send_alloc_init(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_task_send_alloc_init(struct doca_cc_server *cc_server,
								   struct doca_cc_connection *peer,
								   const void *msg,
								   uint32_t len,
								   struct doca_cc_task_send **task);

/** @brief Allocates a send task of `len` bytes of `msg` to `peer` (the message is copied). 2.6 name of doca_comch_client_task_send_alloc_init(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_task_send_alloc_init(struct doca_cc_client *cc_client,
								   struct doca_cc_connection *peer,
								   const void *msg,
								   uint32_t len,
								   struct doca_cc_task_send **task);

/** @brief The send task as a generic task. 2.6 name of doca_comch_task_send_as_task(). */
DOCA_EXPERIMENTAL struct doca_task *doca_cc_task_send_as_task(struct doca_cc_task_send *task);

/** @brief Registers the callback of received messages (IDLE only). 2.6 name of doca_comch_server_event_msg_recv_register(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_server_event_msg_recv_register(struct doca_cc_server *cc_server,
								      doca_cc_event_msg_recv_cb_t recv_event_cb);

/** @brief Registers the callback of received messages (IDLE only). 2.6 name of doca_comch_client_event_msg_recv_register(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_client_event_msg_recv_register(struct doca_cc_client *cc_client,
								      doca_cc_event_msg_recv_cb_t recv_event_cb);

/** @brief Registers the connect and disconnect callbacks (IDLE only). 2.6 name of doca_comch_server_event_connection_status_changed_register(). */
DOCA_EXPERIMENTAL doca_error_t
doca_cc_server_event_connection_register(struct doca_cc_server *cc_server,
					 doca_cc_event_connection_status_changed_cb_t connect_event_cb,
					 doca_cc_event_connection_status_changed_cb_t disconnect_event_cb);

/** @brief Refreshes the counters doca_cc_connection_get_counter() reports. 2.6 name of doca_comch_connection_update_info(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_connection_update_info(struct doca_cc_connection *cc_connection);

/** @brief One counter of the connection, as of the last update. 2.6 name of doca_comch_connection_get_counter(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_connection_get_counter(const struct doca_cc_connection *cc_connection,
							      enum doca_cc_counter counter_type,
							      uint64_t *counter_value);

/** @brief Registers the callbacks of the peer's consumers appearing and going (IDLE only). 2.6 name of doca_comch_server_event_consumer_register(). */
DOCA_EXPERIMENTAL doca_error_t
doca_cc_server_event_consumer_register(struct doca_cc_server *cc_server,
				       doca_cc_event_consumer_cb_t new_consumer_event_cb,
				       doca_cc_event_consumer_cb_t expired_consumer_event_cb);

/** @brief Registers the callbacks of the peer's consumers appearing and going (IDLE only). 2.6 name of doca_comch_client_event_consumer_register(). */
DOCA_EXPERIMENTAL doca_error_t
doca_cc_client_event_consumer_register(struct doca_cc_client *cc_client,
				       doca_cc_event_consumer_cb_t new_consumer_event_cb,
				       doca_cc_event_consumer_cb_t expired_consumer_event_cb);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_CC_H_ */
