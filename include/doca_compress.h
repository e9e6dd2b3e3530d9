/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_compress.h
 * @brief DOCA Compress: a context whose tasks compress data with DEFLATE, or decompress DEFLATE or
 * LZ4 data, from one doca_buf into another.
 *
 * A compress context is created on a device (doca_dev.h), connected to a progress engine, given
 * the task kinds it uses with their *_set_conf() calls while IDLE, and started (DOCA_SUCCESS: it
 * is RUNNING at once). A task names a source buffer, whose data is the input, and a destination
 * buffer, which receives the output. Four task kinds exist: compress_deflate, decompress_deflate,
 * decompress_lz4_stream and decompress_lz4_block.
 *
 * SoftComch behaviour:
 * - Tasks run in the context's progress engine, one after the other in submission order, never
 *   inside doca_task_submit(): a task is in flight until a later doca_pe_progress() call
 *   completes it, as on hardware. An LZ4 task runs within one progress call; a deflate task works
 *   through 1 MiB of its input per call, so a large one stays in flight over several calls.
 * - The input is the source's data window (data pointer and data length). The output is written
 *   after the destination's current data, and the destination's data length grows by the output
 *   size.
 * - Deflate is raw DEFLATE (RFC 1951: no zlib header or trailer), produced (at zlib's default
 *   level) and read with zlib. A program that wants the zlib or gzip wrapper adds or strips it
 *   itself.
 * - The checksums are of the uncompressed data (the input of a compression, the output of a
 *   decompression): CRC-32 as zlib's crc32(), Adler-32 as zlib's adler32() (deflate tasks) and
 *   XXH32 with seed 0 (LZ4 tasks). They are valid once the task completed successfully.
 * - DOCA reports XXH32 byte-swapped: get_xxh_cs() is the byte swap of the XXH32 value, i.e. of
 *   the LZ4 frame's content checksum read as a little-endian word (NVIDIA's LZ4 sample compares
 *   it with that word after htobe32()).
 * - LZ4 tasks take data without the LZ4 frame (no magic number, frame descriptor or content
 *   checksum). A stream task takes a sequence of blocks, each a 4-byte little-endian size word
 *   whose high bit marks an uncompressed block, then the block's bytes, then, when the task has
 *   has_block_checksum, the block's 4-byte checksum (XXH32 of the block's bytes, checked); a zero
 *   size word (the frame's end mark) ends the stream, and may be left out. A block task takes one
 *   compressed block alone (no size word, no checksum).
 * - Which task kinds exist depends on the BlueField model of the emulated machine
 *   (docs/topology.md, "model"): a BlueField-2 compresses and decompresses deflate; a BlueField-3
 *   decompresses deflate and LZ4 and cannot compress. For a kind the device lacks, the
 *   *_is_supported() query and the other capability queries of the kind answer
 *   DOCA_ERROR_NOT_SUPPORTED, and its *_set_conf() refuses with DOCA_ERROR_NOT_SUPPORTED (NVIDIA's
 *   file_compression application then compresses with zlib in software).
 * - The limits: max_buf_size is 128 MiB (the source's data and the destination buffer of one
 *   task each), max_buf_list_len is 1 (no chained lists), and
 *   doca_compress_cap_get_max_num_tasks() bounds the sum of the num_tasks of the four
 *   *_set_conf() calls.
 * - doca_task_submit() checks nothing beyond the task and the context's state; a task that
 *   cannot be executed fails when its turn comes: DOCA_ERROR_INVALID_VALUE for corrupt input (a
 *   stream or block that does not decode, a deflate stream cut off or followed by other data, a
 *   block checksum that does not match), an empty source, a destination too small for the
 *   output, a released buffer, a chained list or a size over the limits;
 *   DOCA_ERROR_NOT_PERMITTED for a buffer of an mmap the context's device was not added to (or
 *   not started), or a destination whose mmap is read-only; DOCA_ERROR_NOT_SUPPORTED for a
 *   buffer of an mmap created from another process's export. doca_task_try_submit() makes the
 *   buffer checks first and returns the same codes without queuing the task.
 * - A failed task stops its context, as for every DOCA context: the context moves to STOPPING by
 *   itself (the state callback runs), every task still queued behind it completes through the
 *   error callback with DOCA_ERROR_SHUTDOWN, and the context reaches IDLE once no task is in
 *   flight. doca_ctx_stop() flushes queued tasks the same way.
 *
 * Thread safety: a compress context and its progress engine are used from one thread at a time.
 */
