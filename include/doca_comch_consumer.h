/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_comch_consumer.h
 * @brief DOCA Comch fast path, receive side: a consumer posts buffers that the peer's producers fill.
 *
 * A consumer belongs to one established Comch connection (doca_comch.h) and is a DOCA context of
 * its own (doca_ctx.h): connect it to a progress engine (the connection's or another one),
 * configure it while IDLE, start it, then post receive tasks. Each posted buffer absorbs exactly
 * one message sent by a producer on the other side of the same connection.
 *
 * SoftComch behaviour:
 * - doca_ctx_start() returns DOCA_ERROR_IN_PROGRESS; the consumer is STARTING while it announces
 *   itself over the connection, and becomes RUNNING inside doca_pe_progress() once the peer has
 *   learned its id (the peer's new-consumer event, doca_comch_server_event_consumer_register() /
 *   doca_comch_client_event_consumer_register(), carries that id). Progress both this consumer's
 *   engine and the connection's engine until then.
 * - Consumer ids are non-zero and unique per connection; 0 never names a consumer.
 * - Posted buffers are filled in the order they were posted.
 * - A message larger than the oldest posted buffer is not delivered: the producer's send task
 *   fails with DOCA_ERROR_TOO_BIG and the buffer stays posted for the next message.
 * - Stopping or destroying a started consumer raises the expired-consumer event on the peer;
 *   sends addressed to it afterwards fail with DOCA_ERROR_NOT_FOUND.
 * - doca_ctx_stop() flushes the receive tasks still posted: each completes through the error
 *   callback with status DOCA_ERROR_SHUTDOWN, and the buffer is handed back untouched.
 * - Immediate data: at most 32 bytes per message (doca_comch_consumer_cap_get_max_imm_data_len()).
 * - The emulated device has no DPA: every DPA function below returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * Thread safety: a consumer and its progress engine are used from one thread at a time; that
 * thread may differ from the one driving the connection.
 */
#ifndef DOCA_COMCH_CONSUMER_H_
#define DOCA_COMCH_CONSUMER_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_dev;
struct doca_devinfo;
struct doca_dpa_thread;
struct doca_comch_connection;
struct doca_mmap;
struct doca_ctx;
struct doca_task;

struct doca_comch_consumer;            /**< receive side of the fast path (a DOCA context) */
struct doca_comch_consumer_completion; /**< DPA completion context (not supported: no DPA) */

/** @brief Handle of a consumer completion context on the DPA (never produced: no DPA). */
typedef uint64_t doca_dpa_dev_comch_consumer_completion_t;
/** @brief Handle of a consumer on the DPA (never produced: no DPA). */
typedef uint64_t doca_dpa_dev_comch_consumer_t;

/* ---------------------------------------------------------------------------------------------- */
/* Consumer                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Creates a consumer (IDLE) on an established connection.
 * @param [in] comch_connection the connection; on the server side from the connect event, on the
 * client side from doca_comch_client_get_connection().
 * @param [in] buf_mmap a started memory map covering every buffer this consumer will post.
 * @param [out] consumer the new consumer; its id is assigned at once (doca_comch_consumer_get_id()).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an mmap that is not
 * started; DOCA_ERROR_BAD_STATE if the connection is not established (or already closed);
 * DOCA_ERROR_NOT_PERMITTED if the peer runs an incompatible fast-path version;
 * DOCA_ERROR_NO_MEMORY if the object or an id cannot be allocated (at most
 * doca_comch_consumer_cap_get_max_consumers() per connection).
 */
DOCA_STABLE doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
						    struct doca_mmap *buf_mmap,
						    struct doca_comch_consumer **consumer);

/**
 * @brief Destroys a consumer. A consumer the peer knows about is reported to it as expired.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_IN_USE unless IDLE (stop it
 * and let it reach IDLE first).
 */
DOCA_STABLE doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);

