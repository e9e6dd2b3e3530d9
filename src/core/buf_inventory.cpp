// SPDX-License-Identifier: Apache-2.0
#include "core/buf_inventory.hpp"

#include <cstdint>
#include <limits>

#include "common/log.hpp"
#include "core/mmap.hpp"

doca_buf_inventory::~doca_buf_inventory() = default;

void doca_buf_inventory::add_chunk(uint32_t n)
{
    chunks_.reserve(chunks_.size() + 1);
    chunk c{std::make_unique<doca_buf[]>(n), n};
    // Link in reverse so the pool hands out descriptors in address order.
    for (uint32_t i = n; i-- > 0;) {
        doca_buf &b = c.bufs[i];
        b.inv_ = this;
        b.free_next_ = free_;
        free_ = &b;
    }
    chunks_.push_back(std::move(c));
}

doca_buf *doca_buf_inventory::take() noexcept
{
    doca_buf *b = free_;
    if (!b)
        return nullptr;
    free_ = b->free_next_;
    b->free_next_ = nullptr;
    ++outstanding_;
    return b;
}

doca_buf *doca_buf_inventory::take_bound(doca_mmap *mmap, uint8_t *head, size_t len, uint8_t *data,
                                         size_t data_len) noexcept
{
    doca_buf *b = take();
    if (!b)
        return nullptr;
    b->mmap_ = mmap;
    b->head_ = head;
    b->len_ = len;
    b->data_ = data;
    b->data_len_ = data_len;
    b->refcount_ = 1;
    mmap->buf_acquired();
    return b;
}

void doca_buf_inventory::put(doca_buf *b) noexcept
{
    b->mmap_ = nullptr;
    b->head_ = nullptr;
    b->len_ = 0;
    b->data_ = nullptr;
    b->data_len_ = 0;
    b->refcount_ = 0;
    b->prev_ = nullptr;
    b->next_ = nullptr;
    b->free_next_ = free_;
    free_ = b;
    --outstanding_;
}

bool doca_buf_inventory::owns(const doca_buf *b) const noexcept
{
    auto p = reinterpret_cast<uintptr_t>(b);
    for (const chunk &c : chunks_) {
        auto base = reinterpret_cast<uintptr_t>(c.bufs.get());
        if (p >= base && p < base + sizeof(doca_buf) * c.count)
            return (p - base) % sizeof(doca_buf) == 0;
    }
    return false;
}

