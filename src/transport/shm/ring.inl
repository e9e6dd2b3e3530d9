// SPDX-License-Identifier: Apache-2.0
//
// Data path of the SPSC ring (included by ring.hpp; do not include directly). Everything here is
// inline so that a send or a poll compiles down to a handful of loads and stores.
//
// Ownership of the shared words (who writes what; see ring.hpp for the layout):
//   slot_header (all fields)  producer, for positions in [tail, tail + limit)
//   ctrl.head                 producer (diagnostic mirror of head_)
//   ctrl.tail                 consumer
//   ctrl.armed                consumer sets to 1 (arm), either side clears to 0
//
// Edges (each acquire/release below names its partner):
//   R1 (publish: slot seq store-release)   -> A1 (peek/ready: slot seq load-acquire)
//        the payload and slot header written before R1 are visible after A1.
//   R2 (release: tail store-release)       -> A2 (refresh_tail: tail load-acquire)
//        the consumer's reads of a slot happen before the producer overwrites it.
//   F1 (arm: seq_cst fence)               <-> F2 (wake_needed: seq_cst fence)
//        Dekker: at least one side sees the other's store (see ring_consumer::arm()).
#pragma once

#include <cassert>
#include <cstring>

namespace softcomch::transport::shm {

// ---- producer ---------------------------------------------------------------------------------

// Address of the slot that holds position `pos`. The mask and slot size are process-local
// copies taken at attach, so a peer cannot steer this outside the slot array.
inline slot_header *ring_producer::slot(uint64_t pos) const noexcept
{
    return reinterpret_cast<slot_header *>(slots_ + uint64_t(pos & mask_) * slot_size_);
}

// Re-reads the consumer's position. Called only when the cached copy says "full", so in steady
// state the producer does not touch the consumer's cache line at all. Returns true when there
// is room for one more message.
inline bool ring_producer::refresh_tail() noexcept
{
    // A2: pairs with R2 in ring_consumer::release(). After it, the consumer is done with every
    // slot below `t`, so those slots may be rewritten.
    const uint64_t t = ctrl_->tail.load(std::memory_order_acquire);
    // A well-behaved consumer's tail only grows and never passes head_. A value outside
    // [tail_cache_, head_] comes from a corrupt peer: ignore it (the ring then merely looks full)
    // so that the in-flight arithmetic below can never underflow into "lots of room".
    if (t - tail_cache_ <= head_ - tail_cache_)
        tail_cache_ = t;
    // Room when fewer than `limit` messages are unreleased.
    return head_ - tail_cache_ < limit_;
}

inline void *ring_producer::try_claim(uint32_t len) noexcept
{
    // Oversized messages never fit, whatever the fill level.
    if (len > max_payload_) [[unlikely]]
        return nullptr;
    // Cached check first (no shared access); only a ring that looks full costs a shared read.
    if (head_ - tail_cache_ >= limit_) [[unlikely]] {
        if (!refresh_tail())
            return nullptr;
    }
    // The payload follows the 16-byte slot header.
    return slot(head_) + 1;
}

inline void ring_producer::publish(uint16_t type, uint32_t len, uint16_t flags) noexcept
{
    // The caller must have claimed: room exists and the length fits.
    assert(head_ - tail_cache_ < limit_ && len <= max_payload_);
    slot_header *s = slot(head_);
    // Plain stores: ordered before the seq store below by its release semantics.
    s->len = len;
    s->type = type;
    s->flags = flags;
    s->reserved = 0;
    // R1: pairs with A1 in ring_consumer::peek()/ready(). Makes the header and payload visible
    // together with the "full for this lap" mark. (uint32_t)(pos + 1) differs from the value the
    // slot held on any earlier lap because capacity < 2^32.
    s->seq.store(uint32_t(head_ + 1), std::memory_order_release);
    ++head_;
    // Relaxed: a diagnostic mirror for pending()/tools; nothing is published through it. The
    // line is producer-owned, so the store stays in the producer's cache.
    ctrl_->head.store(head_, std::memory_order_relaxed);
}

inline bool ring_producer::wake_needed() noexcept
{
    // F2: pairs with F1 in ring_consumer::arm(). Orders the R1 store(s) before the load of
    // `armed` below (a store followed by a load to another address needs a full fence).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // Relaxed: ordering comes from F2. In polling mode nobody writes `armed`, so the line stays
    // shared in our cache and this load is a cache hit.
    if (ctrl_->armed.load(std::memory_order_relaxed) == 0) [[likely]]
        return false;
    // Relaxed RMW: exactly one wake per arm even if the consumer disarms concurrently.
    return ctrl_->armed.exchange(0, std::memory_order_relaxed) != 0;
}

inline bool ring_producer::commit(uint16_t type, uint32_t len, uint16_t flags) noexcept
{
    // Publish, then the Dekker half of the producer: see wake_needed().
    publish(type, len, flags);
    return wake_needed();
}

inline doca_error_t ring_producer::send(uint16_t type, const void *data, uint32_t len,
                                        bool *wake) noexcept
{
    // Distinguish "never fits" from "no room now" for the caller.
    if (len > max_payload_)
        return DOCA_ERROR_TOO_BIG;
    void *p = try_claim(len);
    if (p == nullptr)
        return DOCA_ERROR_AGAIN;
    // Copy in place, then publish and check for an armed consumer.
    if (len != 0)
        std::memcpy(p, data, len);
    *wake = commit(type, len);
    return DOCA_SUCCESS;
}

inline bool ring_producer::full() noexcept
{
    // Cached view first; confirm with the shared tail only when it says full.
    return head_ - tail_cache_ >= limit_ && !refresh_tail();
}

inline uint32_t ring_producer::in_flight() noexcept
{
    // Refreshes the cached tail (an acquire read, A2) and reports what is still unreleased.
    refresh_tail();
    return uint32_t(head_ - tail_cache_);
}

// ---- consumer ---------------------------------------------------------------------------------

// Address of the slot that holds position `pos` (process-local mask and size, as above).
inline const slot_header *ring_consumer::slot(uint64_t pos) const noexcept
{
    return reinterpret_cast<const slot_header *>(slots_ + uint64_t(pos & mask_) * slot_size_);
}

inline bool ring_consumer::ready() const noexcept
{
    // A1: pairs with R1 in ring_producer::publish(). The slot is full for this lap exactly when
    // its seq equals (uint32_t)(tail_ + 1).
    return slot(tail_)->seq.load(std::memory_order_acquire) == uint32_t(tail_ + 1);
}

inline const slot_view *ring_consumer::peek() noexcept
{
    // A corrupt ring stays dead: the caller is expected to tear the connection down.
    if (corrupted_) [[unlikely]]
        return nullptr;
    const slot_header *s = slot(tail_);
    // A1: pairs with R1 in ring_producer::publish(). Only this word is polled; the producer's
    // head is never read, so an empty poll touches one line and a hit costs one transfer.
    if (s->seq.load(std::memory_order_acquire) != uint32_t(tail_ + 1))
        return nullptr;
    // Plain reads, ordered after A1. Copied into process-local view_ and validated once, so the
    // peer cannot change the length after the check (no double fetch).
    const uint32_t len = s->len;
    if (len > max_payload_) [[unlikely]] {
        corrupted_ = true;
        return nullptr;
    }
    view_.data = s + 1;
    view_.len = len;
    view_.type = s->type;
    view_.flags = s->flags;
    return &view_;
}

inline void ring_consumer::release() noexcept
{
    // The caller must have peeked a message.
    assert(ready());
    ++tail_;
    // R2: pairs with A2 in ring_producer::refresh_tail(). Our reads of the slot (by the receive
    // callback, in place) happen before the producer may rewrite it. The line is consumer-owned
    // and the producer reads it only when it sees the ring full, so this store normally hits a
    // line already exclusive in our cache.
    ctrl_->tail.store(tail_, std::memory_order_release);
}

inline bool ring_consumer::arm() noexcept
{
    // Ask for a wake-up. Relaxed store: the ordering that matters is provided by F1.
    ctrl_->armed.store(1, std::memory_order_relaxed);
    // F1: pairs with F2 in ring_producer::wake_needed(). In the single total order S of seq_cst
    // fences either
    //   F1 precedes F2: the producer's load of `armed` after F2 sees our 1 -> it wakes us; or
    //   F2 precedes F1: our seq load below sees the producer's R1 store -> we report busy.
    // Both may happen (a spurious wake-up, harmless); neither is impossible, so a message
    // committed concurrently with arm() is never left without a wake-up.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // Re-check emptiness (A1 inside ready()).
    if (ready()) {
        // Busy: withdraw the arm so the producer does not signal needlessly. If it already
        // consumed the arm, the caller merely finds its eventfd readable once.
        ctrl_->armed.store(0, std::memory_order_relaxed);
        return false;
    }
    return true;
}

inline void ring_consumer::disarm() noexcept
{
    // Relaxed: no data is published through `armed`.
    ctrl_->armed.store(0, std::memory_order_relaxed);
}

inline bool ring_consumer::armed() const noexcept
{
    // Relaxed: diagnostic read.
    return ctrl_->armed.load(std::memory_order_relaxed) != 0;
}

inline uint32_t ring_consumer::pending() const noexcept
{
    // Relaxed: the producer's diagnostic mirror; may lag the slots by a message. Clamp so a
    // corrupt or lagging value never reports more than the ring can hold.
    const uint64_t h = ctrl_->head.load(std::memory_order_relaxed);
    const uint64_t n = h - tail_;
    return n > mask_ + uint64_t(1) ? 0 : uint32_t(n);
}

} // namespace softcomch::transport::shm
