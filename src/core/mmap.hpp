// SPDX-License-Identifier: Apache-2.0
//
// `struct doca_mmap`: a memory range registered with devices (include/doca_mmap.h). A started map
// with a PCI permission can be exported (export_pci: a descriptor of bytes, kept by the map until
// it goes, which revokes it), and another process builds a map of that memory from the
// descriptor (create_from_export): such a map's range is the exporter's addresses, not
// dereferenceable here; its memory is reached through remote() (core/remote_memory.hpp), which
// only the DMA engine does. How the memory travels is the memory_exporter's (src/memory), given
// by the C facade.
#pragma once

#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/object_tag.hpp"
#include "common/quarantine.hpp"
#include "common/visibility.hpp"
#include "core/remote_memory.hpp"
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
    // doca_mmap_export_pci: the map's checks, then the descriptor `ex` makes for `dev` (kept by
    // the map: the same pointer for the same device again).
    SOFTCOMCH_API doca_error_t export_pci(const doca_dev *dev, softcomch::core::memory_exporter &ex,
                                          const void **desc, size_t *len);
    // doca_mmap_create_from_export: a started map of the memory `desc` describes, reached through
    // `ex`, for `dev`; the descriptor's checks and the device's (same BlueField, other side).
    SOFTCOMCH_API static doca_error_t
    create_from_export(const union doca_data *user_data, const void *desc, size_t len,
                       doca_dev *dev, softcomch::core::memory_exporter &ex, doca_mmap **out);
    // The memory of a map created from an export; nullptr for a local map.
    softcomch::core::remote_memory *remote() const noexcept { return remote_.get(); }

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
    // Exports of this map, one per device asked for; destroyed with the map (revoked).
    struct export_record {
        const doca_dev *dev;
        std::vector<uint8_t> desc;
        std::unique_ptr<softcomch::core::export_handle> keep;
    };
    std::vector<export_record> exports_;
    std::unique_ptr<softcomch::core::remote_memory> remote_; // created from an export
    std::atomic<uint32_t> bufs_{0};
    std::atomic<uint32_t> users_{0}; // Comch consumers
};
