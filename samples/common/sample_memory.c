// SPDX-License-Identifier: Apache-2.0
#include "sample_memory.h"

#include <stdlib.h>
#include <string.h>

#include <doca_log.h>

DOCA_LOG_REGISTER(SAMPLES::MEMORY);

doca_error_t sample_memory_init(struct sample_memory *m, struct doca_dev *dev, size_t len, uint32_t num_bufs)
{
	size_t page = 4096;
	size_t alloc_len = (len + page - 1) / page * page;
	doca_error_t result;

	memset(m, 0, sizeof(*m));
	m->addr = aligned_alloc(page, alloc_len);
	if (m->addr == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memset(m->addr, 0, alloc_len); // touch every page now, not while messages arrive
	m->len = len;

	result = doca_buf_inventory_create(num_bufs, &m->inventory);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_start(m->inventory);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot set up a buffer inventory: %s", doca_error_get_name(result));
		return result;
	}
	result = doca_mmap_create(&m->mmap);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_add_dev(m->mmap, dev);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_permissions(m->mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_memrange(m->mmap, m->addr, m->len);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(m->mmap);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot register %zu bytes with an mmap: %s", len, doca_error_get_name(result));
	return result;
}

void sample_memory_fini(struct sample_memory *m)
{
	doca_error_t result;

	if (m->mmap != NULL) {
		result = doca_mmap_destroy(m->mmap);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the mmap: %s", doca_error_get_name(result));
	}
	if (m->inventory != NULL) {
		result = doca_buf_inventory_destroy(m->inventory);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the buffer inventory: %s", doca_error_get_name(result));
	}
	free(m->addr);
	memset(m, 0, sizeof(*m));
}
