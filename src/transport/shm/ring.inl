// SPDX-License-Identifier: Apache-2.0
//
// Data path of the SPSC ring (included by ring.hpp; do not include directly). Everything here is
// inline so that a send or a poll compiles down to a handful of loads and stores.
//
// Ownership of the shared words (who writes what; see ring.hpp for the layout):
//   data area (records)       producer, for byte positions in [tail, tail + capacity)
//   ctrl.head, committed      producer (diagnostic mirrors of head_ and committed_)
//   ctrl.tail, released       consumer
//   ctrl.armed                consumer sets to 1 (arm), either side clears to 0; every write
//                             to it is an atomic exchange (see below)
//
// The zeroing rule: when the consumer looks at the producer's head position, the word there is 0
// or the header of a record one lap older (whose mark differs: it names another position),
// never payload bytes an earlier lap left at that offset. init() zeroes the first header; every
// publish_record() zeroes the header right after the record it publishes, before the release
// that publishes the record (so the consumer, which reads that position only after acquiring the
// record, sees the 0 or something newer). It does so only when that position is free space.
// Otherwise the ring is exactly full and the position is the start of the oldest record the
// producer knows unconsumed: a header, which only the producer rewrites, left as it is.
//
// Edges (each acquire/release below names its partner):
//   R1 (publish_record: seq store-release)   -> A1 (peek: seq load-acquire)
//        the payload, the header and the zeroed next header written before R1 are visible
//        after A1.
//   R2 (publish_tail: released and tail store-release) -> A2 (refresh_tail: tail and released
//        load-acquire) the consumer's reads of records below tail happen before the producer
//        overwrites them; `released` only bounds how many messages may be in flight.
//   R3 (wake_needed: armed exchange-release) -> A3 (arm: armed exchange-acquire)
//        the Dekker pair of the sleep protocol: either the producer's exchange sees the arm,
//        or the consumer's exchange synchronises with the producer's and then sees the record
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

// Header at byte position `pos`. The mask is a process-local copy taken at attach and every
// position the producer uses is a multiple of 64, so a peer cannot steer this outside the data
// area, and a header never straddles its end (capacity is a multiple of 64 too).
inline record_header *ring_producer::at(uint64_t pos) const noexcept
{
    return reinterpret_cast<record_header *>(data_ + (pos & mask_));
}

inline uint64_t ring_producer::footprint(uint32_t size, uint32_t *pad) const noexcept
{
    // A record never wraps: if it does not end by the end of the lap, the rest of the lap
    // becomes a padding record and the record starts the next lap. size <= capacity / 2, so
    // the padding is shorter than the record and the total stays within the capacity.
    const uint32_t off = uint32_t(head_ & mask_);
    *pad = off + uint64_t(size) > uint64_t(mask_) + 1 ? mask_ + 1 - off : 0;
    return uint64_t(*pad) + size;
}

inline bool ring_producer::fits(uint64_t bytes) const noexcept
{
    // Both bounds: messages (the receiver's queue size) and bytes (the ring's memory).
    return committed_ - released_cache_ < limit_ &&
           head_ + bytes - tail_cache_ <= uint64_t(mask_) + 1;
}

// Re-reads the consumer's position. Called only when the cached copies say "full", so in
// steady state the producer does not touch the consumer's cache line at all.
inline void ring_producer::refresh_tail() noexcept
{
    // A2: pairs with R2 in ring_consumer::publish_tail(). After it, the consumer is done with
    // every byte below `t`, so those bytes may be rewritten.
    const uint64_t t = ctrl_->tail.load(std::memory_order_acquire);
    const uint64_t r = ctrl_->released.load(std::memory_order_acquire);
    // A well-behaved consumer's words only grow and never pass ours. A value outside
    // [cache, ours] comes from a corrupt peer: ignore it (the ring then merely looks full), so
    // that the in-flight arithmetic can never underflow into "lots of room".
    if (t - tail_cache_ <= head_ - tail_cache_)
        tail_cache_ = t;
    if (r - released_cache_ <= committed_ - released_cache_)
        released_cache_ = r;
}

