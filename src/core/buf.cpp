// SPDX-License-Identifier: Apache-2.0
#include "core/buf.hpp"

#include <cstdint>

#include "common/log.hpp"
#include "core/buf_inventory.hpp"
#include "core/mmap.hpp"

const doca_buf *doca_buf::list_head() const noexcept
{
    const doca_buf *b = this;
    while (b->prev_)
        b = b->prev_;
    return b;
}

doca_buf *doca_buf::last() noexcept
{
    doca_buf *b = this;
    while (b->next_)
        b = b->next_;
    return b;
}

uint32_t doca_buf::list_len() const noexcept
{
    uint32_t n = 0;
    for (const doca_buf *b = this; b; b = b->next_)
        ++n;
    return n;
}

bool doca_buf::covers(const void *p, size_t n) const noexcept
{
    if (head_ == nullptr || p == nullptr)
        return false;
    auto base = reinterpret_cast<uintptr_t>(head_);
    auto q = reinterpret_cast<uintptr_t>(p);
    return q >= base && n <= len_ && q - base <= len_ - n;
}

doca_error_t doca_buf::inc_refcount(uint16_t *before)
{
    if (!in_use()) {
        SC_LOG_ERR("doca_buf_inc_refcount: the buf was already released to its inventory");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!is_head()) {
        SC_LOG_ERR("doca_buf_inc_refcount: the buf is a list element other than the head; only the "
                   "head is "
                   "reference counted");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (refcount_ == UINT16_MAX) {
        SC_LOG_ERR("doca_buf_inc_refcount: the reference count is already at its maximum (%u)",
                   UINT16_MAX);
        return DOCA_ERROR_TOO_BIG;
    }
    if (before)
        *before = refcount_;
    ++refcount_;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf::dec_refcount(uint16_t *before)
{
    if (!in_use()) {
        SC_LOG_ERR(
            "doca_buf_dec_refcount: the reference count is already 0 (the buf was released)");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!is_head()) {
        SC_LOG_ERR("doca_buf_dec_refcount: the buf is a list element other than the head; release "
                   "the list "
                   "through its head");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (before)
        *before = refcount_;
    if (--refcount_ != 0)
        return DOCA_SUCCESS;
    // Last reference: every element of the list goes back to its own inventory.
    doca_buf *b = this;
    while (b) {
        doca_buf *next = b->next_;
        b->mmap_->buf_released();
        b->inv_->put(b);
        b = next;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_buf::set_data(void *data, size_t data_len)
{
    if (!covers(data, data_len)) {
        SC_LOG_ERR("doca_buf_set_data: data window %p + %zu is outside the buffer %p + %zu", data,
                   data_len, static_cast<void *>(head_), len_);
        return DOCA_ERROR_INVALID_VALUE;
    }
    data_ = static_cast<uint8_t *>(data);
    data_len_ = data_len;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf::set_data_len(size_t data_len)
{
    if (!covers(data_, data_len)) {
        SC_LOG_ERR(
            "doca_buf_set_data_len: data window %p + %zu would end outside the buffer %p + %zu",
            static_cast<void *>(data_), data_len, static_cast<void *>(head_), len_);
        return DOCA_ERROR_INVALID_VALUE;
    }
    data_len_ = data_len;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf::chain(const char *func, doca_buf *head1, doca_buf *tail1, doca_buf *head2)
{
    if (!head1->in_use() || !head2->in_use() || (tail1 && !tail1->in_use())) {
        SC_LOG_ERR("%s: a buf was already released to its inventory", func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (!head1->is_head()) {
        SC_LOG_ERR("%s: the first list argument is not the head of its list", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!head2->is_head()) {
        SC_LOG_ERR("%s: the list to append is not the head of its list", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (head1 == head2) {
        SC_LOG_ERR("%s: cannot chain a list to itself", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (head2->refcount_ != 1) {
        SC_LOG_ERR("%s: the list to append has a reference count of %u; it must be 1", func,
                   head2->refcount_);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (tail1) {
        if (!tail1->is_last() || tail1->list_head() != head1) {
            SC_LOG_ERR("%s: the tail argument is not the last element of the first list", func);
            return DOCA_ERROR_INVALID_VALUE;
        }
    } else {
        tail1 = head1->last();
    }
    tail1->next_ = head2;
    head2->prev_ = tail1;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf::unchain(doca_buf *head1, doca_buf *elem)
{
    if (!head1->in_use() || !elem->in_use()) {
        SC_LOG_ERR("doca_buf_unchain_list: a buf was already released to its inventory");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!head1->is_head()) {
        SC_LOG_ERR("doca_buf_unchain_list: the first argument is not the head of its list");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (elem == head1 || elem->list_head() != head1) {
        SC_LOG_ERR("doca_buf_unchain_list: the second argument is not an element of the first list "
                   "after its head");
        return DOCA_ERROR_INVALID_VALUE;
    }
    elem->prev_->next_ = nullptr;
    elem->prev_ = nullptr;
    elem->refcount_ = 1;
    return DOCA_SUCCESS;
}
