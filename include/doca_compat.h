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

#include <doca_build_config.h>

#define DOCA_USED __attribute__((used))

#define DOCA_STABLE __attribute__((visibility("default"))) DOCA_USED

#ifndef DOCA_ALLOW_EXPERIMENTAL_API
#define DOCA_EXPERIMENTAL                                                                          \
	__attribute__((deprecated("Symbol is defined as experimental"), section(".text.experimental"))) \
	DOCA_STABLE
#else
#define DOCA_EXPERIMENTAL __attribute__((section(".text.experimental"))) DOCA_STABLE
#endif

#ifndef DOCA_ALLOW_DEPRECATED_API
#define DOCA_DEPRECATED                                                                            \
	__attribute__((deprecated("Symbol is defined as deprecated"), section(".text.deprecated")))   \
	DOCA_STABLE
#else
#define DOCA_DEPRECATED __attribute__((section(".text.deprecated"))) DOCA_STABLE
#endif

#endif /* DOCA_COMPAT_H_ */
