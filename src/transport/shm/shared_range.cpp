// SPDX-License-Identifier: Apache-2.0
//
// The consumer side of shared memory: share_range/unshare_range (a memfd swapped in under the
// same addresses), the registry of shared ranges and the fork child handler. Contract and
// hazards in shared_memory.hpp; layout notes in docs/shm_layout.md sections 10.9-10.11.
#include "transport/shm/shared_memory.hpp"

#include "common/errno_map.hpp"
#include "transport/shm/memory_detail.hpp"
#include "transport/shm/peer_checks.hpp"
#include "transport/shm/proc_maps.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

namespace softcomch::transport::shm {

namespace {

// ---- registry of shared ranges (overlap checks and the fork child handler) ------------------

struct registry_entry {
    uint64_t base; // the widened range (the file's pages)
    uint64_t size;
    uint64_t inner_base; // the pages mapped over the program's memory (shared_range)
    uint64_t inner_size;
    uint64_t ino;
    uint64_t file_offset; // of `base`
    bool remapped;
    int fd; // our own dup of the file (remapped ranges; -1 otherwise): the fork child handler
            // reads the contents from it, independent of what the program does with its fds
};

// Every range this process shares (remapped or reused): overlap checks and the fork child
// handler. Few entries (one per consumer mmap), so a vector and linear scans.
struct registry {
    std::mutex mutex;                    // also held across fork() (prepare/parent/child)
    std::vector<registry_entry> entries; // capacity reserved before each insertion
};

// Never destroyed: atfork handlers and late unshares must find it valid at any time.
registry &reg() noexcept
{
    static registry *r = new registry;
    return *r;
}

// Contents are moved between memory and the memfd by the kernel (pwrite/pread, issued as raw
// system calls). The widened range holds bytes we do not own (edge-page neighbours, and under
// sanitizers their redzones and shadow-tracked data of other threads): an instrumented memcpy
// would rightly report reading them. The kernel's copy is invisible to sanitizers, costs the
// same as memcpy, and needs no temporary mapping of the file.
// Both loop over partial transfers (a signal, or the kernel's per-call limit of ~2 GiB) and
// report failure with errno set.
// One pwrite64 or pread64 loop (`nr`). Raw system calls: libc's pwrite and pread are
// intercepted by the sanitizers, which would check the (partly foreign) memory range.
bool file_transfer(long nr, int fd, uintptr_t mem, uint64_t len, uint64_t off) noexcept
{
    while (len != 0) {
        const long n = ::syscall(nr, fd, mem, len, off);
        if (n < 0 && errno == EINTR)
            continue; // interrupted before anything moved: again
        if (n <= 0) {
            // No progress at all (for a read, the end of the file: the memfd is sealed, so only
            // a bug gets here): EIO, so the caller does not loop for ever.
            if (n == 0)
                errno = EIO;
            return false; // ENOSPC/ENOMEM (shmem out of memory), EFAULT...
        }
        mem += uintptr_t(n);
        off += uint64_t(n);
        len -= uint64_t(n);
    }
    return true;
}

bool file_write(int fd, const uint8_t *src, uint64_t len, uint64_t off) noexcept
{
    return file_transfer(SYS_pwrite64, fd, reinterpret_cast<uintptr_t>(src), len, off);
}

bool file_read(int fd, uint8_t *dst, uint64_t len, uint64_t off) noexcept
{
    return file_transfer(SYS_pread64, fd, reinterpret_cast<uintptr_t>(dst), len, off);
}

// [mem, mem + len) (page aligned, len a page multiple) into the file at `off`: interior pages
// first, the first and last page last, so that the pages nearest to the program's other data
// are copied as late as possible before the switch (hazard 2).
bool write_edges_last(int fd, const uint8_t *mem, uint64_t len, uint64_t off) noexcept
{
    const uint64_t ps = page_size();
    if (len <= 2 * ps)
        return file_write(fd, mem, len, off);
    return file_write(fd, mem + ps, len - 2 * ps, off + ps) && file_write(fd, mem, ps, off) &&
           file_write(fd, mem + len - ps, ps, off + len - ps);
}

// The reverse, same order.
bool read_edges_last(int fd, uint8_t *mem, uint64_t len, uint64_t off) noexcept
{
    const uint64_t ps = page_size();
    if (len <= 2 * ps)
        return file_read(fd, mem, len, off);
    return file_read(fd, mem + ps, len - 2 * ps, off + ps) && file_read(fd, mem, ps, off) &&
           file_read(fd, mem + len - ps, ps, off + len - ps);
}

// Replaces the pages [v.start, v.end) (currently file `fd` at offset v.offset, shared) by
// private anonymous pages with the same contents and protection. Safe for the fork child
// handler (mmap, pread, mremap, mprotect: system calls only).
doca_error_t privatize(const vma_info &v, int fd) noexcept
{
    // Fresh private pages at an address of the kernel's choosing, populated now (the copy below
    // touches all of them anyway; one populate is cheaper than a fault per page).
    const uint64_t len = v.end - v.start;
    void *tmp = ::mmap(nullptr, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (tmp == MAP_FAILED)
        return resource_errno_to_doca(errno);
    // The current contents, from the file (the pages' protection does not matter).
    if (!read_edges_last(fd, static_cast<uint8_t *>(tmp), len, v.offset)) {
        const int e = errno;
        ::munmap(tmp, len);
        return resource_errno_to_doca(e);
    }
    // One step: the private copy takes the place of the shared pages (no hole, no zeros).
    if (::mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void *>(v.start)) ==
        MAP_FAILED) {
        const int e = errno;
        ::munmap(tmp, len);
        return resource_errno_to_doca(e);
    }
    // Restore the protection the pages had (the program may have mprotect()ed them).
    const int prot = (v.r ? PROT_READ : 0) | (v.w ? PROT_WRITE : 0) | (v.x ? PROT_EXEC : 0);
    if (prot != (PROT_READ | PROT_WRITE))
        (void)::mprotect(reinterpret_cast<void *>(v.start), len, prot);
    return DOCA_SUCCESS;
}

// Privatizes every mapping of [base, base + size) that is still our file `ino` at the offset we
// mapped it. Pages the program unmapped or replaced are left alone.
doca_error_t privatize_range(uint64_t base, uint64_t size, uint64_t ino, uint64_t file_offset,
                             int fd) noexcept
{
    // Collect first, then change: rewriting mappings while reading /proc/self/maps would
    // confuse the reader.
    vma_info vmas[k_max_vmas];
    size_t n = 0;
    if (!collect_vmas(base, base + size, vmas, &n))
        return DOCA_ERROR_OPERATING_SYSTEM;
    if (n == SIZE_MAX)
        return DOCA_ERROR_NOT_SUPPORTED;
    // Every piece is tried; the first error is reported (the others may still have worked, and
    // a repeated call redoes only what is still shared).
    doca_error_t result = DOCA_SUCCESS;
    for (size_t i = 0; i < n; ++i) {
        const vma_info &v = vmas[i];
        // Ours: shared, our inode, at the offset share_range() mapped it.
        if (!v.shared || v.inode != ino || v.offset != file_offset + (v.start - base))
            continue;
        const doca_error_t err = privatize(v, fd);
        if (err != DOCA_SUCCESS && result == DOCA_SUCCESS)
            result = err;
    }
    return result;
}

// Number of mappings of the process, and the kernel's limit (vm.max_map_count). Splitting a
// mapping to share part of it adds up to two; a MAP_FIXED that fails for lack of room may,
// on older kernels, leave the range unmapped. Refusing close to the limit avoids that.
bool near_map_limit() noexcept
{
    // Our mappings: one line each.
    uint64_t count = 0;
    (void)for_each_vma([&](const vma_info &) {
        ++count;
        return true;
    });
    uint64_t limit = 65530; // the kernel's default, if the sysctl cannot be read
    const int fd = ::open("/proc/sys/vm/max_map_count", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        // One short line ("65530\n"); one read gets it.
        char buf[32];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            const char *p = buf;
            uint64_t v = 0;
            if (parse_dec(p, buf + n, &v))
                limit = v;
        }
        ::close(fd);
    }
    // 8: two for the split around our range, plus slack for other threads mapping meanwhile.
    return count + 8 > limit;
}

// fork(): the child must not share the consumer's pages (nor the foreign edge bytes) with the
// parent. prepare/parent/child keep the registry consistent across the fork (no share or
// unshare is half-done in the child), and the child handler privatizes every range we
// remapped (hazard 5).
// Before fork(): no share/unshare may be half-done when the address space is duplicated.
void atfork_prepare() noexcept
{
    reg().mutex.lock();
}

// Parent after fork(): nothing changed for us.
void atfork_parent() noexcept
{
    reg().mutex.unlock();
}

// Child after fork(): one thread, the mutex held by it (prepare). System calls only.
void atfork_child() noexcept
{
    registry &r = reg();
    for (const registry_entry &e : r.entries) {
        if (e.remapped)
            (void)privatize_range(e.inner_base, e.inner_size, e.ino,
                                  e.file_offset + (e.inner_base - e.base), e.fd);
        if (e.fd >= 0)
            ::close(e.fd);
    }
    // The child's shared_range objects (copied with its memory) still hold their fds;
    // unshare_range on them finds no shared pages and just closes the fd. clear() frees nothing.
    r.entries.clear();
    r.mutex.unlock();
}

// Registered on the first share: processes that never share pay nothing at fork().
void install_atfork() noexcept
{
    static std::once_flag once;
    std::call_once(once,
                   [] { (void)::pthread_atfork(atfork_prepare, atfork_parent, atfork_child); });
}

// True when [a, a + an) and [b, b + bn) intersect.
bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) noexcept
{
    return a < b + bn && b < a + an;
}

} // namespace