inline bool ring_producer::room(uint64_t bytes) noexcept
{
    // Cached check first (no shared access); only a ring that looks full costs a shared read.
    if (fits(bytes)) [[likely]]
        return true;
    refresh_tail();
    return fits(bytes);
}

inline void *ring_producer::try_claim(uint32_t len) noexcept
{
    // Oversized messages never fit, whatever the fill level.
    if (len > max_payload()) [[unlikely]]
        return nullptr;
    const uint32_t size = ring_layout::record_size_for(len);
    uint32_t pad = 0;
    if (!room(footprint(size, &pad))) [[unlikely]]
        return nullptr;
    claim_pad_ = pad;
    claim_size_ = size;
    // The payload follows the 16-byte header, at the lap start when padding comes first.
    return reinterpret_cast<uint8_t *>(at(head_ + pad)) + k_record_header_size;
}

inline void ring_producer::publish_record(uint32_t size, uint32_t kind, uint16_t type, uint32_t len,
                                          uint16_t flags) noexcept
{
    record_header *h = at(head_);
    // Plain stores: ordered before the seq store below by its release semantics.
    h->len = len;
    h->type = type;
    h->flags = flags;
    h->kind = kind;
    // The zeroing rule (top of this file): clear the next position if it is free space; the
    // consumer reads it only after A1 on this record, which this store precedes. (Not free: the
    // ring is exactly full and it holds the oldest unconsumed record's header; positions and
    // records are whole lines, so there is no partial case.)
    if (head_ + size - tail_cache_ < uint64_t(mask_) + 1)
        at(head_ + size)->seq.store(0, std::memory_order_relaxed);
    // R1: pairs with A1 in ring_consumer::peek(). Makes the header, the payload and the zeroed
    // next header visible together with the mark of this position.
    h->seq.store(record_mark(head_), std::memory_order_release);
    head_ += size;
}

inline void ring_producer::publish(uint16_t type, uint32_t len, uint16_t flags) noexcept
{
    // The caller must have claimed room for at least this much.
    assert(claim_size_ != 0 && ring_layout::record_size_for(len) <= claim_size_);
    if (claim_pad_ != 0)
        publish_record(claim_pad_, k_record_padding, 0, claim_pad_ - k_record_header_size, 0);
    publish_record(ring_layout::record_size_for(len), k_record_message, type, len, flags);
    ++committed_;
    claim_size_ = 0;
    // Relaxed: diagnostic mirrors for pending()/tools; nothing is published through them. The
    // line is producer-owned, so the stores stay in the producer's cache.
    ctrl_->head.store(head_, std::memory_order_relaxed);
    ctrl_->committed.store(committed_, std::memory_order_relaxed);
}

inline uint32_t ring_producer::wake_needed() noexcept
{
    // R3: pairs with A3 in ring_consumer::arm(). Reads the arm and clears it in one step, so
    // one arm yields at most one wake-up. Release: the R1 store(s) of the messages just
    // published are sequenced before this exchange, so a consumer whose arm exchange comes
    // later in `armed`'s modification order (and therefore reads from our release sequence)
    // is guaranteed to see them. In polling mode the consumer never touches `armed`: the line
    // stays exclusive in our cache and the exchange costs one locked instruction, no transfer.
    return ctrl_->armed.exchange(0, std::memory_order_release);
}

inline bool ring_producer::consumer_armed() const noexcept
{
    // Relaxed: a diagnostic read, as ring_consumer::armed(). Every write to `armed` stays an
    // exchange (A3/R3), so this load changes nothing of the sleep protocol.
    return ctrl_->armed.load(std::memory_order_relaxed) != 0;
}

