/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_sha.h
 * @brief DOCA SHA: a context whose tasks compute the SHA-1, SHA-256 or SHA-512 digest of a
 * doca_buf's data, in one piece (hash task) or over several submissions (partial hash task).
 *
 * A SHA context is created on a device (doca_dev.h), connected to a progress engine, given its
 * task pools with doca_sha_task_hash_set_conf() and doca_sha_task_partial_hash_set_conf() while
 * IDLE, and started (DOCA_SUCCESS: it is RUNNING at once). A task names an algorithm, a source
 * buffer, whose data is hashed, and a destination buffer, which receives the digest.
 *
 * SoftComch behaviour:
 * - Tasks run in the context's progress engine, one after the other in submission order, never
 *   inside doca_task_submit(): a task is in flight until a later doca_pe_progress() call
 *   completes it, as on hardware. A task hashes 1 MiB of its source per progress call, so a large
 *   one stays in flight over several calls.
 * - Digests are computed with OpenSSL's libcrypto. A digest is written as raw bytes after the
 *   destination's current data, and the destination's data length grows by the digest length
 *   (20 bytes for SHA-1, 32 for SHA-256, 64 for SHA-512).
 * - The capabilities: min_dst_buf_size is the digest length; partial_hash_block_size is 64 bytes
 *   for SHA-1 and SHA-256 and 128 bytes for SHA-512; max_src_buf_size is 128 MiB (the data of one
 *   submission); max_list_buf_num_elem is 1 (no chained lists); doca_sha_cap_get_max_num_tasks()
 *   bounds the two pools together.
 * - A partial hash task keeps its running state between submissions: submit it once per segment,
 *   pointing it at the next segment with doca_sha_task_partial_hash_set_src() in between (also
 *   from its own completion callback), and mark the last segment with
 *   doca_sha_task_partial_hash_set_is_final_buf() before submitting it. Every segment but the
 *   final one must be a multiple of the block size; one that is not fails the task with
 *   DOCA_ERROR_INVALID_VALUE. The digest of all the segments is written only when the final
 *   segment completes; get_has_result() is 1 from then on. Until then the destination is left as
 *   it is. A segment that fails drops the session's state, as doca_sha_task_partial_hash_reset()
 *   does.
 * - Once a session started (the first segment was submitted), doca_sha_task_partial_hash_set_dst()
 *   and doca_sha_task_partial_hash_set_algorithm() are refused with DOCA_ERROR_BAD_STATE, until
 *   doca_sha_task_partial_hash_reset() or the completion of the final segment ends the session.
 * - Only the BlueField-2 has the SHA engine (docs/topology.md, "model"): on a BlueField-3, the
 *   *_get_supported() queries and the other capability queries answer DOCA_ERROR_NOT_SUPPORTED,
 *   and doca_sha_create() refuses with DOCA_ERROR_NOT_SUPPORTED. Run SHA programs on a function
 *   of a BlueField whose model is "BlueField-2".
 * - doca_task_submit() checks nothing beyond the task and the context's state; a task that
 *   cannot be executed fails when its turn comes: DOCA_ERROR_INVALID_VALUE for a destination with
 *   less room after its data than the digest (when the digest is due), a released buffer, a
 *   chained list, a source over max_src_buf_size, or a non-final partial segment that is not a
 *   multiple of the block size; DOCA_ERROR_NOT_PERMITTED for a buffer of an mmap the context's
 *   device was not added to (or not started), or a destination whose mmap is read-only;
 *   DOCA_ERROR_NOT_SUPPORTED for a buffer of an mmap created from another process's export.
 *   doca_task_try_submit() makes these checks first and returns the same codes without queuing
 *   the task.
 * - A failed task stops its context, as for every DOCA context: the context moves to STOPPING by
 *   itself (the state callback runs), every task still queued behind it completes through the
 *   error callback with DOCA_ERROR_SHUTDOWN, and the context reaches IDLE once no task is in
 *   flight. doca_ctx_stop() flushes queued tasks the same way.
 *
 * Thread safety: a SHA context and its progress engine are used from one thread at a time.
 */
#ifndef DOCA_SHA_H_
#define DOCA_SHA_H_

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
struct doca_task;

struct doca_sha;                   /**< a SHA context */
struct doca_sha_task_hash;         /**< a one-piece hash task */
struct doca_sha_task_partial_hash; /**< a hash task fed over several submissions */

/** @brief The hash algorithms of the SHA engine. */
enum doca_sha_algorithm {
	DOCA_SHA_ALGORITHM_SHA1,   /**< SHA-1: 20-byte digest, 64-byte blocks */
	DOCA_SHA_ALGORITHM_SHA256, /**< SHA-256: 32-byte digest, 64-byte blocks */
	DOCA_SHA_ALGORITHM_SHA512, /**< SHA-512: 64-byte digest, 128-byte blocks */
};

