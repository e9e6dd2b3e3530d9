/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_cc_producer.h
 * @brief DOCA 2.6 Comch fast path, send side (doca_cc_producer).
 *
 * The producer of DOCA 2.6's doca_cc fast path, under its 2.6 names: each function is its
 * doca_comch_producer twin without immediate data (docs/generations.md). DOCA_EXPERIMENTAL, as in
 * 2.6.
 */
#ifndef DOCA_CC_PRODUCER_H_
#define DOCA_CC_PRODUCER_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_devinfo;
struct doca_ctx;
struct doca_task;
struct doca_cc_connection;

struct doca_cc_producer;           /**< send side of the fast path (a DOCA context) */
struct doca_cc_producer_task_send; /**< a fast-path send */

/** @brief Completion (or error) callback of a fast-path send task. */
typedef void (*doca_cc_producer_task_send_completion_cb_t)(struct doca_cc_producer_task_send *task,
							   union doca_data task_user_data,
							   union doca_data ctx_user_data);

/** @brief Creates a producer on a connection. 2.6 name of doca_comch_producer_create(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_producer_create(struct doca_cc_connection *cc_connection,
						       struct doca_cc_producer **producer);

/** @brief Destroys an idle producer. 2.6 name of doca_comch_producer_destroy(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_producer_destroy(struct doca_cc_producer *producer);

/** @brief DOCA_SUCCESS if producers run on the device. 2.6 name of doca_comch_producer_cap_is_supported(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_producer_cap_is_supported(const struct doca_devinfo *devinfo);

/** @brief The producer's id, which consumers see (RUNNING only). 2.6 name of doca_comch_producer_get_id(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_producer_get_id(const struct doca_cc_producer *producer, uint32_t *id);

/** @brief Capability. 2.6 name of doca_comch_producer_cap_get_max_num_tasks(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
								      uint32_t *max_num_tasks);

/** @brief Capability. 2.6 name of doca_comch_producer_cap_get_max_buf_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
								     uint32_t *max_buf_size);

/** @brief Capability. 2.6 name of doca_comch_producer_cap_get_max_producers(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
								      uint32_t *max_producers);

/** @brief The producer as a DOCA context. 2.6 name of doca_comch_producer_as_ctx(). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_cc_producer_as_ctx(struct doca_cc_producer *producer);

/** @brief Configures the send tasks (IDLE only). 2.6 name of doca_comch_producer_task_send_set_conf(). */
DOCA_EXPERIMENTAL doca_error_t
doca_cc_producer_task_send_set_conf(struct doca_cc_producer *producer,
				    doca_cc_producer_task_send_completion_cb_t task_completion_cb,
				    doca_cc_producer_task_send_completion_cb_t task_error_cb,
				    uint32_t num_send_tasks);

/** @brief Allocates a send task of `buf`'s data to consumer `consumer_id` (no immediate data: 2.6 had none). 2.6 name of doca_comch_producer_task_send_alloc_init(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_producer_task_send_alloc_init(struct doca_cc_producer *producer,
								     struct doca_buf *buf,
								     uint32_t consumer_id,
								     struct doca_cc_producer_task_send **task);

/** @brief The task's buffer. 2.6 name of doca_comch_producer_task_send_get_buf(). */
DOCA_EXPERIMENTAL struct doca_buf *doca_cc_producer_task_send_get_buf(struct doca_cc_producer_task_send *task);

/** @brief Replaces the task's buffer. 2.6 name of doca_comch_producer_task_send_set_buf(). */
DOCA_EXPERIMENTAL void doca_cc_producer_task_send_set_buf(struct doca_cc_producer_task_send *task,
							  struct doca_buf *buf);

/** @brief The consumer the task sends to. 2.6 name of doca_comch_producer_task_send_get_consumer_id(). */
DOCA_EXPERIMENTAL uint32_t doca_cc_producer_task_send_get_consumer_id(struct doca_cc_producer_task_send *task);

/** @brief Changes the consumer the task sends to. 2.6 name of doca_comch_producer_task_send_set_consumer_id(). */
DOCA_EXPERIMENTAL void doca_cc_producer_task_send_set_consumer_id(struct doca_cc_producer_task_send *task,
								  const uint32_t consumer_id);

/** @brief The send task as a generic task. 2.6 name of doca_comch_producer_task_send_as_task(). */
DOCA_EXPERIMENTAL struct doca_task *doca_cc_producer_task_send_as_task(struct doca_cc_producer_task_send *task);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_CC_PRODUCER_H_ */
