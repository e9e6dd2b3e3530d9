/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_log.h
 * @brief DOCA logging: application and SDK log lines, backends and level limits.
 *
 * Two families of log lines exist and never mix:
 * - application lines, written by the program through the DOCA_LOG_* macros after a
 *   DOCA_LOG_REGISTER(source) in the same file;
 * - SDK lines, written by the DOCA libraries themselves.
 *
 * Each family goes to its own backends (a FILE stream, a file descriptor, a caller-supplied
 * buffer with a flush callback, or syslog). A line reaches a backend when its level lies inside
 * the backend's window. Levels are numbers where a larger number means a more verbose line
 * (CRIT = 20 ... TRACE = 70), and the window is named after DOCA's convention:
 * - the *lower limit* is the most verbose level still written (numerically the largest;
 *   default INFO), and
 * - the *upper limit* is the least verbose level still written (numerically the smallest;
 *   default CRIT).
 * A line of level L is written when upper_limit <= L <= lower_limit. A lower limit of
 * DOCA_LOG_LEVEL_DISABLE silences the backend.
 *
 * Line format: [HH:MM:SS:uuuuuu][<tid>][DOCA][<LVL>][<file>:<line>][<function>] <message>
 * (SDK lines have no [<function>] field); LVL is one of CRT ERR WRN INF DBG TRC.
 *
 * Thread safety: every function may be called from any thread. Each line is written with a
 * single write, so lines of concurrent threads or processes never interleave.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Log levels. A larger value is more verbose. */
enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10, /**< as a limit: write nothing */
	DOCA_LOG_LEVEL_CRIT = 20,    /**< the program cannot continue */
	DOCA_LOG_LEVEL_ERROR = 30,   /**< an operation failed */
	DOCA_LOG_LEVEL_WARNING = 40, /**< something unusual that the program survives */
	DOCA_LOG_LEVEL_INFO = 50,    /**< normal progress */
	DOCA_LOG_LEVEL_DEBUG = 60,   /**< detail for debugging */
	DOCA_LOG_LEVEL_TRACE = 70,   /**< very verbose detail (needs DOCA_LOGGING_ALLOW_TRACE) */
};

/** @brief A log destination. Created by the doca_log_backend_create_* functions; lives until
 * the process exits (there is no destroy call). */
struct doca_log_backend;

/**
 * @brief Called by a buffer backend after each line was copied into its buffer.
 * @param [in] buf the caller's buffer, holding one NUL-terminated log line.
 */
typedef void (*log_flush_callback)(char *buf);

/**
 * @brief Sets the most verbose level @p backend writes (its lower limit).
 * @param [in] backend any backend (application or SDK).
 * @param [in] level a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p backend is NULL or unknown or @p level is
 * outside DOCA_LOG_LEVEL_DISABLE..DOCA_LOG_LEVEL_TRACE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level);

/**
 * @brief Sets the least verbose level @p backend writes (its upper limit).
 * @param [in] backend any backend (application or SDK).
 * @param [in] upper_limit a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p backend is NULL or unknown or
 * @p upper_limit is outside DOCA_LOG_LEVEL_DISABLE..DOCA_LOG_LEVEL_TRACE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
								      uint32_t upper_limit);

/**
 * @brief Pins the lower limit of @p backend: later global changes no longer move it.
 * @param [in] backend any backend.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p backend is NULL or unknown.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend);

/**
 * @brief Pins the upper limit of @p backend: later global changes no longer move it.
 * @param [in] backend any backend.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p backend is NULL or unknown.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend);

/**
 * @brief Sets the lower limit of every application backend whose lower limit is not pinned, and
 * the default of backends created later (the global default is DOCA_LOG_LEVEL_INFO).
 * @param [in] level a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p level is out of range.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t level);

/**
 * @brief Sets the upper limit of every application backend whose upper limit is not pinned, and
 * the default of backends created later (the global default is DOCA_LOG_LEVEL_CRIT).
 * @param [in] upper_limit a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p upper_limit is out of range.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit);

/**
 * @brief The global application lower limit.
 * @return a value of enum doca_log_level.
 */
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void);

/**
 * @brief The global application upper limit.
 * @return a value of enum doca_log_level.
 */
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void);

