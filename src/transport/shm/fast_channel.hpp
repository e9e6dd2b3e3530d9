// SPDX-License-Identifier: Apache-2.0
//
// Fast-path channel of one consumer (DOCA Comch producer/consumer): the shared memory through
// which a consumer hands receive buffers to producers in the peer process, and through which
// those producers report that they have filled one.
//
// One channel per consumer. The consumer side creates it in its own memfd
// (fast_channel::create); the fd travels to the peer over the connection's Unix socket
// (SCM_RIGHTS) and the producer side maps it (fast_channel::attach). The payload itself never
// passes through the channel: a producer copies it straight into the posted buffer, which lives
// in the consumer's memory and is reachable from the producer's process through
// shared_memory.hpp (one copy per message).
//
//   consumer thread (one, its own doca_pe)            producer threads of the peer process
//   ---------------------------------------            -----------------------------------
//   post(task, addr, cap)  --- post queue --------->   try_claim(len) / claim()   (CAS, FIFO)
//                                                       copy payload to addr (copy_to_peer)
//   peek() / release()     <-- completion queue ----   complete({task, status, len, ...})
//   arm() / disarm()       <-- armed word ----------   (complete() says "wake needed")
//   expire() / revoke()    --- state word --------->   try_claim fails: NOT_CONNECTED
//
// Byte layout (version 1; details, diagrams and edge table in docs/shm_layout.md section 10):
//   0       control block, 640 bytes: five 128-byte blocks, each with one writer
//             0    config (immutable once published; layout_version written last)
//             128  consumer block: state (open/expired), consumer pid
//             256  claim block: claim_pos (producer threads and the consumer's revoke, CAS)
//             384  completion block: comp_head (producer threads, CAS), producer pid
//             512  armed (consumer sets, producers clear; exchanges only)
//   640     post queue: capacity x 32-byte post_slot
//   comp    completion queue: capacity x 64-byte comp_slot (comp = align_up(640 + 32 cap, 128))
//   total   align_up(comp + 64 cap, 4096)
//
// Both queues are bounded queues with a sequence word per slot (Vyukov's bounded MPMC queue),
// specialised by who writes:
//   - post queue: ONE writer (the consumer), MANY claimers (any number of producer threads of
//     the peer process, plus the consumer itself when it revokes). A claimer wins a position
//     with a CAS on claim_pos, reads the entry, and hands the slot back by storing the next
//     lap's "free" sequence. FIFO: claims happen in post order.
//   - completion queue: MANY writers (producer threads, CAS on comp_head), ONE reader (the
//     consumer). A writer fills its slot and only then stores the "full" sequence, so the
//     consumer never sees a half-written completion.
// Capacity (a power of two) is at least the consumer's number of post-receive tasks, and a task
// can be posted at most once at a time (the consumer side enforces it). So at most num_tasks
// posts and num_tasks completions are ever outstanding: neither queue can overflow. A full
// completion queue therefore means a misbehaving consumer (or a transiently stale view, see
// fast_producer::complete()), never normal operation.
//
// Memory-order edges (DPDK-style tags; each acquire/release in fast_channel.inl names its partner):
//   R20 -> A20  creator publishes the channel (layout_version store, release)
//               -> attacher validates it (layout_version load, acquire)
//   R21 -> A21  consumer posts an entry (post seq = pos + 1, release)
//               -> claimer sees it (post seq load, acquire)
//   R22 -> A22  claimer hands a post slot back (post seq = pos + capacity, release)
//               -> consumer reuses it (post seq load, acquire)
//   R23 -> A23  producer publishes a completion (comp seq = pos + 1, release)
//               -> consumer reads it (comp seq load, acquire)
//   R24 -> A24  consumer frees a completion slot (comp seq = pos + capacity, release)
//               -> producer reuses it (comp seq load, acquire)
//   R25 -> A25  producer's wake check (armed exchange, release) -> consumer's arm (armed
//               exchange, acquire): the Dekker pair of the sleep protocol, as in ring.inl
//   R26 -> A26  the peer accepted the consumer (accepted store, release) -> the consumer's
//               start completes (accepted load, acquire), on the consumer's own engine
//
// Trust: the peer is another process and may be buggy or dead. Each side validates the header
// once (attach) and afterwards uses only process-local copies of sizes and masks, so no value
// in shared memory can steer an access outside the channel. The consumer validates every
// completion against its own record of what it posted (task index, capacity). The producer
// validates every posted address against the consumer memory it imported (shared_memory.hpp)
// before it writes a byte. Neither side ever waits unboundedly on a word the other side
// writes: a corrupt sequence word makes a queue look empty or full, never spin.
//
// Thread safety:
//   fast_consumer  one thread at a time (the consumer's doca_pe).
//   fast_producer  its data-path functions are const and touch only shared memory: any number
//                  of threads of one process may call them concurrently on one object.
// Data-path functions are noexcept, make no system call, take no lock and allocate nothing.
#pragma once

