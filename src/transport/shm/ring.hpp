// SPDX-License-Identifier: Apache-2.0
//
// Single-producer / single-consumer message ring placed in caller-provided (shared) memory.
//
// One ring carries the control messages of one connection in one direction. The producer runs
// in one process, the consumer in the other; the ring memory is a region of the connection's
// segment (segment.hpp). Byte layout, memory-order edges and the arm/wake protocol are also
// described in docs/shm_layout.md.
//
// Shape (ideas from DPDK rte_ring, UCX mm, Aeron):
//   - The memory is sized with ring_layout::memsize(), initialised once by the creator with
//     ring_layout::init() and then attached by each side with ring_producer::attach() /
//     ring_consumer::attach(), which validate everything they read (the memory is shared with
//     another process and is never trusted).
//   - Capacity is a power of two; positions are free-running uint64_t, masked on access.
//   - At most `limit` messages (the receiver's queue size, 1 <= limit <= capacity) are in flight.
//   - Fixed-size slots: a 16-byte slot header followed by the payload.
//   - Each slot carries a sequence word. The producer writes it last (release) with the value
//     (uint32_t)(pos + 1), which marks the slot full for that lap. The consumer polls only that
//     word, never the producer's position: a polled message costs one cache-line transfer.
//   - The consumer publishes its position (`tail`) on its own cache line; the producer keeps a
//     private cached copy and re-reads the shared word only when the ring looks full.
//   - Two-phase producer API (try_claim() then commit()) so the payload is written in place; the
//     consumer reads in place (peek() ... release()): zero copy on both sides.
//   - Sleep/wake: the consumer arms a word on its own cache line; a producer that sees it armed
//     after a commit clears it and tells its caller to wake the peer (eventfd). Both sides
//     access that word only with atomic exchanges (Dekker through one word's modification
//     order), which makes a lost wake-up impossible (see ring_consumer::arm()).
//
// Memory-order edges (DPDK-style tags; every acquire/release in ring.inl names its partner):
//   R1 -> A1  producer publishes a slot (seq store, release)
//             -> consumer sees it (seq load, acquire)
//   R2 -> A2  consumer frees slots (tail store, release)
//             -> producer reuses them (tail load, acquire)
//   R3 -> A3  producer's wake check (armed exchange, release) -> consumer's arm (exchange,
//             acquire): the Dekker pair of the sleep protocol
//
// Thread safety: one ring_producer and one ring_consumer per ring, each used by one thread at a
// time (the caller serialises; in SoftComch that is the owning doca_pe). Data-path functions are
// noexcept, make no system call, take no lock and allocate nothing.
#pragma once

#include <doca_error.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace softcomch::transport::shm {

// ---- constants of layout version 1 --------------------------------------------------------

// Cache-line size the layout is built around. 64 on every x86-64 and Arm server core we target.
inline constexpr uint32_t k_cache_line = 64;
// Producer-owned and consumer-owned words are kept this far apart. Two lines, because adjacent-
// line prefetchers (Intel spatial prefetcher, AMD L2 streamer) pull lines in 128-byte pairs.
inline constexpr uint32_t k_false_sharing_range = 128;
// Bytes in front of every payload (see slot_header).
inline constexpr uint32_t k_slot_header_size = 16;
// The ring control block that precedes the slot array (four 128-byte blocks).
inline constexpr uint32_t k_ring_ctrl_size = 512;
// "SCRG" in little-endian byte order.
inline constexpr uint32_t k_ring_magic = 0x47524353u;
// Ring layout version; bumped whenever a byte of the layout changes (history in shm_layout.md).
inline constexpr uint32_t k_ring_layout_version = 1;
// Hard limits enforced by init() and attach() (so that sizes cannot overflow).
inline constexpr uint32_t k_ring_max_capacity = 1u << 24;
inline constexpr uint32_t k_ring_max_slot_size = 1u << 20;
inline constexpr uint64_t k_ring_max_memsize = uint64_t(1) << 36;

// ---- shared-memory structures (fixed-width types only, no pointers) --------------------------

