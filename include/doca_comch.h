/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_comch.h
 * @brief DOCA Comch control path: servers on the DPU, clients on the host, messages between them.
 *
 * A server runs on the BlueField side. It needs a DPU-side device and the representor of the host
 * PCI function it serves; its name is scoped to that function. A client runs on the host side with
 * that host function's device and connects by name. Both are DOCA contexts (doca_ctx.h): attach
 * them to a progress engine, configure them while IDLE, start them, then drive
 * doca_pe_progress(). Every callback runs inside doca_pe_progress().
 *
 * - Server start is synchronous (DOCA_SUCCESS, RUNNING at once).
 * - Client start is asynchronous (DOCA_ERROR_IN_PROGRESS, STARTING); the client becomes RUNNING
 *   during progress once the server accepted it.
 * - Messages are at most the negotiated maximum size (the smaller of both sides' settings,
 *   4080 bytes by default) and are delivered in order, each as one receive event.
 *
 * Thread safety: a server or client and its connections are used from one thread at a time.
 */
#ifndef DOCA_COMCH_H_
#define DOCA_COMCH_H_

#include <stddef.h>
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

struct doca_comch_connection;                      /**< one client <-> server connection */
struct doca_comch_server;                          /**< server context (DPU side) */
struct doca_comch_client;                          /**< client context (host side) */
struct doca_comch_task_send;                       /**< control-path send task */
struct doca_comch_event_msg_recv;                  /**< control-path receive event */
struct doca_comch_event_connection_status_changed; /**< server connect / disconnect event */
struct doca_comch_event_consumer;                  /**< remote consumer created / expired event */

/**
 * @brief Completion (or error) callback of a send task.
 * @param [in] task the task; the program owns it again and may free or resubmit it.
 * @param [in] task_user_data value set with doca_task_set_user_data().
 * @param [in] ctx_user_data value set with doca_ctx_set_user_data() on the server or client.
 */
typedef void (*doca_comch_task_send_completion_cb_t)(struct doca_comch_task_send *task,
						     union doca_data task_user_data,
						     union doca_data ctx_user_data);

/**
 * @brief Called once per received message.
 * @param [in] event the event.
 * @param [in] recv_buffer the message; valid only until the callback returns.
 * @param [in] msg_len its length in bytes.
 * @param [in] comch_connection the connection it arrived on.
 */
typedef void (*doca_comch_event_msg_recv_cb_t)(struct doca_comch_event_msg_recv *event,
					       uint8_t *recv_buffer,
					       uint32_t msg_len,
					       struct doca_comch_connection *comch_connection);

/**
 * @brief Called on the server when a client connects or disconnects.
 * @param [in] event the event.
 * @param [in] comch_connection the connection; after a disconnect it must no longer be used.
 * @param [in] change_successful 1 if the change completed, 0 if it failed.
 */
typedef void (*doca_comch_event_connection_status_changed_cb_t)(
	struct doca_comch_event_connection_status_changed *event,
	struct doca_comch_connection *comch_connection,
	uint8_t change_successful);

/**
 * @brief Called when the peer creates (new) or destroys (expired) a consumer on a connection.
 * @param [in] event the event.
 * @param [in] comch_connection the connection.
 * @param [in] id the id of the remote consumer.
 */
typedef void (*doca_comch_event_consumer_cb_t)(struct doca_comch_event_consumer *event,
					       struct doca_comch_connection *comch_connection,
					       uint32_t id);

/** @brief Per-connection statistics, refreshed by doca_comch_connection_update_info(). */
enum doca_comch_counter {
	DOCA_COMCH_COUNTER_SENT_MESSAGES = 1, /**< messages sent by this side */
	DOCA_COMCH_COUNTER_SENT_BYTES = 2,    /**< bytes sent by this side */
	DOCA_COMCH_COUNTER_RECV_MESSAGES = 3, /**< messages received by this side */
	DOCA_COMCH_COUNTER_RECV_BYTES = 4,    /**< bytes received by this side */
};

/* ---------------------------------------------------------------------------------------------- */
/* Connection                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Stores an opaque value on a connection.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for a NULL or stale connection.
 */
DOCA_STABLE doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection,
							     union doca_data user_data);

/** @brief The value stored with doca_comch_connection_set_user_data() (zero if never set or NULL). */
DOCA_STABLE union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection);

/** @brief The server owning a connection; NULL for a client-side connection or NULL input. */
DOCA_STABLE struct doca_comch_server *doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection);

/** @brief The client owning a connection; NULL for a server-side connection or NULL input. */
DOCA_STABLE struct doca_comch_client *doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection);

