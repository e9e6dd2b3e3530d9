// SPDX-License-Identifier: Apache-2.0
//
// The shared-memory segment of one connection: a memfd holding a header and the two control
// rings (client -> server and server -> client).
//
//   offset 0            segment_header (one 4 KiB page; layout below and in docs/shm_layout.md)
//   rings[c2s].offset   ring client -> server   (page aligned)
//   rings[s2c].offset   ring server -> client   (page aligned)
//   total_size          multiple of the page size
//
// Life cycle (Aeron CnC style: the version word is written last and read first):
//   server: segment::create(params)  memfd_create + ftruncate + seal + mmap, write the header,
//           init both rings, then publish layout_version with release (R10). The fd goes to the
//           client over the Unix socket (SCM_RIGHTS) next to the ACCEPT message.
//   client: segment::attach(fd, size)  fstat size check, mmap, then validate_header(): version
//           (acquire, A10), every size, offset and ring config, before a single ring word is
//           used. validate_header() is also a fuzz target: any byte pattern is rejected cleanly.
//
// The mapping is released on destruction. Thread safety: a segment object is not shared
// between threads; the words inside it follow the ring's and the header's own rules.
#pragma once

#include "common/mapped_region.hpp"
#include "common/unique_fd.hpp"
#include "transport/shm/ring.hpp"

#include <doca_error.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace softcomch::transport::shm {

// "SCSHMSEG" read as a little-endian uint64_t.
inline constexpr uint64_t k_segment_magic = 0x4745534d48534353ull;
// Segment layout version, written last by the creator. 0 means "not published yet".
inline constexpr uint32_t k_segment_layout_version = 2; // 2: rings of variable-size records
// Size of the header region; the rings start at page boundaries after it.
inline constexpr uint32_t k_segment_header_size = 4096;
// Region alignment inside the segment (the page size; also a multiple of every cache line).
inline constexpr uint64_t k_segment_align = 4096;
// Upper bound on a segment accepted by attach()/validate_header() (two maximal rings fit).
inline constexpr uint64_t k_segment_max_size = uint64_t(1) << 37;

// Index of a ring in the segment.
enum ring_dir : uint32_t {
    c2s = 0, // client -> server: the client produces, the server consumes
    s2c = 1, // server -> client: the server produces, the client consumes
};
// Index of a side (for heartbeats and pids).
enum side : uint32_t {
    server_side = 0,
    client_side = 1,
};

// Where one ring lives and what shape it has (copied into the header by the creator).
struct ring_desc {
    uint64_t offset;     // from the segment start; multiple of k_segment_align
    uint64_t size;       // bytes reserved for the ring: memsize rounded up to k_segment_align
    uint32_t capacity;   // as ring_config (data bytes)
    uint32_t max_record; // as ring_config
    uint32_t limit;      // as ring_config
    uint32_t reserved;   // zero
};
static_assert(sizeof(ring_desc) == 32);
static_assert(offsetof(ring_desc, offset) == 0);
static_assert(offsetof(ring_desc, size) == 8);
static_assert(offsetof(ring_desc, capacity) == 16);
static_assert(offsetof(ring_desc, max_record) == 20);
static_assert(offsetof(ring_desc, limit) == 24);
static_assert(offsetof(ring_desc, reserved) == 28);

// Per-side liveness block, one per 128-byte block so the two sides never share a line.
struct side_block {
    std::atomic<uint64_t> heartbeat; // owner's monotonic time (ns) or counter; 0 = never beat
    std::atomic<uint32_t> pid;       // owner's pid (the creator writes the server's; the client
                                     // writes its own on attach)
    uint32_t reserved0;              // zero
    uint8_t reserved[112];           // zero
};
static_assert(sizeof(side_block) == 128);
static_assert(offsetof(side_block, heartbeat) == 0);
static_assert(offsetof(side_block, pid) == 8);

// The header at offset 0. Everything up to `sides` is immutable after publication.
struct segment_header {
    uint64_t magic;                       // k_segment_magic
    std::atomic<uint32_t> layout_version; // 0 while being built; k_segment_layout_version once
                                          // published (R10 release / A10 acquire)
    uint32_t header_size;                 // k_segment_header_size
    uint64_t total_size;                  // bytes of the whole segment (== the memfd size)
    uint64_t generation;                  // creator-chosen id of this segment (connection id)
    uint32_t creator_pid;                 // pid of the creating (server) process
    uint32_t flags;                       // zero (since v1)
    ring_desc rings[2];                   // indexed by ring_dir
    uint8_t reserved0[24];                // zero; pads the immutable part to 128 bytes
    side_block sides[2];                  // indexed by side; written at run time
};
static_assert(offsetof(segment_header, magic) == 0);
static_assert(offsetof(segment_header, layout_version) == 8);
static_assert(offsetof(segment_header, header_size) == 12);
static_assert(offsetof(segment_header, total_size) == 16);
static_assert(offsetof(segment_header, generation) == 24);
static_assert(offsetof(segment_header, creator_pid) == 32);
static_assert(offsetof(segment_header, flags) == 36);
static_assert(offsetof(segment_header, rings) == 40);
static_assert(offsetof(segment_header, reserved0) == 104);
static_assert(offsetof(segment_header, sides) == 128);
static_assert(sizeof(segment_header) == 384);
static_assert(sizeof(segment_header) <= k_segment_header_size);

