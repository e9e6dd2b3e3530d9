/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_config.h
 * @brief Build configuration of the DOCA headers: the side (host or DPU) from doca_build_config.h,
 * and whether the helper includes of doca_compat.h are wanted.
 */
#ifndef DOCA_CONFIG_H_
#define DOCA_CONFIG_H_

#include <doca_build_config.h>

/* Device (DPA) code gets the bare attributes only; everything else gets the helpers. */
#ifndef DOCA_DPA_DEVICE
#define DOCA_COMPAT_HELPERS
#endif

#endif /* DOCA_CONFIG_H_ */
