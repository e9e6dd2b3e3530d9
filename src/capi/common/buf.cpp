// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_buf.h: argument checks and delegation only.
#include <doca_buf.h>

#include "capi/handle.hpp"
#include "common/guard.hpp"
#include "core/buf.hpp"

using softcomch::api_function;
using softcomch::guard;

extern "C" {

doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        return buf->inc_refcount(refcount);
    });
}

doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        return buf->dec_refcount(refcount);
    });
}

doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(refcount);
        *refcount = buf->refcount();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(len);
        *len = buf->len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(head);
        *head = buf->head();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(data_len);
        *data_len = buf->data_len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(data);
        *data = buf->data();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(data);
        return buf->set_data(data, data_len);
    });
}

doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        return buf->set_data_len(data_len);
    });
}

doca_error_t doca_buf_reset_data_len(struct doca_buf *buf)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        buf->reset_data_len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(next_buf);
        *next_buf = buf->next();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(last_buf);
        *last_buf = buf->last();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(is_last);
        *is_last = buf->is_last() ? 1 : 0;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(is_first);
        *is_first = buf->is_head() ? 1 : 0;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(is_in_list);
        *is_in_list = buf->in_list() ? 1 : 0;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(num_elements);
        if (!buf->is_head())
            SC_REFUSE(DOCA_ERROR_NOT_PERMITTED, "%s: the buf is not the head of its list",
                      api_function());
        *num_elements = buf->list_len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(list1);
        SC_REQUIRE(list2);
        return doca_buf::chain(api_function(), list1, nullptr, list2);
    });
}

doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1_head, struct doca_buf *list1_tail,
                                      struct doca_buf *list2)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(list1_head);
        SC_REQUIRE(list1_tail);
        SC_REQUIRE(list2);
        return doca_buf::chain(api_function(), list1_head, list1_tail, list2);
    });
}

doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(list1);
        SC_REQUIRE(list2);
        return doca_buf::unchain(list1, list2);
    });
}

} // extern "C"