#include "common/mapped_region.hpp"
#include "common/unique_fd.hpp"

#include <doca_error.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace softcomch::transport::shm {

// ---- constants of fast-channel layout version 1 ----------------------------------------------

// "SCFASTCH" read as a little-endian uint64_t.
inline constexpr uint64_t k_fast_magic = 0x4843545341464353ull;
// Layout version, written last by the creator (R20). 0 means "not published yet".
// 2: the `accepted` word (docs/shm_layout.md, section 10 history).
inline constexpr uint32_t k_fast_layout_version = 2;
// Bytes of the control block in front of the post queue (five 128-byte blocks).
inline constexpr uint32_t k_fast_ctrl_size = 640;
// Bytes per post-queue entry and per completion-queue entry.
inline constexpr uint32_t k_fast_post_entry_size = 32;
inline constexpr uint32_t k_fast_comp_entry_size = 64;
// Largest immediate-data length a completion carries (DOCA: <= 32 bytes, spec section 4.5).
inline constexpr uint32_t k_fast_max_imm = 32;
// Hard limit on the queue capacity (the spec suggests max_num_tasks 8192; 8x headroom).
inline constexpr uint32_t k_fast_max_capacity = 1u << 16;
// The memfd is a whole number of pages.
inline constexpr uint64_t k_fast_align = 4096;

// Values of the consumer state word.
inline constexpr uint32_t k_fast_state_open = 1;    // producers may claim
inline constexpr uint32_t k_fast_state_expired = 2; // the consumer stopped: claims fail

// ---- shared-memory structures (fixed-width types only, no pointers) --------------------------

// The immutable part of the header, as plain data (validation takes one local copy of it).
// Written by the creator before R20; never written again.
struct fast_channel_config {
    uint64_t total_size;      // bytes of the channel (== the memfd size)
    uint32_t capacity;        // entries per queue; power of two, 2..k_fast_max_capacity
    uint32_t num_tasks;       // the consumer's post-receive tasks, 1..capacity
    uint32_t post_entry_size; // k_fast_post_entry_size
    uint32_t comp_entry_size; // k_fast_comp_entry_size
    uint64_t post_offset;     // k_fast_ctrl_size
    uint64_t comp_offset;     // align_up(post_offset + capacity * 32, 128)
    uint32_t imm_data_len;    // the consumer's configured immediate length, 0..32
    uint32_t consumer_id;     // free-form (SoftComch: the consumer id; diagnostics)
    uint32_t creator_pid;     // consumer process (diagnostics)
    uint32_t flags;           // zero in v1
    uint8_t reserved[56];     // zero
};
static_assert(sizeof(fast_channel_config) == 112);
static_assert(offsetof(fast_channel_config, total_size) == 0);
static_assert(offsetof(fast_channel_config, capacity) == 8);
static_assert(offsetof(fast_channel_config, num_tasks) == 12);
static_assert(offsetof(fast_channel_config, post_entry_size) == 16);
static_assert(offsetof(fast_channel_config, comp_entry_size) == 20);
static_assert(offsetof(fast_channel_config, post_offset) == 24);
static_assert(offsetof(fast_channel_config, comp_offset) == 32);
static_assert(offsetof(fast_channel_config, imm_data_len) == 40);
static_assert(offsetof(fast_channel_config, consumer_id) == 44);
static_assert(offsetof(fast_channel_config, creator_pid) == 48);
static_assert(offsetof(fast_channel_config, flags) == 52);
static_assert(offsetof(fast_channel_config, reserved) == 56);

