/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_dma.h
 * @brief DOCA DMA: a context whose memcpy tasks copy the data of one doca_buf (or buffer list)
 * into another, between local memory and memory another process exported.
 *
 * A DMA context is created on a device (doca_dev.h), connected to a progress engine, given its
 * memcpy tasks with doca_dma_task_memcpy_set_conf() while IDLE, and started (DOCA_SUCCESS: it is
 * RUNNING at once). A task names a source and a destination buffer; both must come from started
 * mmaps the context's device was added to (doca_mmap_add_dev()), or from an mmap created from an
 * export (doca_mmap_create_from_export()).
 *
 * SoftComch behaviour:
 * - The copy runs in the context's progress engine, one task after the other in submission
 *   order, a bounded slice per doca_pe_progress() call (tasks larger than the slice take several
 *   calls), so a task is in flight until a later progress call completes it, as on hardware.
 * - The source's data window (data pointer and data length; across every element of a chained
 *   list) is copied to the destination after its current data, filling its buffer (and the next
 *   elements of its list) from there; the destination's data length grows by the bytes copied.
 * - doca_task_submit() checks nothing beyond the task and the context's state; a task that
 *   cannot be executed fails when its turn comes: DOCA_ERROR_INVALID_VALUE (an empty source, a
 *   destination too small, a list or a size over the device's limits, an access outside an
 *   imported range), DOCA_ERROR_NOT_PERMITTED (a buffer of an mmap the device was not added to,
 *   not started, or without the access the copy needs; an export the exporter revoked) or
 *   DOCA_ERROR_NOT_FOUND (the exporting process exited). doca_task_try_submit() makes the checks
 *   of the task's own shape first and returns the same codes without queuing the task.
 * - A failed task stops its context: the context moves to STOPPING by itself (the state callback
 *   runs), every task still queued behind it completes through the error callback with
 *   DOCA_ERROR_SHUTDOWN, and the context reaches IDLE once no task is in flight. doca_ctx_stop()
 *   flushes queued tasks the same way.
 * - Every PCI function of the emulated machine supports memcpy; the limits are the BlueField's
 *   (docs/topology.md, "dma_caps").
 * - The emulated device has no GPU: doca_dma_get_gpu_handle() returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * Thread safety: a DMA context and its progress engine are used from one thread at a time.
 */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_

#include <inttypes.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_gpu_dma;
struct doca_task;

struct doca_dma;             /**< a DMA context */
struct doca_dma_task_memcpy; /**< a memcpy task of a DMA context */

/**
 * @brief Completion (and error) callback of memcpy tasks, called inside doca_pe_progress(). The
 * task is the program's again: it may free it, submit it again or keep it. The callback must not
 * call doca_pe_progress().
 * @param [in] task the task that completed; doca_task_get_status() says how.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data (doca_ctx_set_user_data()).
 */
typedef void (*doca_dma_task_memcpy_completion_cb_t)(struct doca_dma_task_memcpy *task,
						     union doca_data task_user_data,
						     union doca_data ctx_user_data);

/**
 * @brief Creates a DMA context (IDLE) on a device.
 * @param [in] dev an open device.
 * @param [out] dma the new context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or closed device or a NULL output;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma);

/**
 * @brief Destroys a DMA context. It must be IDLE; it may be destroyed from its own state callback
 * reporting IDLE.
 * @param [in] dma the context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or destroyed context;
 * DOCA_ERROR_IN_USE if it is not IDLE.
 */
DOCA_STABLE doca_error_t doca_dma_destroy(struct doca_dma *dma);

/**
 * @brief Whether a device supports DMA memcpy tasks.
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS if it does; DOCA_ERROR_NOT_SUPPORTED if not; DOCA_ERROR_INVALID_VALUE for a
 * NULL or invalid devinfo.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The DMA context as a generic context (doca_ctx.h).
 * @param [in] dma the context.
 * @return the context, or NULL for a NULL or destroyed one.
 */
DOCA_STABLE struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma);

/**
 * @brief The largest number of memcpy tasks doca_dma_task_memcpy_set_conf() accepts for this
 * context's device.
 * @param [in] dma the context.
 * @param [out] max_num_tasks the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks);

/**
 * @brief The largest number of elements a source or destination buffer list may have in one
 * memcpy task (1: lists are not supported).
 * @param [in] devinfo the device.
 * @param [out] max_buf_list_len the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support memcpy.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
								       uint32_t *max_buf_list_len);

/**
 * @brief The largest number of bytes one memcpy task may copy.
 * @param [in] devinfo the device.
 * @param [out] buf_size the limit in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support memcpy.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo,
								   uint64_t *buf_size);

/**
 * @brief Configures the context's memcpy tasks: the two callbacks and how many tasks exist. Only
 * while the context is IDLE.
 * @param [in] dma the context.
 * @param [in] task_completion_cb called for a task that succeeded.
 * @param [in] task_error_cb called for a task that failed or was flushed.
 * @param [in] num_memcpy_tasks 1 to doca_dma_cap_get_max_num_tasks().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or callback or a number out of
 * range; DOCA_ERROR_BAD_STATE if the context is not IDLE, or while tasks of the previous
 * configuration are still allocated.
 */
DOCA_STABLE doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
						       doca_dma_task_memcpy_completion_cb_t task_completion_cb,
						       doca_dma_task_memcpy_completion_cb_t task_error_cb,
						       uint32_t num_memcpy_tasks);

/**
 * @brief Takes a memcpy task from the context's pool and sets its buffers and user data. The
 * buffers are checked when the task is submitted with doca_task_try_submit() or when it executes.
 * @param [in] dma a RUNNING context.
 * @param [in] src the source buffer (its data window is copied).
 * @param [in] dst the destination buffer (the copy goes after its data).
 * @param [in] user_data the task's user data.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE if the
 * context is not RUNNING; DOCA_ERROR_NO_MEMORY when every task is allocated (or none is
 * configured).
 */
DOCA_STABLE doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma,
							 const struct doca_buf *src,
							 struct doca_buf *dst,
							 union doca_data user_data,
							 struct doca_dma_task_memcpy **task);

/**
 * @brief A memcpy task as a generic task (doca_pe.h), for doca_task_submit() and friends.
 * @param [in] task the task.
 * @return the task, or NULL for a NULL or invalid one.
 */
DOCA_STABLE struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task);

/**
 * @brief Sets a memcpy task's source buffer (not while the task is in flight: then refused with a
 * log line).
 * @param [in] task the task.
 * @param [in] src the source buffer.
 */
DOCA_STABLE void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src);

/**
 * @brief A memcpy task's source buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_STABLE const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task);

/**
 * @brief Sets a memcpy task's destination buffer (not while the task is in flight: then refused
 * with a log line).
 * @param [in] task the task.
 * @param [in] dst the destination buffer.
 */
DOCA_STABLE void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst);

/**
 * @brief A memcpy task's destination buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_STABLE struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task);

/**
 * @brief The context's handle for a GPU data path. SoftComch emulates no GPU.
 * @param [in] dma the context.
 * @param [out] gpu_dma the handle.
 * @return DOCA_ERROR_NOT_SUPPORTED (after DOCA_ERROR_INVALID_VALUE for NULL arguments).
 */
DOCA_EXPERIMENTAL doca_error_t doca_dma_get_gpu_handle(struct doca_dma *dma, struct doca_gpu_dma **gpu_dma);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DMA_H_ */
