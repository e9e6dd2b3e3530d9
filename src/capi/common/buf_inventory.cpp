// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_buf_inventory.h: argument checks and delegation only.
#include <doca_buf_inventory.h>

#include <cstdint>

#include "capi/handle.hpp"
#include "common/guard.hpp"
#include "core/buf_inventory.hpp"
#include "core/mmap.hpp"

using namespace softcomch::capi;

extern "C" {

doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(inventory);
        if (num_elements == 0 || num_elements > UINT32_MAX)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: invalid number of elements %zu (1 to %u)",
                      api_function(), num_elements, UINT32_MAX);
        *inventory = new doca_buf_inventory(static_cast<uint32_t>(num_elements));
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
    return destroy_if_unused(__func__, SC_ARG(inventory));
}

doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
    return delegate(__func__, SC_ARG(inventory), [](auto &o) { return o.start(); });
}

doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory)
{
    return delegate(__func__, SC_ARG(inventory), [](auto &o) { return o.stop(); });
}

doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
                                                struct doca_mmap *mmap, void *addr, size_t len,
                                                void *data, size_t data_len, struct doca_buf **buf)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(inventory);
        SC_REQUIRE(mmap);
        SC_CHECK_NOT_NULL(addr);
        SC_CHECK_NOT_NULL(data);
        SC_CHECK_NOT_NULL(buf);
        return inventory->get_buf(mmap, addr, len, data, data_len, buf);
    });
}

doca_error_t doca_buf_inventory_buf_reuse_by_addr(struct doca_buf *buf, void *addr, size_t len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(addr);
        return doca_buf_inventory::reuse(api_function(), buf, addr, len, false);
    });
}

doca_error_t doca_buf_inventory_buf_reuse_by_data(struct doca_buf *buf, void *data, size_t data_len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(data);
        return doca_buf_inventory::reuse(api_function(), buf, data, data_len, true);
    });
}

doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
                                        const struct doca_buf *src_buf, struct doca_buf **dst_buf)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(inventory);
        SC_REQUIRE(src_buf);
        SC_CHECK_NOT_NULL(dst_buf);
        return inventory->dup(src_buf, dst_buf);
    });
}

doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
                                              union doca_data user_data)
{
    return delegate(__func__, SC_ARG(inventory),
                    [&](auto &o) { return o.set_user_data(user_data); });
}

doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
                                                 uint32_t *num_of_elements)
{
    return get_into(__func__, SC_ARG(inventory), SC_ARG(num_of_elements),
                    [](auto &o) { return o.num_elements(); });
}

doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
                                                      uint32_t *num_of_free_elements)
{
    return get_into(__func__, SC_ARG(inventory), SC_ARG(num_of_free_elements),
                    [](auto &o) { return o.num_free(); });
}

doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory,
                                              union doca_data *user_data)
{
    return get_into(__func__, SC_ARG(inventory), SC_ARG(user_data),
                    [](auto &o) { return o.user_data(); });
}

doca_error_t doca_buf_inventory_expand(struct doca_buf_inventory *inventory, uint32_t num_elements)
{
    return delegate(__func__, SC_ARG(inventory), [&](auto &o) { return o.expand(num_elements); });
}

} // extern "C"