// The control block at offset 0. Each 128-byte block has one writer (or one set of writers
// that all use RMWs), so the consumer's words and the producers' words never share a line or
// an adjacent-line prefetch pair.
//   config    creator, before R20               both sides at attach (one local copy)
//   state     consumer (open -> expired)        producers, on every claim (relaxed)
//   claim_pos producer threads + consumer's     producer threads (CAS), consumer's revoke
//             revoke (CAS only)
//   comp_head producer threads (CAS only)       producer threads; tools (diagnostics)
//   armed     consumer sets, producers clear    producers after every completion (exchange)
//             (exchanges only)
struct fast_channel_ctrl {
    uint64_t magic;                       // k_fast_magic
    std::atomic<uint32_t> layout_version; // 0 while being built; 1 once published (R20/A20)
    uint32_t header_size;                 // k_fast_ctrl_size
    fast_channel_config config;           // immutable
    std::atomic<uint32_t> state;          // k_fast_state_open / k_fast_state_expired
    std::atomic<uint32_t> consumer_pid;   // consumer's pid (diagnostics; relaxed)
    uint8_t pad_state[120];
    std::atomic<uint64_t> claim_pos; // post positions claimed so far (free-running)
    uint8_t pad_claim[120];
    std::atomic<uint64_t> comp_head;    // completion positions taken so far (free-running)
    std::atomic<uint32_t> producer_pid; // last attached producer process (diagnostics; relaxed)
    std::atomic<uint32_t> accepted;     // 1: the peer has mapped the channel and the memory and
                                        // will address this consumer (R26 / A26)
    uint8_t pad_comp[112];
    std::atomic<uint32_t> armed; // 1: the consumer sleeps and wants a wake-up
    uint8_t pad_armed[124];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shm words must be address-free");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "shm words must be address-free");
static_assert(sizeof(std::atomic<uint64_t>) == 8 && sizeof(std::atomic<uint32_t>) == 4);
static_assert(sizeof(fast_channel_ctrl) == k_fast_ctrl_size);
static_assert(offsetof(fast_channel_ctrl, magic) == 0);
static_assert(offsetof(fast_channel_ctrl, layout_version) == 8);
static_assert(offsetof(fast_channel_ctrl, header_size) == 12);
static_assert(offsetof(fast_channel_ctrl, config) == 16);
static_assert(offsetof(fast_channel_ctrl, state) == 128);
static_assert(offsetof(fast_channel_ctrl, consumer_pid) == 132);
static_assert(offsetof(fast_channel_ctrl, claim_pos) == 256);
static_assert(offsetof(fast_channel_ctrl, comp_head) == 384);
static_assert(offsetof(fast_channel_ctrl, producer_pid) == 392);
static_assert(offsetof(fast_channel_ctrl, accepted) == 396);
static_assert(offsetof(fast_channel_ctrl, armed) == 512);

// One post-queue entry. seq protocol (positions are free-running u64; capacity C):
//   seq == pos          free for position pos (initially seq = index)
//   seq == pos + 1      posted at position pos (R21), claimable
//   seq == pos + C      handed back by the claimer of pos (R22): free for position pos + C
// task and addr are plain: the consumer writes them before R21 and a claimer reads them only
// after it has won position pos (A21 + CAS), so they are never accessed concurrently by well-
// behaved sides. capacity is atomic because claimers read it BEFORE their CAS (to refuse a
// buffer that is too small without consuming it), i.e. possibly while the consumer already
// rewrites the slot for a later lap; such a read is discarded because the CAS then fails.
struct post_slot {
    std::atomic<uint64_t> seq;
    uint32_t task;                  // consumer-local task index
    uint32_t reserved;              // zero
    uint64_t addr;                  // buffer address in the CONSUMER's address space
    std::atomic<uint64_t> capacity; // buffer bytes
};
static_assert(sizeof(post_slot) == k_fast_post_entry_size);
static_assert(offsetof(post_slot, seq) == 0);
static_assert(offsetof(post_slot, task) == 8);
static_assert(offsetof(post_slot, reserved) == 12);
static_assert(offsetof(post_slot, addr) == 16);
static_assert(offsetof(post_slot, capacity) == 24);

// One completion-queue entry, one cache line. seq protocol:
//   seq == pos          free for position pos (initially seq = index)
//   seq == pos + 1      completion pos written (R23), readable by the consumer
//   seq == pos + C      consumed (R24): free for position pos + C
// The other fields are plain: written by the producer that won position pos (CAS on
// comp_head) before R23, read by the consumer after A23.
struct comp_slot {
    std::atomic<uint64_t> seq;
    uint32_t task;               // the task index of the claimed post entry
    uint32_t status;             // doca_error_t value; 0 = success
    uint64_t len;                // bytes written into the buffer
    uint32_t producer_id;        // sender's producer id (DOCA get_producer_id)
    uint32_t imm_len;            // valid bytes of imm, <= the consumer's imm_data_len
    uint8_t imm[k_fast_max_imm]; // immediate data
};
static_assert(sizeof(comp_slot) == k_fast_comp_entry_size);
static_assert(offsetof(comp_slot, seq) == 0);
static_assert(offsetof(comp_slot, task) == 8);
static_assert(offsetof(comp_slot, status) == 12);
static_assert(offsetof(comp_slot, len) == 16);
static_assert(offsetof(comp_slot, producer_id) == 24);
static_assert(offsetof(comp_slot, imm_len) == 28);
static_assert(offsetof(comp_slot, imm) == 32);

// ---- process-local values exchanged with the API ----------------------------------------------

// A claimed post entry (copied out of shared memory by the claimer).
struct post_entry {
    uint32_t task = 0;     // consumer-local task index (echo it in the completion)
    uint32_t reserved = 0; // zero
    uint64_t addr = 0;     // buffer address in the consumer's address space: validate it
                           // against the imported memory before writing (copy_to_peer does)
    uint64_t capacity = 0; // buffer bytes
};

// A completion as the producer hands it in and as the consumer reads it (a validated local
// copy; the peer cannot change it after peek()).
struct fast_completion {
    uint32_t task = 0;
    uint32_t status = 0; // doca_error_t value
    uint64_t len = 0;
    uint32_t producer_id = 0;
    uint32_t imm_len = 0;
    uint8_t imm[k_fast_max_imm] = {};
};

// What the consumer side asks for.
struct fast_channel_params {
    uint32_t num_tasks = 0;    // post-receive tasks of the consumer, 1..k_fast_max_capacity
    uint32_t imm_data_len = 0; // the consumer's immediate-data length, 0..k_fast_max_imm
    uint32_t consumer_id = 0;  // stored for diagnostics
    bool prefault = true;      // posix_fallocate + MAP_POPULATE (first touch is slow)
};

// The validated, process-local content of a header.
struct fast_channel_layout {
    uint64_t total_size = 0;
    uint32_t capacity = 0;
    uint32_t num_tasks = 0;
    uint64_t post_offset = 0;
    uint64_t comp_offset = 0;
    uint32_t imm_data_len = 0;
    uint32_t consumer_id = 0;
    uint32_t creator_pid = 0;
};

// ---- the channel memory (control path) --------------------------------------------------------

class fast_channel {
public:
    // Move-only (rule of zero: the fd and the mapping are move-only members). A move transfers
    // the mapping and the fd and leaves the source empty (valid() == false). fast_consumer /
    // fast_producer objects bound to this memory must not outlive it.

