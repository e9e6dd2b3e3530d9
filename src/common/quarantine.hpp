// SPDX-License-Identifier: Apache-2.0
//
// Type-stable, delayed-reuse storage for objects whose address is their C handle (doca_pe,
// contexts, doca_mmap, doca_buf_inventory). A program that keeps a handle after destroying the
// object and calls the API with it must be refused (object_tag.hpp: the destructor leaves a dead
// tag), not served by the next object malloc happens to put at that address: a stale engine
// handle once destroyed a newer engine and the next doca_pe_progress crashed.
//
// So a destroyed object's block is not given back to malloc: it waits at the end of a FIFO (one
// per block size) and is reused, for an object of the same class, only once `depth` newer
// blocks of that size wait behind it. Until then a stale handle reads the dead tag; the memory is
// never returned to the allocator, so reading it is never a use after free. The cost: at most
// `depth` blocks per size are held (sizeof the object only; its members' memory is freed by its
// destructor), and creating or destroying an object takes a mutex (control path only).
//
// Use: derive the class from quarantined<Tag> (a class-specific operator new/delete); the
// classes derived from it share its quarantine (blocks of different sizes never mix).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "common/visibility.hpp"

namespace softcomch {

class quarantine {
public:
    explicit quarantine(size_t depth) noexcept : depth_(depth) {}

    // A block of `size` bytes: the oldest waiting one when more than `depth` wait, else a new
    // one. Throws std::bad_alloc.
    SOFTCOMCH_API void *allocate(size_t size);
    // The block of a destroyed object: it waits for its turn.
    SOFTCOMCH_API void release(void *p, size_t size) noexcept;

    // Blocks waiting, all sizes (tests).
    SOFTCOMCH_API size_t waiting() const noexcept;

private:
    size_t depth_;
    mutable std::mutex mu_;
    std::vector<std::pair<size_t, std::deque<void *>>> fifos_; // by block size
};

// How many destroyed blocks of each size wait before one is reused.
constexpr size_t k_quarantine_depth = 128;

// The process's one quarantine (quarantine.cpp): out of line, so that every library of the
// process (libsoftcomch and the DOCA libraries, which create some of these objects) shares it.
SOFTCOMCH_API quarantine &process_quarantine() noexcept;

template <typename Tag> struct quarantined {
    static quarantine &pool() noexcept { return process_quarantine(); }
    static void *operator new(size_t size) { return pool().allocate(size); }
    static void operator delete(void *p, size_t size) noexcept { pool().release(p, size); }
};

} // namespace softcomch
