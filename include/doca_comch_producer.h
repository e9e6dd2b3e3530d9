/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_comch_producer.h
 * @brief DOCA Comch fast path, send side: a producer writes messages into buffers a remote consumer posted.
 *
 * A producer belongs to one established Comch connection (doca_comch.h) and is a DOCA context of
 * its own (doca_ctx.h): connect it to a progress engine, configure its send tasks while IDLE,
 * start it, then send. Each send is addressed to a consumer on the other side of the same
 * connection, by the id the new-consumer event reported
 * (doca_comch_server_event_consumer_register() / doca_comch_client_event_consumer_register()).
 * The bytes in the send buffer's data window are copied once, straight into the oldest buffer
 * that consumer posted, as a DMA write would; then the send completes here and the consumer's
 * receive task completes on the other side.
 *
 * SoftComch behaviour:
 * - doca_ctx_start() returns DOCA_SUCCESS: a producer is RUNNING at once.
 * - Producer ids are non-zero and unique per connection.
 * - When the target consumer has no buffer posted, doca_task_submit() returns DOCA_ERROR_AGAIN and
 *   the caller still owns the task: submit it again later. The condition clears as soon as the
 *   consumer posts a buffer, without any progress call on this side, so a retry loop that only
 *   sleeps (as NVIDIA's data-path samples do) works.
 * - A message larger than the target consumer's oldest posted buffer is not delivered: the send
 *   completes through the error callback with status DOCA_ERROR_TOO_BIG, and that buffer stays
 *   posted.
 * - A send addressed to a consumer id that does not exist on the connection, or whose consumer
 *   has been stopped or destroyed (the peer raised the expired-consumer event), is refused:
 *   doca_task_submit() returns DOCA_ERROR_NOT_FOUND.
 * - Immediate data: at most 32 bytes per message, and no more than the target consumer accepts
 *   (doca_comch_consumer_set_imm_data_len()).
 * - The emulated device has no DPA: every DPA function below returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * Thread safety: a producer and its progress engine are used from one thread at a time; that
 * thread may differ from the one driving the connection.
 */
#ifndef DOCA_COMCH_PRODUCER_H_
#define DOCA_COMCH_PRODUCER_H_

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
struct doca_ctx;
struct doca_task;

struct doca_comch_producer; /**< send side of the fast path (a DOCA context) */
struct doca_dpa_completion; /**< DPA completion context (not supported: no DPA) */

/** @brief Handle of a producer on the DPA (never produced: no DPA). */
typedef uint64_t doca_dpa_dev_comch_producer_t;

/* ---------------------------------------------------------------------------------------------- */
/* Producer                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Creates a producer (IDLE) on an established connection.
 * @param [in] comch_connection the connection; on the server side from the connect event, on the
 * client side from doca_comch_client_get_connection().
 * @param [out] producer the new producer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE if the
 * connection is not established (or already closed); DOCA_ERROR_NOT_PERMITTED if the peer runs an
 * incompatible fast-path version; DOCA_ERROR_NO_MEMORY if the object or an id cannot be allocated
 * (at most doca_comch_producer_cap_get_max_producers() per connection).
 */
DOCA_STABLE doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
						    struct doca_comch_producer **producer);

/**
 * @brief Destroys a producer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_IN_USE unless IDLE (stop it
 * and let it reach IDLE first).
 */
DOCA_STABLE doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer);

/**
 * @brief Whether the device can run producers.
 * @return DOCA_SUCCESS if it can (every emulated Comch device can), DOCA_ERROR_NOT_SUPPORTED if
 * not, DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The producer's id: non-zero and unique on its connection. The consumer side reads it
 * with doca_comch_consumer_task_post_recv_get_producer_id().
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id);

/**
 * @brief Largest send-task pool (num_send_tasks of doca_comch_producer_task_send_set_conf()).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run producers.
 */
DOCA_STABLE doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
								   uint32_t *max_num_tasks);

/**
 * @brief Largest message (send buffer data length) a producer may send.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run producers.
 */
DOCA_STABLE doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
								  uint32_t *max_buf_size);

/**
 * @brief Longest chain of buffers one send may carry (1 on emulated devices: no chains).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run producers.
 */
DOCA_STABLE doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
								      uint32_t *max_buf_list_len);

/**
 * @brief How many producers one connection may hold.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device cannot run producers.
 */
DOCA_STABLE doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
								   uint32_t *max_producers);

/** @brief The producer as a generic context (the same pointer every time; NULL for NULL). */
DOCA_STABLE struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer);

/* ---------------------------------------------------------------------------------------------- */
/* DPA data path: not supported (the emulated device has no DPA)                                   */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Sets the depth of a producer's DPA send queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_set_dev_max_num_send(struct doca_comch_producer *producer,
									uint32_t dev_num_send);

