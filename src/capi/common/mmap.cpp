// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_mmap.h: argument checks and delegation only.
#include <doca_mmap.h>

#include "capi/handle.hpp"
#include "common/guard.hpp"
#include "core/device.hpp"
#include "core/mmap.hpp"
#include "memory/exporter.hpp"

using namespace softcomch::capi;

namespace {

// doca_mmap_export_pci and doca_mmap_export_rdma: their arguments checked, then `fn()`.
template <typename Fn>
doca_error_t checked_export(const char *func, const doca_mmap *mmap, const doca_dev *dev,
                            const void *const *export_desc, const size_t *export_desc_len, Fn &&fn)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(mmap);
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(export_desc);
        SC_CHECK_NOT_NULL(export_desc_len);
        return fn();
    });
}

} // namespace

extern "C" {

doca_error_t doca_mmap_create(struct doca_mmap **mmap)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(mmap);
        *mmap = new doca_mmap();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_destroy(struct doca_mmap *mmap)
{
    return destroy_if_unused(__func__, SC_ARG(mmap));
}

doca_error_t doca_mmap_start(struct doca_mmap *mmap)
{
    return delegate(__func__, SC_ARG(mmap), [](auto &o) { return o.start(); });
}

doca_error_t doca_mmap_stop(struct doca_mmap *mmap)
{
    return delegate(__func__, SC_ARG(mmap), [](auto &o) { return o.stop(); });
}

doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(mmap);
        SC_REQUIRE(dev);
        return mmap->add_dev(dev);
    });
}

doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(mmap);
        SC_REQUIRE(dev);
        return mmap->rm_dev(dev);
    });
}

doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
                                  const void **export_desc, size_t *export_desc_len)
{
    return checked_export(__func__, mmap, dev, export_desc, export_desc_len, [&] {
        return mmap->export_pci(dev, softcomch::memory::exporter(), export_desc, export_desc_len);
    });
}

doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
                                   const void **export_desc, size_t *export_desc_len)
{
    return checked_export(__func__, mmap, dev, export_desc, export_desc_len, []() -> doca_error_t {
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED, "%s: RDMA is not emulated by SoftComch",
                  api_function());
    });
}

doca_error_t doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap, const struct doca_dev *dev,
                                          doca_dpa_dev_mmap_t *dpa_mmap_handle)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(mmap);
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(dpa_mmap_handle);
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED, "%s: no DPA is emulated", api_function());
    });
}

doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
                                          size_t export_desc_len, struct doca_dev *dev,
                                          struct doca_mmap **mmap)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(export_desc);
        if (export_desc_len == 0)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: export_desc_len is 0", api_function());
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(mmap);
        return doca_mmap::create_from_export(user_data, export_desc, export_desc_len, dev,
                                             softcomch::memory::exporter(), mmap);
    });
}

doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
    return delegate(__func__, SC_ARG(mmap), [&](auto &o) { return o.set_memrange(addr, len); });
}

doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr,
                                           size_t dmabuf_offset, size_t len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(mmap);
        (void)dmabuf_fd;
        (void)addr;
        (void)dmabuf_offset;
        (void)len;
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED,
                  "%s: dma-buf memory is not emulated; use doca_mmap_set_memrange", api_function());
    });
}

doca_error_t doca_mmap_set_dpa_memrange(struct doca_mmap *mmap, struct doca_dpa *dpa,
                                        uint64_t dpa_addr, size_t len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(mmap);
        (void)dpa;
        (void)dpa_addr;
        (void)len;
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED, "%s: no DPA is emulated", api_function());
    });
}

doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(mmap);
        SC_CHECK_NOT_NULL(addr);
        SC_CHECK_NOT_NULL(len);
        if (!mmap->has_memrange())
            SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: no memory range was set (doca_mmap_set_memrange)",
                      api_function());
        *addr = mmap->addr();
        *len = mmap->len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
                                   void *opaque)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(mmap);
        SC_CHECK_NOT_NULL(free_cb);
        return mmap->set_free_cb(free_cb, opaque);
    });
}

doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data)
{
    return get_into(__func__, SC_ARG(mmap), SC_ARG(user_data),
                    [](auto &o) { return o.user_data(); });
}

doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices)
{
    return get_into(__func__, SC_ARG(mmap), SC_ARG(max_num_devices),
                    [](auto &o) { return o.max_num_devices(); });
}

doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs)
{
    return get_into(__func__, SC_ARG(mmap), SC_ARG(num_bufs), [](auto &o) { return o.num_bufs(); });
}

doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported)
{
    return get_into(__func__, SC_ARG(mmap), SC_ARG(exported),
                    [](auto &o) { return o.exported() ? 1 : 0; });
}

doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export)
{
    return get_into(__func__, SC_ARG(mmap), SC_ARG(from_export),
                    [](auto &o) { return o.from_export() ? 1 : 0; });
}

doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices)
{
    return delegate(__func__, SC_ARG(mmap),
                    [&](auto &o) { return o.set_max_num_devices(max_num_devices); });
}

doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
    return delegate(__func__, SC_ARG(mmap),
                    [&](auto &o) { return o.set_permissions(access_mask); });
}

doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data)
{
    return delegate(__func__, SC_ARG(mmap), [&](auto &o) { return o.set_user_data(user_data); });
}

doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo,
                                                   uint8_t *mmap_export)
{
    // Every function of the emulated machine, either side (doca_mmap.h).
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(mmap_export), [](auto &) { return 1; });
}

doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
                                                               uint8_t *from_export)
{
    return get_into(__func__, SC_ARG(devinfo), SC_ARG(from_export), [](auto &) { return 1; });
}

doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap)
{
    return delegate(__func__, SC_ARG(mmap), [](auto &o) { return o.enable_thread_safety(); });
}

} // extern "C"
