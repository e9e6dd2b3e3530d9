// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_buf.h: argument checks and delegation only.
#include <doca_buf.h>

#include "capi/handle.hpp"
#include "common/guard.hpp"
#include "core/buf.hpp"

using namespace softcomch::capi;

extern "C" {

doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
    return delegate(__func__, SC_ARG(buf), [&](auto &o) { return o.inc_refcount(refcount); });
}

doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
    return delegate(__func__, SC_ARG(buf), [&](auto &o) { return o.dec_refcount(refcount); });
}

doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(refcount), [](auto &o) { return o.refcount(); });
}

doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(len), [](auto &o) { return o.len(); });
}

doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(head), [](auto &o) { return o.head(); });
}

doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(data_len), [](auto &o) { return o.data_len(); });
}

doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(data), [](auto &o) { return o.data(); });
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
    return delegate(__func__, SC_ARG(buf), [&](auto &o) { return o.set_data_len(data_len); });
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
    return get_into(__func__, SC_ARG(buf), SC_ARG(next_buf), [](auto &o) { return o.next(); });
}

doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(last_buf), [](auto &o) { return o.last(); });
}

doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(is_last),
                    [](auto &o) { return o.is_last() ? 1 : 0; });
}

doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(is_first),
                    [](auto &o) { return o.is_head() ? 1 : 0; });
}

doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list)
{
    return get_into(__func__, SC_ARG(buf), SC_ARG(is_in_list),
                    [](auto &o) { return o.in_list() ? 1 : 0; });
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
