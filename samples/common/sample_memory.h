// SPDX-License-Identifier: Apache-2.0
//
// Memory for the fast path: one page-aligned, zeroed area registered with an mmap for the Comch
// device (PCI read/write), and a buffer inventory for the doca_bufs over it. Used by the data-path
// samples (comch_data_path_common.c) and by programs/comch_stream.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sample_memory {
	uint8_t *addr; // page aligned, zeroed (so every page is touched before it is used)
	size_t len;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inventory;
};

// Allocates `len` bytes, registers them with a started mmap for `dev`, and starts an inventory of
// `num_bufs` buffers. On failure, what was set up is left in *m for sample_memory_fini().
doca_error_t sample_memory_init(struct sample_memory *m, struct doca_dev *dev, size_t len, uint32_t num_bufs);

// Every doca_buf taken from the inventory must have been released before this.
void sample_memory_fini(struct sample_memory *m);

#ifdef __cplusplus
}
#endif
