/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_types.h
 * @brief Types shared by all DOCA libraries.
 */
#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stdint.h>
#ifdef __linux__
#include <linux/types.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @brief A pollable handle; on Linux a file descriptor usable with epoll. */
typedef int doca_event_handle_t;
/** @brief The value of a handle that refers to nothing. */
#define doca_event_invalid_handle -1

/** @brief Length of a GID in bytes. */
#define DOCA_GID_BYTE_LENGTH 16

/** @brief The handle returned by doca_pe_get_notification_handle(). */
typedef doca_event_handle_t doca_notification_handle_t;

/** @brief Opaque user data carried through callbacks. */
union doca_data {
	void *ptr;    /**< as a pointer */
	uint64_t u64; /**< as a 64-bit value */
};

/** @brief A linked list of memory areas. */
struct doca_gather_list {
	void *addr;                    /**< start of the area */
	uint64_t len;                  /**< length in bytes */
	struct doca_gather_list *next; /**< next area, NULL at the end */
};

/** @brief Access rights of a memory map. PCI_READ_ONLY and PCI_READ_WRITE exclude each other. */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),
};

/** @brief Kind of a PCI function. */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0, /**< physical function */
	DOCA_PCI_FUNC_TYPE_VF,     /**< virtual function */
	DOCA_PCI_FUNC_TYPE_SF,     /**< sub-function */
};

#ifdef __linux__
typedef __be16 doca_be16_t; /**< big-endian 16-bit value */
typedef __be32 doca_be32_t; /**< big-endian 32-bit value */
typedef __be64 doca_be64_t; /**< big-endian 64-bit value */
#endif

/** @brief GPU memory kinds (no GPU is emulated; kept for source compatibility). */
enum doca_gpu_mem_type {
	DOCA_GPU_MEM_TYPE_GPU = 0,
	DOCA_GPU_MEM_TYPE_GPU_CPU = 1,
	DOCA_GPU_MEM_TYPE_CPU_GPU = 2,
};

/** @brief Ethernet wait-on-time kinds (kept for source compatibility). */
enum doca_eth_wait_on_time_type {
	DOCA_ETH_WAIT_ON_TIME_TYPE_NONE = 0,
	DOCA_ETH_WAIT_ON_TIME_TYPE_NATIVE = 1,
	DOCA_ETH_WAIT_ON_TIME_TYPE_DPDK = 2,
};

/** @brief MTU sizes (kept for source compatibility). */
enum doca_mtu_size {
	DOCA_MTU_SIZE_256_BYTES = 0x0,
	DOCA_MTU_SIZE_512_BYTES = 0x1,
	DOCA_MTU_SIZE_1K_BYTES = 0x2,
	DOCA_MTU_SIZE_2K_BYTES = 0x3,
	DOCA_MTU_SIZE_4K_BYTES = 0x4,
	DOCA_MTU_SIZE_RAW_ETHERNET = 0x5,
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
