// SPDX-License-Identifier: Apache-2.0
//
// Single-producer / single-consumer message ring placed in caller-provided (shared) memory.
//
// One ring carries the control messages of one connection in one direction. The producer runs
// in one process, the consumer in the other; the ring memory is a region of the connection's
// segment (segment.hpp). Byte layout, memory-order edges and the arm/wake protocol are also
// described in docs/shm_layout.md.
//
// Shape (ideas from DPDK rte_ring, UCX mm, Aeron's log buffer):
//   - The memory is sized with ring_layout::memsize(), initialised once by the creator with
//     ring_layout::init() and then attached by each side with ring_producer::attach() /
//     ring_consumer::attach(), which validate everything they read (the memory is shared with
//     another process and is never trusted).
//   - Variable-size records in a byte ring: a 16-byte record header, then the payload, rounded
//     up to whole cache lines. The ring's memory therefore follows what is in flight: a queue
//     of 8192 small messages fits where 8192 maximal ones would not, and a small message costs
//     one or two lines, not a 4 KiB slot (layout version 2; version 1 had fixed 4 KiB slots).
//   - Capacity (data bytes) is a power of two; byte positions are free-running uint64_t, masked
//     on access. A record never wraps: when it does not fit before the end of the data area,
//     the producer fills the rest of the lap with a padding record and starts at offset 0.
//   - Two bounds on what is in flight, both checked by the producer: at most `limit` messages
//     (the receiver's queue size) and at most `capacity` bytes. When either is reached the
//     ring is full and the caller waits, exactly as for a full receive queue.
//   - Each record header carries a sequence word, written last (release) with a non-zero mark
//     of the record's position. Before publishing a record the producer zeroes the sequence word
//     of the position right after it, so the word the consumer polls next is always either 0
//     or a published header, never stale payload bytes of an earlier lap. The consumer polls
//     only that word, never the producer's position: a polled message costs one line transfer.
//   - The consumer publishes its position (`tail` bytes and `released` messages) on its own
//     cache line, lazily; the producer keeps private cached copies and re-reads the shared words
//     only when the ring looks full.
//   - Two-phase producer API (try_claim() then commit()) so the payload is written in place; the
//     consumer reads in place (peek() ... release()): zero copy on both sides.
//   - Sleep/wake: the consumer arms a word on its own cache line; a producer that sees it armed
//     after a commit clears it and tells its caller to wake the peer (eventfd). Both sides
//     access that word only with atomic exchanges (Dekker through one word's modification
//     order), which makes a lost wake-up impossible (see ring_consumer::arm()).
//
// Memory-order edges (DPDK-style tags; every acquire/release in ring.inl names its partner):
//   R1 -> A1  producer publishes a record (seq store, release)
//             -> consumer sees it (seq load, acquire)
//   R2 -> A2  consumer frees space (released store, then tail store, release)
//             -> producer reuses it (tail load acquire, then released)
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

// ---- constants of layout version 2 --------------------------------------------------------

// Cache-line size the layout is built around. 64 on every x86-64 and Arm server core we target.
inline constexpr uint32_t k_cache_line = 64;
// Producer-owned and consumer-owned words are kept this far apart. Two lines, because adjacent-
// line prefetchers (Intel spatial prefetcher, AMD L2 streamer) pull lines in 128-byte pairs.
inline constexpr uint32_t k_false_sharing_range = 128;
// Bytes in front of every payload (see record_header).
inline constexpr uint32_t k_record_header_size = 16;
// The ring control block that precedes the data area (four 128-byte blocks).
inline constexpr uint32_t k_ring_ctrl_size = 512;
// "SCRG" in little-endian byte order.
inline constexpr uint32_t k_ring_magic = 0x47524353u;
// Ring layout version; bumped whenever a byte of the layout changes (history in shm_layout.md).
inline constexpr uint32_t k_ring_layout_version = 2;
// record_header::kind: a message, or padding that fills the end of a lap (never returned by
// peek()). Message types and flags stay entirely the caller's.
// Values of ring_ctrl::armed (0: not armed).
inline constexpr uint32_t k_armed_wake = 1; // the consumer sleeps: wake it (its wake-up socket)
inline constexpr uint32_t k_armed_bell = 2; // the consumer parked the ring: ring its doorbell
inline constexpr uint32_t k_record_message = 0;
inline constexpr uint32_t k_record_padding = 1;
// Hard limits enforced by init() and attach() (so that sizes cannot overflow).
inline constexpr uint32_t k_ring_max_capacity = 1u << 30;      // data bytes
inline constexpr uint32_t k_ring_max_record = (1u << 20) + 64; // a 1 MiB payload plus its header
inline constexpr uint32_t k_ring_max_limit = 1u << 24;         // messages in flight
inline constexpr uint64_t k_ring_max_memsize = uint64_t(k_ring_ctrl_size) + k_ring_max_capacity;
// Data bytes params_for() gives a ring at most, unless one maximal record needs more: enough for
// 128 messages of 4080 bytes or 8192 of up to 48 bytes in flight, and it keeps a connection's segment
// (two rings) at about 1 MiB whatever its queue sizes.
inline constexpr uint32_t k_ring_default_budget = 512u << 10;