    // Queue capacity for `num_tasks` tasks: the smallest power of two >= num_tasks and >= 2
    // (the per-slot sequence protocol needs two slots to tell "posted" from "free for the
    // next lap"), or 0 when num_tasks is 0 or above k_fast_max_capacity.
    static uint32_t capacity_for(uint32_t num_tasks) noexcept;
    // Bytes of a channel for `num_tasks` tasks; 0 if invalid.
    static uint64_t size_for(uint32_t num_tasks) noexcept;

    // Lays a fresh channel into caller memory (`len` >= size_for(), 128-byte aligned) and
    // publishes it (R20). For in-process use and tests; create() uses it on the memfd.
    // DOCA_ERROR_INVALID_VALUE on bad parameters, alignment or size.
    static doca_error_t init(void *mem, uint64_t len, const fast_channel_params &p) noexcept;

    // Validates a channel image of `len` bytes at `mem` (128-byte aligned). Reads nothing
    // outside [mem, mem + len) and only the immutable header. Fills `out` (optional) on success.
    // Errors: DOCA_ERROR_INVALID_VALUE (not a channel, any field wrong, size mismatch),
    // DOCA_ERROR_AGAIN (version still 0: not published yet), DOCA_ERROR_UNSUPPORTED_VERSION.
    static doca_error_t validate_header(const void *mem, uint64_t len,
                                        fast_channel_layout *out) noexcept;

