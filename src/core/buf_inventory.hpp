// SPDX-License-Identifier: Apache-2.0
//
// `struct doca_buf_inventory` (include/doca_buf_inventory.h): a pool of doca_buf descriptors. Descriptors are
// allocated at the first start (and by expand) in chunks whose addresses never move, and are
// recycled through a free list; taking or returning a buf does not allocate.
//
// Not thread-safe (DOCA documents none for inventories).
#pragma once

#include <doca_error.h>
#include <doca_types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/object_tag.hpp"
#include "common/quarantine.hpp"
#include "common/visibility.hpp"
#include "core/buf.hpp"
#include "core/start_state.hpp"

struct doca_mmap;

// Its storage is quarantined (common/quarantine.hpp): a stale handle meets a dead tag.
struct doca_buf_inventory : softcomch::quarantined<doca_buf_inventory> {
    explicit doca_buf_inventory(uint32_t num_elements) noexcept : num_elements_(num_elements) {}
    SOFTCOMCH_API ~doca_buf_inventory();
    doca_buf_inventory(const doca_buf_inventory &) = delete;
    doca_buf_inventory &operator=(const doca_buf_inventory &) = delete;

    softcomch::object_tag tag_{softcomch::object_kind::buf_inventory};

    SOFTCOMCH_API doca_error_t start();
    SOFTCOMCH_API doca_error_t stop();
    SOFTCOMCH_API doca_error_t expand(uint32_t num_elements);
    SOFTCOMCH_API doca_error_t set_user_data(union doca_data d);
    // DOCA_SUCCESS if the inventory may be destroyed now; IN_USE while bufs are out.
    SOFTCOMCH_API doca_error_t can_destroy() const;

    // doca_buf_inventory_buf_get_by_args: checks states and ranges, then takes a descriptor.
    SOFTCOMCH_API doca_error_t get_buf(doca_mmap *mmap, void *addr, size_t len, void *data,
                                       size_t data_len, doca_buf **out);
    // doca_buf_inventory_buf_reuse_by_addr / _by_data (DOCA 3.2): `b`, one of ours in use and not
    // in a list, now describes [addr, addr + len) of its own mmap, its data window empty or all of
    // it.
    SOFTCOMCH_API static doca_error_t reuse(const char *func, doca_buf *b, void *addr, size_t len,
                                            bool as_data);
    // doca_buf_inventory_buf_dup.
    SOFTCOMCH_API doca_error_t dup(const doca_buf *src, doca_buf **out);

    bool started() const noexcept { return state_.started(); }
    uint32_t num_elements() const noexcept { return num_elements_; }
    uint32_t num_free() const noexcept { return num_elements_ - outstanding_; }
    uint32_t outstanding() const noexcept { return outstanding_; }
    union doca_data user_data() const noexcept { return user_data_; }
    // True if `b` is one of this inventory's descriptors.
    bool owns(const doca_buf *b) const noexcept;

    // For doca_buf: a released descriptor goes back to the pool.
    void put(doca_buf *b) noexcept;

private:
    void add_chunk(uint32_t n);
    doca_buf *take() noexcept;
    // Handing out descriptors needs a started inventory; logs the refusal as `func`.
    doca_error_t require_started_for_bufs(const char *func) const noexcept;
    // A free descriptor for [head, head + len) of `mmap` with the data window [data, + data_len),
    // unlinked, with a reference count of 1 (the mmap counts it); nullptr when none is free.
    doca_buf *take_bound(doca_mmap *mmap, uint8_t *head, size_t len, uint8_t *data,
                         size_t data_len) noexcept;

    uint32_t num_elements_;
    uint32_t outstanding_ = 0;
    softcomch::core::start_state state_;
    union doca_data user_data_ {};
    struct chunk {
        std::unique_ptr<doca_buf[]> bufs;
        uint32_t count;
    };
    std::vector<chunk> chunks_;
    doca_buf *free_ = nullptr;
};
