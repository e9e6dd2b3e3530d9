// SPDX-License-Identifier: Apache-2.0
//
// Registered memory for the fast-path harness (fastpath_harness.hpp): a block of memory, a
// doca_mmap over it and a doca_buf_inventory. Definitions in fastpath_region.cpp.
#pragma once

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace sc_test::fp {

enum class mem_kind { heap, aligned, anon };

const char *mem_kind_name(mem_kind k);

// Lets GoogleTest print the parameter.
void PrintTo(mem_kind k, std::ostream *os);

struct region_options {
    mem_kind kind = mem_kind::aligned;
    uint32_t inventory = 64; // buf descriptors
    uint32_t permissions = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
    bool start = true; // start the mmap
    bool add_dev = true;
};

// A block of memory (malloc, aligned_alloc or anonymous mmap), a doca_mmap over it registered
// with a device, and a started doca_buf_inventory.
class region {
public:
    region(doca_dev *dev, size_t size, region_options o = {});
    region(const region &) = delete;
    region &operator=(const region &) = delete;
    ~region();

    bool ok() const { return error.empty(); }
    uint8_t *base() const { return static_cast<uint8_t *>(raw_); }
    size_t size() const { return size_; }
    doca_mmap *mmap() const { return mmap_; }
    doca_buf_inventory *inventory() const { return inv_; }

    // A buf over [off, off+len) with an empty data window (a receive buffer).
    doca_buf *get_by_addr(size_t off, size_t len);
    // A buf whose data window is [off, off+len) (a source buffer).
    doca_buf *get_by_data(size_t off, size_t len);
    // A buf over [off, off+cap) whose data window is its first `len` bytes.
    doca_buf *get_by_args(size_t off, size_t cap, size_t len);

    std::string error;
    doca_error_t last_rc = DOCA_SUCCESS;

private:
    void fail(const std::string &what, doca_error_t rc);

    void *raw_ = nullptr;
    size_t size_;
    mem_kind kind_;
    doca_mmap *mmap_ = nullptr;
    doca_buf_inventory *inv_ = nullptr;
};

} // namespace sc_test::fp
