// SPDX-License-Identifier: Apache-2.0
//
// `struct doca_mmap`: a memory range registered with devices (include/doca_mmap.h). Local semantics
// only for now; export_pci / create_from_export report DOCA_ERROR_NOT_SUPPORTED.
//
// Designed to become shareable with a peer process (the fast-path work): everything an export
// descriptor needs is recorded explicitly and frozen by start() (the range, the permissions, the
// devices), and contains() answers "is [p, p+len) inside this map" for a remote access check.
#pragma once

#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/object_tag.hpp"
#include "common/quarantine.hpp"
#include "common/visibility.hpp"
#include "core/start_state.hpp"

struct doca_dev;

// Its storage is quarantined (common/quarantine.hpp): a stale handle meets a dead tag.
struct doca_mmap : softcomch::quarantined<doca_mmap> {
    doca_mmap() noexcept = default;
    // Stops (if started), calls the free callback (if the map was ever started), releases the
    // devices. Callers check can_destroy() first.
    SOFTCOMCH_API ~doca_mmap();
    doca_mmap(const doca_mmap &) = delete;
    doca_mmap &operator=(const doca_mmap &) = delete;

    softcomch::object_tag tag_{softcomch::object_kind::mmap};

    // Default device limit (doca_mmap_get_max_num_devices); an emulator choice.
    static constexpr uint32_t default_max_devices = 16;
    // Every defined enum doca_access_flag bit.
    static constexpr uint32_t valid_permissions = 0x7f;

    // ---- configuration (each logs why it refuses) ----
    SOFTCOMCH_API doca_error_t set_memrange(void *addr, size_t len);
    SOFTCOMCH_API doca_error_t set_permissions(uint32_t access_mask);
    SOFTCOMCH_API doca_error_t add_dev(doca_dev *dev);
    SOFTCOMCH_API doca_error_t rm_dev(doca_dev *dev);
    SOFTCOMCH_API doca_error_t set_max_num_devices(uint32_t n);
    SOFTCOMCH_API doca_error_t set_user_data(union doca_data d);
    SOFTCOMCH_API doca_error_t set_free_cb(doca_mmap_memrange_free_cb_t *cb, void *opaque);
    SOFTCOMCH_API doca_error_t enable_thread_safety();
    SOFTCOMCH_API doca_error_t start();
    // NOT_PERMITTED while bufs refer to it or a Comch consumer uses it.
    SOFTCOMCH_API doca_error_t stop();
    // DOCA_SUCCESS if the map may be destroyed now; NOT_PERMITTED while bufs refer to it or a
    // Comch consumer uses it.
    SOFTCOMCH_API doca_error_t can_destroy() const;
    // The checks of doca_mmap_export_pci that do not depend on the export mechanism, then
    // DOCA_ERROR_NOT_SUPPORTED (not emulated yet).
    SOFTCOMCH_API doca_error_t export_pci(const doca_dev *dev, const void **desc, size_t *len);

    // ---- queries ----
    bool started() const noexcept { return state_.started(); }
    bool has_memrange() const noexcept { return has_range_; }
    void *addr() const noexcept { return addr_; }
    size_t len() const noexcept { return len_; }
    // True if [p, p + len) lies inside the memory range (len may be 0: then p may equal its end).
    bool contains(const void *p, size_t len) const noexcept;
    uint32_t permissions() const noexcept { return permissions_; }
    const std::vector<doca_dev *> &devices() const noexcept { return devs_; }
    bool has_device(const doca_dev *dev) const noexcept;
    uint32_t max_num_devices() const noexcept { return max_devs_; }
    uint32_t num_bufs() const noexcept { return bufs_.load(std::memory_order_relaxed); }
    bool exported() const noexcept { return exported_; }
    bool from_export() const noexcept { return from_export_; }
    union doca_data user_data() const noexcept { return user_data_; }
    bool thread_safe() const noexcept { return thread_safe_; }

    // ---- for doca_buf_inventory: bufs referring to this map ----
    void buf_acquired() noexcept { bufs_.fetch_add(1, std::memory_order_relaxed); }
    void buf_released() noexcept { bufs_.fetch_sub(1, std::memory_order_relaxed); }

    // ---- for Comch consumers: one uses the map from its create to its destroy (it shares the
    // map's memory with the peer while it runs, and reads the map's range at any time) ----
    void user_acquired() noexcept { users_.fetch_add(1, std::memory_order_acq_rel); }
    void user_released() noexcept { users_.fetch_sub(1, std::memory_order_acq_rel); }
    uint32_t num_users() const noexcept { return users_.load(std::memory_order_acquire); }

private:
    // BAD_STATE (logged: `func` must `what` before doca_mmap_start) once the map is started.
    doca_error_t require_not_started(const char *func, const char *what) const;
    // NOT_PERMITTED (logged, naming `func`) while bufs or consumers hold the map.
    doca_error_t require_unused(const char *func, const char *release_hint) const;
    // NOT_PERMITTED (logged) for the device-list setters on a started/exported/imported map.
    doca_error_t require_device_config(const char *func) const;

    softcomch::core::start_state state_;
    bool has_range_ = false;
    bool exported_ = false;
    bool from_export_ = false;
    bool thread_safe_ = false;
    void *addr_ = nullptr;
    size_t len_ = 0;
    uint32_t permissions_ = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
    uint32_t max_devs_ = default_max_devices;
    std::vector<doca_dev *> devs_;
    union doca_data user_data_ {};
    doca_mmap_memrange_free_cb_t *free_cb_ = nullptr;
    void *free_cb_opaque_ = nullptr;
    std::atomic<uint32_t> bufs_{0};
    std::atomic<uint32_t> users_{0}; // Comch consumers
};