#ifndef DOCA_COMPRESS_H_
#define DOCA_COMPRESS_H_

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

struct doca_compress;                            /**< a compress context */
struct doca_compress_task_compress_deflate;      /**< a deflate compression task */
struct doca_compress_task_decompress_deflate;    /**< a deflate decompression task */
struct doca_compress_task_decompress_lz4_stream; /**< an LZ4 stream (blocks) decompression task */
struct doca_compress_task_decompress_lz4_block;  /**< an LZ4 single block decompression task */

/* ---------------------------------------------------------------------------------------------
 * The context
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Creates a compress context (IDLE) on a device.
 * @param [in] dev an open device.
 * @param [out] compress the new context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or closed device or a NULL output;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_create(struct doca_dev *dev, struct doca_compress **compress);

/**
 * @brief Destroys a compress context. It must be IDLE.
 * @param [in] compress the context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or destroyed context;
 * DOCA_ERROR_IN_USE if it is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_destroy(struct doca_compress *compress);

/**
 * @brief The compress context as a generic context (doca_ctx.h).
 * @param [in] compress the context.
 * @return the context, or NULL for a NULL or destroyed one.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_compress_as_ctx(struct doca_compress *compress);

/**
 * @brief The largest number of tasks the context may have: the num_tasks of its four *_set_conf()
 * calls added together must not exceed it.
 * @param [in] compress the context.
 * @param [out] max_num_tasks the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_get_max_num_tasks(struct doca_compress *compress,
								   uint32_t *max_num_tasks);

/* ---------------------------------------------------------------------------------------------
 * Compress deflate task: raw DEFLATE of the source's data (BlueField-2 only)
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Completion (and error) callback of compress deflate tasks, called inside
 * doca_pe_progress(). The task is the program's again: it may free it, submit it again or keep it.
 * @param [in] task the task that completed; doca_task_get_status() says how.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data (doca_ctx_set_user_data()).
 */
typedef void (*doca_compress_task_compress_deflate_completion_cb_t)(struct doca_compress_task_compress_deflate *task,
								    union doca_data task_user_data,
								    union doca_data ctx_user_data);

/**
 * @brief Whether a device supports compress deflate tasks (BlueField-2: yes; BlueField-3: no).
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS if it does; DOCA_ERROR_NOT_SUPPORTED if not; DOCA_ERROR_INVALID_VALUE for a
 * NULL or invalid devinfo.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_compress_deflate_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest source data, and destination buffer, of one compress deflate task:
 * 128 MiB.
 * @param [in] devinfo the device.
 * @param [out] max_buffer_size the limit in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support the task.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_task_compress_deflate_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *max_buffer_size);

/**
 * @brief The largest number of elements a source or destination buffer list may have in one
 * compress deflate task (1: lists are not supported).
 * @param [in] devinfo the device.
 * @param [out] max_buf_list_len the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support the task.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_compress_deflate_get_max_buf_list_len(
	const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

/**
 * @brief Configures the context's compress deflate tasks: the two callbacks and how many tasks
 * exist. Only while the context is IDLE.
 * @param [in] compress the context.
 * @param [in] task_completion_cb called for a task that succeeded.
 * @param [in] task_error_cb called for a task that failed or was flushed.
 * @param [in] num_tasks at least 1; with the other kinds' tasks at most
 * doca_compress_cap_get_max_num_tasks().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or callback or a number out of
 * range; DOCA_ERROR_NOT_SUPPORTED if the device cannot compress (BlueField-3);
 * DOCA_ERROR_BAD_STATE if the context is not IDLE, or while tasks of the previous configuration
 * are still allocated.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_task_compress_deflate_set_conf(struct doca_compress *compress,
					     doca_compress_task_compress_deflate_completion_cb_t task_completion_cb,
					     doca_compress_task_compress_deflate_completion_cb_t task_error_cb,
					     uint32_t num_tasks);

/**
 * @brief Takes a compress deflate task from the context's pool and sets its buffers and user
 * data. The buffers are checked when the task executes.
 * @param [in] compress a RUNNING context.
 * @param [in] src_buff the source buffer (its data is compressed).
 * @param [in] dst_buff the destination buffer (the compressed data goes after its data).
 * @param [in] user_data the task's user data.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE if the
 * context is not RUNNING; DOCA_ERROR_NO_MEMORY when every task is allocated (or none is
 * configured).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_task_compress_deflate_alloc_init(struct doca_compress *compress,
					       struct doca_buf const *src_buff,
					       struct doca_buf *dst_buff,
					       union doca_data user_data,
					       struct doca_compress_task_compress_deflate **task);

/**
 * @brief A compress deflate task as a generic task (doca_pe.h), for doca_task_submit() and
 * friends.
 * @param [in] task the task.
 * @return the task, or NULL for a NULL or invalid one.
 */
