/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_buf_inventory.h
 * @brief DOCA buf inventories: pools of doca_buf descriptors.
 *
 * An inventory holds a fixed number of descriptors (grown only by doca_buf_inventory_expand()).
 * Once started, doca_buf_inventory_buf_get_by_args() (or the by_addr / by_data shorthands) fills
 * a free descriptor to describe memory inside a started doca_mmap; the buf goes back to the pool
 * when its reference count drops to 0 (doca_buf_dec_refcount()). Bufs of one inventory may
 * describe memory of any number of maps.
 *
 * Thread safety: one thread at a time per inventory.
 */
#ifndef DOCA_BUF_INVENTORY_H_
#define DOCA_BUF_INVENTORY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_mmap;
struct doca_buf_inventory;

/**
 * @brief Creates an unstarted inventory.
 * @param [in] num_elements number of descriptors (1 to UINT32_MAX).
 * @param [out] inventory the new inventory.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a count of 0 or above UINT32_MAX;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory);

/**
 * @brief Destroys an inventory, stopping it first if needed.
 * @param [in] inventory the inventory.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not an inventory;
 * DOCA_ERROR_IN_USE while bufs taken from it have not been released.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);

/**
 * @brief Starts an inventory: its descriptors are allocated and bufs may be taken from it.
 * @param [in] inventory the inventory.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not an inventory;
 * DOCA_ERROR_BAD_STATE if it is already started; DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);

/**
 * @brief Stops an inventory. It may be started again.
 * @param [in] inventory the inventory.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not an inventory;
 * DOCA_ERROR_BAD_STATE if it is not started; DOCA_ERROR_IN_USE while bufs taken from it have not
 * been released.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);

/**
 * @brief Takes a free descriptor and makes it describe the buffer [addr, addr + len) with the
 * data window [data, data + data_len). The result has a reference count of 1.
 * @param [in] inventory a started inventory.
 * @param [in] mmap a started map whose memory range contains the buffer.
 * @param [in] addr the start of the buffer.
 * @param [in] len the length of the buffer.
 * @param [in] data the start of the data window (inside the buffer).
 * @param [in] data_len the length of the data window (the window must end inside the buffer).
 * @param [out] buf the buf.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments, objects of the wrong kind, a
 * buffer outside the map's memory range or a data window outside the buffer;
 * DOCA_ERROR_BAD_STATE if the inventory or the map is not started; DOCA_ERROR_NO_MEMORY if
 * every descriptor is in use.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
							    struct doca_mmap *mmap,
							    void *addr,
							    size_t len,
							    void *data,
							    size_t data_len,
							    struct doca_buf **buf);

/**
 * @brief Takes a buf describing the buffer [addr, addr + len) with an empty data window at its
 * start (the usual form for a destination buffer).
 * @param [in] inventory a started inventory.
 * @param [in] mmap a started map whose memory range contains the buffer.
 * @param [in] addr the start of the buffer.
 * @param [in] len the length of the buffer.
 * @param [out] buf the buf.
 * @return as doca_buf_inventory_buf_get_by_args().
 */
static inline doca_error_t doca_buf_inventory_buf_get_by_addr(
	struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr, size_t len, struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

/**
 * @brief Takes a buf whose buffer and data window are both [data, data + data_len) (the usual
 * form for a source buffer).
 * @param [in] inventory a started inventory.
 * @param [in] mmap a started map whose memory range contains the data.
 * @param [in] data the start of the data.
 * @param [in] data_len its length.
 * @param [out] buf the buf.
 * @return as doca_buf_inventory_buf_get_by_args().
 */
static inline doca_error_t doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap,
							      void *data,
							      size_t data_len,
							      struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len, buf);
}

/**
 * @brief Points a buf the program holds at another range of its mmap, with an empty data window,
 * without returning it to its inventory (DOCA 3.2).
 * @param [in] buf a buf in use, not part of a list.
 * @param [in] addr the new buffer's start, inside the buf's mmap.
 * @param [in] len its length.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a range outside the mmap;
 * DOCA_ERROR_BAD_STATE for a released buf; DOCA_ERROR_NOT_PERMITTED for a buf in a list.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_reuse_by_addr(struct doca_buf *buf, void *addr, size_t len);

/**
 * @brief As doca_buf_inventory_buf_reuse_by_addr(), the whole new range being data (DOCA 3.2).
 * @param [in] buf a buf in use, not part of a list.
 * @param [in] data the start of the data, inside the buf's mmap.
 * @param [in] data_len its length.
 * @return as doca_buf_inventory_buf_reuse_by_addr().
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_reuse_by_data(struct doca_buf *buf, void *data, size_t data_len);

/**
 * @brief Takes new descriptors that describe the same memory as @p src_buf and its list
 * (buffer, data window and chaining are copied; the bytes are not). The copy is a new list with
 * a reference count of 1.
 * @param [in] inventory a started inventory with enough free descriptors for the whole list.
 * @param [in] src_buf a list head.
 * @param [out] dst_buf the head of the copy.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or objects of the wrong kind;
 * DOCA_ERROR_NOT_PERMITTED if @p src_buf is not a list head; DOCA_ERROR_BAD_STATE if the
 * inventory is not started or @p src_buf was released; DOCA_ERROR_NO_MEMORY if there are not
 * enough free descriptors.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
						    const struct doca_buf *src_buf,
						    struct doca_buf **dst_buf);

/**
 * @brief Sets the user data.
 * @param [in] inventory the inventory (never started).
 * @param [in] user_data the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE once the
 * inventory has been started.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
							  union doca_data user_data);

/**
 * @brief The total number of descriptors.
 * @param [in] inventory the inventory.
 * @param [out] num_of_elements the number.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
							     uint32_t *num_of_elements);

/**
 * @brief The number of descriptors not currently in use.
 * @param [in] inventory the inventory.
 * @param [out] num_of_free_elements the number.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
								  uint32_t *num_of_free_elements);

/**
 * @brief Reads the user data (zero if never set).
 * @param [in] inventory the inventory.
 * @param [out] user_data the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory,
							  union doca_data *user_data);

/**
 * @brief Adds descriptors to a started inventory.
 * @param [in] inventory the inventory.
 * @param [in] num_elements how many to add (the total must stay within UINT32_MAX).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, 0, or a total above UINT32_MAX;
 * DOCA_ERROR_BAD_STATE if the inventory is not started; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_expand(struct doca_buf_inventory *inventory, uint32_t num_elements);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