    // Consumer side: memfd_create (MFD_CLOEXEC | MFD_ALLOW_SEALING), size, seal
    // (shrink/grow/seal), map shared, init. `out` receives the channel (it keeps the fd to send
    // to the peer) only on success. Errors: DOCA_ERROR_INVALID_VALUE (bad params),
    // DOCA_ERROR_NO_MEMORY (ENOMEM/ENOSPC/EMFILE...), DOCA_ERROR_OPERATING_SYSTEM (other).
    static doca_error_t create(const fast_channel_params &p, fast_channel &out) noexcept;

    // Producer side. `fd` is borrowed (not closed, not kept). The file must be a memfd sealed
    // against shrinking and growing (peer_checks.hpp) of exactly `expected_size` bytes (a page
    // multiple, <= size_for(k_fast_max_capacity)); it is mapped shared and the header fully
    // validated before anything else is read. `prefault` populates the pages the file already
    // has (never allocating for holes: the file is the peer's). Records our pid in
    // the producer_pid word. Errors: as validate_header() (DOCA_ERROR_INVALID_VALUE also for
    // an unsealed file), plus DOCA_ERROR_NO_MEMORY / DOCA_ERROR_OPERATING_SYSTEM from mmap.
    static doca_error_t attach(int fd, uint64_t expected_size, fast_channel &out,
                               bool prefault = true) noexcept;

    bool valid() const noexcept { return bool(map_); }
    int fd() const noexcept { return fd_.get(); }
    unique_fd release_fd() noexcept;
    void *base() const noexcept { return map_.base(); }
    uint64_t size() const noexcept { return map_.size(); }
    const fast_channel_layout &layout() const noexcept { return layout_; }

private:
    unique_fd fd_;
    mapped_region map_;
    fast_channel_layout layout_;
};

// ---- what both ends bind to ----------------------------------------------------------------------

// The process-local copies both ends take at attach: the validated bases, the mask that bounds
// every slot address, and the bounds of task indices and immediate data. The shared config is
// never read again after bind(): what the data path checks against comes from these copies.
class fast_channel_binding {
public:
    bool attached() const noexcept { return ctrl_ != nullptr; }
    uint32_t capacity() const noexcept { return mask_ + 1; }
    uint32_t num_tasks() const noexcept { return num_tasks_; }
    uint32_t imm_data_len() const noexcept { return imm_data_len_; }

protected:
    // Takes the copies from `lay`, which fast_channel::validate_header() returned for `mem`.
    void bind(void *mem, const fast_channel_layout &lay) noexcept;
    post_slot *post_at(uint64_t pos) const noexcept;
    comp_slot *comp_at(uint64_t pos) const noexcept;

