// SPDX-License-Identifier: Apache-2.0
#include "core/mmap.hpp"

#include <algorithm>
#include <cstdint>

#include "common/log.hpp"
#include "core/device.hpp"

doca_mmap::~doca_mmap()
{
    state_.stop();
    if (state_.ever_started() && free_cb_ && has_range_)
        free_cb_(addr_, len_, free_cb_opaque_);
    for (doca_dev *d : devs_)
        d->release();
}

bool doca_mmap::contains(const void *p, size_t len) const noexcept
{
    if (!has_range_ || p == nullptr)
        return false;
    auto base = reinterpret_cast<uintptr_t>(addr_);
    auto q = reinterpret_cast<uintptr_t>(p);
    return q >= base && len <= len_ && q - base <= len_ - len;
}

bool doca_mmap::has_device(const doca_dev *dev) const noexcept
{
    return std::find(devs_.begin(), devs_.end(), dev) != devs_.end();
}

doca_error_t doca_mmap::set_memrange(void *addr, size_t len)
{
    if (doca_error_t rc = require_not_started("doca_mmap_set_memrange", "set its memory range");
        rc != DOCA_SUCCESS)
        return rc;
    if (has_range_) {
        SC_LOG_ERR("doca_mmap_set_memrange: the memory range is already set (%p, %zu bytes); it "
                   "can be set once",
                   addr_, len_);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (addr == nullptr || len == 0) {
        SC_LOG_ERR("doca_mmap_set_memrange: invalid range (addr %p, len %zu): need a non-NULL "
                   "address and a "
                   "non-zero length",
                   addr, len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (reinterpret_cast<uintptr_t>(addr) > UINTPTR_MAX - len) {
        SC_LOG_ERR("doca_mmap_set_memrange: range %p + %zu wraps around the address space", addr,
                   len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    addr_ = addr;
    len_ = len;
    has_range_ = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::set_permissions(uint32_t mask)
{
    if (doca_error_t rc = require_not_started("doca_mmap_set_permissions", "set permissions");
        rc != DOCA_SUCCESS)
        return rc;
    if (mask & ~valid_permissions) {
        SC_LOG_ERR("doca_mmap_set_permissions: undefined access flag bits 0x%x (mask 0x%x)",
                   mask & ~valid_permissions, mask);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((mask & DOCA_ACCESS_FLAG_PCI_READ_ONLY) && (mask & DOCA_ACCESS_FLAG_PCI_READ_WRITE)) {
        SC_LOG_ERR("doca_mmap_set_permissions: DOCA_ACCESS_FLAG_PCI_READ_ONLY and "
                   "DOCA_ACCESS_FLAG_PCI_READ_WRITE "
                   "exclude each other");
        return DOCA_ERROR_INVALID_VALUE;
    }
    permissions_ = mask;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::require_not_started(const char *func, const char *what) const
{
    if (!state_.started())
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: the mmap is started; %s before doca_mmap_start", func, what);
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_mmap::require_device_config(const char *func) const
{
    if (from_export_) {
        SC_LOG_ERR("%s: the mmap was created from an export and cannot be reconfigured", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (exported_) {
        SC_LOG_ERR("%s: the mmap has been exported; its devices cannot change", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (state_.started()) {
        SC_LOG_ERR("%s: the mmap is started; configure its devices before doca_mmap_start", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::add_dev(doca_dev *dev)
{
    if (doca_error_t r = require_device_config("doca_mmap_add_dev"); r != DOCA_SUCCESS)
        return r;
    if (has_device(dev)) {
        SC_LOG_ERR("doca_mmap_add_dev: device %s is already added to this mmap",
                   dev->info()->pci_addr().c_str());
        return DOCA_ERROR_ALREADY_EXIST;
    }
    if (devs_.size() >= max_devs_) {
        SC_LOG_ERR("doca_mmap_add_dev: the mmap already holds its maximum of %u device(s) "
                   "(doca_mmap_set_max_num_devices)",
                   max_devs_);
        return DOCA_ERROR_NO_MEMORY;
    }
    devs_.push_back(dev);
    dev->hold();
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::rm_dev(doca_dev *dev)
{
    if (doca_error_t r = require_device_config("doca_mmap_rm_dev"); r != DOCA_SUCCESS)
        return r;
    auto it = std::find(devs_.begin(), devs_.end(), dev);
    if (it == devs_.end()) {
        SC_LOG_ERR("doca_mmap_rm_dev: device %s was not added to this mmap",
                   dev->info()->pci_addr().c_str());
        return DOCA_ERROR_NOT_FOUND;
    }
    devs_.erase(it);
    dev->release();
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::set_max_num_devices(uint32_t n)
{
    if (doca_error_t r = require_device_config("doca_mmap_set_max_num_devices"); r != DOCA_SUCCESS)
        return r;
    if (n == 0 || n < devs_.size()) {
        SC_LOG_ERR("doca_mmap_set_max_num_devices: invalid limit %u (must be at least 1 and at "
                   "least the %zu "
                   "device(s) already added)",
                   n, devs_.size());
        return DOCA_ERROR_INVALID_VALUE;
    }
    max_devs_ = n;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::set_user_data(union doca_data d)
{
    if (doca_error_t rc = require_not_started("doca_mmap_set_user_data", "set user data");
        rc != DOCA_SUCCESS)
        return rc;
    user_data_ = d;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::set_free_cb(doca_mmap_memrange_free_cb_t *cb, void *opaque)
{
    if (doca_error_t rc = require_not_started("doca_mmap_set_free_cb", "set the free callback");
        rc != DOCA_SUCCESS)
        return rc;
    free_cb_ = cb;
    free_cb_opaque_ = opaque;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::enable_thread_safety()
{
    if (doca_error_t rc =
            require_not_started("doca_mmap_enable_thread_safety", "enable thread safety");
        rc != DOCA_SUCCESS)
        return rc;
    thread_safe_ = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::start()
{
    if (doca_error_t rc = state_.require_stopped("doca_mmap_start", "mmap"); rc != DOCA_SUCCESS)
        return rc;
    if (!has_range_) {
        SC_LOG_ERR("doca_mmap_start: no memory range set (call doca_mmap_set_memrange first)");
        return DOCA_ERROR_BAD_STATE;
    }
    state_.start();
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::stop()
{
    if (doca_error_t rc = state_.require_started("doca_mmap_stop", "mmap"); rc != DOCA_SUCCESS)
        return rc;
    if (exported_ || from_export_) {
        SC_LOG_ERR("doca_mmap_stop: the mmap was %s; it can only be destroyed",
                   exported_ ? "exported" : "created from an export");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (doca_error_t rc = require_unused("doca_mmap_stop", "release them"); rc != DOCA_SUCCESS)
        return rc;
    state_.stop();
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::require_unused(const char *func, const char *release_hint) const
{
    if (uint32_t n = num_users(); n != 0) {
        // Its memory is (or may become) shared with the peer: stopping or freeing it under the
        // consumer would leave the range reachable from the other process.
        SC_LOG_ERR("%s: %u comch consumer(s) still use the mmap; destroy them "
                   "(doca_comch_consumer_destroy) first",
                   func, n);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (uint32_t n = num_bufs(); n != 0) {
        SC_LOG_ERR("%s: %u doca_buf(s) still refer to the mmap; %s first", func, n, release_hint);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::can_destroy() const
{
    return require_unused("doca_mmap_destroy", "release them (doca_buf_dec_refcount)");
}

doca_error_t doca_mmap::export_pci(const doca_dev *dev, const void **desc, size_t *len)
{
    (void)desc;
    (void)len;
    if (doca_error_t rc = state_.require_started("doca_mmap_export_pci", "mmap");
        rc != DOCA_SUCCESS)
        return rc;
    if (from_export_) {
        SC_LOG_ERR("doca_mmap_export_pci: an mmap created from an export cannot be exported again");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!(permissions_ & (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE))) {
        SC_LOG_ERR("doca_mmap_export_pci: the mmap has no PCI permission (set "
                   "DOCA_ACCESS_FLAG_PCI_READ_ONLY or "
                   "DOCA_ACCESS_FLAG_PCI_READ_WRITE before start)");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!has_device(dev)) {
        SC_LOG_ERR(
            "doca_mmap_export_pci: the device was not added to this mmap (doca_mmap_add_dev)");
        return DOCA_ERROR_NOT_FOUND;
    }
    SC_LOG_ERR("doca_mmap_export_pci: exporting memory to the other side is not supported by "
               "SoftComch yet");
    return DOCA_ERROR_NOT_SUPPORTED;
}