DOCA_EXPERIMENTAL struct doca_task *
doca_compress_task_compress_deflate_as_task(struct doca_compress_task_compress_deflate *task);

/**
 * @brief Sets a compress deflate task's source buffer (not while the task is in flight: then
 * refused with a log line; so is a NULL or invalid buffer).
 * @param [in] task the task.
 * @param [in] src_buff the source buffer.
 */
DOCA_EXPERIMENTAL void doca_compress_task_compress_deflate_set_src(struct doca_compress_task_compress_deflate *task,
								   struct doca_buf const *src_buff);

/**
 * @brief A compress deflate task's source buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf const *
doca_compress_task_compress_deflate_get_src(const struct doca_compress_task_compress_deflate *task);

/**
 * @brief Sets a compress deflate task's destination buffer (not while the task is in flight: then
 * refused with a log line; so is a NULL or invalid buffer).
 * @param [in] task the task.
 * @param [in] dst_buff the destination buffer.
 */
DOCA_EXPERIMENTAL void doca_compress_task_compress_deflate_set_dst(struct doca_compress_task_compress_deflate *task,
								   struct doca_buf *dst_buff);

/**
 * @brief A compress deflate task's destination buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf *
doca_compress_task_compress_deflate_get_dst(const struct doca_compress_task_compress_deflate *task);

/**
 * @brief The CRC-32 (zlib's crc32()) of the data a compress deflate task compressed. Valid after
 * the task completed successfully.
 * @param [in] task the task.
 * @return the checksum (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_compress_deflate_get_crc_cs(const struct doca_compress_task_compress_deflate *task);

/**
 * @brief The Adler-32 (zlib's adler32()) of the data a compress deflate task compressed: the
 * trailer of a zlib stream around the output. Valid after the task completed successfully.
 * @param [in] task the task.
 * @return the checksum (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_compress_deflate_get_adler_cs(const struct doca_compress_task_compress_deflate *task);

/* ---------------------------------------------------------------------------------------------
 * Decompress deflate task: raw DEFLATE in, the original data out (every model)
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Completion (and error) callback of decompress deflate tasks, called inside
 * doca_pe_progress(). The task is the program's again: it may free it, submit it again or keep it.
 * @param [in] task the task that completed; doca_task_get_status() says how.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data (doca_ctx_set_user_data()).
 */
typedef void (*doca_compress_task_decompress_deflate_completion_cb_t)(
	struct doca_compress_task_decompress_deflate *task,
	union doca_data task_user_data,
	union doca_data ctx_user_data);

