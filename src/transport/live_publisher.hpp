// SPDX-License-Identifier: Apache-2.0
//
// The writing side of the live-figures file (common/live_layout.hpp, docs/shm_layout.md
// section 11): Comch contexts and connections, engine contexts, exports and imports; one file
// per process and fabric, `<fabric dir>/stats/<pid>.stats`, made on the
// first claim, mapped MAP_SHARED, and removed when its last context slot goes. Claims and
// releases are the slow path (a mutex, file system calls on the first claim of a fabric); what a
// claimed slot's owner writes afterwards is plain relaxed atomic stores into the mapping.
//
// Publishing is best effort: a claim that cannot be served (no fabric directory, out of slots,
// out of memory) returns false, says so once at DEBUG level, and the object simply does not
// appear in `softcomch top` (the header counts those that found the file full). Nothing here
// fails a DOCA call.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/live_layout.hpp"

namespace softcomch::transport {

class live_file;

// What a resource slot says of its engine context, export or import (strings truncated).
struct live_resource_identity {
    uint32_t kind = 0; // live::k_res_*
    uint32_t id = 0;   // the process's number for it
    std::string name;  // "dma", "mmap", "sync_event", ...
    std::string device;
    uint32_t access = 0;
    uint64_t addr = 0;
    uint64_t len = 0;
    std::string peer; // import: the exporter, as its transport names it
    std::string peer_function;
    uint32_t state = 0; // engine: doca_ctx_states
};

// What a context slot says of its context (strings are truncated to their fields).
struct live_context_identity {
    uint32_t id = 0;   // the process's number for the context
    uint32_t kind = 0; // live::k_kind_server or live::k_kind_client
    std::string name;
    std::string bluefield;
    std::string device;
    std::string host_function;
    std::string representor;
    uint32_t max_msg_size = 0;
    uint32_t recv_queue_size = 0;
    uint32_t state = 0; // doca_ctx_states
};

// What a connection slot says of its connection.
struct live_connection_identity {
    uint64_t connection_id = 0;
    int peer_pid = 0;
    uint32_t max_msg_size = 0;
    uint32_t send_ring_limit = 0;
    uint32_t recv_ring_limit = 0;
};

// What the owner of a claimed `Slot` holds: the file (shared with the other slots in it) and the
// slot's place in it. Not thread-safe: one owner.
template <class Slot> class live_slot {
public:
    live_slot(const live_slot &) = delete;
    live_slot &operator=(const live_slot &) = delete;
    Slot *get() const noexcept { return slot_; }

protected:
    live_slot() noexcept = default;
    ~live_slot() = default;
    // Gives the slot back, if any: to its file's table `used` of slots of its kind, and `also`
    // runs, under the file's lock, when this process made the file (a forked child's copy of the
    // mapping is its parent's); empties the owner either way. In live_publisher.cpp.
    template <class Also> void give_back(std::vector<bool> live_file::*used, Also &&also) noexcept;

    std::shared_ptr<live_file> file_;
    Slot *slot_ = nullptr;
    uint32_t index_ = 0;
};

// A context's slot, released by the destructor.
class live_context_slot : public live_slot<live::context_slot> {
public:
    live_context_slot() noexcept = default;
    ~live_context_slot() { release(); }

    // Claims a slot of this process's file for `fabric`, made if missing, filled from `id`.
    // False (and no slot) when none could be claimed.
    bool claim(const std::string &fabric, const live_context_identity &id) noexcept;
    void release() noexcept;
    // The fabric of the slot's file (empty without a slot).
    const std::string &fabric() const noexcept;

private:
    friend class live_connection_slot;
};

// A connection's slot in its context's file, released by the destructor.
class live_connection_slot : public live_slot<live::connection_slot> {
public:
    live_connection_slot() noexcept = default;
    ~live_connection_slot() { release(); }

    // Claims a slot beside `ctx`'s (which must hold one), counted in its `connections`, with
    // zero counters. False (and no slot) when none could be claimed.
    bool claim(const live_context_slot &ctx, const live_connection_identity &id) noexcept;
    void release() noexcept;

private:
    uint32_t context_ = 0;
};

// An engine context's, export's or import's slot, released by the destructor.
class live_resource_slot : public live_slot<live::resource_slot> {
public:
    live_resource_slot() noexcept = default;
    ~live_resource_slot() { release(); }

    // Claims a slot of this process's file for `fabric`, made if missing, filled from `id`,
    // with zero counters. False (and no slot) when none could be claimed.
    bool claim(const std::string &fabric, const live_resource_identity &id) noexcept;
    void release() noexcept;
    // The fabric of the slot's file (empty without a slot).
    const std::string &fabric() const noexcept;
};

// The path of this process's file for `fabric` (for tests and logs; nothing is created); of
// process `pid`'s with the second form.
std::string live_file_path(const std::string &fabric);
std::string live_file_path(const std::string &fabric, int pid);

} // namespace softcomch::transport
