// SPDX-License-Identifier: Apache-2.0
//
// Data path of the SPSC ring (included by ring.hpp; do not include directly). Everything here is
// inline so that a send or a poll compiles down to a handful of loads and stores.
//
// Ownership of the shared words (who writes what; see ring.hpp for the layout):
//   slot_header (all fields)  producer, for positions in [tail, tail + limit)
//   ctrl.head                 producer (diagnostic mirror of head_)
//   ctrl.tail                 consumer
//   ctrl.armed                consumer sets to 1 (arm), either side clears to 0; every write
//                             to it is an atomic exchange (see below)
//
// Edges (each acquire/release below names its partner):
//   R1 (publish: slot seq store-release)   -> A1 (peek/ready: slot seq load-acquire)
//        the payload and slot header written before R1 are visible after A1.
//   R2 (publish_tail: tail store-release)  -> A2 (refresh_tail: tail load-acquire)
//        the consumer's reads of a slot happen before the producer overwrites it.
//   R3 (wake_needed: armed exchange-release) -> A3 (arm: armed exchange-acquire)
//        the Dekker pair of the sleep protocol: either the producer's exchange sees the arm,
//        or the consumer's exchange synchronises with the producer's and then sees the slot
//        (see ring_consumer::arm()). Exchanges instead of seq_cst fences: both sides work on
//        the one word `armed`, whose modification order is total, which proves the protocol
//        with plain acquire/release, costs the same on x86 (xchg is a full barrier like
//        mfence), and is understood by ThreadSanitizer (which does not model fences; GCC
//        rejects atomic_thread_fence under -fsanitize=thread).
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
    // A2: pairs with R2 in ring_consumer::publish_tail(). After it, the consumer is done with all
    // slots below `t`, so those slots may be rewritten.
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
    // R3: pairs with A3 in ring_consumer::arm(). Reads the arm and clears it in one step, so
    // one arm yields at most one wake-up. Release: the R1 store(s) of the messages just
    // published are sequenced before this exchange, so a consumer whose arm exchange comes
    // later in `armed`'s modification order (and therefore reads from our release sequence)
    // is guaranteed to see them. In polling mode the consumer never touches `armed`: the line
    // stays exclusive in our cache and the exchange costs one locked instruction, no transfer.
    return ctrl_->armed.exchange(0, std::memory_order_release) != 0;
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

inline bool ring_consumer::full_slot(uint64_t pos) const noexcept
{
    // A1: pairs with R1 in ring_producer::publish(). The slot is full for this lap exactly when
    // its seq equals (uint32_t)(pos + 1).
    return slot(pos)->seq.load(std::memory_order_acquire) == uint32_t(pos + 1);
}

inline void ring_consumer::publish_tail() noexcept
{
    published_ = tail_;
    // R2: pairs with A2 in ring_producer::refresh_tail(). Our reads of every slot below tail_
    // (by the receive callback, in place) happen before the producer may rewrite them. The line
    // is consumer-owned and the producer reads it only when it sees the ring full, so this
    // store normally hits a line already exclusive in our cache.
    ctrl_->tail.store(tail_, std::memory_order_release);
}

inline void ring_consumer::flush() noexcept
{
    // Nothing to do when the producer already knows our position.
    if (published_ != tail_)
        publish_tail();
}

inline bool ring_consumer::ready() noexcept
{
    // A1 inside full_slot().
    if (full_slot(tail_))
        return true;
    // Idle: never leave releases unpublished while we are not consuming.
    flush();
    return false;
}

inline const slot_view *ring_consumer::peek() noexcept
{
    // A corrupt ring stays dead: the caller is expected to tear the connection down.
    if (corrupted_) [[unlikely]]
        return nullptr;
    const slot_header *s = slot(tail_);
    // A1: pairs with R1 in ring_producer::publish(). Only this word is polled; the producer's
    // head is never read, so an empty poll touches one line and a hit costs one transfer.
    if (s->seq.load(std::memory_order_acquire) != uint32_t(tail_ + 1)) {
        // Empty: hand the producer any lazily withheld releases (see release()).
        flush();
        return nullptr;
    }
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
    assert(full_slot(tail_));
    ++tail_;
    // Publish in batches (R2 inside publish_tail()); the rest is flushed when we go idle.
    if (tail_ - published_ >= publish_batch_)
        publish_tail();
}

inline bool ring_consumer::arm() noexcept
{
    // Before sleeping, the producer must see every slot we freed: otherwise it could wait for
    // room that exists while we wait for a message it cannot commit (a deadlock).
    flush();
    // A3: pairs with R3 in ring_producer::wake_needed(). Every write to `armed` is an exchange
    // (an RMW), so all of them sit in one modification order and each reads its predecessor.
    // Take a producer commit concurrent with this arm: its R1 store, then its exchange P.
    //   - Our exchange A comes before P: P reads our 1 and the producer wakes us.
    //   - P comes before A: A reads from P's release sequence (only RMWs follow P), so P
    //     synchronises with A; R1 happens-before our slot check below, which then sees the
    //     message and we report busy.
    // Both cannot miss, so a message committed concurrently with arm() always either wakes us
    // or keeps us awake. (Both may happen: a spurious wake-up, harmless.)
    ctrl_->armed.exchange(1, std::memory_order_acquire);
    // Re-check emptiness (A1 inside full_slot()).
    if (full_slot(tail_)) {
        // Busy: withdraw the arm so the producer does not signal needlessly (an exchange, to
        // keep every write an RMW). If the producer already consumed the arm, the caller merely
        // finds its eventfd readable once.
        ctrl_->armed.exchange(0, std::memory_order_relaxed);
        return false;
    }
    return true;
}

inline void ring_consumer::disarm() noexcept
{
    // Relaxed (no data is published through it), but an exchange rather than a store: a plain
    // store would end the producer's release sequence on `armed` and break the A3 argument.
    ctrl_->armed.exchange(0, std::memory_order_relaxed);
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
