/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_mmap_advise.h
 * @brief DOCA mmap advise (part of DOCA Core, libdoca_common): a context whose tasks tell the
 * device something about memory it works on; in DOCA 3.0 one kind, cache invalidation of a
 * buffer's memory (after a DMA wrote it, before the CPU reads it).
 *
 * SoftComch behaviour:
 * - Memory in this emulation is coherent: an invalidation has nothing to do but its checks. A
 *   task completes on a later doca_pe_progress() call, in submission order, as a hardware task
 *   would.
 * - The buffer must be a live doca_buf of a started mmap the context's device was added to;
 *   otherwise the task fails when its turn comes (DOCA_ERROR_INVALID_VALUE, or
 *   DOCA_ERROR_NOT_PERMITTED for an mmap without the device) and, as every DOCA context after a
 *   task error, the context stops by itself (queued tasks are flushed with DOCA_ERROR_SHUTDOWN).
 * - Every PCI function of the emulated machine supports it; the largest buffer is the device's
 *   DMA buffer limit.
 *
 * Thread safety: the context and its progress engine are used from one thread at a time.
 */
#ifndef DOCA_MMAP_ADVISE_H_
#define DOCA_MMAP_ADVISE_H_

#include <stddef.h>
#include <stdint.h>

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
struct doca_task;

struct doca_mmap_advise;                       /**< the context */
struct doca_mmap_advise_task_invalidate_cache; /**< a cache invalidation task */

/** @brief A cache invalidation task's completion or error callback (inside doca_pe_progress()). */
typedef void (*doca_mmap_advise_task_invalidate_cache_completion_cb_t)(
	struct doca_mmap_advise_task_invalidate_cache *task,
	union doca_data task_user_data,
	union doca_data ctx_user_data);

/**
 * @brief Creates a context on a device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a closed device;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise);

/**
 * @brief Destroys an IDLE context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_IN_USE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise);

/** @brief The context as a doca_ctx, or NULL for a NULL or destroyed one. */
DOCA_EXPERIMENTAL struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise);

/**
 * @brief Whether the device supports cache invalidation tasks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NOT_SUPPORTED.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest buffer a cache invalidation task takes on the device, in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size);

/**
 * @brief The callbacks of the context's cache invalidation tasks and how many it has. Only while
 * IDLE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or 0 tasks;
 * DOCA_ERROR_NOT_PERMITTED outside IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
	struct doca_mmap_advise *mmap_advise,
	doca_mmap_advise_task_invalidate_cache_completion_cb_t task_completion_cb,
	doca_mmap_advise_task_invalidate_cache_completion_cb_t task_error_cb,
	uint32_t num_tasks);

/**
 * @brief Allocates a cache invalidation task of `buf`'s memory. The context must be RUNNING.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE
 * unless RUNNING; DOCA_ERROR_NO_MEMORY when every configured task is in use.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_task_invalidate_cache_alloc_init(struct doca_mmap_advise *mmap_advise,
						  struct doca_buf *buf,
						  union doca_data user_data,
						  struct doca_mmap_advise_task_invalidate_cache **task);

/** @brief The task as a doca_task, or NULL for a NULL or invalid one. */
DOCA_EXPERIMENTAL struct doca_task *
doca_mmap_advise_task_invalidate_cache_as_doca_task(struct doca_mmap_advise_task_invalidate_cache *task);

/** @brief Sets the task's buffer (not while the task is in flight: then refused with a log line). */
DOCA_EXPERIMENTAL void
doca_mmap_advise_task_invalidate_cache_set_buf(struct doca_mmap_advise_task_invalidate_cache *task,
					       struct doca_buf *buf);

/** @brief The task's buffer, or NULL for an invalid task. */
DOCA_EXPERIMENTAL struct doca_buf *
doca_mmap_advise_task_invalidate_cache_get_buf(const struct doca_mmap_advise_task_invalidate_cache *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_ADVISE_H_ */
