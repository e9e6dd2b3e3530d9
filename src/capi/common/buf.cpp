// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_buf.h: argument checks and delegation only.
#include <doca_buf.h>

#include "common/guard.hpp"
#include "core/buf.hpp"

using softcomch::guard;
using softcomch::object_kind;

// Inside the thunks `fn` names the exported function (a lambda's own __func__ is "operator()").
#define SC_BUF_ARG(p)                                                                              \
    do {                                                                                           \
        if ((p) == nullptr)                                                                        \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: " #p " is NULL", fn);                         \
    } while (0)

#define SC_BUF_CHECK(p)                                                                            \
    do {                                                                                           \
        SC_BUF_ARG(p);                                                                             \
        if (!(p)->tag_.is(object_kind::buf))                                                       \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,                                                    \
                      "%s: " #p " (%p) is not a valid doca_buf (its inventory was destroyed, or "  \
                      "another kind of object)",                                                   \
                      fn, static_cast<const void *>(p));                                           \
    } while (0)

extern "C" {

doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        return buf->inc_refcount(refcount);
    });
}

doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        return buf->dec_refcount(refcount);
    });
}

doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(refcount);
        *refcount = buf->refcount();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(len);
        *len = buf->len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(head);
        *head = buf->head();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(data_len);
        *data_len = buf->data_len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(data);
        *data = buf->data();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(data);
        return buf->set_data(data, data_len);
    });
}

doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        return buf->set_data_len(data_len);
    });
}

doca_error_t doca_buf_reset_data_len(struct doca_buf *buf)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        buf->reset_data_len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(next_buf);
        *next_buf = buf->next();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(last_buf);
        *last_buf = buf->last();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(is_last);
        *is_last = buf->is_last() ? 1 : 0;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(is_first);
        *is_first = buf->is_head() ? 1 : 0;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(is_in_list);
        *is_in_list = buf->in_list() ? 1 : 0;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(buf);
        SC_BUF_ARG(num_elements);
        if (!buf->is_head())
            SC_REFUSE(DOCA_ERROR_NOT_PERMITTED, "%s: the buf is not the head of its list", fn);
        *num_elements = buf->list_len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(list1);
        SC_BUF_CHECK(list2);
        return doca_buf::chain(fn, list1, nullptr, list2);
    });
}

doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1_head, struct doca_buf *list1_tail,
                                      struct doca_buf *list2)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(list1_head);
        SC_BUF_CHECK(list1_tail);
        SC_BUF_CHECK(list2);
        return doca_buf::chain(fn, list1_head, list1_tail, list2);
    });
}

doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_BUF_CHECK(list1);
        SC_BUF_CHECK(list2);
        return doca_buf::unchain(list1, list2);
    });
}

} // extern "C"