// ---- share / unshare ------------------------------------------------------------------------

// Moves transfer the sharing; the source is emptied (its destructor then unshares nothing).
shared_range::shared_range(shared_range &&o) noexcept
    : fd(std::move(o.fd)), addr(o.addr), len(o.len), base(o.base), size(o.size),
      file_offset(o.file_offset), ino(o.ino), inner_base(o.inner_base), inner_size(o.inner_size),
      shadow(o.shadow), remapped(o.remapped)
{
    o.release();
}

shared_range &shared_range::operator=(shared_range &&o) noexcept
{
    if (this != &o) {
        // Whatever we held is given back first.
        (void)unshare_range(*this);
        fd = std::move(o.fd);
        addr = o.addr;
        len = o.len;
        base = o.base;
        size = o.size;
        file_offset = o.file_offset;
        ino = o.ino;
        inner_base = o.inner_base;
        inner_size = o.inner_size;
        shadow = o.shadow;
        remapped = o.remapped;
        o.release();
    }
    return *this;
}

shared_range::~shared_range()
{
    // Best effort: a range still shared when its handle goes away becomes private again.
    (void)unshare_range(*this);
}

// Forgets without unsharing: only for unshare_range() (after it restored the pages) and moves.
void shared_range::release() noexcept
{
    fd.reset();
    addr = len = base = size = file_offset = ino = inner_base = inner_size = 0;
    shadow = nullptr;
    remapped = false;
}