/**
 * @brief Whether the device can run consumers.
 * @return DOCA_SUCCESS if it can (every emulated Comch device can), DOCA_ERROR_NOT_SUPPORTED if
 * not, DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The consumer's id: non-zero, unique on its connection, and the value the peer's
 * new-consumer and expired-consumer events carry. Producers address sends to it.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);

/**
 * @brief Largest post-receive task pool (num_post_recv_tasks of
 * doca_comch_consumer_task_post_recv_set_conf()).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run consumers.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
								   uint32_t *max_num_tasks);

/**
 * @brief Largest buffer a consumer may post (and so the largest fast-path message).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run consumers.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
								  uint32_t *max_buf_size);

/**
 * @brief Longest chain of buffers one receive task may carry (1 on emulated devices: no chains).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run consumers.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
								      uint32_t *max_buf_list_len);

/**
 * @brief How many consumers one connection may hold.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run consumers.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
								   uint32_t *max_consumers);

/**
 * @brief Largest immediate-data length a consumer may accept (32 bytes on emulated devices).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run consumers.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
								      uint32_t *max_imm_data_len);

/**
 * @brief The immediate-data length configured with doca_comch_consumer_set_imm_data_len() (0 if
 * never set).
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer,
							      uint32_t *imm_data_len);

/**
 * @brief How many bytes of immediate data each message to this consumer may carry (IDLE only).
 * Senders learn the value with the consumer's announcement; a send with more immediate bytes
 * fails with DOCA_ERROR_INVALID_VALUE.
 * @param [in] imm_data_len 0 .. doca_comch_consumer_cap_get_max_imm_data_len() (32).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a length above the cap;
 * DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
							      uint32_t imm_data_len);

/** @brief The consumer as a generic context (the same pointer every time; NULL for NULL). */
DOCA_STABLE struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);

/* ---------------------------------------------------------------------------------------------- */
/* Post-receive task                                                                               */
/* ---------------------------------------------------------------------------------------------- */

struct doca_comch_consumer_task_post_recv; /**< one posted receive buffer */

/**
 * @brief Completion (or error) callback of a post-receive task.
 * @param [in] task the task; the program owns it (and its buffer) again and may free it, or set a
 * buffer and submit it again.
 * @param [in] task_user_data value set with doca_task_set_user_data().
 * @param [in] ctx_user_data value set with doca_ctx_set_user_data() on the consumer.
 */
typedef void (*doca_comch_consumer_task_post_recv_completion_cb_t)(struct doca_comch_consumer_task_post_recv *task,
								   union doca_data task_user_data,
								   union doca_data ctx_user_data);

/**
 * @brief Configures the post-receive tasks (IDLE only).
 * @param [in] task_completion_cb called when a message has landed in the task's buffer.
 * @param [in] task_error_cb called when the task ends without a message; the status
 * (doca_task_get_status()) is DOCA_ERROR_SHUTDOWN for a receive flushed by doca_ctx_stop().
 * @param [in] num_post_recv_tasks size of the task pool (1 .. doca_comch_consumer_cap_get_max_num_tasks()).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a pool size out of range;
 * DOCA_ERROR_BAD_STATE unless IDLE, or while tasks of the previous configuration are still
 * allocated (free them first).
 */
DOCA_STABLE doca_error_t
doca_comch_consumer_task_post_recv_set_conf(struct doca_comch_consumer *consumer,
					    doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
					    doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb,
					    uint32_t num_post_recv_tasks);

/**
 * @brief Takes a post-receive task from the pool. When submitted, the buffer is published to the
 * peer as the landing zone of one message.
 * @param [in] buf a buffer inside the consumer's mmap, usually empty (data length 0) so that all
 * of it is available to the message.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a buffer outside the
 * consumer's mmap; DOCA_ERROR_NO_MEMORY when every task is in use; DOCA_ERROR_BAD_STATE unless
 * RUNNING.
 * doca_task_submit() of the task may return DOCA_ERROR_AGAIN for a moment while a producer of
 * the peer is still releasing the queue slot the post needs: progress and submit again (also
 * from a completion callback that re-posts its task); DOCA_ERROR_NOT_CONNECTED once the
 * connection is closed.
 */
DOCA_STABLE doca_error_t doca_comch_consumer_task_post_recv_alloc_init(
	struct doca_comch_consumer *consumer, struct doca_buf *buf, struct doca_comch_consumer_task_post_recv **task);

/**
 * @brief The task's buffer. After a successful completion its data window (doca_buf_get_data(),
 * doca_buf_get_data_len()) holds exactly the received message.
 * @return the buffer (NULL for NULL).
 */
DOCA_STABLE struct doca_buf *
doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task);

/** @brief Gives a task that is not in flight a new buffer, so it can be submitted again. */
DOCA_STABLE void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
							    struct doca_buf *buf);

