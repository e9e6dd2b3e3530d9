/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_cc_consumer.h
 * @brief DOCA 2.6 Comch fast path, receive side (doca_cc_consumer).
 *
 * The consumer of DOCA 2.6's doca_cc fast path, under its 2.6 names: each function is its
 * doca_comch_consumer twin (docs/generations.md). DOCA_EXPERIMENTAL, as in 2.6.
 */
#ifndef DOCA_CC_CONSUMER_H_
#define DOCA_CC_CONSUMER_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_devinfo;
struct doca_mmap;
struct doca_ctx;
struct doca_task;
struct doca_cc_connection;

struct doca_cc_consumer;                /**< receive side of the fast path (a DOCA context) */
struct doca_cc_consumer_task_post_recv; /**< a posted receive */

/** @brief Completion (or error) callback of a receive task. */
typedef void (*doca_cc_consumer_task_post_recv_completion_cb_t)(struct doca_cc_consumer_task_post_recv *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);

/** @brief Creates a consumer on a connection, receiving into buffers of `buf_mmap`. 2.6 name of doca_comch_consumer_create(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_consumer_create(struct doca_cc_connection *cc_connection,
						       struct doca_mmap *buf_mmap,
						       struct doca_cc_consumer **consumer);

/** @brief Destroys an idle consumer. 2.6 name of doca_comch_consumer_destroy(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_consumer_destroy(struct doca_cc_consumer *consumer);

/** @brief DOCA_SUCCESS if consumers run on the device. 2.6 name of doca_comch_consumer_cap_is_supported(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_consumer_cap_is_supported(const struct doca_devinfo *devinfo);

/** @brief The consumer's id, which producers address (RUNNING only). 2.6 name of doca_comch_consumer_get_id(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_consumer_get_id(const struct doca_cc_consumer *consumer, uint32_t *id);

/** @brief Capability. 2.6 name of doca_comch_consumer_cap_get_max_num_tasks(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
								      uint32_t *max_num_tasks);

/** @brief Capability. 2.6 name of doca_comch_consumer_cap_get_max_buf_size(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
								     uint32_t *max_buf_size);

/** @brief Capability. 2.6 name of doca_comch_consumer_cap_get_max_consumers(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
								      uint32_t *max_consumers);

/** @brief The consumer as a DOCA context. 2.6 name of doca_comch_consumer_as_ctx(). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_cc_consumer_as_ctx(struct doca_cc_consumer *consumer);

/** @brief Configures the receive tasks (IDLE only). 2.6 name of doca_comch_consumer_task_post_recv_set_conf(). */
DOCA_EXPERIMENTAL doca_error_t
doca_cc_consumer_task_post_recv_set_conf(struct doca_cc_consumer *consumer,
					 doca_cc_consumer_task_post_recv_completion_cb_t task_completion_cb,
					 doca_cc_consumer_task_post_recv_completion_cb_t task_error_cb,
					 uint32_t num_post_recv_tasks);

/** @brief Allocates a receive task into `buf`. 2.6 name of doca_comch_consumer_task_post_recv_alloc_init(). */
DOCA_EXPERIMENTAL doca_error_t doca_cc_consumer_task_post_recv_alloc_init(
	struct doca_cc_consumer *consumer, struct doca_buf *buf, struct doca_cc_consumer_task_post_recv **task);

/** @brief The task's buffer. 2.6 name of doca_comch_consumer_task_post_recv_get_buf(). */
DOCA_EXPERIMENTAL struct doca_buf *
doca_cc_consumer_task_post_recv_get_buf(struct doca_cc_consumer_task_post_recv *task);

/** @brief Replaces the task's buffer. 2.6 name of doca_comch_consumer_task_post_recv_set_buf(). */
DOCA_EXPERIMENTAL void doca_cc_consumer_task_post_recv_set_buf(struct doca_cc_consumer_task_post_recv *task,
							       struct doca_buf *buf);

/** @brief The producer that sent what the completed task received. 2.6 name of doca_comch_consumer_task_post_recv_get_producer_id(). */
DOCA_EXPERIMENTAL uint32_t
doca_cc_consumer_task_post_recv_get_producer_id(struct doca_cc_consumer_task_post_recv *task);

/** @brief The receive task as a generic task. 2.6 name of doca_comch_consumer_task_post_recv_as_task(). */
DOCA_EXPERIMENTAL struct doca_task *
doca_cc_consumer_task_post_recv_as_task(struct doca_cc_consumer_task_post_recv *task);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_CC_CONSUMER_H_ */
