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

#include <cstddef>
#include <cstdint>

#include "common/visibility.hpp"

struct doca_comch_connection;

namespace softcomch::comch {

constexpr size_t k_connection_slots = size_t(1) << 16;           // live connections per process
constexpr uint32_t k_connection_generations = uint32_t(1) << 11; // handles per slot

// A new handle for `conn`, or nullptr when the table is full (k_connection_slots live
// connections) or the handle range cannot be reserved (logged).
doca_comch_connection *bind_handle(doca_comch_connection *conn) noexcept;
// `handle` (from bind_handle) resolves to nothing from now on.
void unbind_handle(doca_comch_connection *handle) noexcept;
// The live connection `handle` names, or nullptr (NULL, stale, or not a connection handle).
SOFTCOMCH_API doca_comch_connection *resolve(const doca_comch_connection *handle) noexcept;
// True for every value bind_handle() can return, live or stale: no other pointer lies in the
// reserved range, so a stale one names a connection that closed (and was freed) since.
SOFTCOMCH_API bool is_connection_handle(const doca_comch_connection *handle) noexcept;

// Live connections (tests).
size_t bound_handles() noexcept;

} // namespace softcomch::comch
