/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_buf.h
 * @brief DOCA buffers: descriptors of memory inside a started doca_mmap.
 *
 * A buf describes a buffer [head, head + len) inside its map's memory range and, inside the
 * buffer, a data window [data, data + data_len). Bufs come from a doca_buf_inventory
 * (doca_buf_inventory.h) with a reference count of 1 and go back to it when the count drops to 0.
 *
 * Bufs can be chained into lists (scatter/gather). Only the first element (the head) carries a
 * meaningful reference count and may be passed to the reference-count and list-wide calls;
 * the other elements always have a count of 1, and releasing the head releases the whole list.
 *
 * Thread safety: one thread at a time per buf (or list).
 */
#ifndef DOCA_BUF_H_
#define DOCA_BUF_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;

/**
 * @brief Adds a reference to a buf (list head).
 * @param [in] buf the buf.
 * @param [out] refcount if not NULL, the count before this call.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not a buf;
 * DOCA_ERROR_BAD_STATE if the buf was already released; DOCA_ERROR_NOT_PERMITTED if @p buf is a
 * list element other than the head; DOCA_ERROR_TOO_BIG if the count is already UINT16_MAX.
 */
DOCA_STABLE doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount);

/**
 * @brief Drops a reference to a buf (list head). At 0 every element of the list goes back to its
 * inventory.
 * @param [in] buf the buf.
 * @param [out] refcount if not NULL, the count before this call.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an object that is not a buf;
 * DOCA_ERROR_BAD_STATE if the count is already 0 (the buf was released);
 * DOCA_ERROR_NOT_PERMITTED if @p buf is a list element other than the head.
 */
DOCA_STABLE doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount);

/**
 * @brief Reads the reference count.
 * @param [in] buf the buf.
 * @param [out] refcount the count.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount);

/**
 * @brief The length of the buffer (not of its data).
 * @param [in] buf the buf.
 * @param [out] len the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);

/**
 * @brief The start of the buffer.
 * @param [in] buf the buf.
 * @param [out] head the address.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);

/**
 * @brief The length of the data window.
 * @param [in] buf the buf.
 * @param [out] data_len the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);

/**
 * @brief The start of the data window.
 * @param [in] buf the buf.
 * @param [out] data the address.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);

/**
 * @brief Sets the data window. It must lie inside the buffer: DOCA leaves a window outside it
 * undefined, SoftComch refuses it.
 * @param [in] buf the buf.
 * @param [in] data the start of the window.
 * @param [in] data_len its length.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a window outside the buffer.
 */
DOCA_STABLE doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);

/**
 * @brief Sets the length of the data window, keeping its start. The window must stay inside the
 * buffer (SoftComch refuses it otherwise).
 * @param [in] buf the buf.
 * @param [in] data_len the new length.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a window outside the buffer.
 */
DOCA_STABLE doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len);

/**
 * @brief Empties the data window (data_len = 0), keeping its start.
 * @param [in] buf the buf.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);

/**
 * @brief The element after @p buf in its list.
 * @param [in] buf the buf.
 * @param [out] next_buf the next element, or NULL for the last one.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf);

/**
 * @brief The last element of the list @p buf belongs to (@p buf itself if it is the last).
 * @param [in] buf the buf.
 * @param [out] last_buf the last element.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf);

/**
 * @brief Whether @p buf is the last element of its list (a lone buf is).
 * @param [in] buf the buf.
 * @param [out] is_last 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last);

/**
 * @brief Whether @p buf is the first element (head) of its list (a lone buf is).
 * @param [in] buf the buf.
 * @param [out] is_first 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first);

/**
 * @brief Whether @p buf is part of a list of two or more elements.
 * @param [in] buf the buf.
 * @param [out] is_in_list 1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_STABLE doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list);

/**
 * @brief The number of elements in the list @p buf heads (1 for a lone buf).
 * @param [in] buf a list head.
 * @param [out] num_elements the number.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_PERMITTED if
 * @p buf is not a head.
 */
DOCA_STABLE doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements);

/**
 * @brief Appends list @p list2 to the end of list @p list1.
 * @param [in] list1 head of the first list.
 * @param [in] list2 head of the list to append; its reference count must be 1.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, or when both are the same list;
 * DOCA_ERROR_NOT_PERMITTED if either is not a head or @p list2's count is not 1;
 * DOCA_ERROR_BAD_STATE if a buf was already released.
 */
DOCA_STABLE doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2);

/**
 * @brief Like doca_buf_chain_list(), with the last element of the first list supplied by the
 * caller (saves walking the list).
 * @param [in] list1_head head of the first list.
 * @param [in] list1_tail its last element.
 * @param [in] list2 head of the list to append; its reference count must be 1.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, when both are the same list, or when
 * @p list1_tail is not the last element of @p list1_head's list; DOCA_ERROR_NOT_PERMITTED if
 * @p list1_head or @p list2 is not a head or @p list2's count is not 1; DOCA_ERROR_BAD_STATE if a
 * buf was already released.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1_head,
							struct doca_buf *list1_tail,
							struct doca_buf *list2);

/**
 * @brief Splits a list before @p list2: @p list1 keeps the elements before it, and @p list2
 * becomes the head of a list of the rest, with a reference count of 1.
 * @param [in] list1 head of the list.
 * @param [in] list2 an element of that list other than its head.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or when @p list2 is not an element of
 * @p list1's list after the head; DOCA_ERROR_NOT_PERMITTED if @p list1 is not a head;
 * DOCA_ERROR_BAD_STATE if a buf was already released.
 */
DOCA_STABLE doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