inline uint32_t ring_producer::commit(uint16_t type, uint32_t len, uint16_t flags) noexcept
{
    // Publish, then the Dekker half of the producer: see wake_needed().
    publish(type, len, flags);
    return wake_needed();
}

inline uint32_t ring_producer::commit_deferred(uint16_t type, uint32_t len, uint16_t flags) noexcept
{
    publish(type, len, flags);
    // Relaxed: a look, not the check. A non-zero value means the consumer armed earlier: the
    // check (R3) now, as commit() does. Zero proves nothing about an arm happening now (this load
    // may pass our R1 store in the store buffer); the caller's later wake_needed() settles it,
    // with the argument of ring_consumer::arm_as() applied to that exchange.
    if (ctrl_->armed.load(std::memory_order_relaxed) != 0)
        return wake_needed();
    return 0;
}

inline doca_error_t ring_producer::send(uint16_t type, const void *data, uint32_t len,
                                        bool *wake) noexcept
{
    // Distinguish "never fits" from "no room now" for the caller.
    if (len > max_payload())
        return DOCA_ERROR_TOO_BIG;
    void *p = try_claim(len);
    if (p == nullptr)
        return DOCA_ERROR_AGAIN;
    // Copy in place, then publish and check for an armed consumer.
    if (len != 0)
        std::memcpy(p, data, len);
    *wake = commit(type, len) != 0;
    return DOCA_SUCCESS;
}

inline bool ring_producer::full() noexcept
{
    // The smallest message: one line.
    uint32_t pad = 0;
    return !room(footprint(k_cache_line, &pad));
}

inline uint32_t ring_producer::in_flight() noexcept
{
    // Refreshes the cached words (acquire reads, A2) and reports what is still unreleased.
    refresh_tail();
    return uint32_t(committed_ - released_cache_);
}

// ---- consumer ---------------------------------------------------------------------------------

// Header at byte position `pos` (process-local mask; positions are multiples of 64, as above).
inline const record_header *ring_consumer::at(uint64_t pos) const noexcept
{
    return reinterpret_cast<const record_header *>(data_ + (pos & mask_));
}

inline void ring_consumer::publish_tail() noexcept
{
    published_tail_ = tail_;
    published_released_ = released_;
    // R2: pairs with A2 in ring_producer::refresh_tail(). Our reads of every record below tail_
    // (by the receive callback, in place) happen before the producer may rewrite them. The line
    // is consumer-owned and the producer reads it only when it sees the ring full, so these
    // stores normally hit a line already exclusive in our cache.
    ctrl_->released.store(released_, std::memory_order_release);
    ctrl_->tail.store(tail_, std::memory_order_release);
}

inline void ring_consumer::flush() noexcept
{
    // Nothing to do when the producer already knows our position (padding moves tail_ alone).
    if (published_tail_ != tail_ || published_released_ != released_)
        publish_tail();
}

