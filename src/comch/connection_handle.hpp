// SPDX-License-Identifier: Apache-2.0
//
// Generation-tagged handles for Comch connections. A connection is created by a peer and ends
// when the peer (or this side) closes it; the program may keep its `struct doca_comch_connection *`
// after that, and peers can open and close connections as fast as they like. So a connection's C
// handle is not the object's address (which malloc would soon give to a newer connection, making
// the stale handle reach another peer): it names a slot of a process-wide table and the slot's
// generation. The object is freed once its connection closed and nothing of the library refers
// to it any more; its handle then resolves to nothing, for good: the same handle value comes back
// only after the slot was reused k_generations times, and slots are reused least recently freed
// first, so after about k_slots * k_generations (2^27) connections.
//
// A handle is an address inside a range of k_slots * k_generations * 8 bytes (1 GiB) reserved
// read-only (anonymous, never written: every byte reads 0, no memory is committed). Nothing
// dereferences a handle as a connection; a handle passed where another kind of object is
// expected reads as zeros, which is no object tag, and is refused (capi/handle.hpp) instead of
// faulting.
//
// Thread safety: bind/unbind take a mutex (connection set-up and reclamation, control path);
// resolve() is one atomic load of the slot, from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/visibility.hpp"

struct doca_comch_connection;

namespace softcomch::comch {

constexpr size_t k_connection_slots = size_t(1) << 16;           // live connections per process
constexpr uint32_t k_connection_generations = uint32_t(1) << 11; // handles per slot

namespace handle_detail {
static_assert(sizeof(uintptr_t) == 8, "a slot packs a 48-bit address and a generation");
constexpr unsigned k_ptr_bits = 48;
constexpr uint64_t k_ptr_mask = (uint64_t(1) << k_ptr_bits) - 1;
constexpr size_t k_stride = 8; // handles are 8-byte aligned, as pointers to objects would be
constexpr size_t k_range = k_connection_slots * k_connection_generations * k_stride;
// Start of the reserved range (0 until the first connection), and the slots:
// (generation << 48) | object address, address 0 = free (connection_handle.cpp).
// Read by the C API's inline resolve(): exported.
extern SOFTCOMCH_API std::atomic<uintptr_t> base;
extern SOFTCOMCH_API std::atomic<uint64_t> slots[k_connection_slots];
} // namespace handle_detail

// A new handle for `conn`, or nullptr when the table is full (k_connection_slots live
// connections) or the handle range cannot be reserved (logged).
doca_comch_connection *bind_handle(doca_comch_connection *conn) noexcept;
// `handle` (from bind_handle) resolves to nothing from now on.
void unbind_handle(doca_comch_connection *handle) noexcept;
// True for every value bind_handle() can return, live or stale: no other pointer lies in the
// reserved range, so a stale one names a connection that closed (and was freed) since.
inline bool is_connection_handle(const doca_comch_connection *handle) noexcept
{
    using namespace handle_detail;
    const uintptr_t b = base.load(std::memory_order_acquire);
    const uintptr_t h = reinterpret_cast<uintptr_t>(handle);
    return b != 0 && h >= b && h - b < k_range && (h - b) % k_stride == 0;
}

// The live connection `handle` names, or nullptr (NULL, stale, or not a connection handle).
// Inline: the data path resolves a handle per send (allocation and submit).
inline doca_comch_connection *resolve(const doca_comch_connection *handle) noexcept
{
    using namespace handle_detail;
    if (!is_connection_handle(handle))
        return nullptr;
    const uintptr_t index =
        (reinterpret_cast<uintptr_t>(handle) - base.load(std::memory_order_relaxed)) / k_stride;
    const uint64_t w = slots[index % k_connection_slots].load(std::memory_order_acquire);
    if ((w >> k_ptr_bits) != index / k_connection_slots)
        return nullptr;
    return reinterpret_cast<doca_comch_connection *>(uintptr_t(w & k_ptr_mask));
}

} // namespace softcomch::comch
