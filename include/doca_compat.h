/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_compat.h
 * @brief Symbol-lifecycle attributes of the DOCA API (SoftComch implementation).
 *
 * Every DOCA function carries one of three tags:
 * - DOCA_STABLE: kept for the whole major version.
 * - DOCA_EXPERIMENTAL: may change or disappear; using it warns unless the program defines
 *   DOCA_ALLOW_EXPERIMENTAL_API (as NVIDIA's sample builds do).
 * - DOCA_DEPRECATED: scheduled for removal; using it warns unless the program defines
 *   DOCA_ALLOW_DEPRECATED_API.
 */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#include <doca_config.h>

#define DOCA_USED __attribute__((used))

#define DOCA_STABLE __attribute__((visibility("default"))) DOCA_USED

#ifndef DOCA_ALLOW_EXPERIMENTAL_API
#define DOCA_EXPERIMENTAL \
	__attribute__((deprecated("Symbol is defined as experimental"), section(".text.experimental"))) DOCA_STABLE
#else
#define DOCA_EXPERIMENTAL __attribute__((section(".text.experimental"))) DOCA_STABLE
#endif

#ifndef DOCA_ALLOW_DEPRECATED_API
#define DOCA_DEPRECATED \
	__attribute__((deprecated("Symbol is defined as deprecated"), section(".text.deprecated"))) DOCA_STABLE
#else
#define DOCA_DEPRECATED __attribute__((section(".text.deprecated"))) DOCA_STABLE
#endif

#ifdef DOCA_COMPAT_HELPERS
/*
 * Like DOCA's own header, doca_compat.h brings in the C headers below and the version header, and
 * defines the versioned-struct helpers. Programs written against DOCA (NVIDIA's samples among
 * them) use strcpy()/strlen() without including <string.h> themselves and build only because of
 * this.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <doca_version.h>

/** First member of a versioned DOCA struct: the API version it was built with. */
#define DOCA_STRUCT_START size_t __doca_api_version
/** The API version recorded in versioned struct @p x. */
#define DOCA_STRUCT_GET_VERSION(x) ((x)->__doca_api_version)
/** Initialiser of a versioned struct variable @p x. */
#define DOCA_STRUCT_CTOR(x) (x).__doca_api_version = DOCA_VERSION_EXACT
/** Initialiser of a versioned struct through pointer @p x. */
#define DOCA_STRUCT_PTR_CTOR(x) (x)->__doca_api_version = DOCA_VERSION_EXACT
/** Zeroes versioned struct @p x, then records the version. */
#define DOCA_STRUCT_MEMSET_CTOR(x)          \
	do {                                \
		memset(&(x), 0, sizeof(x)); \
		DOCA_STRUCT_CTOR(x);        \
	} while (0)
/** Zeroes versioned struct *@p x, then records the version. */
#define DOCA_STRUCT_PTR_MEMSET_CTOR(x)        \
	do {                                  \
		memset((x), 0, sizeof(*(x))); \
		DOCA_STRUCT_PTR_CTOR(x);      \
	} while (0)
#endif /* DOCA_COMPAT_HELPERS */

#endif /* DOCA_COMPAT_H_ */
