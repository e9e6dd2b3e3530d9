// SPDX-License-Identifier: Apache-2.0
//
// `struct doca_buf` (include/doca_buf.h): a descriptor of [head, head + len) inside a started
// doca_mmap with a data window [data, data + data_len) inside it. Descriptors live in their
// doca_buf_inventory's pool for the inventory's whole life; a descriptor is "in use" while its
// reference count is non-zero. Lists are doubly linked through prev_/next_; only a head
// (prev_ == nullptr) carries a meaningful count, the other elements keep 1.
//
// Not thread-safe (DOCA documents none for bufs).
#pragma once

#include <doca_error.h>

#include <cstddef>
#include <cstdint>

#include "common/object_tag.hpp"
#include "common/visibility.hpp"

struct doca_mmap;
struct doca_buf_inventory;

struct doca_buf {
    doca_buf() noexcept = default;
    doca_buf(const doca_buf &) = delete;
    doca_buf &operator=(const doca_buf &) = delete;

    softcomch::object_tag tag_{softcomch::object_kind::buf};

    // ---- accessors (for the Comch fast path and the C API) ----
    void *head() const noexcept { return head_; }
    size_t len() const noexcept { return len_; }
    void *data() const noexcept { return data_; }
    size_t data_len() const noexcept { return data_len_; }
    doca_mmap *mmap() const noexcept { return mmap_; }
    doca_buf_inventory *inventory() const noexcept { return inv_; }
    uint16_t refcount() const noexcept { return refcount_; }
    // False once the descriptor went back to its inventory (a stale pointer).
    bool in_use() const noexcept { return refcount_ != 0; }
    doca_buf *next() const noexcept { return next_; }
    doca_buf *prev() const noexcept { return prev_; }
    bool is_head() const noexcept { return prev_ == nullptr; }
    bool is_last() const noexcept { return next_ == nullptr; }
    bool in_list() const noexcept { return prev_ != nullptr || next_ != nullptr; }
    const doca_buf *list_head() const noexcept;
    SOFTCOMCH_API doca_buf *last() noexcept;
    SOFTCOMCH_API uint32_t list_len() const noexcept;
    // True if [p, p + n) lies inside this buffer.
    bool covers(const void *p, size_t n) const noexcept;

    // ---- operations (arguments already checked for NULL and tags; these log their refusals) ----
    SOFTCOMCH_API doca_error_t inc_refcount(uint16_t *before);
    SOFTCOMCH_API doca_error_t dec_refcount(uint16_t *before);
    SOFTCOMCH_API doca_error_t set_data(void *data, size_t data_len);
    SOFTCOMCH_API doca_error_t set_data_len(size_t data_len);
    void reset_data_len() noexcept { data_len_ = 0; }
    // chain_list / chain_list_tail (tail1 == nullptr: walk the list).
    SOFTCOMCH_API static doca_error_t chain(const char *func, doca_buf *head1, doca_buf *tail1,
                                            doca_buf *head2);
    SOFTCOMCH_API static doca_error_t unchain(doca_buf *head1, doca_buf *elem);

private:
    friend struct doca_buf_inventory;

    doca_buf_inventory *inv_ = nullptr;
    doca_mmap *mmap_ = nullptr;
    uint8_t *head_ = nullptr;
    size_t len_ = 0;
    uint8_t *data_ = nullptr;
    size_t data_len_ = 0;
    uint16_t refcount_ = 0;
    doca_buf *prev_ = nullptr;
    doca_buf *next_ = nullptr;
    doca_buf *free_next_ = nullptr; // link in the inventory's free list
};