/**
 * @brief Takes a snapshot of the connection's counters for doca_comch_connection_get_counter().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_CONNECTION_INPROGRESS if the
 * connection is not established yet; DOCA_ERROR_CONNECTION_ABORTED if it failed or was closed.
 */
DOCA_STABLE doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *comch_connection);

/**
 * @brief Reads a counter as of the last doca_comch_connection_update_info().
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments or an unknown counter.
 */
DOCA_STABLE doca_error_t doca_comch_connection_get_counter(const struct doca_comch_connection *comch_connection,
							   enum doca_comch_counter counter_type,
							   uint64_t *counter_value);

/* ---------------------------------------------------------------------------------------------- */
/* Capabilities                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Longest server name, including the terminating NUL.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo, uint32_t *max_name_len);

/**
 * @brief Largest control-path message on this device (4080 bytes on the emulated BlueField).
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size);

/**
 * @brief Largest receive queue a server or client may configure.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *size);

/**
 * @brief How many clients one server can hold.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo, uint32_t *num_clients);

/**
 * @brief Largest send-task pool (num_send_tasks of the *_task_send_set_conf() calls).
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo,
							   uint32_t *max_send_tasks);

/**
 * @brief Whether the device can run a server (a DPU-side device of a BlueField in DPU mode).
 * @return DOCA_SUCCESS if it can, DOCA_ERROR_NOT_SUPPORTED if not, DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Whether the device can run a client (a host-side device).
 * @return DOCA_SUCCESS if it can, DOCA_ERROR_NOT_SUPPORTED if not, DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo);

/* ---------------------------------------------------------------------------------------------- */
/* Server                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Creates a server (IDLE).
 * @param [in] dev a DPU-side device that supports the server role.
 * @param [in] repr the representor of the host function the server serves.
 * @param [in] name NUL-terminated name clients connect to; length with NUL at most
 * doca_comch_cap_get_max_name_len().
 * @param [out] comch_server the new server.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments, an empty or too long name, or
 * a representor of another device; DOCA_ERROR_NOT_SUPPORTED if the device cannot run a server;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_comch_server_create(struct doca_dev *dev,
						  struct doca_dev_rep *repr,
						  const char *name,
						  struct doca_comch_server **comch_server);

/**
 * @brief Destroys a server.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_IN_USE unless IDLE, or while
 * consumers or producers of its connections exist (destroy them first).
 */
DOCA_STABLE doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server);

/**
 * @brief Largest message the server accepts and sends (IDLE only).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, 0 or above the device cap;
 * DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_STABLE doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server, uint32_t size);

/** @brief The configured maximum message size. @return DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server,
							    uint32_t *size);

/**
 * @brief How many received messages may wait per connection (IDLE only).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, 0 or above the device cap;
 * DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_STABLE doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server, uint32_t size);

/** @brief The configured receive queue size. @return DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server,
							       uint32_t *size);

/** @brief The server's device. @return DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server,
						      struct doca_dev **dev);

/** @brief The server's representor. @return DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_comch_server_get_device_rep(const struct doca_comch_server *comch_server,
							  struct doca_dev_rep **rep);

/** @brief The server as a generic context (the same pointer every time; NULL for NULL). */
DOCA_STABLE struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server);

/**
 * @brief Disconnects one client. The client is told; no disconnect event is raised on the server
 * for a disconnection it asked for itself.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a connection of another server;
 * DOCA_ERROR_IN_USE while producers or consumers exist on the connection; DOCA_ERROR_AGAIN if
 * the notice cannot be queued now (progress and retry); DOCA_ERROR_BAD_STATE unless RUNNING;
 * DOCA_ERROR_NOT_CONNECTED if the connection is already closed.
 */
DOCA_STABLE doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
						      struct doca_comch_connection *connection);

/**
 * @brief Configures the server's send tasks (IDLE only).
 * @param [in] task_completion_cb called when a message was handed to the peer's receive queue.
 * @param [in] task_error_cb called when a message could not be delivered.
 * @param [in] num_send_tasks size of the task pool (1 .. doca_comch_cap_get_max_send_tasks()).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a pool size out of range;
 * DOCA_ERROR_BAD_STATE unless IDLE, or while tasks of the previous configuration are still
 * allocated (free them first).
 */
DOCA_STABLE doca_error_t doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
							      doca_comch_task_send_completion_cb_t task_completion_cb,
							      doca_comch_task_send_completion_cb_t task_error_cb,
							      uint32_t num_send_tasks);