/**
 * @brief Whether a device supports decompress deflate tasks (BlueField-2 and BlueField-3: yes).
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS if it does; DOCA_ERROR_NOT_SUPPORTED if not; DOCA_ERROR_INVALID_VALUE for a
 * NULL or invalid devinfo.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_task_decompress_deflate_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest source data, and destination buffer, of one decompress deflate task:
 * 128 MiB.
 * @param [in] devinfo the device.
 * @param [out] max_buffer_size the limit in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support the task.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_deflate_get_max_buf_size(
	const struct doca_devinfo *devinfo, uint64_t *max_buffer_size);

/**
 * @brief The largest number of elements a source or destination buffer list may have in one
 * decompress deflate task (1: lists are not supported).
 * @param [in] devinfo the device.
 * @param [out] max_buf_list_len the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support the task.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_deflate_get_max_buf_list_len(
	const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

/**
 * @brief Configures the context's decompress deflate tasks: the two callbacks and how many tasks
 * exist. Only while the context is IDLE.
 * @param [in] compress the context.
 * @param [in] task_completion_cb called for a task that succeeded.
 * @param [in] task_error_cb called for a task that failed or was flushed.
 * @param [in] num_tasks at least 1; with the other kinds' tasks at most
 * doca_compress_cap_get_max_num_tasks().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or callback or a number out of
 * range; DOCA_ERROR_NOT_SUPPORTED if the device does not support the task; DOCA_ERROR_BAD_STATE
 * if the context is not IDLE, or while tasks of the previous configuration are still allocated.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_task_decompress_deflate_set_conf(struct doca_compress *compress,
					       doca_compress_task_decompress_deflate_completion_cb_t task_completion_cb,
					       doca_compress_task_decompress_deflate_completion_cb_t task_error_cb,
					       uint32_t num_tasks);

/**
 * @brief Takes a decompress deflate task from the context's pool and sets its buffers and user
 * data. The buffers are checked when the task executes.
 * @param [in] compress a RUNNING context.
 * @param [in] src_buff the source buffer (its data is a raw DEFLATE stream).
 * @param [in] dst_buff the destination buffer (the decompressed data goes after its data).
 * @param [in] user_data the task's user data.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE if the
 * context is not RUNNING; DOCA_ERROR_NO_MEMORY when every task is allocated (or none is
 * configured).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_task_decompress_deflate_alloc_init(struct doca_compress *compress,
						 struct doca_buf const *src_buff,
						 struct doca_buf *dst_buff,
						 union doca_data user_data,
						 struct doca_compress_task_decompress_deflate **task);

/**
 * @brief A decompress deflate task as a generic task (doca_pe.h), for doca_task_submit() and
 * friends.
 * @param [in] task the task.
 * @return the task, or NULL for a NULL or invalid one.
 */
DOCA_EXPERIMENTAL struct doca_task *
doca_compress_task_decompress_deflate_as_task(struct doca_compress_task_decompress_deflate *task);

/**
 * @brief Sets a decompress deflate task's source buffer (not while the task is in flight: then
 * refused with a log line; so is a NULL or invalid buffer).
 * @param [in] task the task.
 * @param [in] src_buff the source buffer.
 */
DOCA_EXPERIMENTAL void doca_compress_task_decompress_deflate_set_src(struct doca_compress_task_decompress_deflate *task,
								     struct doca_buf const *src_buff);

/**
 * @brief A decompress deflate task's source buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf const *
doca_compress_task_decompress_deflate_get_src(const struct doca_compress_task_decompress_deflate *task);

/**
 * @brief Sets a decompress deflate task's destination buffer (not while the task is in flight:
 * then refused with a log line; so is a NULL or invalid buffer).
 * @param [in] task the task.
 * @param [in] dst_buff the destination buffer.
 */
DOCA_EXPERIMENTAL void doca_compress_task_decompress_deflate_set_dst(struct doca_compress_task_decompress_deflate *task,
								     struct doca_buf *dst_buff);

/**
 * @brief A decompress deflate task's destination buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf *
doca_compress_task_decompress_deflate_get_dst(const struct doca_compress_task_decompress_deflate *task);

/**
 * @brief The CRC-32 (zlib's crc32()) of the data a decompress deflate task produced. Valid after
 * the task completed successfully.
 * @param [in] task the task.
 * @return the checksum (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_deflate_get_crc_cs(const struct doca_compress_task_decompress_deflate *task);

/**
 * @brief The Adler-32 (zlib's adler32()) of the data a decompress deflate task produced: what the
 * trailer of a zlib stream around the input holds. Valid after the task completed successfully.
 * @param [in] task the task.
 * @return the checksum (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_deflate_get_adler_cs(const struct doca_compress_task_decompress_deflate *task);

/* ---------------------------------------------------------------------------------------------
 * Decompress LZ4 stream task: the blocks of an LZ4 frame, without the frame (BlueField-3 only)
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Completion (and error) callback of decompress LZ4 stream tasks, called inside
 * doca_pe_progress(). The task is the program's again: it may free it, submit it again or keep it.
 * @param [in] task the task that completed; doca_task_get_status() says how.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data (doca_ctx_set_user_data()).
 */