/* ---------------------------------------------------------------------------------------------
 * The context
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Creates a SHA context (IDLE) on a device.
 * @param [in] dev an open device of a BlueField-2.
 * @param [out] sha the new context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or closed device or a NULL output;
 * DOCA_ERROR_NOT_SUPPORTED if the device has no SHA engine (BlueField-3); DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_create(struct doca_dev *dev, struct doca_sha **sha);

/**
 * @brief Destroys a SHA context. It must be IDLE.
 * @param [in] sha the context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or destroyed context;
 * DOCA_ERROR_IN_USE if it is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_destroy(struct doca_sha *sha);

/**
 * @brief The SHA context as a generic context (doca_ctx.h).
 * @param [in] sha the context.
 * @return the context, or NULL for a NULL or destroyed one.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_sha_as_ctx(struct doca_sha *sha);

/* ---------------------------------------------------------------------------------------------
 * Capabilities
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Whether a device supports hash tasks of an algorithm.
 * @param [in] devinfo the device.
 * @param [in] algorithm the algorithm.
 * @return DOCA_SUCCESS if it does (BlueField-2, every algorithm); DOCA_ERROR_NOT_SUPPORTED if not
 * (BlueField-3); DOCA_ERROR_INVALID_VALUE for a NULL or invalid devinfo or an unknown algorithm.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_task_hash_get_supported(struct doca_devinfo const *devinfo,
								    enum doca_sha_algorithm algorithm);

/**
 * @brief Whether a device supports partial hash tasks of an algorithm.
 * @param [in] devinfo the device.
 * @param [in] algorithm the algorithm.
 * @return DOCA_SUCCESS if it does (BlueField-2, every algorithm); DOCA_ERROR_NOT_SUPPORTED if not
 * (BlueField-3); DOCA_ERROR_INVALID_VALUE for a NULL or invalid devinfo or an unknown algorithm.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_task_partial_hash_get_supported(struct doca_devinfo const *devinfo,
									    enum doca_sha_algorithm algorithm);

/**
 * @brief The largest number of elements a source buffer list may have (1: lists are not
 * supported).
 * @param [in] devinfo the device.
 * @param [out] max_list_buf_num_elem the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device has no SHA engine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_max_list_buf_num_elem(struct doca_devinfo const *devinfo,
								      uint32_t *max_list_buf_num_elem);

/**
 * @brief The largest source data of one submission, in bytes (128 MiB).
 * @param [in] devinfo the device.
 * @param [out] max_src_buf_size the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device has no SHA engine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_max_src_buf_size(struct doca_devinfo const *devinfo,
								 uint64_t *max_src_buf_size);

/**
 * @brief The room a destination needs after its data for a digest of an algorithm: the digest
 * length (20, 32 or 64 bytes).
 * @param [in] devinfo the device.
 * @param [in] algorithm the algorithm.
 * @param [out] min_dst_buf_size the size in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an unknown algorithm;
 * DOCA_ERROR_NOT_SUPPORTED if the device has no SHA engine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_min_dst_buf_size(struct doca_devinfo const *devinfo,
								 enum doca_sha_algorithm algorithm,
								 uint32_t *min_dst_buf_size);

/**
 * @brief The block size of an algorithm: every segment of a partial hash but the final one must be
 * a multiple of it (64 bytes for SHA-1 and SHA-256, 128 for SHA-512).
 * @param [in] devinfo the device.
 * @param [in] algorithm the algorithm.
 * @param [out] partial_block_size the size in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an unknown algorithm;
 * DOCA_ERROR_NOT_SUPPORTED if the device has no SHA engine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_partial_hash_block_size(struct doca_devinfo const *devinfo,
									enum doca_sha_algorithm algorithm,
									uint32_t *partial_block_size);

/**
 * @brief The largest number of tasks the context may have: its hash and partial hash pools
 * together (1 << log_num_tasks each) must not exceed it.
 * @param [in] sha the context.
 * @param [out] max_num_tasks the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_max_num_tasks(struct doca_sha *sha, uint32_t *max_num_tasks);

/* ---------------------------------------------------------------------------------------------
 * Hash task: the digest of one buffer's data
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Completion (and error) callback of hash tasks, called inside doca_pe_progress(). The
 * task is the program's again: it may free it, submit it again or keep it.
 * @param [in] task the task that completed; doca_task_get_status() says how.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data (doca_ctx_set_user_data()).
 */
typedef void (*doca_sha_task_hash_completion_cb_t)(struct doca_sha_task_hash *task,
						   union doca_data task_user_data,
						   union doca_data ctx_user_data);

