// SPDX-License-Identifier: Apache-2.0
//
// Control path of the SPSC ring: sizing, initialisation, validation and attach. The data path
// is inline in ring.inl.
#include "transport/shm/ring.hpp"

#include <cstring>
#include <new>

namespace softcomch::transport::shm {

namespace {

// True for 1, 2, 4, ... Capacities must be powers of two so that `pos & mask` replaces a
// modulo on the data path and free-running positions wrap consistently at 2^64.
constexpr bool is_pow2(uint32_t v) noexcept
{
    return v != 0 && (v & (v - 1)) == 0;
}

// Required alignment of ring memory: the slot headers hold atomics and slots are cache-line
// sized, so the base must sit on a cache line. (Misaligned atomics would not even be atomic
// on every architecture, and misaligned slots would share lines between neighbours.)
bool aligned(const void *mem) noexcept
{
    return (reinterpret_cast<uintptr_t>(mem) & (k_cache_line - 1)) == 0;
}

} // namespace

bool ring_layout::valid(const ring_params &p) noexcept
{
    // Capacity: power of two within the hard limit (keeps capacity * slot_size far from
    // overflow and (uint32_t)(pos + 1) unambiguous across laps).
    if (!is_pow2(p.capacity) || p.capacity > k_ring_max_capacity)
        return false; // e.g. 12 slots, or more than 16 Mi slots
    // Slots: whole cache lines, at least one line (header + some payload), bounded.
    if (p.slot_size < k_cache_line || p.slot_size % k_cache_line != 0 ||
        p.slot_size > k_ring_max_slot_size)
        return false;
    // In-flight bound: at least one message, never more than there are slots.
    if (p.limit == 0 || p.limit > p.capacity)
        return false;
    // Total size bounded (also rejects combinations that are each legal but huge together).
    return uint64_t(k_ring_ctrl_size) + uint64_t(p.capacity) * p.slot_size <= k_ring_max_memsize;
}

// The size depends on capacity and slot size only: the in-flight limit is a producer rule,
// not a property of the memory.
uint64_t ring_layout::memsize(uint32_t capacity, uint32_t slot_size) noexcept
{
    // Validate with the most permissive limit (limit does not affect the size).
    if (!valid(ring_params{capacity, slot_size, capacity}))
        return 0;
    // Control block, then the slot array; both multiples of 64 so the result is too.
    return uint64_t(k_ring_ctrl_size) + uint64_t(capacity) * slot_size;
}

// Creator side. Called on memory nobody else is using yet (a fresh segment, or test memory),
// so plain stores are fine; publication to the other side is the segment's job (R10).
doca_error_t ring_layout::init(void *mem, uint64_t len, const ring_params &p) noexcept
{
    // Reject what attach() would reject, before writing anything.
    if (mem == nullptr || !aligned(mem) || !valid(p))
        return DOCA_ERROR_INVALID_VALUE;
    const uint64_t need = memsize(p.capacity, p.slot_size);
    if (len < need)
        return DOCA_ERROR_INVALID_VALUE;

    // Fresh control block: zero every byte (padding and reserved fields included, so a dump is
    // deterministic), then start the lifetime of the atomics with placement new.
    std::memset(mem, 0, k_ring_ctrl_size);
    auto *ctrl = static_cast<ring_ctrl *>(mem);
    ctrl->config.magic = k_ring_magic;
    ctrl->config.layout_version = k_ring_layout_version;
    ctrl->config.capacity = p.capacity;
    ctrl->config.slot_size = p.slot_size;
    ctrl->config.limit = p.limit;
    ctrl->config.max_payload = p.slot_size - k_slot_header_size;
    ctrl->config.slots_offset = k_ring_ctrl_size;
    ctrl->config.total_size = need;
    // Relaxed initial stores: the ring is not shared yet. The creator's later release store of
    // the segment version (segment.cpp, R10) publishes all of this to the attaching side.
    new (&ctrl->head) std::atomic<uint64_t>(0);
    new (&ctrl->tail) std::atomic<uint64_t>(0);
    new (&ctrl->armed) std::atomic<uint32_t>(0);

    // Slots: only the 16-byte headers are written. seq = 0 means "empty" for every slot,
    // because the first lap expects seq = pos + 1 >= 1 and later laps expect values that 0
    // cannot equal while capacity < 2^32 (see docs/shm_layout.md). Payload bytes are left as
    // they are: nothing reads a payload before the producer has written it. (A fresh memfd is
    // zero-filled anyway; the segment pre-faults its pages separately.)
    auto *slots = static_cast<uint8_t *>(mem) + k_ring_ctrl_size;
    for (uint32_t i = 0; i < p.capacity; ++i) {
        uint8_t *h = slots + uint64_t(i) * p.slot_size;
        // Zero len/type/flags/reserved, then start the lifetime of the seq atomic at 0.
        std::memset(h, 0, k_slot_header_size);
        new (h) std::atomic<uint32_t>(0);
    }
    return DOCA_SUCCESS;
}

// Attach side (and the segment's header validation). The memory may have been written by a
// buggy or hostile process: every field is checked against the one value it may have.
doca_error_t ring_layout::validate(const void *mem, uint64_t len, ring_params *out) noexcept
{
    // The config block must be readable at all before any field is looked at.
    if (mem == nullptr || !aligned(mem) || len < k_ring_ctrl_size)
        return DOCA_ERROR_INVALID_VALUE;
    // Copy the immutable config into local memory once: every check below runs on the copy,
    // so a concurrent writer cannot make a field pass one check and fail the next.
    ring_config cfg;
    std::memcpy(&cfg, mem, sizeof cfg);
    if (cfg.magic != k_ring_magic)
        return DOCA_ERROR_INVALID_VALUE;
    if (cfg.layout_version != k_ring_layout_version)
        return DOCA_ERROR_UNSUPPORTED_VERSION;
    const ring_params p{cfg.capacity, cfg.slot_size, cfg.limit};
    if (!valid(p))
        return DOCA_ERROR_INVALID_VALUE;
    // Derived fields must agree with the parameters exactly (no hidden offsets). They are
    // redundant on purpose: a reader that trusted slots_offset or max_payload instead of
    // recomputing them would be steerable by the peer.
    const uint64_t need = memsize(p.capacity, p.slot_size);
    if (cfg.max_payload != p.slot_size - k_slot_header_size ||
        cfg.slots_offset != k_ring_ctrl_size || cfg.total_size != need)
        return DOCA_ERROR_INVALID_VALUE;
    // Everything the ring addresses lies inside the caller's region: slot i ends at
    // 512 + (i + 1) * slot_size <= need <= len for every i < capacity.
    if (need > len)
        return DOCA_ERROR_INVALID_VALUE;
    // Reserved bytes are zero in v1; a non-zero byte means another writer or another layout.
    for (uint8_t b : cfg.reserved) {
        if (b != 0)
            return DOCA_ERROR_INVALID_VALUE;
    }
    // All checks passed: report the parameters from the local copy (never re-read).
    if (out != nullptr)
        *out = p;
    return DOCA_SUCCESS;
}

// Binding is control path: it may be slow, but once it succeeds, the data path needs no
// further checks because it only uses the process-local copies made here.
doca_error_t ring_producer::attach(void *mem, uint64_t len) noexcept
{
    // Validate first; nothing of *this changes on failure (outputs on success only).
    ring_params p;
    const doca_error_t err = ring_layout::validate(mem, len, &p);
    if (err != DOCA_SUCCESS)
        return err;
    // Process-local copies of everything the data path needs: the shared config is never read
    // again (see ring_config). mask_ and slot_size_ bound every slot address; limit_ bounds
    // what we admit; max_payload_ bounds what try_claim() hands out.
    ctrl_ = static_cast<ring_ctrl *>(mem);
    slots_ = static_cast<uint8_t *>(mem) + k_ring_ctrl_size;
    mask_ = p.capacity - 1;
    slot_size_ = p.slot_size;
    limit_ = p.limit;
    max_payload_ = p.slot_size - k_slot_header_size;
    // Resume at the published positions (both 0 on a fresh ring). Acquire on tail: A2, pairs
    // with R2 in ring_consumer::publish_tail(), like refresh_tail(). Relaxed on head: our own
    // word (the producer is its only writer).
    head_ = ctrl_->head.load(std::memory_order_relaxed);
    tail_cache_ = ctrl_->tail.load(std::memory_order_acquire);
    // A tail beyond head (corrupt) would make the ring look roomy; start from "full" instead.
    // (Modular arithmetic: head_ - tail_cache_ == limit_ even if head_ < limit_.)
    if (tail_cache_ > head_)
        tail_cache_ = head_ - limit_;
    return DOCA_SUCCESS;
}

// Same contract as ring_producer::attach(): validate, then copy what the data path needs.
doca_error_t ring_consumer::attach(void *mem, uint64_t len) noexcept
{
    // Validate first; nothing of *this changes on failure (outputs on success only).
    ring_params p;
    const doca_error_t err = ring_layout::validate(mem, len, &p);
    if (err != DOCA_SUCCESS)
        return err;
    // Process-local copies of everything the data path needs. In particular max_payload_ is
    // what peek() checks every slot's length against; it must not come from shared memory.
    ctrl_ = static_cast<ring_ctrl *>(mem);
    slots_ = static_cast<const uint8_t *>(mem) + k_ring_ctrl_size;
    mask_ = p.capacity - 1;
    slot_size_ = p.slot_size;
    limit_ = p.limit;
    max_payload_ = p.slot_size - k_slot_header_size;
    // A fresh binding starts healthy, with no message peeked.
    corrupted_ = false;
    view_ = slot_view{};
    // Batch tail publication (see release()): a quarter of the in-flight bound, so the
    // producer always sees at least three quarters of the room that really exists.
    publish_batch_ = limit_ / 4 > 1 ? limit_ / 4 : 1;
    // Resume at our published position (0 on a fresh ring). Relaxed: our own word.
    tail_ = ctrl_->tail.load(std::memory_order_relaxed);
    published_ = tail_;
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