// ---- shared-memory structures (fixed-width types only, no pointers) --------------------------

// Written once by ring_layout::init() before the ring is published to the peer (the segment's
// version word publishes it, see segment.hpp); read-only afterwards. Each side copies what it
// needs into process-local memory at attach time and never re-reads it, so a peer that
// scribbles over it later cannot make us index outside the ring.
struct ring_config {
    uint32_t magic;          // k_ring_magic
    uint32_t layout_version; // k_ring_layout_version
    uint32_t capacity;       // data bytes; power of two, >= 2 * max_record, <= k_ring_max_capacity
    uint32_t max_record;     // largest record in bytes: multiple of 64, 64..k_ring_max_record
    uint32_t limit;          // max messages in flight, 1..k_ring_max_limit
    uint32_t max_payload;    // max_record - k_record_header_size
    uint64_t data_offset;    // from the start of the ring to the data area (k_ring_ctrl_size)
    uint64_t total_size;     // memsize(capacity)
    uint8_t reserved[88];    // zero
};
static_assert(sizeof(ring_config) == 128);
static_assert(offsetof(ring_config, magic) == 0);
static_assert(offsetof(ring_config, layout_version) == 4);
static_assert(offsetof(ring_config, capacity) == 8);
static_assert(offsetof(ring_config, max_record) == 12);
static_assert(offsetof(ring_config, limit) == 16);
static_assert(offsetof(ring_config, max_payload) == 20);
static_assert(offsetof(ring_config, data_offset) == 24);
static_assert(offsetof(ring_config, total_size) == 32);
static_assert(offsetof(ring_config, reserved) == 40);