/**
 * @brief The id of the producer whose message completed the task (valid after a successful
 * completion).
 * @return the producer id; 0 if none (not completed yet, or NULL).
 */
DOCA_STABLE uint32_t
doca_comch_consumer_task_post_recv_get_producer_id(const struct doca_comch_consumer_task_post_recv *task);

/**
 * @brief The immediate data that came with the message (valid after a successful completion,
 * until the task is submitted again or freed).
 * @return the bytes; NULL if the message carried none (or NULL input).
 */
DOCA_STABLE const uint8_t *
doca_comch_consumer_task_post_recv_get_imm_data(const struct doca_comch_consumer_task_post_recv *task);

/**
 * @brief Length of the immediate data that came with the message (at most 32).
 * @return the length; 0 if none (or NULL input).
 */
DOCA_STABLE uint32_t
doca_comch_consumer_task_post_recv_get_imm_data_len(const struct doca_comch_consumer_task_post_recv *task);

/** @brief The post-receive task as a generic task (NULL for NULL). */
DOCA_STABLE struct doca_task *
doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task);

/* ---------------------------------------------------------------------------------------------- */
/* DPA data path: not supported (the emulated device has no DPA)                                   */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Creates a consumer completion context for the DPA. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); *consumer_comp is not set.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_completion_create(struct doca_comch_consumer_completion **consumer_comp);

/**
 * @brief Attaches a DPA thread to a consumer completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_completion_set_dpa_thread(
	struct doca_comch_consumer_completion *consumer_comp, struct doca_dpa_thread *dpa_thread);

/**
 * @brief Destroys a consumer completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_completion_destroy(struct doca_comch_consumer_completion *consumer_comp);

/**
 * @brief Starts a consumer completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_completion_start(struct doca_comch_consumer_completion *consumer_comp);

/**
 * @brief Stops a consumer completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_completion_stop(struct doca_comch_consumer_completion *consumer_comp);

/**
 * @brief The DPA handle of a consumer completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); the handle is not set.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_completion_get_dpa_handle(struct doca_comch_consumer_completion *consumer_comp,
					      doca_dpa_dev_comch_consumer_completion_t *consumer_comp_handle);

/**
 * @brief Sets how many consumers a completion context serves. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_completion_set_max_num_consumers(
	struct doca_comch_consumer_completion *consumer_comp, uint32_t max_num_consumers);

/**
 * @brief Reads how many consumers a completion context serves. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); the value is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_completion_get_max_num_consumers(
	const struct doca_comch_consumer_completion *consumer_comp, uint32_t *max_num_consumers);

/**
 * @brief Sets how many receives a completion context tracks. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_completion_set_max_num_recv(
	struct doca_comch_consumer_completion *consumer_comp, uint32_t max_num_recv);

/**
 * @brief Reads how many receives a completion context tracks. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); the value is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_completion_get_max_num_recv(
	const struct doca_comch_consumer_completion *consumer_comp, uint32_t *max_num_recv);

/**
 * @brief Sets the immediate-data length of a completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_completion_set_imm_data_len(
	struct doca_comch_consumer_completion *consumer_comp, uint32_t imm_data_len);

/**
 * @brief Reads the immediate-data length of a completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); the value is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_completion_get_imm_data_len(
	const struct doca_comch_consumer_completion *consumer_comp, uint32_t *imm_data_len);

/**
 * @brief Sets the depth of a consumer's DPA receive queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_set_dev_max_num_recv(struct doca_comch_consumer *consumer,
									uint32_t dev_num_recv);

/**
 * @brief Routes a consumer's completions to a DPA completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_set_completion(struct doca_comch_consumer *consumer,
								  struct doca_comch_consumer_completion *consumer_comp,
								  uint32_t user_data);

/**
 * @brief The consumer's DPA handle. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); the handle is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_get_dpa_handle(struct doca_comch_consumer *consumer,
								  doca_dpa_dev_comch_consumer_t *dpa_consumer);

struct doca_comch_gpu_consumer; /**< a consumer's handle on a GPU (DOCA 3.2; no GPU here) */

/**
 * @brief The consumer's GPU handle (DOCA 3.2). The emulation has no GPU.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); the handle is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_get_gpu_handle(struct doca_comch_consumer *consumer,
								  struct doca_comch_gpu_consumer **gpu_consumer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