/**
 * @brief Registers a log source name and returns its identifier. Normally called through
 * DOCA_LOG_REGISTER().
 * @param [in] source_name any NUL-terminated name (it may contain "::"); copied.
 * @param [out] source the new identifier; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source);

/**
 * @brief Forgets a log source registered by doca_log_register_source().
 * @param [in] source the identifier.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p source is not registered.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source);

/**
 * @brief Creates an application backend that writes to a stdio stream.
 * The stream is flushed before each line and stays owned by the caller; it must stay open.
 * @param [in] fptr the stream, e.g. stdout.
 * @param [out] backend the new backend; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);

/**
 * @brief Creates an application backend that writes to a file descriptor (not closed by DOCA).
 * @param [in] fd an open descriptor.
 * @param [out] backend the new backend; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p fd is not an open descriptor or
 * @p backend is NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);

/**
 * @brief Creates an application backend that copies each line into a caller buffer and then
 * calls @p handler with it. Lines longer than @p capacity - 1 bytes are truncated.
 * @param [in] buf the buffer; must stay valid for the life of the process.
 * @param [in] capacity size of @p buf in bytes.
 * @param [in] handler called once per line, on the logging thread.
 * @param [out] backend the new backend; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if a pointer is NULL or @p capacity is 0;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf(char *buf,
								size_t capacity,
								log_flush_callback handler,
								struct doca_log_backend **backend);

/**
 * @brief Creates an application backend that writes to syslog under the identity @p name.
 * @param [in] name the syslog identity; copied.
 * @param [out] backend the new backend; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend);

/**
 * @brief Sets the most verbose SDK level that the SDK backend @p backend writes.
 * @param [in] backend an SDK backend.
 * @param [in] level a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p backend is NULL, unknown or an
 * application backend, or @p level is out of range.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);

/**
 * @brief Creates an SDK backend that writes to a stdio stream (see
 * doca_log_backend_create_with_file()).
 * @param [in] fptr the stream, e.g. stderr.
 * @param [out] backend the new backend; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);

/**
 * @brief Creates an SDK backend that writes to a file descriptor.
 * @param [in] fd an open descriptor.
 * @param [out] backend the new backend; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p fd is not an open descriptor or
 * @p backend is NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend);

/**
 * @brief Creates an SDK backend that copies each line into a caller buffer and calls
 * @p handler (see doca_log_backend_create_with_buf()).
 * @param [in] buf the buffer; must stay valid for the life of the process.
 * @param [in] capacity size of @p buf in bytes.
 * @param [in] handler called once per line.
 * @param [out] backend the new backend; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if a pointer is NULL or @p capacity is 0;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf_sdk(char *buf,
								    size_t capacity,
								    log_flush_callback handler,
								    struct doca_log_backend **backend);

/**
 * @brief Creates an SDK backend that writes to syslog under the identity @p name.
 * @param [in] name the syslog identity; copied.
 * @param [out] backend the new backend; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if an argument is NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
								       struct doca_log_backend **backend);

/**
 * @brief Sets the SDK level of every SDK backend whose lower limit is not pinned, and the default
 * of SDK backends created later (the global default is DOCA_LOG_LEVEL_INFO).
 * @param [in] level a value of enum doca_log_level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE if @p level is out of range.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);

/**
 * @brief The global SDK level.
 * @return a value of enum doca_log_level.
 */
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_sdk_limit(void);

/**
 * @brief Creates the standard pair of application backends: stdout receives lines from INFO up to
 * the global lower limit, stderr receives WARNING and more severe lines (down to the global upper
 * limit). Calling it again has no further effect.
 * @return DOCA_SUCCESS; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void);

/**
 * @brief Writes one application log line. Normally called through the DOCA_LOG_* macros.
 * @param [in] level a level from DOCA_LOG_LEVEL_CRIT to DOCA_LOG_LEVEL_TRACE.
 * @param [in] source an identifier from doca_log_register_source().
 * @param [in] fname the source file (its last path component is printed).
 * @param [in] line the source line.
 * @param [in] func the calling function.
 * @param [in] format printf-style format, followed by its arguments.
 * @return DOCA_SUCCESS (also when no backend takes the line); DOCA_ERROR_INVALID_VALUE if
 * @p format is NULL or @p level is not a message level.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_log(uint32_t level, int source, const char *fname, int line, const char *func, const char *format, ...)
	__attribute__((format(printf, 6, 7)));

/**
 * @brief Logs an application line at @p level (a value of enum doca_log_level).
 * Needs DOCA_LOG_REGISTER() earlier in the same file.
 */
#define DOCA_LOG(level, format, ...) doca_log(level, log_source, __FILE__, __LINE__, __func__, format, ##__VA_ARGS__)

/** @brief Logs a critical application line. */
#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_CRIT, format, ##__VA_ARGS__)
/** @brief Logs an error application line. */
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_ERROR, format, ##__VA_ARGS__)
/** @brief Logs a warning application line. */
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_WARNING, format, ##__VA_ARGS__)
/** @brief Logs an informational application line. */
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_INFO, format, ##__VA_ARGS__)
/** @brief Logs a debug application line. */
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_DEBUG, format, ##__VA_ARGS__)

#ifdef DOCA_LOGGING_ALLOW_TRACE
/** @brief Logs a trace application line (compiled only with DOCA_LOGGING_ALLOW_TRACE). */
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_TRACE, format, ##__VA_ARGS__)
#else
/** @brief Compiled out: define DOCA_LOGGING_ALLOW_TRACE to enable trace lines. */
#define DOCA_LOG_TRC(format, ...) \
	do {                      \
	} while (0)
#endif

/**
 * @brief Declares this file's log source and registers it before main() runs.
 * The argument is turned into a string as written, so names such as SAMPLE::MAIN work.
 * Use once per source file, at file scope.
 */
#define DOCA_LOG_REGISTER(source)                                                                \
	static int log_source;                                                                   \
	static void __attribute__((constructor(101), used)) doca_log_source_register_ctor_(void) \
	{                                                                                        \
		doca_log_register_source(#source, &log_source);                                  \
	}

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