// The control block at the start of the ring memory. Each 128-byte block has one writer:
//   config    creator (before publication)     read by both at attach
//   head      producer                         diagnostics only (pending(), tools)
//   tail      consumer                         producer, only when the ring looks full
//   armed     consumer sets, producer clears   producer after every commit (an exchange; the
//             (exchanges only)                 line stays exclusive in the producer's cache
//                                              while the consumer polls instead of sleeping)
struct ring_ctrl {
    ring_config config;
    std::atomic<uint64_t> head;      // producer: bytes committed so far (padding included)
    std::atomic<uint64_t> committed; // producer: messages committed so far
    uint8_t pad_head[112];
    std::atomic<uint64_t> tail;     // consumer: bytes released so far (padding included)
    std::atomic<uint64_t> released; // consumer: messages released so far
    uint8_t pad_tail[112];
    std::atomic<uint32_t> armed; // k_armed_wake: the consumer sleeps and wants a wake-up;
                                 // k_armed_bell: it parked the ring and wants its bell rung
    uint8_t pad_armed[124];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shm words must be address-free");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "shm words must be address-free");
static_assert(sizeof(std::atomic<uint64_t>) == 8 && sizeof(std::atomic<uint32_t>) == 4);
static_assert(sizeof(ring_ctrl) == k_ring_ctrl_size);
static_assert(offsetof(ring_ctrl, config) == 0);
static_assert(offsetof(ring_ctrl, head) == 128);
static_assert(offsetof(ring_ctrl, committed) == 136);
static_assert(offsetof(ring_ctrl, tail) == 256);
static_assert(offsetof(ring_ctrl, released) == 264);
static_assert(offsetof(ring_ctrl, armed) == 384);

// The 16 bytes in front of each payload, at a 64-byte aligned offset of the data area. Written
// by the producer (seq last, release), read by the consumer after it has seen seq (acquire).
struct record_header {
    std::atomic<uint32_t> seq; // record_mark(n) once record n (padding included) is here; 0
                               // while the position is free
    uint32_t len;              // payload bytes, <= max_payload (checked by the consumer); for
                               // padding: the bytes after the header up to the end of the lap
    uint16_t type;             // the caller's message type (zero for padding)
    uint16_t flags;            // the caller's (zero for padding)
    uint32_t kind;             // k_record_message or k_record_padding
};
static_assert(sizeof(record_header) == k_record_header_size);
static_assert(offsetof(record_header, seq) == 0);
static_assert(offsetof(record_header, len) == 4);
static_assert(offsetof(record_header, type) == 8);
static_assert(offsetof(record_header, flags) == 10);
static_assert(offsetof(record_header, kind) == 12);

// The sequence word of the record at byte position `pos` (padding records too). Never 0, which
// marks a free position. Its low 31 bits are the position in cache lines: a header left at the
// same offset by an earlier lap carries another value (2^31 lines, 128 GiB of traffic, would
// have to pass in between), which tells a stale or foreign header from the expected one even
// though the zeroing rule already keeps stale headers out of the consumer's sight.
constexpr uint32_t record_mark(uint64_t pos) noexcept
{
    return uint32_t(pos >> 6) | 0x80000000u;
}

// ---- sizing, initialisation and validation (control path) ------------------------------------

// Shape of one ring.
struct ring_params {
    uint32_t capacity = 0;   // data bytes, power of two
    uint32_t max_record = 0; // multiple of 64
    uint32_t limit = 0;      // messages in flight, >= 1
    friend bool operator==(const ring_params &, const ring_params &) = default;
};

class ring_layout {
public:
    // Bytes of a record that holds `payload` bytes: align_up(16 + payload, 64). 4080 -> 4096.
    static constexpr uint32_t record_size_for(uint32_t payload) noexcept
    {
        return uint32_t((uint64_t(k_record_header_size) + payload + k_cache_line - 1) &
                        ~uint64_t(k_cache_line - 1));
    }
    // Smallest power of two >= n (and >= 1).
    static constexpr uint64_t pow2_at_least(uint64_t n) noexcept
    {
        uint64_t c = 1;
        while (c < n && c < (uint64_t(1) << 62))
            c <<= 1;
        return c;
    }
    // The parameters of a ring for a receive queue of `queue_size` messages of up to
    // `max_payload` bytes: room for the whole queue of maximal messages when that fits in
    // `budget` bytes, otherwise `budget` (the queue size still bounds the messages in flight;
    // large messages then wait for room as for a full queue), and never less than two maximal
    // records. Not validated: pass the result to valid().
    static constexpr ring_params params_for(uint32_t queue_size, uint32_t max_payload,
                                            uint32_t budget = k_ring_default_budget) noexcept
    {
        const uint32_t rec = record_size_for(max_payload);
        uint64_t want = uint64_t(queue_size) * rec;
        if (want > budget)
            want = budget;
        if (want < 2 * uint64_t(rec))
            want = 2 * uint64_t(rec);
        const uint64_t cap = pow2_at_least(want);
        return ring_params{cap > k_ring_max_capacity ? 0 : uint32_t(cap), rec, queue_size};
    }
    // True when `p` satisfies every rule of layout version 2.
    static bool valid(const ring_params &p) noexcept;
    // Bytes of ring memory for a data area of `capacity` bytes; 0 if it is invalid.
    static uint64_t memsize(uint32_t capacity) noexcept;

    // Creator side: lays a fresh, empty ring into `mem` (`len` bytes, 64-byte aligned). Must
    // happen-before any attach (in SoftComch the segment's version word publishes it).
    // Returns DOCA_ERROR_INVALID_VALUE for bad parameters, alignment or a too small `len`.
    static doca_error_t init(void *mem, uint64_t len, const ring_params &p) noexcept;

    // Validates the ring in `mem` (`len` bytes) without touching the dynamic words, and returns
    // its parameters. DOCA_ERROR_INVALID_VALUE on a bad magic/size/parameter, and
    // DOCA_ERROR_UNSUPPORTED_VERSION on another layout version. Never reads outside [mem, mem+len).
    static doca_error_t validate(const void *mem, uint64_t len, ring_params *out) noexcept;
};

// ---- what both ends bind to --------------------------------------------------------------------

// The process-local copies both ends take at attach from the validated parameters; the shared
// config is never read again (see ring_config).
class ring_binding {
public:
    bool attached() const noexcept { return ctrl_ != nullptr; }
    uint32_t capacity() const noexcept { return mask_ + 1; }
    uint32_t limit() const noexcept { return limit_; }
    uint32_t max_payload() const noexcept { return max_record_ - k_record_header_size; }

protected:
    // Validates the ring in `mem` (ring_layout::validate(), which fills *p) and takes the
    // copies. Nothing changes on failure.
    doca_error_t bind(void *mem, uint64_t len, ring_params *p) noexcept;