typedef void (*doca_compress_task_decompress_lz4_stream_completion_cb_t)(
	struct doca_compress_task_decompress_lz4_stream *task,
	union doca_data task_user_data,
	union doca_data ctx_user_data);

/**
 * @brief Whether a device supports decompress LZ4 stream tasks (BlueField-3: yes; BlueField-2:
 * no).
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS if it does; DOCA_ERROR_NOT_SUPPORTED if not; DOCA_ERROR_INVALID_VALUE for a
 * NULL or invalid devinfo.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_task_decompress_lz4_stream_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest source data, and destination buffer, of one decompress LZ4 stream task:
 * 128 MiB.
 * @param [in] devinfo the device.
 * @param [out] max_buffer_size the limit in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support the task.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_lz4_stream_get_max_buf_size(
	const struct doca_devinfo *devinfo, uint64_t *max_buffer_size);

/**
 * @brief The largest number of elements a source or destination buffer list may have in one
 * decompress LZ4 stream task (1: lists are not supported).
 * @param [in] devinfo the device.
 * @param [out] max_buf_list_len the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support the task.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_lz4_stream_get_max_buf_list_len(
	const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

/**
 * @brief Configures the context's decompress LZ4 stream tasks: the two callbacks and how many
 * tasks exist. Only while the context is IDLE.
 * @param [in] compress the context.
 * @param [in] task_completion_cb called for a task that succeeded.
 * @param [in] task_error_cb called for a task that failed or was flushed.
 * @param [in] num_tasks at least 1; with the other kinds' tasks at most
 * doca_compress_cap_get_max_num_tasks().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or callback or a number out of
 * range; DOCA_ERROR_NOT_SUPPORTED if the device does not support the task (BlueField-2);
 * DOCA_ERROR_BAD_STATE if the context is not IDLE, or while tasks of the previous configuration
 * are still allocated.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_decompress_lz4_stream_set_conf(
	struct doca_compress *compress,
	doca_compress_task_decompress_lz4_stream_completion_cb_t task_completion_cb,
	doca_compress_task_decompress_lz4_stream_completion_cb_t task_error_cb,
	uint32_t num_tasks);

/**
 * @brief Takes a decompress LZ4 stream task from the context's pool and sets its stream flags,
 * buffers and user data. The buffers are checked when the task executes.
 * @param [in] compress a RUNNING context.
 * @param [in] has_block_checksum 1 (any non-zero value) if every block is followed by its 4-byte
 * checksum, else 0: the frame descriptor's block checksum flag.
 * @param [in] are_blocks_independent 1 (any non-zero value) if no block refers to the data of the
 * blocks before it, else 0: the frame descriptor's block independence flag.
 * @param [in] src_buff the source buffer (its data is the blocks).
 * @param [in] dst_buff the destination buffer (the decompressed data goes after its data).
 * @param [in] user_data the task's user data.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE if the
 * context is not RUNNING; DOCA_ERROR_NO_MEMORY when every task is allocated (or none is
 * configured).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_task_decompress_lz4_stream_alloc_init(struct doca_compress *compress,
						    uint8_t has_block_checksum,
						    uint8_t are_blocks_independent,
						    struct doca_buf const *src_buff,
						    struct doca_buf *dst_buff,
						    union doca_data user_data,
						    struct doca_compress_task_decompress_lz4_stream **task);

/**
 * @brief A decompress LZ4 stream task as a generic task (doca_pe.h), for doca_task_submit() and
 * friends.
 * @param [in] task the task.
 * @return the task, or NULL for a NULL or invalid one.
 */
DOCA_EXPERIMENTAL struct doca_task *
doca_compress_task_decompress_lz4_stream_as_task(struct doca_compress_task_decompress_lz4_stream *task);

/**
 * @brief Sets whether every block of a decompress LZ4 stream task's input is followed by its
 * checksum (not while the task is in flight: then refused with a log line).
 * @param [in] task the task.
 * @param [in] has_block_checksum 1 (any non-zero value) or 0.
 */
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_stream_set_has_block_checksum(struct doca_compress_task_decompress_lz4_stream *task,
								uint8_t has_block_checksum);