namespace {

// The registered bytes on the edge pages of `r`: [lo[0], hi[0]) at the start, [lo[1], hi[1]) at
// the end (either may be empty). Without inner pages every registered byte is on an edge page.
void edge_parts(const shared_range &r, uint64_t lo[2], uint64_t hi[2]) noexcept
{
    const uint64_t end = r.addr + r.len;
    if (r.inner_size == 0) {
        lo[0] = r.addr;
        hi[0] = end;
        lo[1] = hi[1] = end;
        return;
    }
    lo[0] = r.addr;
    hi[0] = r.inner_base;
    lo[1] = r.inner_base + r.inner_size;
    hi[1] = end;
}

} // namespace

void deliver_edges(const shared_range &r, uint64_t peer_addr, uint64_t len) noexcept
{
    if (r.shadow == nullptr || len == 0)
        return;
    uint64_t lo[2], hi[2];
    edge_parts(r, lo, hi);
    const uint64_t a = peer_addr, b = peer_addr + len < peer_addr ? ~uint64_t(0) : peer_addr + len;
    for (int i = 0; i < 2; ++i) {
        const uint64_t x = std::max(a, lo[i]), y = std::min(b, hi[i]);
        if (x >= y)
            continue;
        // From our view of the file (what the peer wrote) to the program's private edge page.
        std::memcpy(reinterpret_cast<void *>(x), r.shadow + (x - r.base), y - x);
    }
}

