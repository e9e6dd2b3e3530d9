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
// modulo on the data path and free-running byte positions wrap consistently at 2^64.
constexpr bool is_pow2(uint32_t v) noexcept
{
    return v != 0 && (v & (v - 1)) == 0;
}

// Required alignment of ring memory: record headers hold atomics and records are whole cache
// lines, so the base must sit on a cache line. (Misaligned atomics would not even be atomic on
// every architecture, and misaligned records would share lines between neighbours.)
bool aligned(const void *mem) noexcept
{
    return (reinterpret_cast<uintptr_t>(mem) & (k_cache_line - 1)) == 0;
}

} // namespace

bool ring_layout::valid(const ring_params &p) noexcept
{
    // Records: whole cache lines, at least one line (header + some payload), bounded.
    if (p.max_record < k_cache_line || p.max_record % k_cache_line != 0 ||
        p.max_record > k_ring_max_record)
        return false;
    // Data area: a power of two within the hard limit (keeps positions masked with one AND),
    // holding at least two maximal records, so that a record and the padding in front of it
    // always fit in an empty ring.
    if (!is_pow2(p.capacity) || p.capacity > k_ring_max_capacity ||
        uint64_t(p.capacity) < 2 * uint64_t(p.max_record))
        return false;
    // In-flight bound: at least one message, bounded.
    return p.limit >= 1 && p.limit <= k_ring_max_limit;
}

// The size depends on the capacity only: the record size and the in-flight limit are rules of
// the two sides, not properties of the memory.
uint64_t ring_layout::memsize(uint32_t capacity) noexcept
{
    // The smallest legal record with this capacity; 0 for a capacity no ring may have.
    if (!valid(ring_params{capacity, k_cache_line, 1}))
        return 0;
    // Control block, then the data area; both multiples of 64 so the result is too.
    return uint64_t(k_ring_ctrl_size) + capacity;
}