    ring_ctrl *ctrl_ = nullptr; // shared control block
    uint32_t mask_ = 0;         // capacity - 1: bounds every address
    uint32_t max_record_ = 0;   // bytes of the largest record (the producer's claims, the
                                // consumer's check of every record's length)
    uint32_t limit_ = 0;        // in-flight bound (messages; informational for the consumer)
};

// ---- producer ---------------------------------------------------------------------------------

class ring_producer : public ring_binding {
public:
    ring_producer() noexcept = default;

    // Validates the ring in `mem` and binds to it as its (only) producer. The producer resumes
    // at the shared `head`/`committed` words. DOCA_SUCCESS or an error of ring_layout::validate().
    doca_error_t attach(void *mem, uint64_t len) noexcept;

    // Phase 1: room for a message of `len` bytes. Returns the payload address (64-byte aligned
    // + 16) or nullptr when the ring is full (limit messages or too few bytes in flight) or
    // `len` > max_payload(). Calling it again with the same `len` without commit() returns the
    // same address.
    void *try_claim(uint32_t len) noexcept;

    // Phase 2: publishes the claimed record with `len` payload bytes (<= the claimed length) and
    // the caller's `type` / `flags`. Requires a successful try_claim() since
    // the last commit. Returns what the consumer armed (0: nothing): k_armed_wake, the caller
    // must wake it (its wake-up socket); k_armed_bell, the caller must ring its doorbell.
    uint32_t commit(uint16_t type, uint32_t len, uint16_t flags = 0) noexcept;

    // commit() split in two for bursts: publish() makes the message visible without looking at
    // the consumer's armed word; wake_needed() (one atomic exchange) must then be called after
    // the last publish() of the burst, before the caller can sleep or return to its user.
    void publish(uint16_t type, uint32_t len, uint16_t flags = 0) noexcept;
    uint32_t wake_needed() noexcept;

    // commit() whose check may wait: publishes, then looks at `armed` with a plain load. A
    // consumer seen armed is checked at once (wake_needed(); its value is returned, as commit()
    // returns it). 0: none was seen, and because the look is not ordered after the publication
    // the caller owes one wake_needed() later, before it sleeps or stops; until then a consumer
    // arming at this very moment may sleep with the message in its ring. What this saves is
    // the full barrier of the exchange per message (docs/shm_layout.md section 7, "Deferred
    // checks").
    uint32_t commit_deferred(uint16_t type, uint32_t len, uint16_t flags = 0) noexcept;

    // Convenience: try_claim + memcpy + commit. Returns DOCA_ERROR_AGAIN when full,
    // DOCA_ERROR_TOO_BIG when len > max_payload(). `*wake` as for commit().
    doca_error_t send(uint16_t type, const void *data, uint32_t len, bool *wake) noexcept;

    // Messages committed but not yet released by the consumer (reads the shared words; not for
    // the per-message path).
    uint32_t in_flight() noexcept;
    // True when not even an empty message could be claimed now (refreshes the cached tail).
    bool full() noexcept;
    // Messages committed so far.
    uint64_t position() const noexcept { return committed_; }
    // True while the consumer is armed, i.e. asleep waiting for a wake-up (the liveness check,
    // link::beat; never the data path). A load, not a write: the wake protocol is untouched.
    bool consumer_armed() const noexcept;

private:
    record_header *at(uint64_t pos) const noexcept;
    // Bytes a record of `size` bytes takes at the current head: padding to the end of the lap
    // when it does not fit before it, and the record.
    uint64_t footprint(uint32_t size, uint32_t *pad) const noexcept;
    bool fits(uint64_t bytes) const noexcept;
    bool room(uint64_t bytes) noexcept;
    void refresh_tail() noexcept;
    void publish_record(uint32_t size, uint32_t kind, uint16_t type, uint32_t len,
                        uint16_t flags) noexcept;