// share_range() under the registry lock. `res` is filled only on success (a valid range's
// destructor would unshare, which takes the lock again).
static doca_error_t share_locked(void *addr, size_t len, shared_range &res) noexcept
{
    const uint64_t ps = page_size();
    const auto a = reinterpret_cast<uint64_t>(addr);
    // Non-empty, and neither a + len nor its page round-up may wrap. (Only the widened range is
    // ever mapped; the registered window [a, a + len) travels to the peer for its checks.)
    if (addr == nullptr || len == 0 || a + len < a || a + len + ps - 1 < a + len)
        return DOCA_ERROR_INVALID_VALUE;
    const uint64_t base = a & ~(ps - 1);
    const uint64_t end = (a + len + ps - 1) & ~(ps - 1);
    const uint64_t size = end - base;
    // The whole pages inside the registered range: the only ones mapped over the program's
    // memory (hazard 1). None when the range lies within one or two partial pages.
    uint64_t inner_lo = (a + ps - 1) & ~(ps - 1);
    uint64_t inner_hi = (a + len) & ~(ps - 1);
    if (inner_hi <= inner_lo)
        inner_lo = inner_hi = 0;
    const uint64_t inner_size = inner_hi - inner_lo;
    const bool edges = inner_lo != base || inner_hi != end;

    install_atfork();
    registry &r = reg();
    // Held throughout: shares and unshares are serialized, and a fork() (prepare handler) waits
    // until this one is complete, so a child never inherits a half-switched range.
    std::lock_guard<std::mutex> lock(r.mutex);
    // Two ranges may share an edge page (neither switches it); an inner page belongs to one.
    for (const registry_entry &e : r.entries) {
        if (overlaps(e.inner_base, e.inner_size, base, size) ||
            overlaps(inner_lo, inner_size, e.base, e.size))
            return DOCA_ERROR_IN_USE;
    }
    // Room for the registry entry now, so nothing can fail after the switch.
    try {
        r.entries.reserve(r.entries.size() + 1);
    } catch (...) {
        return DOCA_ERROR_NO_MEMORY;
    }

    // What is there now? The whole widened range must be mapped (no holes) and be of one kind.
    vma_info vmas[k_max_vmas];
    size_t n = 0;
    if (!collect_vmas(base, end, vmas, &n))
        return DOCA_ERROR_OPERATING_SYSTEM;
    if (n == 0 || n == SIZE_MAX)
        return DOCA_ERROR_NOT_SUPPORTED;
    // Classify: all pieces must be of the one kind we can handle; a mixture (say anonymous
    // memory next to a file mapping) is refused rather than half shared.
    bool all_private = true;
    bool all_shared = true;
    uint64_t cursor = base;
    for (size_t i = 0; i < n; ++i) {
        const vma_info &v = vmas[i];
        if (v.start != cursor)
            return DOCA_ERROR_NOT_SUPPORTED; // a hole
        cursor = v.end;
        all_private = all_private && private_anon_ok(v);
        // Shared: one file, contiguous offsets (a single mapping split by mprotect, say).
        all_shared = all_shared && shared_file_ok(v) && v.inode == vmas[0].inode &&
                     v.offset == vmas[0].offset + (v.start - base);
    }
    if (cursor != end)
        return DOCA_ERROR_NOT_SUPPORTED; // unmapped tail

    // The registry's own reference to the memfd (remapped ranges only).
    int registry_fd = -1;

    if (all_shared) {
        // Already shared memory: hand out the same file, which cannot be bounced: only a
        // page-aligned range (no foreign bytes in the file's pages we hand out) of a file sealed
        // as the peer requires (peer_checks.hpp). Reopening it needs the map_files privilege
        // (CAP_SYS_ADMIN / CAP_CHECKPOINT_RESTORE); without it the caller falls back.
        if (edges)
            return DOCA_ERROR_NOT_SUPPORTED;
        // "/proc/self/map_files/" + two 16-digit hex numbers + '-' fits easily.
        char path[96];
        const vma_info &v0 = vmas[0];
        // map_files names the whole, unclipped mapping: find its real bounds again.
        uint64_t vs = 0, ve = 0;
        (void)for_each_vma([&](const vma_info &v) {
            if (v.start <= base && base < v.end) {
                vs = v.start;
                ve = v.end;
                return false;
            }
            return true;
        });
        std::snprintf(path, sizeof path, "/proc/self/map_files/%llx-%llx",
                      static_cast<unsigned long long>(vs), static_cast<unsigned long long>(ve));
        // Read-write: the peer maps it writable. The file's own permissions apply as well.
        unique_fd fd(::open(path, O_RDWR | O_CLOEXEC));
        if (!fd)
            return errno == EPERM || errno == EACCES ? DOCA_ERROR_NOT_PERMITTED
                                                     : DOCA_ERROR_OPERATING_SYSTEM;
        struct stat st;
        if (::fstat(fd.get(), &st) != 0 || uint64_t(st.st_ino) != v0.inode)
            return DOCA_ERROR_NOT_SUPPORTED; // changed under us
        // Unsealed (the peer would refuse it), or hugetlbfs (st_blksize = the huge page size:
        // mappable only at huge-page granularity, which the peer's page-granular description
        // cannot promise): refuse (auto falls back to pvw).
        if (check_sealed_memfd(fd.get(), nullptr) != nullptr)
            return DOCA_ERROR_NOT_SUPPORTED;
        res.fd = std::move(fd);
        res.file_offset = v0.offset; // already clipped to base
        res.ino = v0.inode;
        res.remapped = false;
    } else if (all_private) {
        // Splitting mappings near vm.max_map_count could make the switch fail half-way.
        if (inner_size != 0 && near_map_limit())
            return DOCA_ERROR_NO_MEMORY;
        // Fresh sealed memfd of the widened size.
        // Sized to the widened range; a fresh memfd reads as zeros until written. The edge
        // pages' foreign bytes never go in: those parts of the file stay zero. The peer gets
        // this fd: it must not be able to shrink it under our pointers (SIGBUS); it refuses one
        // that is not sealed.
        unique_fd fd;
        if (doca_error_t err = create_sealed_memfd("softcomch-mem", size, false, fd);
            err != DOCA_SUCCESS)
            return err;
        // The inode finds our pages in /proc/self/maps later (unshare, fork child).
        struct stat st;
        if (::fstat(fd.get(), &st) != 0)
            return resource_errno_to_doca(errno);
        // Our view of the edge pages' file bytes, for deliver_edges(). Not inherited by fork
        // children (they get private copies of the program's memory, not its consumers).
        void *shadow = nullptr;
        if (edges) {
            shadow = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
            if (shadow == MAP_FAILED)
                return resource_errno_to_doca(errno);
            (void)::madvise(shadow, size, MADV_DONTFORK);
        }
        mapped_region shadow_guard(shadow, shadow ? size : 0); // unmapped on failure
        if (inner_size != 0) {
            // Our own reference for the registry (fork child handler), taken before the switch
            // so that nothing can fail after it.
            unique_fd own(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
            if (!own)
                return resource_errno_to_doca(errno);
            // Current contents of the inner pages into the file (kernel copy: hazard 2)...
            if (!write_edges_last(fd.get(), reinterpret_cast<const uint8_t *>(inner_lo), inner_size,
                                  inner_lo - base))
                return resource_errno_to_doca(errno);
            // ...and the file's pages over them in one step: MAP_FIXED replaces the old pages
            // under the kernel's mmap lock, so no other thread sees a hole or zeros. (Near the
            // map limit a failure could leave a hole on older kernels: refused above.)
            void *m =
                ::mmap(reinterpret_cast<void *>(inner_lo), inner_size, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd.get(), off_t(inner_lo - base));
            if (m == MAP_FAILED)
                return resource_errno_to_doca(errno);
            registry_fd = own.release();
        }
        // Switched: from here on nothing may fail (the registry capacity is reserved).
        res.shadow = static_cast<const uint8_t *>(shadow_guard.release());
        res.fd = std::move(fd);
        res.file_offset = 0;
        res.ino = uint64_t(st.st_ino);
        res.remapped = inner_size != 0;
    } else {
        // File-backed private, stacks, executable/read-only, mixed kinds: not ours to replace.
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (all_shared) {
        inner_lo = base; // nothing bounced: the whole (page-aligned) range is the file's
        inner_hi = end;
    }

    // Capacity was reserved above: cannot throw.
    r.entries.push_back(registry_entry{base, size, inner_lo, inner_hi - inner_lo, res.ino,
                                       res.file_offset, res.remapped, registry_fd});
    res.addr = a;
    res.len = len;
    res.base = base;
    res.size = size;
    res.inner_base = inner_lo;
    res.inner_size = inner_hi - inner_lo;
    return DOCA_SUCCESS;
}

doca_error_t share_range(void *addr, size_t len, shared_range &out) noexcept
{
    shared_range res;
    const doca_error_t err = share_locked(addr, len, res);
    // Outside the lock: assigning over a valid `out` unshares what it held.
    if (err == DOCA_SUCCESS)
        out = std::move(res);
    return err;
}

doca_error_t unshare_range(shared_range &rg) noexcept
{
    // Nothing held (never shared, moved from, or already unshared): nothing to do.
    if (!rg.valid())
        return DOCA_SUCCESS;
    // Same lock as share_range and fork(): no child inherits a half-restored range.
    registry &r = reg();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (rg.remapped) {
        // Back to private pages; on failure keep everything so the call can be repeated.
        const doca_error_t err =
            privatize_range(rg.inner_base, rg.inner_size, rg.ino,
                            rg.file_offset + (rg.inner_base - rg.base), rg.fd.get());
        if (err != DOCA_SUCCESS)
            return err;
    }
    // Forget it (absent in a fork child, whose registry was cleared: there the shadow view was
    // not inherited, MADV_DONTFORK, and its address may be in other use).
    for (size_t i = 0; i < r.entries.size(); ++i) {
        const registry_entry &e = r.entries[i];
        if (e.base == rg.base && e.size == rg.size && e.ino == rg.ino) {
            if (e.fd >= 0)
                ::close(e.fd);
            r.entries.erase(r.entries.begin() + std::ptrdiff_t(i));
            if (rg.shadow != nullptr)
                ::munmap(const_cast<uint8_t *>(rg.shadow), rg.size);
            break;
        }
    }
    // Closes the fd (the peer's mapping, if any, keeps the file alive until it unmaps) and
    // empties rg without recursing into the destructor's unshare.
    rg.release();
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
