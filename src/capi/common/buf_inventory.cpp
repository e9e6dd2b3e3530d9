// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_buf_inventory.h: argument checks and delegation only.
#include <doca_buf_inventory.h>

#include <cstdint>

#include "common/guard.hpp"
#include "core/buf_inventory.hpp"
#include "core/mmap.hpp"

using softcomch::guard;
using softcomch::object_kind;

// Inside the thunks `fn` names the exported function (a lambda's own __func__ is "operator()").
#define SC_INV_ARG(p)                                                                              \
    do {                                                                                           \
        if ((p) == nullptr)                                                                        \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: " #p " is NULL", fn);                         \
    } while (0)

#define SC_INV_OBJ(p, kind, type)                                                                  \
    do {                                                                                           \
        SC_INV_ARG(p);                                                                             \
        if (!(p)->tag_.is(object_kind::kind))                                                      \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,                                                    \
                      "%s: " #p " (%p) is not a valid " type                                       \
                      " (destroyed, or another kind of object)",                                   \
                      fn, static_cast<const void *>(p));                                           \
    } while (0)

#define SC_INV_CHECK(p) SC_INV_OBJ(p, buf_inventory, "doca_buf_inventory")

extern "C" {

doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_ARG(inventory);
        if (num_elements == 0 || num_elements > UINT32_MAX)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: invalid number of elements %zu (1 to %u)", fn,
                      num_elements, UINT32_MAX);
        *inventory = new doca_buf_inventory(static_cast<uint32_t>(num_elements));
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        if (doca_error_t r = inventory->can_destroy(); r != DOCA_SUCCESS)
            return r;
        delete inventory;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        return inventory->start();
    });
}

doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        return inventory->stop();
    });
}

doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
                                                struct doca_mmap *mmap, void *addr, size_t len,
                                                void *data, size_t data_len, struct doca_buf **buf)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        SC_INV_OBJ(mmap, mmap, "doca_mmap");
        SC_INV_ARG(addr);
        SC_INV_ARG(data);
        SC_INV_ARG(buf);
        return inventory->get_buf(mmap, addr, len, data, data_len, buf);
    });
}

doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
                                        const struct doca_buf *src_buf, struct doca_buf **dst_buf)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        SC_INV_OBJ(src_buf, buf, "doca_buf");
        SC_INV_ARG(dst_buf);
        return inventory->dup(src_buf, dst_buf);
    });
}

doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
                                              union doca_data user_data)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        return inventory->set_user_data(user_data);
    });
}

doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
                                                 uint32_t *num_of_elements)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        SC_INV_ARG(num_of_elements);
        *num_of_elements = inventory->num_elements();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
                                                      uint32_t *num_of_free_elements)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        SC_INV_ARG(num_of_free_elements);
        *num_of_free_elements = inventory->num_free();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory,
                                              union doca_data *user_data)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        SC_INV_ARG(user_data);
        *user_data = inventory->user_data();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_buf_inventory_expand(struct doca_buf_inventory *inventory, uint32_t num_elements)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_INV_CHECK(inventory);
        return inventory->expand(num_elements);
    });
}

} // extern "C"