    fast_channel_ctrl *ctrl_ = nullptr;
    uint8_t *post_ = nullptr;   // shared post queue
    uint8_t *comp_ = nullptr;   // shared completion queue
    uint32_t mask_ = 0;         // capacity - 1
    uint32_t num_tasks_ = 0;    // bounds every task index the consumer accepts
    uint32_t imm_data_len_ = 0; // bounds every completion's imm_len
};

// ---- consumer side ------------------------------------------------------------------------------

class fast_consumer : public fast_channel_binding {
public:
    fast_consumer() noexcept = default;
    fast_consumer(fast_consumer &&) noexcept = default;
    fast_consumer &operator=(fast_consumer &&) noexcept = default;
    fast_consumer(const fast_consumer &) = delete;
    fast_consumer &operator=(const fast_consumer &) = delete;

    // Validates the channel in `mem` and binds to it as its (only) consumer. Allocates the
    // table of outstanding tasks (control path). Marks the channel open and records our pid.
    // The channel must be fresh, or quiescent (every post claimed and every completion
    // consumed, no producer active): positions resume from claim_pos and comp_head.
    // Errors: those of fast_channel::validate_header(), DOCA_ERROR_NO_MEMORY.
    doca_error_t attach(void *mem, uint64_t len) noexcept;
    doca_error_t attach(const fast_channel &ch) noexcept { return attach(ch.base(), ch.size()); }

    // Publishes a receive buffer: task `task` (< num_tasks, not outstanding) may receive up to
    // `capacity` bytes at `addr` (an address in THIS process). The entry becomes claimable by
    // producers at once (FIFO). Returns:
    //   DOCA_SUCCESS              posted; the task is outstanding until its completion has been
    //                             release()d or it has been revoke()d
    //   DOCA_ERROR_AGAIN          the slot of this position is still held by a claimer that won
    //                             it but has not finished reading it (a descheduled producer
    //                             thread): transient, retry on a later progress call
    //   DOCA_ERROR_INVALID_VALUE  task out of range or already outstanding (caller bug)
    //   DOCA_ERROR_BAD_STATE      expire() was called
    doca_error_t post(uint32_t task, uint64_t addr, uint64_t capacity) noexcept;

    // The oldest completion, or nullptr when there is none (or the channel is corrupted()).
    // Repeated calls return the same completion until release(). The completion is a local,
    // validated copy: task is outstanding, len <= the capacity that was posted for it,
    // imm_len <= imm_data_len(). A completion failing these checks (a buggy or hostile peer)
    // marks the channel corrupted() and is never returned.
    const fast_completion *peek() noexcept;
    // Consumes the completion returned by peek(): its task stops being outstanding (it may be
    // posted again) and the slot goes back to the producers (R24). Must be called before the
    // task is handed back to the user (who may repost it from the callback).
    void release() noexcept;
    // True when peek() would return a completion (barring corruption).
    bool ready() const noexcept;

    // Sleep protocol, as ring_consumer: arm() returns true when armed (no completion pending:
    // the caller may sleep on its eventfd; the next complete() reports "wake needed"), or
    // false when a completion is already there (the arm is withdrawn; poll again).
    bool arm() noexcept;
    void disarm() noexcept;
    bool armed() const noexcept;

    // Stop: producers' claims fail from now on (DOCA_ERROR_NOT_CONNECTED). Entries nobody has
    // claimed yet are taken back with revoke(); entries already claimed will still be completed
    // by their producers (the copy may be under way): wait for those completions (or for the
    // peer's death) before the buffers are reused or freed. outstanding() counts both kinds.
    void expire() noexcept;
    bool expired() const noexcept { return expired_; }
    // Claims the oldest unclaimed post entry back (consumer side of the claim CAS). Returns
    // false when none is left. The task stops being outstanding.
    bool revoke(post_entry *out) noexcept;
    // Tasks posted and not yet completed+released or revoked.
    uint32_t outstanding() const noexcept { return outstanding_; }