// Written once by ring_layout::init() before the ring is published to the peer (the segment's
// version word publishes it, see segment.hpp); read-only afterwards. Each side copies what it
// needs into process-local memory at attach time and never re-reads it, so a peer that
// scribbles over it later cannot make us index outside the ring.
struct ring_config {
    uint32_t magic;          // k_ring_magic
    uint32_t layout_version; // k_ring_layout_version
    uint32_t capacity;       // slots; power of two, 1..k_ring_max_capacity
    uint32_t slot_size;      // bytes per slot; multiple of 64, >= 64, <= k_ring_max_slot_size
    uint32_t limit;          // max messages in flight, 1..capacity
    uint32_t max_payload;    // slot_size - k_slot_header_size
    uint64_t slots_offset;   // from the start of the ring to slot 0 (k_ring_ctrl_size)
    uint64_t total_size;     // memsize(capacity, slot_size)
    uint8_t reserved[88];    // zero
};
static_assert(sizeof(ring_config) == 128);
static_assert(offsetof(ring_config, magic) == 0);
static_assert(offsetof(ring_config, layout_version) == 4);
static_assert(offsetof(ring_config, capacity) == 8);
static_assert(offsetof(ring_config, slot_size) == 12);
static_assert(offsetof(ring_config, limit) == 16);
static_assert(offsetof(ring_config, max_payload) == 20);
static_assert(offsetof(ring_config, slots_offset) == 24);
static_assert(offsetof(ring_config, total_size) == 32);
static_assert(offsetof(ring_config, reserved) == 40);

// The control block at the start of the ring memory. Each 128-byte block has one writer:
//   config   creator (before publication)      read by both at attach
//   head     producer                          diagnostics only (pending(), tools)
//   tail     consumer                          producer, only when the ring looks full
//   armed    consumer sets, producer clears    producer after every commit (an exchange; the
//            (exchanges only)                  line stays exclusive in the producer's cache
//                                              while the consumer polls instead of sleeping)
struct ring_ctrl {
    ring_config config;
    std::atomic<uint64_t> head; // producer position: messages committed so far
    uint8_t pad_head[120];
    std::atomic<uint64_t> tail; // consumer position: messages released so far
    uint8_t pad_tail[120];
    std::atomic<uint32_t> armed; // 1: the consumer sleeps and wants a wake-up
    uint8_t pad_armed[124];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shm words must be address-free");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "shm words must be address-free");
static_assert(sizeof(std::atomic<uint64_t>) == 8 && sizeof(std::atomic<uint32_t>) == 4);
static_assert(sizeof(ring_ctrl) == k_ring_ctrl_size);
static_assert(offsetof(ring_ctrl, config) == 0);
static_assert(offsetof(ring_ctrl, head) == 128);
static_assert(offsetof(ring_ctrl, tail) == 256);
static_assert(offsetof(ring_ctrl, armed) == 384);

// The 16 bytes in front of each payload. Written by the producer (seq last, release), read by
// the consumer after it has seen seq (acquire).
struct slot_header {
    std::atomic<uint32_t> seq; // (uint32_t)(pos + 1) once message `pos` is in this slot
    uint32_t len;              // payload bytes, <= max_payload (checked by the consumer)
    uint16_t type;             // application-defined; the ring does not interpret it
    uint16_t flags;            // application-defined
    uint32_t reserved;         // zero
};
static_assert(sizeof(slot_header) == k_slot_header_size);
static_assert(offsetof(slot_header, seq) == 0);
static_assert(offsetof(slot_header, len) == 4);
static_assert(offsetof(slot_header, type) == 8);
static_assert(offsetof(slot_header, flags) == 10);
static_assert(offsetof(slot_header, reserved) == 12);

// ---- sizing, initialisation and validation (control path) ------------------------------------

// Shape of one ring.
struct ring_params {
    uint32_t capacity = 0;  // power of two
    uint32_t slot_size = 0; // multiple of 64
    uint32_t limit = 0;     // 1..capacity
    friend bool operator==(const ring_params &, const ring_params &) = default;
};

class ring_layout {
public:
    // Slot size that holds `max_payload` bytes: align_up(16 + max_payload, 64). 4080 -> 4096.
    static constexpr uint32_t slot_size_for(uint32_t max_payload) noexcept
    {
        return uint32_t((uint64_t(k_slot_header_size) + max_payload + k_cache_line - 1) &
                        ~uint64_t(k_cache_line - 1));
    }
    // Smallest power of two >= queue_size (and >= 1).
    static constexpr uint32_t capacity_for(uint32_t queue_size) noexcept
    {
        uint32_t c = 1;
        while (c < queue_size && c < (1u << 31))
            c <<= 1;
        return c;
    }
    // The parameters of a ring for a receive queue of `queue_size` messages of up to
    // `max_payload` bytes. Not validated: pass the result to valid().
    static constexpr ring_params params_for(uint32_t queue_size, uint32_t max_payload) noexcept
    {
        return ring_params{capacity_for(queue_size), slot_size_for(max_payload), queue_size};
    }
    // True when `p` satisfies every rule of layout version 1.
    static bool valid(const ring_params &p) noexcept;
    // Bytes of ring memory for `capacity` slots of `slot_size`; 0 if the pair is invalid.
    static uint64_t memsize(uint32_t capacity, uint32_t slot_size) noexcept;