    uint8_t *data_ = nullptr;     // shared data area
    uint64_t head_ = 0;           // next byte position to write (the shared head mirrors it)
    uint64_t committed_ = 0;      // messages committed (the shared `committed` mirrors it)
    uint64_t tail_cache_ = 0;     // last tail read from shared memory (<= real tail)
    uint64_t released_cache_ = 0; // last `released` read from shared memory (<= real value)
    uint32_t claim_pad_ = 0;      // padding try_claim() decided on for the claimed record
    uint32_t claim_size_ = 0;     // record bytes try_claim() made room for
};

// ---- consumer ---------------------------------------------------------------------------------

// What peek() returns. Lives in the consumer object (process-local), so its fields cannot be
// changed by the peer after validation; `data` points into the shared record and stays valid
// until release().
struct record_view {
    const void *data = nullptr;
    uint32_t len = 0;
    uint16_t type = 0;
    uint16_t flags = 0;
};

class ring_consumer : public ring_binding {
public:
    ring_consumer() noexcept = default;

    // Validates the ring in `mem` and binds to it as its (only) consumer. The consumer resumes
    // at the shared `tail`/`released` words. DOCA_SUCCESS or an error of ring_layout::validate().
    doca_error_t attach(void *mem, uint64_t len) noexcept;

    // The oldest unreleased message, or nullptr when there is none. Repeated calls return the
    // same message until release(). Padding records are skipped here. A record whose length or
    // placement is impossible (a corrupt or hostile peer) is never returned: the ring is marked
    // corrupted() and looks empty.
    const record_view *peek() noexcept;
    // Consumes the message returned by peek(). Requires a successful peek() since the last
    // release(). The new position reaches the producer lazily: at once when publish_batch()
    // messages or a quarter of the capacity have accumulated, and otherwise as soon as this
    // consumer finds the ring empty (peek()/ready() returning "nothing"), arms, or calls
    // flush(). So the producer may see a little consumed space as still in use, never much of
    // it, and never while this consumer is idle or asleep. (Batching keeps the tail's cache line
    // from bouncing once per message while the producer waits for room.)
    void release() noexcept;
    // Publishes every release() so far to the producer.
    void flush() noexcept;
    // Messages released before release() publishes by itself: max(1, limit / 4).
    uint32_t publish_batch() const noexcept { return publish_batch_; }
    // True when a message is ready (peek() would succeed, barring corruption). Publishes
    // pending releases when it finds the ring empty, like peek().
    bool ready() noexcept;

    // Asks the producer for a wake-up on the next commit. Returns true when armed (the ring was
    // empty after the arm: the caller may sleep on its eventfd) or false ("busy") when a message
    // is already there, in which case the arm is withdrawn and the caller must poll again.
    bool arm() noexcept;
    // arm() for a consumer that keeps polling other rings and a doorbell instead of this one
    // (doorbell.hpp): the producer's next commit tells its caller to ring the bell. Returns
    // false ("busy") when a message is already there; the park is then withdrawn.
    bool park() noexcept;
    // Withdraws an arm (after waking up, or when the caller gave up sleeping).
    void disarm() noexcept;
    // True while the armed word is set (diagnostics/tests).
    bool armed() const noexcept;

    // Messages committed by the producer and not yet released (reads the producer's diagnostic
    // word: not for the per-message path).
    uint32_t pending() const noexcept;
    bool corrupted() const noexcept { return corrupted_; }
    // Makes the ring look empty for good, as a corrupt one (the owner tears the connection down
    // for another reason: nothing more may be delivered). A peeked message can still be
    // released.
    void poison() noexcept { corrupted_ = true; }
    // Messages released so far.
    uint64_t position() const noexcept { return released_; }

private:
    bool arm_as(uint32_t how) noexcept;
    const record_header *at(uint64_t pos) const noexcept;
    void publish_tail() noexcept;

    const uint8_t *data_ = nullptr;   // shared data area
    uint64_t tail_ = 0;               // next byte position to read
    uint64_t released_ = 0;           // messages released
    uint64_t published_tail_ = 0;     // last tail stored into shared memory (<= tail_)
    uint64_t published_released_ = 0; // last `released` stored (<= released_)
    uint32_t publish_batch_ = 1;      // release() publishes once this many messages accumulate
    uint32_t publish_bytes_ = 0;      // ... or this many bytes (a quarter of the capacity)
    uint32_t view_size_ = 0;          // record bytes of the message peek() returned
    bool corrupted_ = false;          // an impossible record was seen
    record_view view_;                // what peek() returned last
};

} // namespace softcomch::transport::shm

#include "transport/shm/ring.inl"