// Creator side. Called on memory nobody else is using yet (a fresh segment, or test memory),
// so plain stores are fine; publication to the other side is the segment's job (R10).
doca_error_t ring_layout::init(void *mem, uint64_t len, const ring_params &p) noexcept
{
    // Reject what attach() would reject, before writing anything.
    if (mem == nullptr || !aligned(mem) || !valid(p))
        return DOCA_ERROR_INVALID_VALUE;
    const uint64_t need = memsize(p.capacity);
    if (len < need)
        return DOCA_ERROR_INVALID_VALUE;

    // Fresh control block: zero every byte (padding and reserved fields included, so a dump is
    // deterministic), then start the lifetime of the atomics with placement new.
    std::memset(mem, 0, k_ring_ctrl_size);
    auto *ctrl = static_cast<ring_ctrl *>(mem);
    ctrl->config.magic = k_ring_magic;
    ctrl->config.layout_version = k_ring_layout_version;
    ctrl->config.capacity = p.capacity;
    ctrl->config.max_record = p.max_record;
    ctrl->config.limit = p.limit;
    ctrl->config.max_payload = p.max_record - k_record_header_size;
    ctrl->config.data_offset = k_ring_ctrl_size;
    ctrl->config.total_size = need;
    // Relaxed initial stores: the ring is not shared yet. The creator's later release store of
    // the segment version (segment.cpp, R10) publishes all of this to the attaching side.
    new (&ctrl->head) std::atomic<uint64_t>(0);
    new (&ctrl->committed) std::atomic<uint64_t>(0);
    new (&ctrl->tail) std::atomic<uint64_t>(0);
    new (&ctrl->released) std::atomic<uint64_t>(0);
    new (&ctrl->armed) std::atomic<uint32_t>(0);

    // Data area: only the first header is written. The zeroing rule (ring.inl) needs the
    // sequence word at the producer's position to be 0; the producer keeps it so from here on,
    // so the rest of the memory may hold anything. (A fresh memfd is zero-filled anyway; the
    // segment pre-faults its pages separately.)
    auto *first = static_cast<uint8_t *>(mem) + k_ring_ctrl_size;
    std::memset(first, 0, k_record_header_size);
    new (first) std::atomic<uint32_t>(0);
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
    const ring_params p{cfg.capacity, cfg.max_record, cfg.limit};
    if (!valid(p))
        return DOCA_ERROR_INVALID_VALUE;
    // Derived fields must agree with the parameters exactly (no hidden offsets). They are
    // redundant on purpose: a reader that trusted data_offset or max_payload instead of
    // recomputing them would be steerable by the peer.
    const uint64_t need = memsize(p.capacity);
    if (cfg.max_payload != p.max_record - k_record_header_size ||
        cfg.data_offset != k_ring_ctrl_size || cfg.total_size != need)
        return DOCA_ERROR_INVALID_VALUE;
    // Everything the ring addresses lies inside the caller's region: the data area ends at
    // 512 + capacity == need <= len.
    if (need > len)
        return DOCA_ERROR_INVALID_VALUE;
    // Reserved bytes are zero in v2; a non-zero byte means another writer or another layout.
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
// further checks because it only uses the process-local copies made here. mask_ bounds every
// address; limit_ bounds what the producer admits; max_record_ bounds what its try_claim() hands
// out and what the consumer's peek() accepts: none of them may come from shared memory.
doca_error_t ring_binding::bind(void *mem, uint64_t len, ring_params *p) noexcept
{
    // Validate first; nothing of *this changes on failure (outputs on success only).
    if (const doca_error_t err = ring_layout::validate(mem, len, p); err != DOCA_SUCCESS)
        return err;
    ctrl_ = static_cast<ring_ctrl *>(mem);
    mask_ = p->capacity - 1;
    max_record_ = p->max_record;
    limit_ = p->limit;
    return DOCA_SUCCESS;
}

doca_error_t ring_producer::attach(void *mem, uint64_t len) noexcept
{
    ring_params p;
    if (const doca_error_t err = bind(mem, len, &p); err != DOCA_SUCCESS)
        return err;
    data_ = static_cast<uint8_t *>(mem) + k_ring_ctrl_size;
    claim_pad_ = 0;
    claim_size_ = 0;
    // Resume at the published positions (all 0 on a fresh ring). Acquire on the consumer's
    // words: A2, pairs with R2 in ring_consumer::publish_tail(), like refresh_tail(). Relaxed on
    // head and committed: our own words (the producer is their only writer). A head that is
    // not a multiple of 64 is not ours to trust: start a fresh ring's way instead.
    head_ = ctrl_->head.load(std::memory_order_relaxed) & ~uint64_t(k_cache_line - 1);
    committed_ = ctrl_->committed.load(std::memory_order_relaxed);
    tail_cache_ = ctrl_->tail.load(std::memory_order_acquire);
    released_cache_ = ctrl_->released.load(std::memory_order_acquire);
    // Words beyond ours (corrupt) would make the ring look roomy; start from "full" instead.
    // (Modular arithmetic: head_ - tail_cache_ == capacity even if head_ < capacity.)
    if (tail_cache_ - (head_ - p.capacity) > p.capacity)
        tail_cache_ = head_ - p.capacity;
    if (released_cache_ - (committed_ - p.limit) > p.limit)
        released_cache_ = committed_ - p.limit;
    return DOCA_SUCCESS;
}

// Same contract as ring_producer::attach(): validate, then copy what the data path needs.
doca_error_t ring_consumer::attach(void *mem, uint64_t len) noexcept
{
    ring_params p;
    if (const doca_error_t err = bind(mem, len, &p); err != DOCA_SUCCESS)
        return err;
    data_ = static_cast<const uint8_t *>(mem) + k_ring_ctrl_size;
    // A fresh binding starts healthy, with no message peeked.
    corrupted_ = false;
    view_ = record_view{};
    view_size_ = 0;
    // Batch publication (see release()): a quarter of either bound, so the producer always
    // sees at least three quarters of the room that really exists.
    publish_batch_ = limit_ / 4 > 1 ? limit_ / 4 : 1;
    publish_bytes_ = p.capacity / 4;
    // Resume at our published position (0 on a fresh ring). Relaxed: our own words. A tail that
    // is not on a line boundary cannot be a record position: the ring is then corrupt.
    tail_ = ctrl_->tail.load(std::memory_order_relaxed);
    released_ = ctrl_->released.load(std::memory_order_relaxed);
    corrupted_ = (tail_ & (k_cache_line - 1)) != 0;
    published_tail_ = tail_;
    published_released_ = released_;
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