    // Creator side: lays a fresh, empty ring into `mem` (`len` bytes, 64-byte aligned). Must
    // happen-before any attach (in SoftComch the segment's version word publishes it).
    // Returns DOCA_ERROR_INVALID_VALUE for bad parameters, alignment or a too small `len`.
    static doca_error_t init(void *mem, uint64_t len, const ring_params &p) noexcept;

    // Validates the ring in `mem` (`len` bytes) without touching the dynamic words, and returns
    // its parameters. DOCA_ERROR_INVALID_VALUE on a bad magic/size/parameter, and
    // DOCA_ERROR_UNSUPPORTED_VERSION on another layout version. Never reads outside [mem, mem+len).
    static doca_error_t validate(const void *mem, uint64_t len, ring_params *out) noexcept;
};

// ---- producer ---------------------------------------------------------------------------------

class ring_producer {
public:
    ring_producer() noexcept = default;

    // Validates the ring in `mem` and binds to it as its (only) producer. The producer position
    // starts at the shared `head` word. DOCA_SUCCESS or an error of ring_layout::validate().
    doca_error_t attach(void *mem, uint64_t len) noexcept;
    bool attached() const noexcept { return ctrl_ != nullptr; }

    // Phase 1: room for a message of `len` bytes. Returns the payload address of the next slot
    // (64-byte aligned + 16) or nullptr when the ring is full (limit messages in flight) or
    // `len` > max_payload(). Calling it again without commit() returns the same slot.
    void *try_claim(uint32_t len) noexcept;

    // Phase 2: publishes the claimed slot with `len` payload bytes (<= max_payload) and the
    // caller's `type`/`flags`. Requires a successful try_claim() since the last commit.
    // Returns true when the consumer was armed: the caller must then wake it (eventfd write).
    bool commit(uint16_t type, uint32_t len, uint16_t flags = 0) noexcept;

    // commit() split in two for bursts: publish() makes the message visible without looking at
    // the consumer's armed word; wake_needed() (one atomic exchange) must then be called after
    // the last publish() of the burst, before the caller can sleep or return to its user.
    void publish(uint16_t type, uint32_t len, uint16_t flags = 0) noexcept;
    bool wake_needed() noexcept;

    // Convenience: try_claim + memcpy + commit. Returns DOCA_ERROR_AGAIN when full,
    // DOCA_ERROR_TOO_BIG when len > max_payload(). `*wake` as for commit().
    doca_error_t send(uint16_t type, const void *data, uint32_t len, bool *wake) noexcept;

    // Messages committed but not yet released by the consumer (reads the shared tail; not for
    // the per-message path).
    uint32_t in_flight() noexcept;
    // True when try_claim() would fail now for a lack of room (refreshes the cached tail).
    bool full() noexcept;
    uint64_t position() const noexcept { return head_; }
    uint32_t capacity() const noexcept { return mask_ + 1; }
    uint32_t limit() const noexcept { return limit_; }
    uint32_t max_payload() const noexcept { return max_payload_; }

private:
    slot_header *slot(uint64_t pos) const noexcept;
    bool refresh_tail() noexcept;

