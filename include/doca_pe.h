/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_pe.h
 * @brief The progress engine: where tasks complete and events are delivered.
 *
 * Nothing happens in the background. Completions, received messages, connection events and
 * asynchronous state changes are delivered only inside doca_pe_progress(), on the calling
 * thread. A program either polls (call doca_pe_progress() in a loop) or waits on the
 * notification handle:
 *
 *     doca_pe_get_notification_handle(pe, &fd);   // once; add fd to an epoll set
 *     for (;;) {
 *         doca_pe_request_notification(pe);        // arm
 *         epoll_wait(...);                         // sleep until something is pending
 *         doca_pe_clear_notification(pe, fd);
 *         while (doca_pe_progress(pe)) {}          // deliver everything
 *     }
 *
 * Thread safety: one thread at a time per progress engine and its contexts.
 */
#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stdint.h>
#include <stdlib.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_pe;
struct doca_task;
struct doca_task_batch;
struct doca_devinfo;

/** @brief Maximum number of tasks in a task batch. */
enum doca_task_batch_max_tasks_number {
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_32,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_64,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_128,
};

/** @brief Number of events in an event batch. */
enum doca_event_batch_events_number {
	DOCA_EVENT_BATCH_EVENTS_NUMBER_1,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_2,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_4,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_8,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_16,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_32,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_64,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_128,
};

/** @brief Flags of doca_task_submit_ex(). */
enum doca_task_submit_flag {
	DOCA_TASK_SUBMIT_FLAG_NONE = 0U,
	DOCA_TASK_SUBMIT_FLAG_FLUSH = (1U << 0),
	DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS = (1U << 1),
};

/** @brief Which contexts a progress call visits after a notification. */
enum doca_pe_event_mode {
	DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE,
	DOCA_PE_EVENT_MODE_PROGRESS_ALL,
};

/** @brief Generic task completion callback. */
typedef void (*doca_task_completion_cb_t)(struct doca_task *task,
					  union doca_data task_user_data,
					  union doca_data ctx_user_data);

/**
 * @brief Creates a progress engine.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NO_MEMORY;
 * DOCA_ERROR_OPERATING_SYSTEM if its notification descriptors could not be created.
 */
DOCA_STABLE doca_error_t doca_pe_create(struct doca_pe **pe);

/**
 * @brief Destroys a progress engine.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_IN_USE while contexts are
 * still attached (destroy them first).
 */
DOCA_STABLE doca_error_t doca_pe_destroy(struct doca_pe *pe);

/**
 * @brief Delivers pending completions and events and advances asynchronous state changes.
 * Callbacks run inside this call and must not call doca_pe_progress() themselves. One thread at
 * a time: a call made while another thread is inside this one does nothing, returns 0 and is
 * logged (once per engine).
 * @return 1 if anything happened (a task completed, an event was delivered, a context changed
 * state), 0 otherwise (also for NULL).
 */
DOCA_STABLE uint8_t doca_pe_progress(struct doca_pe *pe);

/**
 * @brief The descriptor to wait on (epoll, poll, select) in event-driven programs.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle);

/**
 * @brief Acknowledges a notification; call it after waking and before progressing.
 * @param [in] handle not used on Linux, where an engine has one handle (NVIDIA's own event loop
 * passes 0); any value is accepted.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL engine.
 */
DOCA_STABLE doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

/**
 * @brief Arms the notification handle: it becomes readable when there is work for progress.
 * If work is already pending, the handle is made readable at once, so a wait never misses it.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_OPERATING_SYSTEM if a
 * system call failed.
 */
DOCA_STABLE doca_error_t doca_pe_request_notification(struct doca_pe *pe);

/**
 * @brief Number of tasks submitted and not yet completed, over all attached contexts.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

/**
 * @brief Submits a task. On success the library owns the task until its completion or error
 * callback runs; on failure the caller still owns it.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a task that is already submitted;
 * DOCA_ERROR_BAD_STATE if the context is not RUNNING; DOCA_ERROR_AGAIN for temporary
 * back-pressure; other task-specific codes documented with each task.
 */
DOCA_STABLE doca_error_t doca_task_submit(struct doca_task *task);

/**
 * @brief Submits with flags (enum doca_task_submit_flag). SoftComch submits immediately, so the
 * known flags do not change the outcome. Same return codes as doca_task_submit(), and
 * DOCA_ERROR_INVALID_VALUE for flag bits that enum doca_task_submit_flag does not define.
 */
DOCA_EXPERIMENTAL doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags);

/** @brief Task batches are not supported by the emulated device. @return DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_submit(struct doca_task_batch *task_batch);

/**
 * @brief Validates the task's parameters, then submits it.
 * @return as doca_task_submit(); DOCA_ERROR_INVALID_VALUE when validation fails.
 */
DOCA_STABLE doca_error_t doca_task_try_submit(struct doca_task *task);

/** @brief Task batches are not supported by the emulated device. @return DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_try_submit(struct doca_task_batch *task_batch);

/**
 * @brief Returns a task to its context's pool. A task in flight (submitted, its callback not run
 * yet) is given up instead: it finishes its work or is flushed by a stop, then returns to the
 * pool without any callback; a control-path send still queued for ring space is withdrawn unsent.
 * Freeing a task twice is logged and ignored.
 */
DOCA_STABLE void doca_task_free(struct doca_task *task);

/** @brief Task batches are not supported; does nothing. */
DOCA_EXPERIMENTAL void doca_task_batch_free(struct doca_task_batch *task_batch);

/**
 * @brief Result of a completed task.
 * @return DOCA_SUCCESS for a successful task, otherwise the task-specific error
 * (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_STABLE doca_error_t doca_task_get_status(const struct doca_task *task);

/** @brief Task batches are not supported. @return DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_get_status(const struct doca_task_batch *task_batch);

/** @brief Sets the task's user data (passed to its callbacks as task_user_data). */
DOCA_STABLE void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);

/** @brief Task batches are not supported; does nothing. */
DOCA_EXPERIMENTAL void doca_task_batch_set_user_data(struct doca_task_batch *task_batch, union doca_data user_data);

/** @brief The task's user data (zero when never set). */
DOCA_STABLE union doca_data doca_task_get_user_data(const struct doca_task *task);

/** @brief Task batches are not supported. @return zero. */
DOCA_EXPERIMENTAL union doca_data doca_task_batch_get_user_data(const struct doca_task_batch *task_batch);

/** @brief The context that allocated the task (NULL for NULL). */
DOCA_STABLE struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

/** @brief Task batches are not supported. @return NULL. */
DOCA_EXPERIMENTAL struct doca_ctx *doca_task_batch_get_ctx(const struct doca_task_batch *task_batch);

/** @brief Task batches are not supported. @return zero. */
DOCA_EXPERIMENTAL union doca_data doca_task_batch_get_ctx_user_data(const struct doca_task_batch *task_batch);

/** @brief Task batches are not supported. @return 0. */
DOCA_EXPERIMENTAL uint16_t doca_task_batch_get_tasks_num(struct doca_task_batch *task_batch);

/**
 * @brief Attaches a context to a progress engine (once; one engine serves many contexts).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NOT_PERMITTED if the context
 * is already attached; DOCA_ERROR_BAD_STATE if the context is not IDLE.
 */
DOCA_STABLE doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/**
 * @brief Chooses which contexts progress visits after a notification. SoftComch always visits
 * all of them, which satisfies both modes.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL or an unknown mode.
 */
DOCA_EXPERIMENTAL doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode event_mode);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