/**
 * @brief Routes a producer's completions to a DPA completion context. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_dpa_completion_attach(struct doca_comch_producer *producer,
									 struct doca_dpa_completion *dpa_comp);

/**
 * @brief The producer's DPA handle. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); the handle is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_get_dpa_handle(struct doca_comch_producer *producer,
								  doca_dpa_dev_comch_producer_t *dpa_producer);

struct doca_comch_gpu_producer; /**< a producer's handle on a GPU (DOCA 3.2; no GPU here) */

/**
 * @brief The producer's GPU handle (DOCA 3.2). The emulation has no GPU.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL); the handle is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_get_gpu_handle(struct doca_comch_producer *producer,
								  struct doca_comch_gpu_producer **gpu_producer);

/* ---------------------------------------------------------------------------------------------- */
/* Send task                                                                                       */
/* ---------------------------------------------------------------------------------------------- */

struct doca_comch_producer_task_send; /**< one fast-path message */

/**
 * @brief Completion (or error) callback of a send task.
 * @param [in] task the task; the program owns it (and its buffer) again and may free it, or change
 * it and submit it again.
 * @param [in] task_user_data value set with doca_task_set_user_data().
 * @param [in] ctx_user_data value set with doca_ctx_set_user_data() on the producer.
 */
typedef void (*doca_comch_producer_task_send_completion_cb_t)(struct doca_comch_producer_task_send *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/**
 * @brief Configures the send tasks (IDLE only).
 * @param [in] task_completion_cb called once the message is in the consumer's buffer.
 * @param [in] task_error_cb called when the message could not be delivered; doca_task_get_status()
 * says why (DOCA_ERROR_TOO_BIG: larger than the consumer's posted buffer).
 * @param [in] num_send_tasks size of the task pool (1 .. doca_comch_producer_cap_get_max_num_tasks()).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a pool size out of range;
 * DOCA_ERROR_BAD_STATE unless IDLE, or while tasks of the previous configuration are still
 * allocated (free them first).
 */
DOCA_STABLE doca_error_t
doca_comch_producer_task_send_set_conf(struct doca_comch_producer *producer,
				       doca_comch_producer_task_send_completion_cb_t task_completion_cb,
				       doca_comch_producer_task_send_completion_cb_t task_error_cb,
				       uint32_t num_send_tasks);

/**
 * @brief Takes a send task from the pool.
 * @param [in] buf the message: the buffer's data window (data pointer and data length). The buffer
 * need not belong to any particular mmap; it must stay unchanged until the task completes.
 * @param [in] imm_data optional immediate bytes, copied into the task (NULL when imm_data_len is 0).
 * @param [in] imm_data_len 0 .. 32, and at most the target consumer's immediate-data length.
 * @param [in] consumer_id the id of a consumer on the other side of this producer's connection.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments, immediate data longer than
 * 32 bytes, or a data length above doca_comch_producer_cap_get_max_buf_size();
 * DOCA_ERROR_NO_MEMORY when every task is in use; DOCA_ERROR_BAD_STATE unless RUNNING.
 * doca_task_submit() of the task returns DOCA_SUCCESS, DOCA_ERROR_AGAIN (no buffer posted by the
 * consumer yet: retry), DOCA_ERROR_NOT_FOUND (no such consumer, or it expired),
 * DOCA_ERROR_INVALID_VALUE (more immediate data than the consumer accepts) or
 * DOCA_ERROR_NOT_CONNECTED (the connection is closed).
 */
DOCA_STABLE doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
								  const struct doca_buf *buf,
								  uint8_t *imm_data,
								  uint32_t imm_data_len,
								  uint32_t consumer_id,
								  struct doca_comch_producer_task_send **task);

/** @brief The task's buffer (NULL for NULL). */
DOCA_STABLE const struct doca_buf *
doca_comch_producer_task_send_get_buf(const struct doca_comch_producer_task_send *task);

/** @brief Gives a task that is not in flight another buffer to send. */
DOCA_STABLE void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task,
						       const struct doca_buf *buf);

/** @brief The consumer the task is addressed to (0 for NULL). */
DOCA_STABLE uint32_t doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task);

/** @brief Addresses a task that is not in flight to another consumer. */
DOCA_STABLE void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
							       const uint32_t consumer_id);

/** @brief The task's copy of its immediate data (NULL if it has none, or for NULL). */
DOCA_STABLE uint8_t *doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task);

/** @brief Length of the task's immediate data (0 if none, or for NULL). */
DOCA_STABLE uint32_t doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task);

/**
 * @brief Replaces the immediate data of a task that is not in flight; the bytes are copied into
 * the task. A length above 32 is refused with an error log and leaves the task unchanged.
 */
DOCA_STABLE void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task,
							    uint8_t *imm_data,
							    uint32_t imm_data_len);

/** @brief The send task as a generic task (NULL for NULL). */
DOCA_STABLE struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_PRODUCER_H_ */