// What the creator asks for.
struct segment_params {
    ring_params rings[2];    // indexed by ring_dir (see ring_layout::params_for)
    uint64_t generation = 0; // stored in the header (SoftComch: the connection id)
    bool prefault = true;    // touch every page at create/attach (first touch is slow; keep it
                             // off the data path). Costs the whole size in resident memory.
};

// The parsed and validated content of a header.
struct segment_layout {
    uint64_t total_size = 0;
    uint64_t generation = 0;
    uint32_t creator_pid = 0;
    ring_desc rings[2] = {};
};

class segment {
public:
    // Move-only (rule of zero: the fd and the mapping are move-only members). A move transfers
    // the mapping and the fd and leaves the source empty (valid() == false). The mapping goes
    // with the object: rings attached to it must not outlive it (their pointers would dangle);
    // the owner (the connection) destroys rings first.

    // Bytes of a segment with these rings (header + two page-aligned rings); 0 if invalid.
    static uint64_t size_for(const ring_params &c2s_params, const ring_params &s2c_params) noexcept;

    // Server side. Creates the memfd (memfd_create(MFD_CLOEXEC | MFD_ALLOW_SEALING); there is
    // no fallback: the client refuses an unsealed segment), sizes it, seals it (shrink, grow,
    // seal), maps it shared, builds header and rings and publishes the version. `out` receives the segment
    // (it keeps the fd for sending to the client) only on success.
    // Errors: DOCA_ERROR_INVALID_VALUE (bad params), DOCA_ERROR_NO_MEMORY (ftruncate/mmap out of
    // memory, ENOSPC), DOCA_ERROR_OPERATING_SYSTEM (other system call failures).
    static doca_error_t create(const segment_params &params, segment &out) noexcept;

    // Client side. `fd` is borrowed (not closed, not kept). Checks that the file is a memfd
    // sealed against shrinking and growing (peer_checks.hpp) of exactly `expected_size` bytes,
    // maps it (when `prefault`, the pages the file already has are populated; holes are never
    // allocated: the file is the server's) and validates the whole header and both ring configs.
    // Errors: DOCA_ERROR_INVALID_VALUE (unsealed, size mismatch or any header/ring check failed),
    // DOCA_ERROR_UNSUPPORTED_VERSION (another layout version), DOCA_ERROR_AGAIN (version still
    // 0: not published yet), DOCA_ERROR_NO_MEMORY / DOCA_ERROR_OPERATING_SYSTEM (mmap/fstat).
    static doca_error_t attach(int fd, uint64_t expected_size, segment &out,
                               bool prefault = true) noexcept;

    // Validates a segment image of `len` bytes at `mem` (8-byte aligned; the rings' control
    // blocks are inside it and are validated too). Reads nothing outside [mem, mem + len) and
    // nothing but the immutable fields. Fills `out` (optional) on success. Errors as attach().
    static doca_error_t validate_header(const void *mem, uint64_t len,
                                        segment_layout *out) noexcept;

    bool valid() const noexcept { return bool(map_); }
    // The memfd (creator side; -1 on the attach side).
    int fd() const noexcept { return fd_.get(); }
    // Gives up the fd (e.g. once it has been sent to the client); the mapping stays.
    unique_fd release_fd() noexcept;
    uint64_t size() const noexcept { return map_.size(); }
    void *base() const noexcept { return map_.base(); }
    const segment_layout &layout() const noexcept { return layout_; }

    // The memory of ring `d` (pass to ring_producer/ring_consumer::attach).
    void *ring_mem(ring_dir d) const noexcept;
    uint64_t ring_size(ring_dir d) const noexcept;
    // Binds `p` as the producer / `c` as the consumer of ring `d`.
    doca_error_t producer(ring_dir d, ring_producer &p) const noexcept;
    doca_error_t consumer(ring_dir d, ring_consumer &c) const noexcept;

    // Liveness words. beat() stores `value` (relaxed: nothing is published through it) into our
    // side's heartbeat; heartbeat() reads a side's word. The caller throttles (e.g. once per
    // second of progress) and decides what "stale" means.
    void beat(side s, uint64_t value) noexcept;
    uint64_t heartbeat(side s) const noexcept;
    // pid recorded for a side (0 when unknown).
    uint32_t pid(side s) const noexcept;

private:
    segment_header *header() const noexcept { return static_cast<segment_header *>(map_.base()); }

    unique_fd fd_;
    mapped_region map_;
    segment_layout layout_;
};

} // namespace softcomch::transport::shm
