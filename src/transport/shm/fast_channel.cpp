// SPDX-License-Identifier: Apache-2.0
//
// Control path of the fast-path channel: sizing, initialisation, validation, memfd creation and
// attach. The data path is inline in fast_channel.inl. Layout in fast_channel.hpp and
// docs/shm_layout.md section 10.
//
// Edges:
//   R20 (init: layout_version store-release) -> A20 (validate_header: layout_version
//        load-acquire). Everything the creator wrote before R20 (config, queue sequence words,
//        state word) is visible to a side that observed the version. Across processes the fd
//        also travels through a Unix socket, which orders it too; the pair keeps the rule local
//        and covers in-process use (tests).
#include "transport/shm/fast_channel.hpp"

#include "common/errno_map.hpp"
#include "transport/shm/peer_checks.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

namespace softcomch::transport::shm {

namespace {

// Queues are separated by this much so the post queue's last line and the completion queue's
// first line never share an adjacent-line prefetch pair.
constexpr uint64_t k_queue_align = 128;

// `a` is a power of two; the inputs are bounded (<= a 65536-entry channel), so no overflow.
constexpr uint64_t align_up(uint64_t v, uint64_t a) noexcept
{
    return (v + a - 1) & ~(a - 1);
}

// The canonical placement for a capacity (already validated, <= k_fast_max_capacity, so none
// of these sums can overflow): both sides compute it, the attacher compares it field by field.
struct canonical {
    uint64_t post_offset;
    uint64_t comp_offset;
    uint64_t total;
};

canonical canonical_for(uint32_t capacity) noexcept
{
    // Control block, post queue right after it, completion queue on the next 128-byte
    // boundary, whole pages in all (the memfd is mapped in pages anyway).
    canonical c;
    c.post_offset = k_fast_ctrl_size;
    c.comp_offset =
        align_up(c.post_offset + uint64_t(capacity) * k_fast_post_entry_size, k_queue_align);
    c.total = align_up(c.comp_offset + uint64_t(capacity) * k_fast_comp_entry_size, k_fast_align);
    return c;
}

// Capacities must be powers of two: `pos & mask` replaces a modulo on the data path, and
// free-running u64 positions then wrap consistently.
constexpr bool is_pow2(uint32_t v) noexcept
{
    return v != 0 && (v & (v - 1)) == 0;
}

// The queues hold 8-byte atomics and 64-byte entries; the block layout assumes 128.
bool aligned(const void *mem) noexcept
{
    return (reinterpret_cast<uintptr_t>(mem) & (k_queue_align - 1)) == 0;
}

// Both sides write the channel. MAP_POPULATE maps memfd (shmem) pages writable already; should
// the channel ever live on a filesystem with dirty tracking (the shm_open fallback of other
// platforms), populate would map them read-only and each page's first write would fault on
// the data path. MADV_POPULATE_WRITE (Linux 5.14; value 23) maps them writable without
// changing a byte; older kernels (EINVAL) keep the first-write faults. Measured here: 0 faults
// on the first write of a populated 16 MiB memfd mapping, with or without it.
void populate_write(void *mem, uint64_t len, bool prefault) noexcept
{
    if (prefault)
        (void)::madvise(mem, len, 23 /* MADV_POPULATE_WRITE */);
}

// The plain-data image of the immutable header bytes 0..127 (fast_channel_ctrl has an atomic in
// there and is not trivially copyable): validation copies these bytes once.
struct header_image {
    uint64_t magic;
    uint32_t layout_version; // not used from the copy: read with acquire first (A20)
    uint32_t header_size;
    fast_channel_config config;
};
static_assert(sizeof(header_image) == offsetof(fast_channel_ctrl, state));
static_assert(offsetof(header_image, header_size) == offsetof(fast_channel_ctrl, header_size));
static_assert(offsetof(header_image, config) == offsetof(fast_channel_ctrl, config));

} // namespace

// ---- sizing -------------------------------------------------------------------------------------

uint32_t fast_channel::capacity_for(uint32_t num_tasks) noexcept
{
    // 0 tasks or more than the hard limit: no valid channel.
    if (num_tasks == 0 || num_tasks > k_fast_max_capacity)
        return 0;
    // At least 2: with one slot, "posted at p" (seq p + 1) and "free for p + C" (seq p + C)
    // would be the same value, and a claimer could take a slot that was merely handed back.
    uint32_t c = 2;
    // num_tasks <= 2^16 here, so this stops at 2^16 at most.
    while (c < num_tasks)
        c <<= 1;
    return c;
}

// Exposed so the consumer side can report its footprint before creating anything.
uint64_t fast_channel::size_for(uint32_t num_tasks) noexcept
{
    const uint32_t cap = capacity_for(num_tasks);
    return cap == 0 ? 0 : canonical_for(cap).total;
}

// ---- init / validate ----------------------------------------------------------------------------

// Creator side, on memory nobody else uses yet; plain stores are fine until R20 publishes them.
doca_error_t fast_channel::init(void *mem, uint64_t len, const fast_channel_params &p) noexcept
{
    // Reject what validate_header() would reject, before writing anything.
    const uint32_t cap = capacity_for(p.num_tasks);
    if (mem == nullptr || !aligned(mem) || cap == 0 || p.imm_data_len > k_fast_max_imm)
        return DOCA_ERROR_INVALID_VALUE;
    const canonical c = canonical_for(cap);
    if (len < c.total)
        return DOCA_ERROR_INVALID_VALUE;

    // Zero the control block (padding and reserved included: dumps are deterministic, and the
    // attacher requires reserved bytes to be zero), then start the atomics' lifetimes.
    std::memset(mem, 0, k_fast_ctrl_size);
    auto *ctrl = static_cast<fast_channel_ctrl *>(mem);
    ctrl->magic = k_fast_magic;
    // 0 = "being built" until R20 below.
    new (&ctrl->layout_version) std::atomic<uint32_t>(0);
    ctrl->header_size = k_fast_ctrl_size;
    // The immutable configuration; the attacher recomputes every derived field and compares.
    fast_channel_config &cfg = ctrl->config;
    cfg.total_size = c.total;                     // must equal the mapped length
    cfg.capacity = cap;                           // == capacity_for(num_tasks)
    cfg.num_tasks = p.num_tasks;                  // bounds every task index
    cfg.post_entry_size = k_fast_post_entry_size; // fixed in v1
    cfg.comp_entry_size = k_fast_comp_entry_size; // fixed in v1
    cfg.post_offset = c.post_offset;              // canonical
    cfg.comp_offset = c.comp_offset;              // canonical
    cfg.imm_data_len = p.imm_data_len;            // bounds every completion's imm_len
    cfg.consumer_id = p.consumer_id;              // free-form (tools)
    cfg.creator_pid = uint32_t(::getpid());       // free-form (tools)
    cfg.flags = 0;                                // no options in v1
    // Run-time words: open, nothing claimed or completed, not armed. Relaxed initial values,
    // published by R20.
    new (&ctrl->state) std::atomic<uint32_t>(k_fast_state_open);
    new (&ctrl->consumer_pid) std::atomic<uint32_t>(uint32_t(::getpid()));
    new (&ctrl->claim_pos) std::atomic<uint64_t>(0);
    new (&ctrl->comp_head) std::atomic<uint64_t>(0);
    new (&ctrl->producer_pid) std::atomic<uint32_t>(0);
    new (&ctrl->accepted) std::atomic<uint32_t>(0);
    new (&ctrl->armed) std::atomic<uint32_t>(0);

    // Queues: every slot "free for position i" (seq = i), other fields zero. The region between
    // the queues (alignment padding) and after the completion queue is zeroed too.
    auto *base = static_cast<uint8_t *>(mem);
    std::memset(base + k_fast_ctrl_size, 0, c.total - k_fast_ctrl_size);
    // Start the lifetime of each slot's atomics. seq = i means "free for position i": the
    // consumer's first post at position i and a producer's first completion at position i both
    // expect exactly that value.
    for (uint32_t i = 0; i < cap; ++i) {
        auto *ps = reinterpret_cast<post_slot *>(base + c.post_offset +
                                                 uint64_t(i) * k_fast_post_entry_size);
        new (&ps->seq) std::atomic<uint64_t>(i);      // post slot i: free for position i
        new (&ps->capacity) std::atomic<uint64_t>(0); // read by claimers before their CAS
        auto *cs = reinterpret_cast<comp_slot *>(base + c.comp_offset +
                                                 uint64_t(i) * k_fast_comp_entry_size);
        new (&cs->seq) std::atomic<uint64_t>(i); // completion slot i: free for position i
    }

    // R20: pairs with A20 in validate_header(). Written last: a reader that sees version 1 sees
    // the complete header and both initialised queues.
    ctrl->layout_version.store(k_fast_layout_version, std::memory_order_release);
    return DOCA_SUCCESS;
}

// The single gate between bytes the other process wrote and our use of them (and a natural
// fuzz target): any image is rejected cleanly unless every immutable byte is exactly what
// init() writes (bar the free-form consumer_id and creator_pid).
doca_error_t fast_channel::validate_header(const void *mem, uint64_t len,
                                           fast_channel_layout *out) noexcept
{
    // Readable control block, aligned for the atomics, bounded size.
    if (mem == nullptr || !aligned(mem) || len < k_fast_ctrl_size ||
        len > canonical_for(k_fast_max_capacity).total)
        return DOCA_ERROR_INVALID_VALUE;
    const auto *ctrl = static_cast<const fast_channel_ctrl *>(mem);
    // A20: pairs with R20 in init(). Read first: the other fields mean something only after.
    const uint32_t version = ctrl->layout_version.load(std::memory_order_acquire);
    // One local copy of the immutable bytes; every check below runs on it (no double fetch).
    header_image h;
    std::memcpy(&h, mem, sizeof h);
    // Not a channel at all (a wrong fd, an unrelated file): say so before anything else.
    if (h.magic != k_fast_magic)
        return DOCA_ERROR_INVALID_VALUE;
    // 0: the creator has not published yet (only when racing init() in one process; across
    // processes the fd is sent after creation). The caller may retry.
    if (version == 0)
        return DOCA_ERROR_AGAIN;
    // Another layout: no in-place upgrade, the handshake must pick a common version.
    if (version != k_fast_layout_version)
        return DOCA_ERROR_UNSUPPORTED_VERSION;
    const fast_channel_config &cfg = h.config;
    // Shape: power-of-two capacity within the limit, tasks within the capacity, the entry
    // sizes and immediate length of v1.
    if (h.header_size != k_fast_ctrl_size || !is_pow2(cfg.capacity) ||
        cfg.capacity > k_fast_max_capacity || cfg.num_tasks == 0 || cfg.num_tasks > cfg.capacity ||
        cfg.post_entry_size != k_fast_post_entry_size ||
        cfg.comp_entry_size != k_fast_comp_entry_size || cfg.imm_data_len > k_fast_max_imm ||
        cfg.flags != 0)
        return DOCA_ERROR_INVALID_VALUE;
    // The capacity must be the one init() derives from num_tasks (no oversized queues with a
    // small task count: the "never full" argument relies on capacity_for()).
    if (capacity_for(cfg.num_tasks) != cfg.capacity)
        return DOCA_ERROR_INVALID_VALUE;
    // Placement: exactly canonical, and exactly the mapped length (a header claiming more would
    // send queue accesses past the mapping).
    const canonical c = canonical_for(cfg.capacity);
    if (cfg.post_offset != c.post_offset || cfg.comp_offset != c.comp_offset ||
        cfg.total_size != c.total || c.total != len)
        return DOCA_ERROR_INVALID_VALUE;
    // Reserved bytes are zero in v1.
    for (uint8_t b : cfg.reserved) {
        if (b != 0)
            return DOCA_ERROR_INVALID_VALUE;
    }
    // Report from the local copy only.
    if (out != nullptr)
        *out =
            fast_channel_layout{c.total,       cfg.capacity,     cfg.num_tasks,   c.post_offset,
                                c.comp_offset, cfg.imm_data_len, cfg.consumer_id, cfg.creator_pid};
    return DOCA_SUCCESS;
}

// ---- memfd life cycle ---------------------------------------------------------------------------

// The consumer side sends the fd once (SCM_RIGHTS duplicates it into the peer) and may then
// drop its own copy: the mapping keeps the memory alive.
unique_fd fast_channel::release_fd() noexcept
{
    return std::move(fd_);
}

// Consumer side. Every failure before init() leaves nothing behind (fd and mapping are local
// until the very end).
doca_error_t fast_channel::create(const fast_channel_params &p, fast_channel &out) noexcept
{
    // Parameters first, before any system call.
    const uint32_t cap = capacity_for(p.num_tasks);
    if (cap == 0 || p.imm_data_len > k_fast_max_imm)
        return DOCA_ERROR_INVALID_VALUE;
    const uint64_t total = canonical_for(cap).total;
    // Sealed memfd: the peer gets the fd and must not be able to shrink the file under us
    // (SIGBUS in the consumer); it refuses a channel that is not sealed so. No shm_open fallback
    // here: the segment of the same connection already required memfd (or fell back); a channel
    // is always a memfd. A fresh memfd reads as zeros: the version word is 0 ("not published")
    // from the start. Reserved (ENOSPC here, not SIGBUS on the data path) and mapped shared,
    // populated now (first touch is slow and must not land on the data path).
    unique_fd fd;
    void *base = nullptr;
    if (doca_error_t err =
            create_mapped_memfd("softcomch-fast", total, p.prefault, p.prefault, fd, &base);
        err != DOCA_SUCCESS)
        return err;
    populate_write(base, total, p.prefault);
    // Lay out and publish (R20 inside). Cannot fail for parameters checked above.
    const doca_error_t err = init(base, total, p);
    if (err != DOCA_SUCCESS) {
        ::munmap(base, total);
        return err;
    }
    // Our own layout record comes from the same validation the peer runs (cannot fail here).
    fast_channel_layout lay;
    (void)validate_header(base, total, &lay);
    // Hand over (outputs on success only). Assigning a fresh channel first releases whatever
    // `out` held before.
    out = fast_channel();
    out.fd_ = std::move(fd);
    out.map_ = mapped_region(base, total);
    out.layout_ = lay;
    return DOCA_SUCCESS;
}

// Producer side: fd and size come from the peer; check them against each other and the header.
doca_error_t fast_channel::attach(int fd, uint64_t expected_size, fast_channel &out,
                                  bool prefault) noexcept
{
    // The size comes from the peer's announce message: bound it before asking the kernel.
    if (fd < 0 || expected_size < k_fast_align || expected_size % k_fast_align != 0 ||
        expected_size > canonical_for(k_fast_max_capacity).total)
        return DOCA_ERROR_INVALID_VALUE;
    // A sealed memfd (the peer cannot truncate it under our mapping: SIGBUS) of exactly the
    // announced size, mapped read-write: producers CAS claim_pos/comp_head and write
    // completions. The file is the peer's: only the pages it holds are populated.
    void *base = nullptr;
    if (doca_error_t err = map_peer_memfd(fd, expected_size, prefault, &base); err != DOCA_SUCCESS)
        return err;
    // Validate everything before a single queue word is used.
    fast_channel_layout lay;
    const doca_error_t err = validate_header(base, expected_size, &lay);
    if (err != DOCA_SUCCESS) {
        ::munmap(base, expected_size);
        return err;
    }
    // Diagnostics only (relaxed): the producer block is ours to write.
    static_cast<fast_channel_ctrl *>(base)->producer_pid.store(uint32_t(::getpid()),
                                                               std::memory_order_relaxed);
    // Hand over; no fd is kept on this side (the caller owns it and may close it at once).
    out = fast_channel();
    out.map_ = mapped_region(base, expected_size);
    out.layout_ = lay;
    return DOCA_SUCCESS;
}

// ---- binding the two ends -----------------------------------------------------------------------

// Process-local copies of everything the data path needs, from a layout validate_header()
// returned: the shared config is never read again (a peer rewriting it changes nothing here).
void fast_channel_binding::bind(void *mem, const fast_channel_layout &lay) noexcept
{
    auto *base = static_cast<uint8_t *>(mem);
    ctrl_ = static_cast<fast_channel_ctrl *>(mem);
    post_ = base + lay.post_offset; // validated canonical offsets
    comp_ = base + lay.comp_offset;
    mask_ = lay.capacity - 1; // bounds every slot address
    num_tasks_ = lay.num_tasks;
    imm_data_len_ = lay.imm_data_len;
}

doca_error_t fast_consumer::attach(void *mem, uint64_t len) noexcept
{
    // Validate first; nothing of *this changes on failure.
    fast_channel_layout lay;
    if (const doca_error_t err = fast_channel::validate_header(mem, len, &lay); err != DOCA_SUCCESS)
        return err;
    // The outstanding-task table (control path allocation, sized by the validated num_tasks).
    // It is the consumer's private truth about what it posted: peek() checks every completion
    // against it, so a peer can neither complete a task twice nor claim more bytes than the
    // buffer holds.
    std::unique_ptr<uint64_t[]> caps(new (std::nothrow) uint64_t[lay.num_tasks]);
    if (!caps)
        return DOCA_ERROR_NO_MEMORY;
    // Nothing posted yet.
    for (uint32_t i = 0; i < lay.num_tasks; ++i)
        caps[i] = k_not_posted;
    bind(mem, lay); // the layout the table was sized by, never a second read
    posted_cap_ = std::move(caps);
    // A fresh binding: nothing outstanding, open, healthy, nothing peeked.
    outstanding_ = 0;
    expired_ = false;
    corrupted_ = false;
    peeked_ = false;
    view_ = fast_completion{};
    // Resume where the queues are: 0 and 0 on a fresh channel. On a quiescent used one (see
    // the header) every posted entry was claimed, so our next post position is claim_pos, and
    // every completion was consumed, so our next read position is comp_head. Relaxed: no
    // producer is active while we bind (control path).
    post_pos_ = ctrl_->claim_pos.load(std::memory_order_relaxed);
    comp_pos_ = ctrl_->comp_head.load(std::memory_order_relaxed);
    // Open, and record our pid for diagnostics (relaxed: nothing published through them).
    ctrl_->state.store(k_fast_state_open, std::memory_order_relaxed);
    ctrl_->consumer_pid.store(uint32_t(::getpid()), std::memory_order_relaxed);
    return DOCA_SUCCESS;
}

doca_error_t fast_producer::attach(void *mem, uint64_t len) noexcept
{
    // The producer keeps no positions of its own: every data-path call starts from the shared
    // CAS words, which is what makes one fast_producer usable from many threads. Of the bounds,
    // num_tasks is informational on this side; complete() refuses longer immediate data.
    fast_channel_layout lay;
    if (const doca_error_t err = fast_channel::validate_header(mem, len, &lay); err != DOCA_SUCCESS)
        return err;
    bind(mem, lay);
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