    bool corrupted() const noexcept { return corrupted_; }
    // True once the peer said (fast_producer::accept()) that it reaches this consumer: the
    // consumer's start can complete on its own engine, whoever progresses the connection.
    bool accepted() const noexcept;

private:
    // "Not outstanding" marker in posted_cap_ (a capacity cannot be this large: memory sizes
    // are < 2^63).
    static constexpr uint64_t k_not_posted = ~uint64_t(0);

    uint64_t post_pos_ = 0;                  // next post position (we are the only poster)
    uint64_t comp_pos_ = 0;                  // next completion position to read
    uint32_t outstanding_ = 0;               // tasks posted and not yet finished
    bool expired_ = false;                   // expire() called
    bool corrupted_ = false;                 // an impossible completion was seen
    bool peeked_ = false;                    // view_ holds the completion at comp_pos_
    std::unique_ptr<uint64_t[]> posted_cap_; // per task: posted capacity or k_not_posted
    fast_completion view_;                   // what peek() returned last
};

// ---- producer side ------------------------------------------------------------------------------

class fast_producer : public fast_channel_binding {
public:
    fast_producer() noexcept = default;

    // Validates the channel in `mem` and binds to it. No shared word is written.
    // Errors: those of fast_channel::validate_header().
    doca_error_t attach(void *mem, uint64_t len) noexcept;
    doca_error_t attach(const fast_channel &ch) noexcept { return attach(ch.base(), ch.size()); }

    // All functions below are const, touch only shared memory and may be called concurrently
    // from any number of threads of this process.

    // Capacity of the oldest unclaimed entry without claiming it. false when nothing is posted
    // or the consumer expired. With several producer threads the answer may be stale by the
    // time the caller acts on it; try_claim(len, ...) performs the check and the claim on the
    // same entry atomically.
    bool peek_capacity(uint64_t *capacity) const noexcept;

    // Claims the oldest unclaimed entry if its capacity is at least `need` bytes. Returns:
    //   DOCA_SUCCESS             *out holds the entry; the caller MUST complete() it (with an
    //                            error status if the copy fails)
    //   DOCA_ERROR_AGAIN         nothing posted (DOCA's observed "submit returns AGAIN")
    //   DOCA_ERROR_TOO_BIG       the oldest entry is smaller than `need`: nothing claimed, the
    //                            buffer stays posted for a smaller message
    //   DOCA_ERROR_NOT_CONNECTED the consumer expired
    doca_error_t try_claim(uint64_t need, post_entry *out) const noexcept;
    // try_claim(0, out) == DOCA_SUCCESS.
    bool claim(post_entry *out) const noexcept { return try_claim(0, out) == DOCA_SUCCESS; }

    // Publishes a completion for a claimed entry (task = the entry's task). c.imm_len must be
    // <= imm_data_len() (else DOCA_ERROR_INVALID_VALUE, nothing written). On DOCA_SUCCESS,
    // *wake tells whether the consumer was armed: the caller must then write its eventfd.
    // DOCA_ERROR_AGAIN: the completion slot is not free yet. Impossible while the consumer
    // follows its contract (see the file comment); a caller keeps the completion and retries.
    doca_error_t complete(const fast_completion &c, bool *wake) const noexcept;
    // complete() whose check for a sleeping consumer may wait (ring_producer::commit_deferred):
    // `armed` is only looked at. *wake true: the consumer was seen armed and the exchange done,
    // wake it now; false: the caller owes one wake_needed() before it sleeps or stops.
    doca_error_t complete_deferred(const fast_completion &c, bool *wake) const noexcept;
    // The check complete_deferred() put off (R25): true when the consumer armed, and the caller
    // must wake it.
    bool wake_needed() const noexcept;

    // True once the consumer expired (relaxed read; claims check it themselves).
    bool expired() const noexcept;
    // Tells the consumer that this side has mapped everything and will address it (R26). Called
    // once, after the peer's bookkeeping is in place, next to the CONSUMER_ACK message.
    void accept() const noexcept;

private:
    // Both completes without the check: takes a slot, writes it, publishes it (R23).
    doca_error_t publish_completion(const fast_completion &c) const noexcept;
};

} // namespace softcomch::transport::shm

#include "transport/shm/fast_channel.inl"
