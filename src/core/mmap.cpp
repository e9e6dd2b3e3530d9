// SPDX-License-Identifier: Apache-2.0
#include "core/mmap.hpp"

#include <cstdio>
#include <algorithm>
#include <cstdint>

#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/device.hpp"
#include "core/export_desc.hpp"

doca_mmap::~doca_mmap()
{
    // Revoked before the memory can go (the free callback below may free it).
    exports_.clear();
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

doca_error_t doca_mmap::export_pci(const doca_dev *dev, softcomch::core::memory_exporter &ex,
                                   const void **desc, size_t *len)
{
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
    // The same device again: the same descriptor (the map owns it until it goes).
    for (const export_record &e : exports_)
        if (e.dev == dev) {
            *desc = e.desc.data();
            *len = e.desc.size();
            return DOCA_SUCCESS;
        }
    export_record rec{dev, {}, nullptr};
    std::vector<uint8_t> body;
    std::string why;
    const bool writable = (permissions_ & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0;
    softcomch::core::resource_label label;
    label.function = dev->info()->pci_addr();
    label.access = permissions_;
    if (doca_error_t rc = ex.export_range(addr_, len_, writable, label, body, rec.keep, why);
        rc != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_mmap_export_pci: cannot export %p (%zu bytes): %s", addr_, len_,
                   why.c_str());
        return rc;
    }
    softcomch::core::export_info info;
    const doca_devinfo &di = *dev->info();
    info.dpu_side = di.side() == softcomch::core::side::dpu;
    info.access = permissions_;
    info.addr = uint64_t(reinterpret_cast<uintptr_t>(addr_));
    info.len = len_;
    info.bluefield = di.bluefield_id();
    info.function = di.pci_addr();
    info.via = ex.name();
    info.body = body.data();
    info.body_len = body.size();
    if (doca_error_t rc = softcomch::core::encode_export(info, rec.desc, why); rc != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_mmap_export_pci: %s", why.c_str());
        return rc;
    }
    exported_ = true;
    exports_.push_back(std::move(rec));
    *desc = exports_.back().desc.data();
    *len = exports_.back().desc.size();
    SC_LOG_DBG("doca_mmap_export_pci: %p (%zu bytes, %s) exported for device %s", addr_, len_,
               writable ? "read-write" : "read-only", di.pci_addr().c_str());
    SC_TRACE({
        char d[160];
        std::snprintf(d, sizeof d, "%zu bytes at %p, %s, for %s", len_, addr_,
                      writable ? "read-write" : "read-only", di.pci_addr().c_str());
        softcomch::trace::memory("export", d);
    });
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap::create_from_export(const union doca_data *user_data, const void *desc,
                                           size_t len, doca_dev *dev,
                                           softcomch::core::memory_exporter &ex, doca_mmap **out)
{
    const char *func = "doca_mmap_create_from_export";
    softcomch::core::export_info info;
    std::string why;
    if (doca_error_t rc = softcomch::core::decode_export(
            static_cast<const uint8_t *>(desc), len, softcomch::core::export_kind::mmap, info, why);
        rc != DOCA_SUCCESS) {
        SC_LOG_ERR("%s: the descriptor is refused: %s", func, why.c_str());
        return rc;
    }
    if (doca_error_t rc = softcomch::core::check_importer(info, *dev->info(), func);
        rc != DOCA_SUCCESS)
        return rc;
    std::unique_ptr<softcomch::core::remote_memory> remote;
    softcomch::core::resource_label label;
    label.function = dev->info()->pci_addr();
    label.peer_function = info.function;
    label.access = info.access;
    if (doca_error_t rc = ex.import_range(info.via, info.body, info.body_len, label, remote, why);
        rc != DOCA_SUCCESS) {
        SC_LOG_ERR("%s: cannot reach the memory %s exported: %s", func, info.function.c_str(),
                   why.c_str());
        return rc;
    }
    auto m = std::make_unique<doca_mmap>();
    m->addr_ = reinterpret_cast<void *>(uintptr_t(info.addr));
    m->len_ = size_t(info.len);
    m->has_range_ = true;
    m->permissions_ = info.access;
    m->from_export_ = true;
    if (user_data)
        m->user_data_ = *user_data;
    dev->hold();
    m->devs_.push_back(dev);
    m->remote_ = std::move(remote);
    m->state_.start();
    SC_LOG_DBG("%s: %zu bytes at 0x%llx of %s (%s)", func, m->len_, (unsigned long long)info.addr,
               m->remote_->exporter().c_str(), info.function.c_str());
    SC_TRACE({
        char d[200];
        std::snprintf(d, sizeof d, "%zu bytes at 0x%llx exported by %s (%s)", m->len_,
                      (unsigned long long)info.addr, m->remote_->exporter().c_str(),
                      info.function.c_str());
        softcomch::trace::memory("import", d);
    });
    *out = m.release();
    return DOCA_SUCCESS;
}