inline const record_view *ring_consumer::peek() noexcept
{
    // A corrupt ring stays dead: the caller is expected to tear the connection down.
    if (corrupted_) [[unlikely]]
        return nullptr;
    // Returned but not released yet: the same message again.
    if (view_size_ != 0)
        return &view_;
    // At most two rounds: a padding record, then the message at the start of the next lap.
    for (;;) {
        const record_header *h = at(tail_);
        // A1: pairs with R1 in ring_producer::publish_record(). Only this word is polled; the
        // producer's head is never read, so an empty poll touches one line and a hit costs one
        // transfer. By the zeroing rule the word is 0 until the record is there.
        if (h->seq.load(std::memory_order_acquire) != record_mark(tail_)) {
            // Empty: hand the producer any lazily withheld releases (see release()).
            flush();
            return nullptr;
        }
        // Plain reads, ordered after A1. Copied into process-local values and validated once,
        // so the peer cannot change them after the check (no double fetch).
        const uint32_t len = h->len;
        const uint32_t kind = h->kind;
        const uint64_t left = uint64_t(mask_) + 1 - (tail_ & mask_); // bytes to the lap's end
        if (kind == k_record_padding) {
            // Padding fills exactly the rest of a lap it did not start (the producer pads only
            // where a record would not fit, which is never at offset 0).
            if (uint64_t(len) + k_record_header_size != left || left == uint64_t(mask_) + 1)
                [[unlikely]] {
                corrupted_ = true;
                return nullptr;
            }
            tail_ += left; // reaches the producer with the next publication
            continue;
        }
        const uint32_t size = ring_layout::record_size_for(len <= max_payload() ? len : 0);
        if (kind != k_record_message || len > max_payload() || size > left) [[unlikely]] {
            corrupted_ = true;
            return nullptr;
        }
        view_.data = h + 1;
        view_.len = len;
        view_.type = h->type;
        view_.flags = h->flags;
        view_size_ = size;
        // The next record's lines, while the caller handles this one: the address of the next
        // header depends on this header's size, so without a hint a backlog arrives one line
        // transfer at a time. A prefetch reads nothing into the program (the header is checked
        // when peeked) and costs only a line that is not written yet when there is no backlog.
        __builtin_prefetch(at(tail_ + size), 0, 3);
        __builtin_prefetch(at(tail_ + size + k_cache_line), 0, 3);
        return &view_;
    }
}

inline bool ring_consumer::ready() noexcept
{
    // peek() without keeping the answer: it skips padding, which is consumption the producer
    // learns about with the next publication, and publishes pending releases when empty.
    return peek() != nullptr;
}

inline void ring_consumer::release() noexcept
{
    // The caller must have peeked a message.
    assert(view_size_ != 0);
    tail_ += view_size_;
    ++released_;
    view_size_ = 0;
    // Publish in batches (R2 inside publish_tail()); the rest is flushed when we go idle.
    if (released_ - published_released_ >= publish_batch_ ||
        tail_ - published_tail_ >= publish_bytes_)
        publish_tail();
}

inline bool ring_consumer::arm() noexcept
{
    return arm_as(k_armed_wake);
}

inline bool ring_consumer::park() noexcept
{
    // The same protocol as a sleeping arm: only the value differs, which tells the producer to
    // ring the doorbell rather than the wake-up socket.
    return arm_as(k_armed_bell);
}

inline bool ring_consumer::arm_as(uint32_t how) noexcept
{
    // Before sleeping, the producer must see every byte and message we freed: otherwise it could
    // wait for room that exists while we wait for a message it cannot commit (a deadlock).
    flush();
    // A3: pairs with R3 in ring_producer::wake_needed(). Every write to `armed` is an exchange
    // (an RMW), so all of them sit in one modification order and each reads its predecessor.
    // Take a producer commit concurrent with this arm: its R1 stores, then its exchange P.
    //   - Our exchange A comes before P: P reads our value and the producer wakes us (or rings
    //     our bell).
    //   - P comes before A: A reads from P's release sequence (only RMWs follow P), so P
    //     synchronises with A; R1 happens-before our check below, which then sees the
    //     message and we report busy.
    // Both cannot miss, so a message committed concurrently with arm() always either wakes us
    // or keeps us awake. (Both may happen: a spurious wake-up, harmless.)
    ctrl_->armed.exchange(how, std::memory_order_acquire);
    // Re-check emptiness (A1 inside peek(); padding it meets is skipped, the message after it
    // is what counts). peek() flushes again if it skipped padding and found nothing.
    if (ready()) {
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
    // Relaxed: the producer's diagnostic mirror; may lag by a message. Clamp so a corrupt or
    // lagging value never reports more than the ring admits.
    const uint64_t c = ctrl_->committed.load(std::memory_order_relaxed);
    const uint64_t n = c - released_;
    return n > limit_ ? 0 : uint32_t(n);
}

} // namespace softcomch::transport::shm