/**
 * @brief Takes a send task from the pool. The task refers to the message; it is not copied here.
 * As DOCA requires, the message must stay unchanged from submit until the task completes:
 * SoftComch copies it into the peer's receive queue at submit when there is room, otherwise
 * as soon as room appears.
 * @param [in] peer the connection to send on.
 * @param [in] msg the message (need not be in registered memory).
 * @param [in] len its length, 1 .. the negotiated maximum message size.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments, a length of 0 or above the
 * maximum, or a connection of another server; DOCA_ERROR_NO_MEMORY when every task is in use;
 * DOCA_ERROR_BAD_STATE unless RUNNING; DOCA_ERROR_NOT_CONNECTED if the connection is closed.
 * doca_task_submit() of the task returns DOCA_ERROR_NOT_CONNECTED once its connection is closed,
 * also after a restart of the server or client, which drops the old connections.
 */
DOCA_STABLE doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
								struct doca_comch_connection *peer,
								const void *msg,
								uint32_t len,
								struct doca_comch_task_send **task);

/**
 * @brief Registers the receive callback (IDLE only).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_STABLE doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
								   doca_comch_event_msg_recv_cb_t recv_event_cb);

/**
 * @brief Registers the connect and disconnect callbacks (IDLE only; both required).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_STABLE doca_error_t doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server,
	doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);

/**
 * @brief Registers the new-consumer and expired-consumer callbacks (IDLE only; both required).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_STABLE doca_error_t
doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
					  doca_comch_event_consumer_cb_t new_consumer_event_cb,
					  doca_comch_event_consumer_cb_t expired_consumer_event_cb);

/* ---------------------------------------------------------------------------------------------- */
/* Client                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Creates a client (IDLE).
 * @param [in] dev a host-side device that supports the client role.
 * @param [in] name the server to connect to; length with NUL at most doca_comch_cap_get_max_name_len().
 * @param [out] comch_client the new client.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an empty or too long name;
 * DOCA_ERROR_NOT_SUPPORTED if the device cannot run a client; DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_comch_client_create(struct doca_dev *dev,
						  const char *name,
						  struct doca_comch_client **comch_client);

/**
 * @brief Destroys a client.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_IN_USE unless IDLE, or while
 * consumers or producers of its connection exist (destroy them first).
 */
DOCA_STABLE doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client);

/** @brief As doca_comch_server_set_max_msg_size(), for a client. */
DOCA_STABLE doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client, uint32_t size);

/** @brief The configured maximum message size. @return DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client,
							    uint32_t *size);

/** @brief As doca_comch_server_set_recv_queue_size(), for a client. */
DOCA_STABLE doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client, uint32_t size);

/** @brief The configured receive queue size. @return DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client,
							       uint32_t *size);

/** @brief The client's device. @return DOCA_SUCCESS or DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client,
						      struct doca_dev **dev);

/** @brief The client as a generic context (the same pointer every time; NULL for NULL). */
DOCA_STABLE struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client);

/**
 * @brief The client's single connection, available once the client is RUNNING.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE before RUNNING.
 */
DOCA_STABLE doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
							  struct doca_comch_connection **connection);

/** @brief As doca_comch_server_task_send_set_conf(), for a client. */
DOCA_STABLE doca_error_t doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
							      doca_comch_task_send_completion_cb_t task_completion_cb,
							      doca_comch_task_send_completion_cb_t task_error_cb,
							      uint32_t num_send_tasks);

/** @brief As doca_comch_server_task_send_alloc_init(), for the client's connection. */
DOCA_STABLE doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
								struct doca_comch_connection *peer,
								const void *msg,
								uint32_t len,
								struct doca_comch_task_send **task);

/** @brief As doca_comch_server_event_msg_recv_register(), for a client. */
DOCA_STABLE doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
								   doca_comch_event_msg_recv_cb_t recv_event_cb);

/** @brief As doca_comch_server_event_consumer_register(), for a client. */
DOCA_STABLE doca_error_t
doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
					  doca_comch_event_consumer_cb_t new_consumer_event_cb,
					  doca_comch_event_consumer_cb_t expired_consumer_event_cb);

/** @brief The send task as a generic task (NULL for NULL). */
DOCA_STABLE struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task);

/* ---------------------------------------------------------------------------------------------- */
/* DOCA 2.7 names (2.8 renamed them; programs built for 2.7 still call them)                       */
/* ---------------------------------------------------------------------------------------------- */

/** @brief DOCA 2.7's name of doca_comch_server_get_device_rep(). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server,
								 struct doca_dev_rep **repr);

/** @brief DOCA 2.7's name of doca_comch_server_event_connection_status_changed_register(). */
DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_event_connection_register(struct doca_comch_server *comch_server,
					    doca_comch_event_connection_status_changed_cb_t connect_event_cb,
					    doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_H_ */
