// SPDX-License-Identifier: Apache-2.0
//
// Consumer memory that producers in the peer process write into, with exactly one copy per
// transfer (the fast path's "DMA").
//
// Two mechanisms:
//   shared  The consumer's registered range is turned into a MAP_SHARED memfd mapping at the
//           SAME addresses (share_range), so the program keeps its pointers and its data. The
//           memfd goes to the peer, which maps it (map_peer) and memcpy()s payloads straight
//           into it at base + (consumer address - consumer base). One copy, no system call.
//   pvw     process_vm_writev() into the consumer's address space, for memory that cannot be
//           shared (file-backed, stacks, already-shared mappings we cannot reopen, ...). One
//           copy, done by the kernel: a system call per transfer (about 5.8 us + 11 GB/s here).
//           Needs ptrace access to the consumer: same uid, consumer dumpable, and under Yama
//           ptrace_scope=1 an explicit allow_peer_access() by the consumer.
//
// Selection: SOFTCOMCH_MEMORY=auto|shared|pvw (unset or empty = auto). auto uses shared when
// share_range() accepts the range and pvw otherwise; shared and pvw force one mechanism (shared:
// a range that cannot be shared is an error, not a fallback). export_memory() applies the
// policy on the consumer side and produces a memory_desc for the peer; map_peer() builds the
// producer's view from it; copy_to_peer() is the one copy.
//
// Flow (SoftComch: one export per consumer mmap):
//   consumer:  export_memory(addr, len, policy, exp)   -> exp.desc (+ exp.range.fd if shared)
//              [desc and fd travel over the connection socket, fd with SCM_RIGHTS]
//              allow_peer_access(peer pid)  when desc.mechanism == pvw and Yama may refuse
//   producer:  map_peer(fd, desc, mapping)                   (shared: mmap; pvw: probe)
//              copy_to_peer(mapping.target(), entry.addr, payload, len)  per send
//   consumer:  unexport_memory(exp)  when the mmap is stopped (after the peer unmapped)
//
// HAZARDS of share_range() (also in docs/shm_layout.md section 10.10):
//   1. Edge pages. The file the peer gets covers the range widened to whole pages, but only
//      the whole pages INSIDE [addr, addr + len) (the inner pages) are mapped over the
//      program's memory. The first and last page, when the range does not fill them, stay the
//      program's private memory: bytes of theirs outside the range (malloc metadata,
//      neighbouring allocations) never reach the file, so a peer that writes every byte of
//      the file it holds cannot touch them. The peer's writes to the registered part of an
//      edge page land in the file only; the consumer copies them into place when a
//      completion covers them (deliver_edges(), from consumer_endpoint::peek): a bounce of
//      at most two pages' worth per completion, none for page-aligned ranges.
//   2. The switch is not atomic for concurrent writers. share_range has the kernel copy the
//      current contents of the inner pages into the memfd (pwrite), then maps the memfd over
//      them (mmap MAP_FIXED: one step under the kernel's mmap lock, so readers never see a
//      hole or zeros). A write by ANOTHER THREAD to an inner page between the copy and the
//      mmap is lost: the caller must not write its range meanwhile. (The edge pages, where
//      other code's data may live, are never switched.) unshare_range has the same window
//      (pread into fresh private pages, then mremap over the range).
//      A MAP_FIXED/mremap that fails half-way (ENOMEM, vm.max_map_count reached) may leave the
//      range unmapped on older kernels; share_range refuses (NO_MEMORY) when the process is
//      within 8 mappings of vm.max_map_count, since sharing part of a mapping splits it.
//   3. Refused memory: anything that is not ordinary private anonymous read-write memory
//      (anonymous, [heap], or a named "[anon:...]" mapping that is not a stack). File-backed
//      private mappings, stacks, executable or read-only memory, [vvar]/[vdso], holes: refused
//      with DOCA_ERROR_NOT_SUPPORTED, and the caller falls back to pvw. A range that is
//      ALREADY a shared file mapping (rw-s, e.g. the program's own memfd or /dev/shm file) is
//      used as it is, by reopening the file through /proc/self/map_files (needs
//      CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE; otherwise DOCA_ERROR_NOT_PERMITTED and the
//      caller falls back). Huge-page memory (hugetlbfs, MAP_HUGETLB) is refused too (a
//      private one has a file behind it; a shared one's st_blksize is not the page size).
//      A range overlapping a range we already shared: DOCA_ERROR_IN_USE.
//   4. Lost mapping attributes. The new mapping is plain read-write: madvise() hints,
//      MADV_DONTFORK, mlock() (unless mlockall(MCL_FUTURE)) and transparent huge pages of the
//      old pages are not carried over. Shared memfd pages are shmem: they count as "shared"
//      in the process's memory statistics.
//   5. fork(). Children of a process with shared ranges would share the inner pages with the
//      parent instead of getting copy-on-write copies. A pthread_atfork child handler therefore turns every shared range back
//      into private memory in the child (an eager copy: the kernel's "copy on fork" semantics
//      of pinned RDMA memory). The copy is taken just after the fork returns, so the child may
//      see parent or peer writes made in that short interval, unlike a copy-on-write snapshot.
//      Costs a copy of every shared range per fork (not per exec: posix_spawn/vfork do not run
//      atfork handlers).
//   6. Lifetime. unshare_range() must run before the program frees the memory. If the program
//      unmapped (part of) the range first, unshare_range restores only the pages still mapped
//      to our memfd and leaves the rest alone. While shared, the peer can write the registered
//      window (by design) and could in principle read the edge bytes (it is the same user).
//   7. The memfd is sealed (no shrink/grow, no further seals), so the peer cannot truncate it
//      and make the consumer fault with SIGBUS; the peer refuses a file that is not sealed so.
//      A pre-existing shared file is reused only when it is sealed so already and the range
//      is page-aligned (it cannot be bounced); otherwise NOT_SUPPORTED and auto uses pvw.
//
// Thread safety: control-path functions may be called from any thread (a process-wide mutex
// guards the registry of shared ranges). copy_to_peer() is thread-safe (no state).
#pragma once

