/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_error.h
 * @brief The DOCA error codes and their names and descriptions.
 */
#ifndef DOCA_ERROR_H_
#define DOCA_ERROR_H_

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Branch-prediction hints used by DOCA code and programs. */
#ifdef __GNUC__
#define doca_likely(x)   __builtin_expect(!!(x), 1)
#define doca_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define doca_likely(x)   (x)
#define doca_unlikely(x) (x)
#endif

/** @brief Result of every DOCA call that can fail. Values are DOCA's and never change. */
typedef enum doca_error {
	DOCA_SUCCESS = 0,                      /**< Success. */
	DOCA_ERROR_UNKNOWN = 1,                /**< Failure with no more specific code. */
	DOCA_ERROR_NOT_PERMITTED = 2,          /**< The operation is not allowed here. */
	DOCA_ERROR_IN_USE = 3,                 /**< The resource is busy or still referenced. */
	DOCA_ERROR_NOT_SUPPORTED = 4,          /**< The device or object cannot do this. */
	DOCA_ERROR_AGAIN = 5,                  /**< Temporarily unavailable: progress and retry. */
	DOCA_ERROR_INVALID_VALUE = 6,          /**< An argument is invalid. */
	DOCA_ERROR_NO_MEMORY = 7,              /**< Allocation failed or a pool is exhausted. */
	DOCA_ERROR_INITIALIZATION = 8,         /**< Setting up a resource failed. */
	DOCA_ERROR_TIME_OUT = 9,               /**< Waited too long. */
	DOCA_ERROR_SHUTDOWN = 10,              /**< Shut down or shutting down. */
	DOCA_ERROR_CONNECTION_RESET = 11,      /**< The peer reset the connection. */
	DOCA_ERROR_CONNECTION_ABORTED = 12,    /**< The connection failed or was torn down. */
	DOCA_ERROR_CONNECTION_INPROGRESS = 13, /**< The connection is not established yet. */
	DOCA_ERROR_NOT_CONNECTED = 14,         /**< Not connected (or context not attached to a PE). */
	DOCA_ERROR_NO_LOCK = 15,               /**< A lock could not be taken. */
	DOCA_ERROR_NOT_FOUND = 16,             /**< No such resource. */
	DOCA_ERROR_IO_FAILED = 17,             /**< Input/output failed. */
	DOCA_ERROR_BAD_STATE = 18,             /**< The object is in the wrong state for this call. */
	DOCA_ERROR_UNSUPPORTED_VERSION = 19,   /**< Version mismatch. */
	DOCA_ERROR_OPERATING_SYSTEM = 20,      /**< A system call failed. */
	DOCA_ERROR_DRIVER = 21,                /**< A driver call failed. */
	DOCA_ERROR_UNEXPECTED = 22,            /**< Internal inconsistency. */
	DOCA_ERROR_ALREADY_EXIST = 23,         /**< The resource already exists. */
	DOCA_ERROR_FULL = 24,                  /**< No space left. */
	DOCA_ERROR_EMPTY = 25,                 /**< Nothing available. */
	DOCA_ERROR_IN_PROGRESS = 26,           /**< Started; it completes asynchronously. */
	DOCA_ERROR_TOO_BIG = 27,               /**< The request is too large. */
	DOCA_ERROR_AUTHENTICATION = 28,        /**< Authentication failed. */
	DOCA_ERROR_BAD_CONFIG = 29,            /**< The configuration is invalid. */
	DOCA_ERROR_SKIPPED = 30,               /**< Result valid, but earlier output was dropped. */
} doca_error_t;

/** @brief True when @p r is not DOCA_SUCCESS. */
#define DOCA_IS_ERROR(r) doca_unlikely((r) != DOCA_SUCCESS)

/** @brief Keeps the first error: assigns @p t to @p r only while @p r is DOCA_SUCCESS. */
#define DOCA_ERROR_PROPAGATE(r, t)       \
	do {                             \
		if ((r) == DOCA_SUCCESS) \
			(r) = (t);       \
	} while (0)

/**
 * @brief The enumerator's name, e.g. "DOCA_ERROR_INVALID_VALUE".
 * @param [in] error any value.
 * @return a static string; "unrecognized error code" for values outside the enum.
 */
DOCA_STABLE const char *doca_error_get_name(doca_error_t error);

/**
 * @brief A short description, e.g. "Invalid input".
 * @param [in] error any value.
 * @return a static string; "unrecognized error code" for values outside the enum.
 */
DOCA_STABLE const char *doca_error_get_descr(doca_error_t error);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ERROR_H_ */