/**
 * @brief Whether every block of a decompress LZ4 stream task's input is followed by its checksum.
 * @param [in] task the task.
 * @return 1 or 0 (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint8_t doca_compress_task_decompress_lz4_stream_get_has_block_checksum(
	const struct doca_compress_task_decompress_lz4_stream *task);

/**
 * @brief Sets whether the blocks of a decompress LZ4 stream task's input are independent (not
 * while the task is in flight: then refused with a log line).
 * @param [in] task the task.
 * @param [in] are_blocks_independent 1 (any non-zero value) or 0.
 */
DOCA_EXPERIMENTAL void doca_compress_task_decompress_lz4_stream_set_are_blocks_independent(
	struct doca_compress_task_decompress_lz4_stream *task, uint8_t are_blocks_independent);

/**
 * @brief Whether the blocks of a decompress LZ4 stream task's input are independent.
 * @param [in] task the task.
 * @return 1 or 0 (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint8_t doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(
	const struct doca_compress_task_decompress_lz4_stream *task);

/**
 * @brief Sets a decompress LZ4 stream task's source buffer (not while the task is in flight: then
 * refused with a log line; so is a NULL or invalid buffer).
 * @param [in] task the task.
 * @param [in] src_buff the source buffer.
 */
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_stream_set_src(struct doca_compress_task_decompress_lz4_stream *task,
						 struct doca_buf const *src_buff);

/**
 * @brief A decompress LZ4 stream task's source buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf const *
doca_compress_task_decompress_lz4_stream_get_src(const struct doca_compress_task_decompress_lz4_stream *task);

/**
 * @brief Sets a decompress LZ4 stream task's destination buffer (not while the task is in flight:
 * then refused with a log line; so is a NULL or invalid buffer).
 * @param [in] task the task.
 * @param [in] dst_buff the destination buffer.
 */
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_stream_set_dst(struct doca_compress_task_decompress_lz4_stream *task,
						 struct doca_buf *dst_buff);

/**
 * @brief A decompress LZ4 stream task's destination buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf *
doca_compress_task_decompress_lz4_stream_get_dst(const struct doca_compress_task_decompress_lz4_stream *task);

/**
 * @brief The CRC-32 (zlib's crc32()) of the data a decompress LZ4 stream task produced. Valid
 * after the task completed successfully.
 * @param [in] task the task.
 * @return the checksum (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_lz4_stream_get_crc_cs(const struct doca_compress_task_decompress_lz4_stream *task);

/**
 * @brief The XXH32 (seed 0) of the data a decompress LZ4 stream task produced, byte-swapped as
 * DOCA reports it (the frame's content checksum read as a little-endian word, after htobe32()).
 * Valid after the task completed successfully.
 * @param [in] task the task.
 * @return the checksum (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_lz4_stream_get_xxh_cs(const struct doca_compress_task_decompress_lz4_stream *task);

/* ---------------------------------------------------------------------------------------------
 * Decompress LZ4 block task: one compressed LZ4 block alone (BlueField-3 only)
 * ------------------------------------------------------------------------------------------- */

/**
 * @brief Completion (and error) callback of decompress LZ4 block tasks, called inside
 * doca_pe_progress(). The task is the program's again: it may free it, submit it again or keep it.
 * @param [in] task the task that completed; doca_task_get_status() says how.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data (doca_ctx_set_user_data()).
 */
typedef void (*doca_compress_task_decompress_lz4_block_completion_cb_t)(
	struct doca_compress_task_decompress_lz4_block *task,
	union doca_data task_user_data,
	union doca_data ctx_user_data);

