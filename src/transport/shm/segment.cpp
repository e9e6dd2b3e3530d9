// SPDX-License-Identifier: Apache-2.0
//
// Segment creation (server), attach and validation (client). Layout in segment.hpp and
// docs/shm_layout.md.
//
// Edges:
//   R10 (create: layout_version store-release) -> A10 (validate_header: layout_version
//        load-acquire). Everything the creator wrote before R10 (header fields, ring configs,
//        ring words) is visible to the side that observed the version. Across processes the
//        fd also travels through a Unix socket (a kernel round trip), which orders it too; the
//        release/acquire pair keeps the rule local and also covers in-process use (tests).
#include "transport/shm/segment.hpp"

#include "common/errno_map.hpp"
#include "transport/shm/peer_checks.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

namespace softcomch::transport::shm {

namespace {

// Rounds `v` up to the segment's region alignment. The inputs are bounded (a ring is at most
// k_ring_max_memsize bytes, far below 2^64 - 4096), so the addition cannot overflow.
constexpr uint64_t align_region(uint64_t v) noexcept
{
    return (v + k_segment_align - 1) & ~(k_segment_align - 1);
}

// The immutable first 128 bytes of the header as plain data, so validation can take one local
// copy of them (segment_header itself holds atomics and is not trivially copyable).
// Field meanings are those of segment_header (segment.hpp); only the types differ.
struct header_fixed {
    uint64_t magic;          // k_segment_magic
    uint32_t layout_version; // not used from the copy: read with acquire first (A10)
    uint32_t header_size;    // k_segment_header_size
    uint64_t total_size;     // == mapped length
    uint64_t generation;     // free-form
    uint32_t creator_pid;    // free-form
    uint32_t flags;          // zero
    ring_desc rings[2];      // must equal the canonical layout
    uint8_t reserved0[24];   // zero
};
// Same bytes as the head of segment_header: a copy of the one is a valid view of the other.
// If segment_header ever changes, these fail to compile instead of silently misreading.
static_assert(sizeof(header_fixed) == offsetof(segment_header, sides));
static_assert(offsetof(header_fixed, header_size) == offsetof(segment_header, header_size));
static_assert(offsetof(header_fixed, total_size) == offsetof(segment_header, total_size));
static_assert(offsetof(header_fixed, generation) == offsetof(segment_header, generation));
static_assert(offsetof(header_fixed, creator_pid) == offsetof(segment_header, creator_pid));
static_assert(offsetof(header_fixed, flags) == offsetof(segment_header, flags));
static_assert(offsetof(header_fixed, rings) == offsetof(segment_header, rings));
static_assert(offsetof(header_fixed, reserved0) == offsetof(segment_header, reserved0));

// Canonical placement of the two rings for given parameters: c2s right after the header page,
// s2c right after c2s, each rounded to a page. Returns false if a parameter set is invalid.
// Both sides use this one function: the creator to build the header, the attacher to check
// it. Having a single canonical layout (instead of validating arbitrary offsets) turns "no
// overlap, aligned, inside the file" into one equality test.
bool canonical_layout(const ring_params &c2s_p, const ring_params &s2c_p, ring_desc out[2],
                      uint64_t *total) noexcept
{
    // Both rings must be valid on their own (limit included).
    if (!ring_layout::valid(c2s_p) || !ring_layout::valid(s2c_p))
        return false;
    // Walk the regions in ring_dir order, starting right after the header page.
    const ring_params *ps[2] = {&c2s_p, &s2c_p};
    uint64_t off = k_segment_header_size;
    for (uint32_t d = 0; d < 2; ++d) {
        // memsize is bounded by k_ring_max_memsize, so these sums cannot overflow.
        const uint64_t sz = align_region(ring_layout::memsize(ps[d]->capacity));
        out[d] = ring_desc{off, sz, ps[d]->capacity, ps[d]->max_record, ps[d]->limit, 0};
        off += sz;
    }
    // The end of the last region is the segment size; bounded so attach can reject absurd sizes.
    *total = off;
    return off <= k_segment_max_size;
}

} // namespace

// The server sends the fd once (SCM_RIGHTS duplicates it into the client) and may then drop
// its own copy: the mapping keeps the memory alive. Empty on the attach side.
unique_fd segment::release_fd() noexcept
{
    return std::move(fd_);
}

// Exposed so that the server can report the per-connection footprint before creating anything.
uint64_t segment::size_for(const ring_params &c2s_params, const ring_params &s2c_params) noexcept
{
    ring_desc d[2];
    uint64_t total = 0;
    return canonical_layout(c2s_params, s2c_params, d, &total) ? total : 0;
}

// Server side. Order matters: compute and check the layout, create and size the file, reserve
// and seal it, map it, write the header and the rings, and only then publish the version.
// Every failure before the version store leaves nothing behind (the fd and mapping are owned
// locally until the very end).
doca_error_t segment::create(const segment_params &params, segment &out) noexcept
{
    // Compute and check the layout before any system call.
    ring_desc descs[2];
    uint64_t total = 0;
    if (!canonical_layout(params.rings[c2s], params.rings[s2c], descs, &total))
        return DOCA_ERROR_INVALID_VALUE;

    // The backing file: a sealed memfd of the segment's size (the client refuses a segment that
    // is not sealed), reserved and mapped with its page tables populated if asked (ENOSPC here instead of SIGBUS on first touch in the data path). A fresh file
    // reads as zeros, which is what the header's reserved fields and the not-yet-published
    // version word (0) need. The kernel picks the address; nothing in the segment depends on it
    // (offsets only).
    unique_fd fd;
    void *base = nullptr;
    if (doca_error_t err = create_mapped_memfd("softcomch-seg", total, params.prefault,
                                               params.prefault, fd, &base);
        err != DOCA_SUCCESS)
        return err;

    // Build the header. The file is zero-filled, so only non-zero fields are written; the
    // atomics' lifetimes start by placement new with their initial values.
    auto *h = static_cast<segment_header *>(base);
    // Identification first; the version stays 0 ("being built") until R10 below.
    h->magic = k_segment_magic;
    new (&h->layout_version) std::atomic<uint32_t>(0);
    h->header_size = k_segment_header_size;
    h->total_size = total;
    // Free-form identity (connection id, server pid) for diagnostics and tools.
    h->generation = params.generation;
    h->creator_pid = uint32_t(::getpid());
    h->flags = 0;
    // Ring descriptors exactly as canonical_layout() computed them (the attacher recomputes and
    // compares).
    h->rings[c2s] = descs[c2s];
    h->rings[s2c] = descs[s2c];
    // Run-time words of both sides start at 0 ("never beat", "pid unknown").
    for (auto &sb : h->sides) {
        new (&sb.heartbeat) std::atomic<uint64_t>(0);
        new (&sb.pid) std::atomic<uint32_t>(0);
    }
    // Relaxed: published by R10 below.
    h->sides[server_side].pid.store(uint32_t(::getpid()), std::memory_order_relaxed);

    // Lay out both rings in their regions. ring_layout::init writes only the control block and
    // its first record header; the rest stays as the zero-filled file gave it.
    for (uint32_t d = 0; d < 2; ++d) {
        const doca_error_t err = ring_layout::init(static_cast<uint8_t *>(base) + descs[d].offset,
                                                   descs[d].size, params.rings[d]);
        if (err != DOCA_SUCCESS) {
            // Cannot happen for a canonical layout; keep the failure path clean anyway.
            ::munmap(base, total);
            return err;
        }
    }

    // R10: pairs with A10 in validate_header(). Written last: a reader that sees the version
    // sees the complete header and both initialised rings.
    h->layout_version.store(k_segment_layout_version, std::memory_order_release);

    // Hand over only now (outputs are written on success only). Assigning a fresh segment
    // first releases whatever `out` held before.
    out = segment();
    out.fd_ = std::move(fd);
    out.map_ = mapped_region(base, total);
    out.layout_ =
        segment_layout{total, params.generation, uint32_t(::getpid()), {descs[c2s], descs[s2c]}};
    return DOCA_SUCCESS;
}

// The single gate between bytes written by another process and our use of them. Also the fuzz
// target (tests/fuzz/fuzz_segment_header.cpp): it must reject any image cleanly, read nothing
// outside [mem, mem + len), and accept only images whose every immutable byte is as create()
// would have written it (except the free-form generation and creator_pid).
doca_error_t segment::validate_header(const void *mem, uint64_t len, segment_layout *out) noexcept
{
    // Enough bytes for the header page, 8-byte alignment for the 64-bit words, and a sane size.
    if (mem == nullptr || (reinterpret_cast<uintptr_t>(mem) & 7u) != 0 ||
        len < k_segment_header_size || len > k_segment_max_size)
        return DOCA_ERROR_INVALID_VALUE;
    const auto *h = static_cast<const segment_header *>(mem);
    // A10: pairs with R10 in create(). Read first: the other fields are meaningful only after.
    const uint32_t version = h->layout_version.load(std::memory_order_acquire);

    // One local copy of the immutable part; all checks below run on it (no double fetch: the
    // peer may be rewriting the header while we look at it).
    header_fixed f;
    std::memcpy(&f, mem, sizeof f);
    // Not a segment at all (wrong fd, or an unrelated file).
    if (f.magic != k_segment_magic)
        return DOCA_ERROR_INVALID_VALUE;
    // 0: the creator has not published yet (only possible when racing create()).
    if (version == 0)
        return DOCA_ERROR_AGAIN;
    if (version != k_segment_layout_version)
        return DOCA_ERROR_UNSUPPORTED_VERSION;
    // Fixed fields (unchanged since v1). total_size must be the mapped length: the attacher maps exactly what
    // the file holds, so a header claiming more would send ring accesses past the mapping.
    if (f.header_size != k_segment_header_size || f.flags != 0 || f.total_size != len)
        return DOCA_ERROR_INVALID_VALUE;
    // Reserved bytes are zero (since v1); anything else is another layout or corruption.
    for (uint8_t b : f.reserved0) {
        if (b != 0)
            return DOCA_ERROR_INVALID_VALUE;
    }

    // The rings must sit exactly where the canonical layout puts them for their parameters:
    // this single comparison rules out overlap, misalignment, out-of-range offsets and
    // size/total mismatches at once.
    // Parameters as the header claims them (still untrusted; canonical_layout validates them).
    const ring_params ps[2] = {
        {f.rings[c2s].capacity, f.rings[c2s].max_record, f.rings[c2s].limit},
        {f.rings[s2c].capacity, f.rings[s2c].max_record, f.rings[s2c].limit}};
    ring_desc canon[2];
    uint64_t total = 0;
    if (!canonical_layout(ps[c2s], ps[s2c], canon, &total) || total != f.total_size)
        return DOCA_ERROR_INVALID_VALUE;
    for (uint32_t d = 0; d < 2; ++d) {
        if (std::memcmp(&canon[d], &f.rings[d], sizeof(ring_desc)) != 0)
            return DOCA_ERROR_INVALID_VALUE;
    }

    // Each ring's own control block must agree with its descriptor. The offsets were just
    // proven to lie inside [0, len), so these reads stay in bounds. A mismatch means the header
    // and the rings were not written by one create() call: refuse rather than guess which one
    // is right.
    for (uint32_t d = 0; d < 2; ++d) {
        ring_params rp;
        const auto *rmem = static_cast<const uint8_t *>(mem) + canon[d].offset;
        const doca_error_t err = ring_layout::validate(rmem, canon[d].size, &rp);
        if (err != DOCA_SUCCESS)
            return err;
        if (!(rp == ps[d]))
            return DOCA_ERROR_INVALID_VALUE;
    }

    // Everything checked: report the layout (from the local copy; the caller keeps it and never
    // consults the shared header again).
    if (out != nullptr)
        *out = segment_layout{f.total_size, f.generation, f.creator_pid, {canon[c2s], canon[s2c]}};
    return DOCA_SUCCESS;
}

// Client side. The fd arrived over the Unix socket; the size came in the ACCEPT message. Both
// come from the peer, so both are checked against each other and against the header before
// anything is used.
doca_error_t segment::attach(int fd, uint64_t expected_size, segment &out, bool prefault) noexcept
{
    // The size comes from the peer's ACCEPT message: bound it before asking the kernel.
    if (fd < 0 || expected_size < k_segment_header_size || expected_size > k_segment_max_size ||
        expected_size % k_segment_align != 0)
        return DOCA_ERROR_INVALID_VALUE;
    // The file must be a sealed memfd of exactly the announced size (map_peer_memfd), mapped
    // read-write: the client produces on c2s and updates its consumer words on s2c. Populated
    // now if asked (first touch is slow), but only the pages the file holds: it is the
    // server's, and a sparse one must cost this side nothing.
    void *base = nullptr;
    if (doca_error_t err = map_peer_memfd(fd, expected_size, prefault, &base); err != DOCA_SUCCESS)
        return err;

    // Validate everything before a single ring word is used. On failure the mapping goes away
    // again and `out` is untouched.
    segment_layout layout;
    const doca_error_t err = validate_header(base, expected_size, &layout);
    if (err != DOCA_SUCCESS) {
        ::munmap(base, expected_size);
        return err;
    }

    // Record our pid for diagnostics (relaxed: nothing is published through it). This is the
    // only write the client makes to the header; it goes to the client's own side block.
    auto *h = static_cast<segment_header *>(base);
    h->sides[client_side].pid.store(uint32_t(::getpid()), std::memory_order_relaxed);

    // Hand over (no fd kept on this side: the caller owns it and may close it right away; the
    // mapping keeps the memory alive).
    out = segment();
    out.map_ = mapped_region(base, expected_size);
    out.layout_ = layout;
    return DOCA_SUCCESS;
}

// Accessors below use the validated, process-local layout copy, never the shared header, so
// a peer rewriting the header after attach cannot redirect them.
void *segment::ring_mem(ring_dir d) const noexcept
{
    // Offsets come from the validated, process-local layout copy.
    return static_cast<uint8_t *>(map_.base()) + layout_.rings[d].offset;
}

uint64_t segment::ring_size(ring_dir d) const noexcept
{
    // The whole page-rounded region; the ring validates that its memsize fits inside.
    return layout_.rings[d].size;
}

// Ring handles: thin wrappers so callers never compute ring addresses themselves.
doca_error_t segment::producer(ring_dir d, ring_producer &p) const noexcept
{
    // Re-validates the ring's config (cheap; control path). An empty segment has no rings.
    if (!map_ || d > s2c)
        return DOCA_ERROR_BAD_STATE;
    return p.attach(ring_mem(d), ring_size(d));
}

// As producer(): the ring validates its own config again (cheap; control path only).
doca_error_t segment::consumer(ring_dir d, ring_consumer &c) const noexcept
{
    // Re-validates the ring's config (cheap; control path).
    if (!map_ || d > s2c)
        return DOCA_ERROR_BAD_STATE;
    return c.attach(ring_mem(d), ring_size(d));
}

// Liveness words: each side writes only its own block (no shared cache line), the other side
// reads it when it suspects the peer (slow path; the socket hang-up is the primary signal).
void segment::beat(side s, uint64_t value) noexcept
{
    // Relaxed: a liveness hint, nothing is published through it. Own 128-byte block per side.
    header()->sides[s].heartbeat.store(value, std::memory_order_relaxed);
}

// The other side's word is read without any ordering: a stale value only delays detection.
uint64_t segment::heartbeat(side s) const noexcept
{
    // Relaxed: see beat().
    return header()->sides[s].heartbeat.load(std::memory_order_relaxed);
}

// 0 until the side has written it (the client does so in attach()).
uint32_t segment::pid(side s) const noexcept
{
    // Relaxed: diagnostic.
    return header()->sides[s].pid.load(std::memory_order_relaxed);
}

} // namespace softcomch::transport::shm