    ring_ctrl *ctrl_ = nullptr;   // shared control block
    uint8_t *slots_ = nullptr;    // shared slot array
    uint64_t head_ = 0;           // next position to write (private copy; shared head mirrors it)
    uint64_t tail_cache_ = 0;     // last tail read from shared memory (<= real tail)
    uint32_t mask_ = 0;           // capacity - 1
    uint32_t slot_size_ = 0;      // bytes per slot
    uint32_t limit_ = 0;          // in-flight bound
    uint32_t max_payload_ = 0;    // slot_size - 16
};

// ---- consumer ---------------------------------------------------------------------------------

// What peek() returns. Lives in the consumer object (process-local), so its fields cannot be
// changed by the peer after validation; `data` points into the shared slot and stays valid
// until release().
struct slot_view {
    const void *data = nullptr;
    uint32_t len = 0;
    uint16_t type = 0;
    uint16_t flags = 0;
};

class ring_consumer {
public:
    ring_consumer() noexcept = default;

    // Validates the ring in `mem` and binds to it as its (only) consumer. The consumer position
    // starts at the shared `tail` word. DOCA_SUCCESS or an error of ring_layout::validate().
    doca_error_t attach(void *mem, uint64_t len) noexcept;
    bool attached() const noexcept { return ctrl_ != nullptr; }

    // The oldest unreleased message, or nullptr when there is none. Repeated calls return the
    // same message until release(). A slot whose length exceeds max_payload() (a corrupt or
    // hostile peer) is never returned: the ring is marked corrupted() and looks empty.
    const slot_view *peek() noexcept;
    // Consumes the message returned by peek(). Requires a successful peek() since the last
    // release(). The new position reaches the producer lazily: at once when publish_batch()
    // releases have accumulated, and otherwise as soon as this consumer finds the ring empty
    // (peek()/ready() returning "nothing"), arms, or calls flush(). So the producer may see up to
    // publish_batch() - 1 already consumed messages as still queued, never more, and never
    // while this consumer is idle or asleep. (Batching keeps the tail's cache line from
    // bouncing once per message while the producer waits for room.)
    void release() noexcept;
    // Publishes every release() so far to the producer.
    void flush() noexcept;
    // Releases accumulated before release() publishes by itself: max(1, limit / 4).
    uint32_t publish_batch() const noexcept { return publish_batch_; }
    // True when a message is ready (peek() would succeed, barring corruption). Publishes
    // pending releases when it finds the ring empty, like peek().
    bool ready() noexcept;

    // Asks the producer for a wake-up on the next commit. Returns true when armed (the ring was
    // empty after the arm: the caller may sleep on its eventfd) or false ("busy") when a message
    // is already there, in which case the arm is withdrawn and the caller must poll again.
    bool arm() noexcept;
    // Withdraws an arm (after waking up, or when the caller gave up sleeping).
    void disarm() noexcept;
    // True while the armed word is set (diagnostics/tests).
    bool armed() const noexcept;

    // Messages committed by the producer and not yet released (reads the producer's head word:
    // diagnostics, not for the per-message path).
    uint32_t pending() const noexcept;
    bool corrupted() const noexcept { return corrupted_; }
    uint64_t position() const noexcept { return tail_; }
    uint32_t capacity() const noexcept { return mask_ + 1; }
    uint32_t limit() const noexcept { return limit_; }
    uint32_t max_payload() const noexcept { return max_payload_; }

private:
    const slot_header *slot(uint64_t pos) const noexcept;
    bool full_slot(uint64_t pos) const noexcept;
    void publish_tail() noexcept;

    ring_ctrl *ctrl_ = nullptr;     // shared control block
    const uint8_t *slots_ = nullptr; // shared slot array
    uint64_t tail_ = 0;             // next position to read
    uint64_t published_ = 0;        // last value stored into the shared tail (<= tail_)
    uint32_t publish_batch_ = 1;    // release() publishes once tail_ - published_ reaches this
    uint32_t mask_ = 0;             // capacity - 1
    uint32_t slot_size_ = 0;        // bytes per slot
    uint32_t limit_ = 0;            // in-flight bound (informational on this side)
    uint32_t max_payload_ = 0;      // slot_size - 16
    bool corrupted_ = false;        // a slot with an impossible length was seen
    slot_view view_;                // what peek() returned last
};

} // namespace softcomch::transport::shm

#include "transport/shm/ring.inl"