/**
 * @brief Configures the context's hash tasks: the two callbacks and how many tasks exist. Only
 * while the context is IDLE.
 * @param [in] sha the context.
 * @param [in] task_completion_cb called for a task that succeeded.
 * @param [in] task_error_cb called for a task that failed or was flushed.
 * @param [in] log_num_tasks the base-2 logarithm of the number of tasks (0: one task); with the
 * partial hash tasks at most doca_sha_cap_get_max_num_tasks().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or callback or a number out of
 * range; DOCA_ERROR_BAD_STATE if the context is not IDLE, or while tasks of the previous
 * configuration are still allocated.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_set_conf(struct doca_sha *sha,
							   doca_sha_task_hash_completion_cb_t task_completion_cb,
							   doca_sha_task_hash_completion_cb_t task_error_cb,
							   uint8_t log_num_tasks);

/**
 * @brief Takes a hash task from the context's pool and sets its algorithm, buffers and user data.
 * The buffers are checked when the task executes.
 * @param [in] sha a RUNNING context.
 * @param [in] algorithm the algorithm.
 * @param [in] src_buf the source buffer (its data is hashed).
 * @param [in] dst_buf the destination buffer (the digest goes after its data).
 * @param [in] user_data the task's user data.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an unknown algorithm;
 * DOCA_ERROR_BAD_STATE if the context is not RUNNING; DOCA_ERROR_NO_MEMORY when every task is
 * allocated (or none is configured).
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_alloc_init(struct doca_sha *sha,
							     enum doca_sha_algorithm algorithm,
							     struct doca_buf const *src_buf,
							     struct doca_buf *dst_buf,
							     union doca_data user_data,
							     struct doca_sha_task_hash **task);

/**
 * @brief Sets a hash task's source buffer.
 * @param [in] task the task.
 * @param [in] src_buf the source buffer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an invalid task;
 * DOCA_ERROR_BAD_STATE while the task is in flight.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_set_src(struct doca_sha_task_hash *task,
							  struct doca_buf const *src_buf);

/**
 * @brief A hash task's source buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf const *doca_sha_task_hash_get_src(struct doca_sha_task_hash const *task);

/**
 * @brief Sets a hash task's destination buffer.
 * @param [in] task the task.
 * @param [in] dst_buf the destination buffer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an invalid task;
 * DOCA_ERROR_BAD_STATE while the task is in flight.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_set_dst(struct doca_sha_task_hash *task, struct doca_buf *dst_buf);

/**
 * @brief A hash task's destination buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf const *doca_sha_task_hash_get_dst(struct doca_sha_task_hash const *task);

/**
 * @brief Sets a hash task's algorithm.
 * @param [in] task the task.
 * @param [in] algorithm the algorithm.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or invalid task or an unknown
 * algorithm; DOCA_ERROR_BAD_STATE while the task is in flight.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_set_algorithm(struct doca_sha_task_hash *task,
								enum doca_sha_algorithm algorithm);

/**
 * @brief A hash task's algorithm.
 * @param [in] task the task.
 * @return the algorithm (DOCA_SHA_ALGORITHM_SHA1 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL enum doca_sha_algorithm doca_sha_task_hash_get_algorithm(struct doca_sha_task_hash const *task);

/**
 * @brief A hash task as a generic task (doca_pe.h), for doca_task_submit() and friends.
 * @param [in] task the task.
 * @return the task, or NULL for a NULL or invalid one.
 */
DOCA_EXPERIMENTAL struct doca_task *doca_sha_task_hash_as_task(struct doca_sha_task_hash *task);

/* ---------------------------------------------------------------------------------------------
 * Partial hash task: the digest of data submitted segment by segment
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Completion (and error) callback of partial hash tasks, called inside doca_pe_progress()
 * once per segment. The task is the program's again: it may free it, submit it again with the
 * next segment or keep it.
 * @param [in] task the task that completed; doca_task_get_status() says how.
 * @param [in] task_user_data the task's current user data.
 * @param [in] ctx_user_data the context's user data (doca_ctx_set_user_data()).
 */
typedef void (*doca_sha_task_partial_hash_completion_cb_t)(struct doca_sha_task_partial_hash *task,
							   union doca_data task_user_data,
							   union doca_data ctx_user_data);

