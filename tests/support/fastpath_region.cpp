// SPDX-License-Identifier: Apache-2.0
//
// The definitions of fastpath_region.hpp.
#include "fastpath_region.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "fastpath_checks.hpp"

namespace sc_test::fp {

const char *mem_kind_name(mem_kind k)
{
    switch (k) {
    case mem_kind::heap:
        return "malloc";
    case mem_kind::aligned:
        return "aligned_alloc";
    case mem_kind::anon:
        return "mmap";
    }
    return "?";
}

void PrintTo(mem_kind k, std::ostream *os)
{
    *os << mem_kind_name(k);
}

region::region(doca_dev *dev, size_t size, region_options o) : size_(size), kind_(o.kind)
{
    switch (o.kind) {
    case mem_kind::heap:
        raw_ = std::malloc(size);
        break;
    case mem_kind::aligned:
        raw_ = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
        break;
    case mem_kind::anon: {
        void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        raw_ = p == MAP_FAILED ? nullptr : p;
        break;
    }
    }
    if (!raw_) {
        fail("allocation of " + std::to_string(size) + " bytes", DOCA_ERROR_NO_MEMORY);
        return;
    }
    doca_error_t rc;
    if ((rc = doca_mmap_create(&mmap_)) != DOCA_SUCCESS) {
        fail("doca_mmap_create", rc);
        return;
    }
    if (o.add_dev && dev && (rc = doca_mmap_add_dev(mmap_, dev)) != DOCA_SUCCESS) {
        fail("doca_mmap_add_dev", rc);
        return;
    }
    if ((rc = doca_mmap_set_permissions(mmap_, o.permissions)) != DOCA_SUCCESS) {
        fail("doca_mmap_set_permissions", rc);
        return;
    }
    if ((rc = doca_mmap_set_memrange(mmap_, raw_, size)) != DOCA_SUCCESS) {
        fail("doca_mmap_set_memrange", rc);
        return;
    }
    if (o.start && (rc = doca_mmap_start(mmap_)) != DOCA_SUCCESS) {
        fail("doca_mmap_start", rc);
        return;
    }
    if ((rc = doca_buf_inventory_create(o.inventory, &inv_)) != DOCA_SUCCESS) {
        fail("doca_buf_inventory_create", rc);
        return;
    }
    if ((rc = doca_buf_inventory_start(inv_)) != DOCA_SUCCESS) {
        fail("doca_buf_inventory_start", rc);
        return;
    }
}

region::~region()
{
    if (inv_) {
        doca_error_t rc = doca_buf_inventory_destroy(inv_);
        if (rc != DOCA_SUCCESS)
            std::fprintf(stderr, "[pid %d] region: doca_buf_inventory_destroy: %s\n", int(getpid()),
                         err_name(rc).c_str());
    }
    bool released = true;
    if (mmap_) {
        doca_error_t rc = doca_mmap_destroy(mmap_);
        if (rc != DOCA_SUCCESS) {
            std::fprintf(stderr,
                         "[pid %d] region: doca_mmap_destroy: %s (memory leaked on purpose)\n",
                         int(getpid()), err_name(rc).c_str());
            released = false;
        }
    }
    if (raw_ && released) {
        if (kind_ == mem_kind::anon)
            munmap(raw_, size_);
        else
            std::free(raw_);
    }
}

doca_buf *region::get_by_addr(size_t off, size_t len)
{
    doca_buf *b = nullptr;
    last_rc = doca_buf_inventory_buf_get_by_addr(inv_, mmap_, base() + off, len, &b);
    return last_rc == DOCA_SUCCESS ? b : nullptr;
}

doca_buf *region::get_by_data(size_t off, size_t len)
{
    doca_buf *b = nullptr;
    last_rc = doca_buf_inventory_buf_get_by_data(inv_, mmap_, base() + off, len, &b);
    return last_rc == DOCA_SUCCESS ? b : nullptr;
}

doca_buf *region::get_by_args(size_t off, size_t cap, size_t len)
{
    doca_buf *b = nullptr;
    last_rc =
        doca_buf_inventory_buf_get_by_args(inv_, mmap_, base() + off, cap, base() + off, len, &b);
    return last_rc == DOCA_SUCCESS ? b : nullptr;
}

void region::fail(const std::string &what, doca_error_t rc)
{
    error = what + ": " + err_name(rc);
    std::fprintf(stderr, "[pid %d] region: %s\n", int(getpid()), error.c_str());
}

} // namespace sc_test::fp
