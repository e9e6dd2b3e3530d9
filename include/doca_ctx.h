/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_ctx.h
 * @brief DOCA contexts: the common life cycle of every DOCA object that runs tasks and events.
 *
 * A context is created by its library (for Comch: server, client, consumer, producer), attached
 * to one progress engine with doca_pe_connect_ctx(), configured while IDLE, then started.
 * State changes are reported to the state-changed callback; those that happen asynchronously are
 * reported from inside doca_pe_progress() on the thread that calls it.
 *
 * Thread safety: a context and its progress engine are used from one thread at a time.
 */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_devinfo;
struct doca_gpu;
struct doca_dpa;

/** @brief States of a context. */
enum doca_ctx_states {
	DOCA_CTX_STATE_IDLE = 0,     /**< Created or fully stopped; configuration allowed. */
	DOCA_CTX_STATE_STARTING = 1, /**< Start in progress; becomes RUNNING during progress. */
	DOCA_CTX_STATE_RUNNING = 2,  /**< Tasks may be allocated and submitted. */
	DOCA_CTX_STATE_STOPPING = 3, /**< Stop in progress; outstanding tasks are drained or flushed. */
};

/**
 * @brief Called on every state change, with the context already in @p next_state.
 * @param [in] user_data value set with doca_ctx_set_user_data().
 * @param [in] ctx the context.
 * @param [in] prev_state the state it left.
 * @param [in] next_state the state it entered.
 */
typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data,
						  struct doca_ctx *ctx,
						  enum doca_ctx_states prev_state,
						  enum doca_ctx_states next_state);

/**
 * @brief Starts a context and freezes its configuration.
 * @param [in] ctx the context.
 * @return DOCA_SUCCESS when the context is RUNNING on return (Comch server, producer);
 * DOCA_ERROR_IN_PROGRESS when it entered STARTING and becomes RUNNING during progress (Comch
 * client, consumer); DOCA_ERROR_INVALID_VALUE for NULL or an invalid configuration;
 * DOCA_ERROR_NOT_CONNECTED if the context is not attached to a progress engine;
 * DOCA_ERROR_BAD_STATE if it is not IDLE; DOCA_ERROR_NOT_SUPPORTED if the device cannot run it;
 * DOCA_ERROR_INITIALIZATION if a resource could not be set up. Comch specifics:
 * DOCA_ERROR_ALREADY_EXIST for a server whose name a live server already uses for the same
 * host function; DOCA_ERROR_NOT_CONNECTED for a producer or consumer whose connection is closed;
 * DOCA_ERROR_BAD_STATE for a server or client restarted while consumers or producers of its
 * previous connections still exist (they hold those connections; destroy them first);
 * DOCA_ERROR_BAD_CONFIG for a producer when the SOFTCOMCH_COPY environment variable has an
 * unknown value (SoftComch only).
 */
DOCA_STABLE doca_error_t doca_ctx_start(struct doca_ctx *ctx);

/**
 * @brief Stops a context. Submitted work is drained or flushed through the error callbacks.
 * @param [in] ctx the context.
 * @return DOCA_SUCCESS when the context is IDLE on return (nothing was in flight, or it was
 * already IDLE); DOCA_ERROR_IN_PROGRESS when it entered STOPPING and reaches IDLE during progress,
 * once every task in flight has completed or been flushed through its callback (tasks the program
 * holds but has not freed do not delay it); DOCA_ERROR_INVALID_VALUE for NULL;
 * DOCA_ERROR_NOT_CONNECTED if it is not attached to a progress engine.
 */
DOCA_STABLE doca_error_t doca_ctx_stop(struct doca_ctx *ctx);

/**
 * @brief Number of tasks submitted and not yet completed.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

/**
 * @brief Runs the data path on a GPU. No GPU is emulated.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL, DOCA_ERROR_BAD_STATE if not IDLE).
 */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev);

/**
 * @brief Sets the value passed to the state callback and, as ctx_user_data, to task callbacks.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);

/**
 * @brief Reads the value set with doca_ctx_set_user_data() (zero if never set).
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);

/**
 * @brief Sets the state-changed callback (one per context; NULL removes it). Allowed in any state.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for a NULL ctx.
 */
DOCA_STABLE doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb);

/**
 * @brief Reads the current state.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);

/**
 * @brief Pushes tasks submitted without DOCA_TASK_SUBMIT_FLAG_FLUSH. SoftComch submits every task
 * at once, so there is never anything to flush; the call only checks its argument.
 */
DOCA_EXPERIMENTAL void doca_ctx_flush_tasks(struct doca_ctx *ctx);

/**
 * @brief Runs the data path on a DPA. The emulated device has no DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL, DOCA_ERROR_BAD_STATE if not IDLE).
 */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev);

/**
 * @brief Chooses the completion vector. The emulated device has one.
 * @return DOCA_SUCCESS for vector 0, DOCA_ERROR_INVALID_VALUE otherwise or for NULL,
 * DOCA_ERROR_BAD_STATE if not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_completion_vector(struct doca_ctx *ctx, uint32_t comp_vector);

/**
 * @brief Number of completion vectors of a device (1 on the emulated device).
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_cap_get_num_completion_vectors(const struct doca_devinfo *devinfo,
								       uint32_t *num_comp_vectors);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