doca_error_t doca_buf_inventory::start()
{
    if (doca_error_t rc = state_.require_stopped("doca_buf_inventory_start", "inventory");
        rc != DOCA_SUCCESS)
        return rc;
    if (!state_.ever_started())
        add_chunk(num_elements_);
    state_.start();
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory::stop()
{
    if (doca_error_t rc = state_.require_started("doca_buf_inventory_stop", "inventory");
        rc != DOCA_SUCCESS)
        return rc;
    if (outstanding_ != 0) {
        SC_LOG_ERR(
            "doca_buf_inventory_stop: %u buf(s) taken from the inventory are not released yet",
            outstanding_);
        return DOCA_ERROR_IN_USE;
    }
    state_.stop();
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory::expand(uint32_t n)
{
    if (doca_error_t rc = state_.require_started("doca_buf_inventory_expand", "inventory");
        rc != DOCA_SUCCESS)
        return rc;
    if (n == 0 || n > std::numeric_limits<uint32_t>::max() - num_elements_) {
        SC_LOG_ERR("doca_buf_inventory_expand: cannot add %u element(s) to %u (need 1 or more, "
                   "total at most %u)",
                   n, num_elements_, std::numeric_limits<uint32_t>::max());
        return DOCA_ERROR_INVALID_VALUE;
    }
    add_chunk(n);
    num_elements_ += n;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory::set_user_data(union doca_data d)
{
    if (state_.ever_started()) {
        SC_LOG_ERR(
            "doca_buf_inventory_set_user_data: properties can only be set before the first start");
        return DOCA_ERROR_BAD_STATE;
    }
    user_data_ = d;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory::can_destroy() const
{
    if (outstanding_ != 0) {
        SC_LOG_ERR(
            "doca_buf_inventory_destroy: %u buf(s) taken from the inventory are not released yet "
            "(doca_buf_dec_refcount)",
            outstanding_);
        return DOCA_ERROR_IN_USE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory::require_started_for_bufs(const char *func) const noexcept
{
    return state_.require_started(func, "inventory", " (doca_buf_inventory_start)");
}

namespace {

// What doca_buf_inventory_buf_get_by_args refuses in its arguments (logged): an mmap that is not
// started, a buffer outside the mmap's range, a data window outside the buffer.
doca_error_t check_buf_args(const char *func, const doca_mmap *mmap, const void *addr, size_t len,
                            const void *data, size_t data_len)
{
    if (!mmap->started()) {
        SC_LOG_ERR("%s: the mmap is not started (doca_mmap_start)", func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (!mmap->contains(addr, len)) {
        SC_LOG_ERR("%s: buffer %p + %zu is not inside the mmap's memory range %p + %zu", func, addr,
                   len, mmap->addr(), mmap->len());
        return DOCA_ERROR_INVALID_VALUE;
    }
    const auto a = reinterpret_cast<uintptr_t>(addr);
    const auto d = reinterpret_cast<uintptr_t>(data);
    if (data == nullptr || d < a || data_len > len || d - a > len - data_len) {
        SC_LOG_ERR("%s: data window %p + %zu is not inside the buffer %p + %zu", func, data,
                   data_len, addr, len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

} // namespace

doca_error_t doca_buf_inventory::get_buf(doca_mmap *mmap, void *addr, size_t len, void *data,
                                         size_t data_len, doca_buf **out)
{
    if (doca_error_t rc = require_started_for_bufs("doca_buf_inventory_buf_get_by_args");
        rc != DOCA_SUCCESS)
        return rc;
    if (doca_error_t rc =
            check_buf_args("doca_buf_inventory_buf_get_by_args", mmap, addr, len, data, data_len);
        rc != DOCA_SUCCESS)
        return rc;
    doca_buf *b =
        take_bound(mmap, static_cast<uint8_t *>(addr), len, static_cast<uint8_t *>(data), data_len);
    if (!b) {
        SC_LOG_ERR(
            "doca_buf_inventory_buf_get_by_args: all %u element(s) of the inventory are in use",
            num_elements_);
        return DOCA_ERROR_NO_MEMORY;
    }
    *out = b;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory::reuse(const char *func, doca_buf *b, void *addr, size_t len,
                                       bool as_data)
{
    if (!b->in_use()) {
        SC_LOG_ERR("%s: the buf was already released", func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (b->in_list()) {
        SC_LOG_ERR("%s: the buf is part of a list (doca_buf_chain_list): unchain it first", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (doca_error_t rc = check_buf_args(func, b->mmap_, addr, len, addr, as_data ? len : 0);
        rc != DOCA_SUCCESS)
        return rc;
    b->head_ = static_cast<uint8_t *>(addr);
    b->len_ = len;
    b->data_ = b->head_;
    b->data_len_ = as_data ? len : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory::dup(const doca_buf *src, doca_buf **out)
{
    if (doca_error_t rc = require_started_for_bufs("doca_buf_inventory_buf_dup");
        rc != DOCA_SUCCESS)
        return rc;
    if (!src->in_use()) {
        SC_LOG_ERR("doca_buf_inventory_buf_dup: the source buf was already released");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!src->is_head()) {
        SC_LOG_ERR(
            "doca_buf_inventory_buf_dup: the source buf is a list element other than the head");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    uint32_t n = src->list_len();
    if (num_free() < n) {
        SC_LOG_ERR(
            "doca_buf_inventory_buf_dup: the source list has %u element(s) but only %u are free", n,
            num_free());
        return DOCA_ERROR_NO_MEMORY;
    }
    // The copy is built as a list: the first descriptor is its head, each next one is linked
    // after the previous (the source's list order).
    doca_buf *head = nullptr, *prev = nullptr;
    for (const doca_buf *s = src; s; s = s->next_) {
        // Cannot fail: counted above.
        doca_buf *b = take_bound(s->mmap_, s->head_, s->len_, s->data_, s->data_len_);
        (prev ? prev->next_ : head) = b;
        b->prev_ = prev;
        prev = b;
    }
    *out = head;
    return DOCA_SUCCESS;
}