#include "common/mapped_region.hpp"
#include "common/unique_fd.hpp"
#include "common/visibility.hpp"

#include <doca_error.h>

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace softcomch::transport::shm {

// How producers reach one consumer memory range.
enum class memory_mechanism : uint32_t {
    none = 0,   // not usable
    shared = 1, // peer maps the consumer's memfd; memcpy
    pvw = 2,    // process_vm_writev into the consumer
};

// What SOFTCOMCH_MEMORY asks for.
enum class memory_policy : uint32_t {
    auto_select = 0, // shared when possible, else pvw (default)
    shared = 1,      // shared only
    pvw = 2,         // pvw only
};

// Name of the environment variable.
inline constexpr const char *k_memory_env = "SOFTCOMCH_MEMORY";

// Parses SOFTCOMCH_MEMORY: unset/empty/"auto" -> auto_select, "shared", "pvw". Anything else:
// DOCA_ERROR_BAD_CONFIG (*out untouched).
SOFTCOMCH_API doca_error_t memory_policy_from_env(memory_policy *out) noexcept;
// "auto", "shared", "pvw".
SOFTCOMCH_API const char *memory_policy_name(memory_policy p) noexcept;
// "none", "shared", "pvw".
const char *memory_mechanism_name(memory_mechanism m) noexcept;
// For logs and `softcomch doctor`: the mechanism ordinary heap memory gets in this process under
// the current SOFTCOMCH_MEMORY ("shared" or "pvw"; auto tries share_range on a scratch page),
// or "invalid" when the variable has an unknown value. Control path (system calls).
SOFTCOMCH_API const char *active_memory_mechanism() noexcept;

// ---- consumer side: shared ----------------------------------------------------------------------

// A range made shareable by share_range(). Owns the sharing: destroying or assigning over a
// valid range unshares it (best effort; call unshare_range() to see errors).
struct shared_range {
    shared_range() noexcept = default;
    shared_range(shared_range &&other) noexcept;
    shared_range &operator=(shared_range &&other) noexcept;
    shared_range(const shared_range &) = delete;
    shared_range &operator=(const shared_range &) = delete;
    SOFTCOMCH_API ~shared_range();

    unique_fd fd;             // the file to send to the peer (memfd, or the reopened file)
    uint64_t addr = 0;        // registered start (the caller's address)
    uint64_t len = 0;         // registered length
    uint64_t base = 0;        // page-aligned start of the shared pages (<= addr)
    uint64_t size = 0;        // bytes of shared pages (page multiple, covers [addr, addr+len))
    uint64_t file_offset = 0; // offset of `base` in fd (0 for our memfds)
    uint64_t ino = 0;         // inode of fd: finds our pages in /proc/self/maps
    uint64_t inner_base = 0;  // the whole pages inside [addr, addr + len), mapped over the
    uint64_t inner_size = 0;  //   program's memory (hazard 1); 0 bytes when there are none
    const uint8_t *shadow = nullptr; // our read-only view of the file (edge pages: hazard 1)
    bool remapped = false;           // true: share_range replaced the memory; unshare restores it
    // Offset of addr inside the shared pages.
    uint64_t offset() const noexcept { return addr - base; }
    bool valid() const noexcept { return size != 0; }
    // Some registered bytes lie on edge pages, which deliver_edges() copies into place.
    bool has_edges() const noexcept { return shadow != nullptr; }
    // Closes the fd and clears every field WITHOUT unsharing (used by unshare_range and moves).
    void release() noexcept;
};

// Makes [addr, addr + len) reachable by the peer, keeping its addresses and contents (see the
// hazards above). On success `out` holds the fd and geometry; on failure memory and `out` are
// unchanged. Errors:
//   DOCA_ERROR_INVALID_VALUE   addr null, len 0, or the range wraps
//   DOCA_ERROR_NOT_SUPPORTED   memory of a kind we refuse (hazard 3)
//   DOCA_ERROR_NOT_PERMITTED   an existing shared mapping whose file cannot be reopened
//   DOCA_ERROR_IN_USE          overlaps a range this process already shared
//   DOCA_ERROR_NO_MEMORY       memfd/mmap/mremap ran out of memory or descriptors
//   DOCA_ERROR_OPERATING_SYSTEM  /proc/self/maps unreadable, or another system call failed
SOFTCOMCH_API doca_error_t share_range(void *addr, size_t len, shared_range &out) noexcept;

// Copies the registered bytes of [peer_addr, peer_addr + len) that lie on the edge pages of `r`
// from the file into place (hazard 1): what the peer wrote there reaches the program. Bytes
// outside the registered range or on inner pages are not touched. The consumer calls it for
// each completion, after the completion's acquire (the producer's writes are visible).
void deliver_edges(const shared_range &r, uint64_t peer_addr, uint64_t len) noexcept;

// Turns the pages back into private anonymous memory with the same contents (and the same
// protection), so fork/COW semantics are as before; closes the fd and clears `r`. Pages the
// program has meanwhile unmapped or replaced are left alone. Hazard 2 applies. For a reused
// pre-existing shared mapping (remapped == false) only the fd is closed. Errors:
// DOCA_ERROR_NO_MEMORY / DOCA_ERROR_OPERATING_SYSTEM (then the pages that could not be
// restored stay shared and `r` is kept, so the call can be repeated).
SOFTCOMCH_API doca_error_t unshare_range(shared_range &r) noexcept;

// ---- consumer side: pvw ---------------------------------------------------------------------------

// allow_peer_access(k_any_peer) allows any process (Yama PR_SET_PTRACER_ANY).
inline constexpr pid_t k_any_peer = -1;

// Lets process `peer` use process_vm_writev on us under Yama ptrace_scope=1
// (prctl(PR_SET_PTRACER)). Yama keeps ONE such pid per process: a consumer process with peers
// in several processes must use k_any_peer. No-op success when Yama is not active. It does not
// help under ptrace_scope 2/3, for a non-dumpable consumer or a peer of another uid (then
// probe_pvw fails and the caller reports an error). DOCA_ERROR_OPERATING_SYSTEM on failure.
doca_error_t allow_peer_access(pid_t peer) noexcept;

// ---- the description the consumer sends to the peer -----------------------------------------------

// Fixed-width, no pointers: travels in a control message (plus the fd for `shared`).
struct memory_desc {
    uint32_t mechanism;   // memory_mechanism
    uint32_t pid;         // the consumer's pid (pvw target)
    uint64_t addr;        // registered start in the consumer's address space
    uint64_t len;         // registered length: producers write only inside [addr, addr+len)
    uint64_t map_base;    // shared: consumer address of the first shared byte (page aligned)
    uint64_t map_size;    // shared: bytes to map (page multiple)
    uint64_t file_offset; // shared: offset of map_base in the fd
};
static_assert(sizeof(memory_desc) == 48);
static_assert(offsetof(memory_desc, mechanism) == 0);
static_assert(offsetof(memory_desc, pid) == 4);
static_assert(offsetof(memory_desc, addr) == 8);
static_assert(offsetof(memory_desc, len) == 16);
static_assert(offsetof(memory_desc, map_base) == 24);
static_assert(offsetof(memory_desc, map_size) == 32);
static_assert(offsetof(memory_desc, file_offset) == 40);

// A consumer range prepared for producers.
struct exported_memory {
    memory_desc desc{};
    shared_range range; // valid() for the shared mechanism: range.fd goes to the peer
};

// Applies `policy` to [addr, addr + len): auto = share_range, else pvw; shared = share_range
// or its error; pvw = pvw. Fills `out` on success. Errors: those of share_range() (shared
// policy), DOCA_ERROR_INVALID_VALUE (null/empty/wrapping range).
doca_error_t export_memory(void *addr, size_t len, memory_policy policy,
                           exported_memory &out) noexcept;
// unshare_range() for the shared mechanism; clears `m`.
doca_error_t unexport_memory(exported_memory &m) noexcept;

// ---- producer side ----------------------------------------------------------------------------------

// Where copy_to_peer() writes. Plain value; copy it freely (the mapping it points into is owned
// by a peer_mapping, which must outlive it).
struct peer_target {
    memory_mechanism mechanism = memory_mechanism::none;
    uint64_t addr = 0;        // window start in the consumer's address space
    uint64_t len = 0;         // window length
    uint8_t *local = nullptr; // shared: our address of `addr`
    pid_t pid = 0;            // pvw: the consumer (the kernel's pid of the connection)
    int pidfd = -1;           // pvw: a pidfd of it, -1 if none: no write once it has exited
};

// The producer's view of one consumer range.
class peer_mapping {
public:
    peer_mapping() noexcept = default;
    peer_mapping(peer_mapping &&other) noexcept;
    peer_mapping &operator=(peer_mapping &&other) noexcept;
    peer_mapping(const peer_mapping &) = delete;
    peer_mapping &operator=(const peer_mapping &) = delete;
    // Copies of target() must not outlive this: their `local` points into the mapping.
    ~peer_mapping() = default;

    // Local pointer for consumer address `peer_addr`, or nullptr unless [peer_addr,
    // peer_addr + len) lies inside the window (shared mechanism only; overflow-safe).
    uint8_t *translate(uint64_t peer_addr, uint64_t len) const noexcept;
    const peer_target &target() const noexcept { return target_; }
    bool valid() const noexcept { return target_.mechanism != memory_mechanism::none; }

private:
    friend doca_error_t map_peer(int fd, const memory_desc &d, peer_mapping &out,
                                 int pidfd) noexcept;

    mapped_region map_; // shared: our mapping of the fd
    unique_fd pidfd_;   // pvw: ours (target_.pidfd)
    peer_target target_;
};

// Builds the producer's view from the consumer's description. shared: checks the geometry
// (page multiples, window inside the pages, file large enough) and the file (a memfd sealed
// against shrinking and growing, peer_checks.hpp), maps `fd` MAP_SHARED read/write at an
// address of the kernel's choosing, pre-faulting only the pages the file already has, at most
// k_peer_populate_budget bytes (the peer chose the size: a sparse file costs nothing). pvw: `fd` is ignored; probe_pvw() checks access now;
// `pidfd` (borrowed, duplicated; -1: none) lets copy_to_peer refuse once the consumer exited.
// `fd` is borrowed. Errors: DOCA_ERROR_INVALID_VALUE (bad description or file),
// DOCA_ERROR_NOT_PERMITTED / DOCA_ERROR_NOT_FOUND (pvw probe), DOCA_ERROR_NO_MEMORY /
// DOCA_ERROR_OPERATING_SYSTEM (fstat/mmap).
doca_error_t map_peer(int fd, const memory_desc &d, peer_mapping &out, int pidfd = -1) noexcept;
// Bytes of one peer mapping that map_peer() pre-faults at most (where the file has pages).
inline constexpr uint64_t k_peer_populate_budget = uint64_t(256) << 20;

// Tests process_vm_* access to `pid` by reading one byte at `peer_addr` (read and write need
// the same ptrace access). DOCA_SUCCESS, DOCA_ERROR_NOT_PERMITTED (EPERM: Yama, uid,
// dumpable), DOCA_ERROR_NOT_FOUND (ESRCH: no such process), DOCA_ERROR_INVALID_VALUE (EFAULT:
// address not mapped there), DOCA_ERROR_NOT_SUPPORTED (ENOSYS), DOCA_ERROR_OPERATING_SYSTEM.
SOFTCOMCH_API doca_error_t probe_pvw(pid_t pid, uint64_t peer_addr) noexcept;

// ---- how the one copy writes (SOFTCOMCH_COPY) -------------------------------------------------
//
// Plain stores leave the payload in the producer's cache; non-temporal (streaming) stores send it
// to memory. Which wins depends on the memory a stream of sends rotates through: while the
// consumer's posted buffers and the source fit in the last-level cache, plain stores are 1.3-1.6x
// faster; once they do not, every plain store first reads a line from DRAM and evicts a dirty one,
// and streaming stores are 1.7-2x faster (docs/performance.md, "copy policy").

// What SOFTCOMCH_COPY asks for.
enum class copy_policy : uint32_t {
    auto_select = 0, // by working set against the cache budget (default)
    cached = 1,      // always plain stores
    streaming = 2,   // non-temporal stores for every payload from k_min_streaming_bytes on
};

// Name of the environment variable.
inline constexpr const char *k_copy_env = "SOFTCOMCH_COPY";
// Payloads below this never stream: they are latency-bound, and a streamed small payload makes
// the consumer's first read of it a cache miss.
inline constexpr uint64_t k_min_streaming_bytes = uint64_t(64) << 10;

// A producer's copy decision, resolved once (control path) and consulted per send.
struct copy_plan {
    copy_policy policy = copy_policy::auto_select;
    uint64_t cache_budget = 0; // bytes a rotating working set may span and still stay cached

    // `rotating_bytes`: the consumer memory the stream cycles through (its posted buffers).
    bool streams(uint64_t len, uint64_t rotating_bytes) const noexcept
    {
        if (len < k_min_streaming_bytes)
            return false;
        switch (policy) {
        case copy_policy::cached:
            return false;
        case copy_policy::streaming:
            return true;
        case copy_policy::auto_select:
            break;
        }
        return rotating_bytes + len > cache_budget; // + len: the source is cached too
    }
};

// The memory a stream of sends to one consumer really cycles through, measured as a reuse
// distance: the large copies (k_min_streaming_bytes and more) this process made, to any
// consumer, between two copies into the same posted buffer. The static figure (posted buffers x
// payload) misses a consumer that re-posts from a pool larger than its task count and the other
// streams of the same process, which share the cache; this sees both. One watched buffer at a
// time: when it comes back, the bytes since are the working set; when it has not come back
// after `limit` bytes, the working set is beyond the limit (at most `own_bound`, the consumer's
// registered memory, since this stream alone cannot span more: that keeps a consumer posting at
// ever-new offsets of a small window from looking large) and another buffer is watched.
// Thread-safe: relaxed atomics, since a stale or torn estimate only chooses a slower copy.
class reuse_watch {
public:
    // A copy into `addr`; `before`: the process's large-copy bytes before this one
    // (count_large_copy). The working set measured so far, 0 until there is one.
    uint64_t observe(uint64_t addr, uint64_t before, uint64_t limit, uint64_t own_bound) noexcept
    {
        const uint64_t watched = addr_.load(std::memory_order_relaxed);
        const uint64_t mark = mark_.load(std::memory_order_relaxed);
        // Copies to one consumer from two threads: each thread's count may lag the other's by
        // up to a MiB (count_large_copy), so `before` may be below a mark the other thread set.
        const uint64_t since = before >= mark ? before - mark : 0;
        if (watched == addr) {
            estimate_.store(since, std::memory_order_relaxed);
            mark_.store(before, std::memory_order_relaxed);
        } else if (watched == k_none || since > limit) {
            if (watched != k_none)
                estimate_.store(std::min(since, own_bound), std::memory_order_relaxed);
            addr_.store(addr, std::memory_order_relaxed);
            mark_.store(before, std::memory_order_relaxed);
        }
        return estimate_.load(std::memory_order_relaxed);
    }

private:
    static constexpr uint64_t k_none = ~uint64_t(0);
    std::atomic<uint64_t> addr_{k_none};
    std::atomic<uint64_t> mark_{0};
    std::atomic<uint64_t> estimate_{0};
};

// Counts a large copy of `len` bytes made by this process; returns the count before it:
// process-wide, since every producer of the process shares the cache. Exact for one thread;
// another thread's last MiB may not be in it yet (copy.cpp).
SOFTCOMCH_API uint64_t count_large_copy(uint64_t len) noexcept;

// Parses SOFTCOMCH_COPY: unset/empty/"auto", "cached", "streaming"; anything else is
// DOCA_ERROR_BAD_CONFIG (*out untouched). The budget is half the last-level cache.
SOFTCOMCH_API doca_error_t copy_plan_from_env(copy_plan *out) noexcept;
// "auto", "cached", "streaming".
SOFTCOMCH_API const char *copy_policy_name(copy_policy p) noexcept;
// Bytes of the largest cache CPU 0 has (sysfs; sysconf as a fallback; 8 MiB if neither says).
// Read once.
SOFTCOMCH_API uint64_t last_level_cache_bytes() noexcept;

// The producer's one copy: `len` bytes from `src` to consumer address `peer_addr`, which must
// lie inside the target's window (checked first; nothing is written otherwise). shared: a
// memcpy into the mapping, or copy_streaming() if `streaming`; pvw: process_vm_writev (partial
// writes are resumed; `streaming` does not apply). Thread-safe. Errors: DOCA_ERROR_INVALID_VALUE
// (outside the window, or EFAULT), and for pvw DOCA_ERROR_NOT_PERMITTED (EPERM),
// DOCA_ERROR_CONNECTION_ABORTED (ESRCH: the consumer is gone), DOCA_ERROR_NO_MEMORY,
// DOCA_ERROR_OPERATING_SYSTEM.
doca_error_t copy_to_peer(const peer_target &t, uint64_t peer_addr, const void *src, size_t len,
                          bool streaming = false) noexcept;

// Copy with non-temporal (cache-bypassing) stores, followed by a store fence so the data is
// globally visible before any later store (such as the completion's R23 release store, which
// on x86 is a plain mov that non-temporal stores could otherwise pass). Plain memcpy on
// architectures without an implementation here. Exposed for the benchmark.
void copy_streaming(void *dst, const void *src, size_t len) noexcept;

} // namespace softcomch::transport::shm