/**
 * @brief Whether a device supports decompress LZ4 block tasks (BlueField-3: yes; BlueField-2: no).
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS if it does; DOCA_ERROR_NOT_SUPPORTED if not; DOCA_ERROR_INVALID_VALUE for a
 * NULL or invalid devinfo.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_task_decompress_lz4_block_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest source data, and destination buffer, of one decompress LZ4 block task:
 * 128 MiB.
 * @param [in] devinfo the device.
 * @param [out] max_buffer_size the limit in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support the task.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_lz4_block_get_max_buf_size(
	const struct doca_devinfo *devinfo, uint64_t *max_buffer_size);

/**
 * @brief The largest number of elements a source or destination buffer list may have in one
 * decompress LZ4 block task (1: lists are not supported).
 * @param [in] devinfo the device.
 * @param [out] max_buf_list_len the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED if
 * the device does not support the task.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_lz4_block_get_max_buf_list_len(
	const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

/**
 * @brief Configures the context's decompress LZ4 block tasks: the two callbacks and how many
 * tasks exist. Only while the context is IDLE.
 * @param [in] compress the context.
 * @param [in] task_completion_cb called for a task that succeeded.
 * @param [in] task_error_cb called for a task that failed or was flushed.
 * @param [in] num_tasks at least 1; with the other kinds' tasks at most
 * doca_compress_cap_get_max_num_tasks().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or callback or a number out of
 * range; DOCA_ERROR_NOT_SUPPORTED if the device does not support the task (BlueField-2);
 * DOCA_ERROR_BAD_STATE if the context is not IDLE, or while tasks of the previous configuration
 * are still allocated.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_decompress_lz4_block_set_conf(
	struct doca_compress *compress,
	doca_compress_task_decompress_lz4_block_completion_cb_t task_completion_cb,
	doca_compress_task_decompress_lz4_block_completion_cb_t task_error_cb,
	uint32_t num_tasks);

/**
 * @brief Takes a decompress LZ4 block task from the context's pool and sets its buffers and user
 * data. The buffers are checked when the task executes.
 * @param [in] compress a RUNNING context.
 * @param [in] src_buff the source buffer (its data is one compressed block).
 * @param [in] dst_buff the destination buffer (the decompressed data goes after its data).
 * @param [in] user_data the task's user data.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE if the
 * context is not RUNNING; DOCA_ERROR_NO_MEMORY when every task is allocated (or none is
 * configured).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_compress_task_decompress_lz4_block_alloc_init(struct doca_compress *compress,
						   struct doca_buf const *src_buff,
						   struct doca_buf *dst_buff,
						   union doca_data user_data,
						   struct doca_compress_task_decompress_lz4_block **task);

/**
 * @brief A decompress LZ4 block task as a generic task (doca_pe.h), for doca_task_submit() and
 * friends.
 * @param [in] task the task.
 * @return the task, or NULL for a NULL or invalid one.
 */
DOCA_EXPERIMENTAL struct doca_task *
doca_compress_task_decompress_lz4_block_as_task(struct doca_compress_task_decompress_lz4_block *task);

/**
 * @brief Sets a decompress LZ4 block task's source buffer (not while the task is in flight: then
 * refused with a log line; so is a NULL or invalid buffer).
 * @param [in] task the task.
 * @param [in] src_buff the source buffer.
 */
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_block_set_src(struct doca_compress_task_decompress_lz4_block *task,
						struct doca_buf const *src_buff);

/**
 * @brief A decompress LZ4 block task's source buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf const *
doca_compress_task_decompress_lz4_block_get_src(const struct doca_compress_task_decompress_lz4_block *task);

/**
 * @brief Sets a decompress LZ4 block task's destination buffer (not while the task is in flight:
 * then refused with a log line; so is a NULL or invalid buffer).
 * @param [in] task the task.
 * @param [in] dst_buff the destination buffer.
 */
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_block_set_dst(struct doca_compress_task_decompress_lz4_block *task,
						struct doca_buf *dst_buff);

/**
 * @brief A decompress LZ4 block task's destination buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL for a NULL or invalid task.
 */
DOCA_EXPERIMENTAL struct doca_buf *
doca_compress_task_decompress_lz4_block_get_dst(const struct doca_compress_task_decompress_lz4_block *task);

/**
 * @brief The CRC-32 (zlib's crc32()) of the data a decompress LZ4 block task produced. Valid after
 * the task completed successfully.
 * @param [in] task the task.
 * @return the checksum (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_lz4_block_get_crc_cs(const struct doca_compress_task_decompress_lz4_block *task);

/**
 * @brief The XXH32 (seed 0) of the data a decompress LZ4 block task produced, byte-swapped as
 * DOCA reports it (as doca_compress_task_decompress_lz4_stream_get_xxh_cs()). Valid after the task
 * completed successfully.
 * @param [in] task the task.
 * @return the checksum (0 for a NULL or invalid task).
 */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_lz4_block_get_xxh_cs(const struct doca_compress_task_decompress_lz4_block *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMPRESS_H_ */