/**
 * @brief Configures the context's partial hash tasks: the two callbacks and how many tasks exist.
 * Only while the context is IDLE.
 * @param [in] sha the context.
 * @param [in] task_completion_cb called for a segment that succeeded.
 * @param [in] task_error_cb called for a segment that failed or was flushed.
 * @param [in] log_num_tasks the base-2 logarithm of the number of tasks (0: one task); with the
 * hash tasks at most doca_sha_cap_get_max_num_tasks().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or callback or a number out of
 * range; DOCA_ERROR_BAD_STATE if the context is not IDLE, or while tasks of the previous
 * configuration are still allocated.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_set_conf(struct doca_sha *sha,
				    doca_sha_task_partial_hash_completion_cb_t task_completion_cb,
				    doca_sha_task_partial_hash_completion_cb_t task_error_cb,
				    uint8_t log_num_tasks);

/**
 * @brief Takes a partial hash task from the context's pool, with no session started, and sets its
 * algorithm, buffers and user data. The buffers are checked when a segment executes.
 * @param [in] sha a RUNNING context.
 * @param [in] algorithm the algorithm.
 * @param [in] src_buf the source buffer (its data is the first segment).
 * @param [in] dst_buf the destination buffer (the digest goes after its data).
 * @param [in] user_data the task's user data.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an unknown algorithm;
 * DOCA_ERROR_BAD_STATE if the context is not RUNNING; DOCA_ERROR_NO_MEMORY when every task is
 * allocated (or none is configured).
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_alloc_init(struct doca_sha *sha,
								     enum doca_sha_algorithm algorithm,
								     struct doca_buf const *src_buf,
								     struct doca_buf *dst_buf,
								     union doca_data user_data,
								     struct doca_sha_task_partial_hash **task);

/**
 * @brief Ends a partial hash task's session: its running state is dropped, and is_final and
 * has_result go back to 0. The next submission starts a new session.
 * @param [in] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or invalid task; DOCA_ERROR_BAD_STATE
 * while the task is in flight.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_reset(struct doca_sha_task_partial_hash *task);

/**
 * @brief Sets a partial hash task's source buffer: the next segment.
 * @param [in] task the task.
 * @param [in] src_buf the source buffer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an invalid task;
 * DOCA_ERROR_BAD_STATE while the task is in flight.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_set_src(struct doca_sha_task_partial_hash *task,
								  struct doca_buf const *src_buf);

/**
 * @brief A partial hash task's source buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf const *
doca_sha_task_partial_hash_get_src(struct doca_sha_task_partial_hash const *task);

/**
 * @brief Sets a partial hash task's destination buffer. Only while no session is under way.
 * @param [in] task the task.
 * @param [in] dst_buf the destination buffer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an invalid task;
 * DOCA_ERROR_BAD_STATE once a session started, until doca_sha_task_partial_hash_reset() or the
 * completion of its final segment.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_set_dst(struct doca_sha_task_partial_hash *task,
								  struct doca_buf *dst_buf);

/**
 * @brief A partial hash task's destination buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf const *
doca_sha_task_partial_hash_get_dst(struct doca_sha_task_partial_hash const *task);

/**
 * @brief Sets a partial hash task's algorithm. Only while no session is under way.
 * @param [in] task the task.
 * @param [in] algorithm the algorithm.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or invalid task or an unknown
 * algorithm; DOCA_ERROR_BAD_STATE once a session started, until
 * doca_sha_task_partial_hash_reset() or the completion of its final segment.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_set_algorithm(struct doca_sha_task_partial_hash *task,
									enum doca_sha_algorithm algorithm);

/**
 * @brief A partial hash task's algorithm.
 * @param [in] task the task.
 * @return the algorithm (DOCA_SHA_ALGORITHM_SHA1 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL enum doca_sha_algorithm
doca_sha_task_partial_hash_get_algorithm(struct doca_sha_task_partial_hash const *task);

/**
 * @brief Marks the partial hash task's next segment as the final one: when it completes, the
 * digest of the whole session is written to the destination. Allowed between the submissions of
 * a session.
 * @param [in] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or invalid task; DOCA_ERROR_BAD_STATE
 * while the task is in flight.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_set_is_final_buf(struct doca_sha_task_partial_hash *task);

/**
 * @brief Whether a partial hash task is marked final (doca_sha_task_partial_hash_set_is_final_buf()
 * since the last reset).
 * @param [in] task the task.
 * @return 1 or 0 (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint8_t doca_sha_task_partial_hash_get_is_final(struct doca_sha_task_partial_hash const *task);

/**
 * @brief Whether a partial hash task's destination holds the digest: 1 once the final segment
 * completed successfully, 0 before that and after doca_sha_task_partial_hash_reset().
 * @param [in] task the task.
 * @return 1 or 0 (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint8_t doca_sha_task_partial_hash_get_has_result(struct doca_sha_task_partial_hash const *task);

/**
 * @brief A partial hash task as a generic task (doca_pe.h), for doca_task_submit() and friends.
 * @param [in] task the task.
 * @return the task, or NULL for a NULL or invalid one.
 */
DOCA_EXPERIMENTAL struct doca_task *doca_sha_task_partial_hash_as_task(struct doca_sha_task_partial_hash *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SHA_H_ */
