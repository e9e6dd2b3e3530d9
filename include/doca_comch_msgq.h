/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_comch_msgq.h
 * @brief DOCA Comch message queues: consumers and producers between the CPU and a DPA, without a
 * client/server connection.
 *
 * On BlueField hardware a message queue is configured (DPA side, limits), started, and then hands
 * out consumers and producers whose other end runs on the DPA.
 *
 * SoftComch behaviour: the emulated device has no DPA, so message queues cannot be created. Every
 * function in this header returns DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL
 * arguments) and never writes its output argument. Use consumers and producers on a Comch
 * connection instead (doca_comch_consumer.h, doca_comch_producer.h).
 */
#ifndef DOCA_COMCH_MSGQ_H_
#define DOCA_COMCH_MSGQ_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dpa;
struct doca_comch_consumer;
struct doca_comch_producer;

struct doca_comch_msgq; /**< a CPU <-> DPA message queue (not supported: no DPA) */

/**
 * @brief Creates a message queue on a device. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL arguments); *msgq is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq);

/**
 * @brief Destroys a message queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_destroy(struct doca_comch_msgq *msgq);

/**
 * @brief Puts the consumers of a message queue on a DPA. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL arguments).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_set_dpa_consumer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa);

/**
 * @brief Limits the consumers of a message queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_set_max_num_consumers(struct doca_comch_msgq *msgq,
								     uint32_t max_num_consumers);

/**
 * @brief Puts the producers of a message queue on a DPA. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL arguments).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_set_dpa_producer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa);

/**
 * @brief Limits the producers of a message queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_set_max_num_producers(struct doca_comch_msgq *msgq,
								     uint32_t max_num_producers);

/**
 * @brief Starts a message queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_start(struct doca_comch_msgq *msgq);

/**
 * @brief Stops a message queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_stop(struct doca_comch_msgq *msgq);

/**
 * @brief Creates a consumer on a message queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL arguments); *consumer is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_consumer_create(struct doca_comch_msgq *msgq,
							       struct doca_comch_consumer **consumer);

/**
 * @brief Creates a producer on a message queue. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL arguments); *producer is not set.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_producer_create(struct doca_comch_msgq *msgq,
							       struct doca_comch_producer **producer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_MSGQ_H_ */
