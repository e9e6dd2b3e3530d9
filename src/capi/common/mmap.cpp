// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_mmap.h: argument checks and delegation only.
#include <doca_mmap.h>

#include "common/guard.hpp"
#include "core/device.hpp"
#include "core/mmap.hpp"

using softcomch::guard;
using softcomch::object_kind;
namespace core = softcomch::core;

// Inside the thunks `fn` names the exported function (a lambda's own __func__ is "operator()").
#define SC_MMAP_ARG(p)                                                                             \
    do {                                                                                           \
        if ((p) == nullptr)                                                                        \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: " #p " is NULL", fn);                         \
    } while (0)

#define SC_MMAP_OBJ(p, kind, type)                                                                 \
    do {                                                                                           \
        SC_MMAP_ARG(p);                                                                            \
        if (!(p)->tag_.is(object_kind::kind))                                                      \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,                                                    \
                      "%s: " #p " (%p) is not a valid " type                                       \
                      " (destroyed, or another kind of object)",                                   \
                      fn, static_cast<const void *>(p));                                           \
    } while (0)

#define SC_MMAP_CHECK(m) SC_MMAP_OBJ(m, mmap, "doca_mmap")

#define SC_MMAP_DEV(p)                                                                             \
    do {                                                                                           \
        SC_MMAP_ARG(p);                                                                            \
        if (!core::is_open_device(p))                                                              \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,                                                    \
                      "%s: " #p " (%p) is not an open doca_dev (closed, or another object)", fn,   \
                      static_cast<const void *>(p));                                               \
    } while (0)

extern "C" {

doca_error_t doca_mmap_create(struct doca_mmap **mmap)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_ARG(mmap);
        *mmap = new doca_mmap();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_destroy(struct doca_mmap *mmap)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        if (doca_error_t r = mmap->can_destroy(); r != DOCA_SUCCESS)
            return r;
        delete mmap; // stops it and calls the free callback
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_start(struct doca_mmap *mmap)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        return mmap->start();
    });
}

doca_error_t doca_mmap_stop(struct doca_mmap *mmap)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        return mmap->stop();
    });
}

doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_DEV(dev);
        return mmap->add_dev(dev);
    });
}

doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_DEV(dev);
        return mmap->rm_dev(dev);
    });
}

doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
                                  const void **export_desc, size_t *export_desc_len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_DEV(dev);
        SC_MMAP_ARG(export_desc);
        SC_MMAP_ARG(export_desc_len);
        return mmap->export_pci(dev, export_desc, export_desc_len);
    });
}

doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
                                   const void **export_desc, size_t *export_desc_len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_DEV(dev);
        SC_MMAP_ARG(export_desc);
        SC_MMAP_ARG(export_desc_len);
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED, "%s: RDMA is not emulated by SoftComch", fn);
    });
}

doca_error_t doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap, const struct doca_dev *dev,
                                          doca_dpa_dev_mmap_t *dpa_mmap_handle)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_DEV(dev);
        SC_MMAP_ARG(dpa_mmap_handle);
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED, "%s: no DPA is emulated", fn);
    });
}

doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
                                          size_t export_desc_len, struct doca_dev *dev,
                                          struct doca_mmap **mmap)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        (void)user_data; // optional
        SC_MMAP_ARG(export_desc);
        if (export_desc_len == 0)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: export_desc_len is 0", fn);
        SC_MMAP_DEV(dev);
        SC_MMAP_ARG(mmap);
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED,
                  "%s: mapping memory exported by the other side is not supported by SoftComch yet",
                  fn);
    });
}

doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        return mmap->set_memrange(addr, len);
    });
}

doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr,
                                           size_t dmabuf_offset, size_t len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        (void)dmabuf_fd;
        (void)addr;
        (void)dmabuf_offset;
        (void)len;
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED,
                  "%s: dma-buf memory is not emulated; use doca_mmap_set_memrange", fn);
    });
}

doca_error_t doca_mmap_set_dpa_memrange(struct doca_mmap *mmap, struct doca_dpa *dpa,
                                        uint64_t dpa_addr, size_t len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        (void)dpa;
        (void)dpa_addr;
        (void)len;
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED, "%s: no DPA is emulated", fn);
    });
}

doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_ARG(addr);
        SC_MMAP_ARG(len);
        if (!mmap->has_memrange())
            SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: no memory range was set (doca_mmap_set_memrange)",
                      fn);
        *addr = mmap->addr();
        *len = mmap->len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
                                   void *opaque)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_ARG(free_cb);
        return mmap->set_free_cb(free_cb, opaque);
    });
}

doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_ARG(user_data);
        *user_data = mmap->user_data();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_ARG(max_num_devices);
        *max_num_devices = mmap->max_num_devices();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_ARG(num_bufs);
        *num_bufs = mmap->num_bufs();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_ARG(exported);
        *exported = mmap->exported() ? 1 : 0;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        SC_MMAP_ARG(from_export);
        *from_export = mmap->from_export() ? 1 : 0;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        return mmap->set_max_num_devices(max_num_devices);
    });
}

doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        return mmap->set_permissions(access_mask);
    });
}

doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        return mmap->set_user_data(user_data);
    });
}

doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo,
                                                   uint8_t *mmap_export)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_OBJ(devinfo, devinfo, "doca_devinfo");
        SC_MMAP_ARG(mmap_export);
        *mmap_export = 0; // not emulated yet
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
                                                               uint8_t *from_export)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_OBJ(devinfo, devinfo, "doca_devinfo");
        SC_MMAP_ARG(from_export);
        *from_export = 0; // not emulated yet
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap)
{
    return guard(__func__, [&, fn = __func__]() -> doca_error_t {
        SC_MMAP_CHECK(mmap);
        return mmap->enable_thread_safety();
    });
}

} // extern "C"
