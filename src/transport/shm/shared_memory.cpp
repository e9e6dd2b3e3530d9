// SPDX-License-Identifier: Apache-2.0
//
// Consumer memory reachable from the peer: share_range/unshare_range (memfd swapped in under
// the same addresses), the pvw fallback (process_vm_writev), the policy knob and the producer's
// one copy. Contract and hazards in shared_memory.hpp; measurements and layout notes in
// docs/shm_layout.md sections 10.9-10.11.
//
// Ordering: nothing in this file publishes data to the other process by itself. The payload a
// producer copies (memcpy, streaming stores + sfence, or the kernel's copy in
// process_vm_writev) is published by the completion's release store (R23 in fast_channel.inl),
// which the producer issues after copy_to_peer() returns.
#include "transport/shm/shared_memory.hpp"

#include "common/errno_map.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace softcomch::transport::shm {

namespace {

// The unit of sharing: mappings are made of whole pages. Asked once (4 KiB on x86-64; 16 or
// 64 KiB on some Arm kernels, which is why nothing here hard-codes 4096).
uint64_t page_size() noexcept
{
    static const uint64_t ps = uint64_t(::sysconf(_SC_PAGESIZE));
    return ps;
}

// MADV_POPULATE_WRITE from <linux/mman.h> (Linux 5.14); older C libraries lack the name.
#ifdef MADV_POPULATE_WRITE
constexpr int k_madv_populate_write = MADV_POPULATE_WRITE;
#else
constexpr int k_madv_populate_write = 23;
#endif

// ---- /proc/self/maps ------------------------------------------------------------------------
//
// Parsed with read() and a fixed buffer (no allocation, no stdio): the fork child handler uses
// it too. The file is a snapshot taken line by line; another thread mapping or unmapping at the
// same time can make it inconsistent, which is one reason share_range must not race with
// changes to the range (hazard 2).

// One line of /proc/self/maps (one VMA), or a piece of one clipped to a range.
struct vma_info {
    uint64_t start = 0;  // first byte
    uint64_t end = 0;    // one past the last byte
    uint64_t offset = 0; // file offset of `start` (meaningless for anonymous memory)
    uint64_t inode = 0;  // 0 for anonymous memory; identifies our memfd pages
    bool r = false, w = false, x = false, shared = false; // "rwxs" / "rw-p" ...
    char path[64] = {}; // truncated when longer: only short prefixes are compared ("[heap]",
                        // "[anon:", "[stack", a leading '/'), and 64 arrays of this struct live
                        // on the stack of whichever thread forks (fork child handler)
};

// Field parsers over [p, e): each advances p past what it consumed and fails (false) when
// nothing matched, so a malformed line is skipped rather than misread. Hand-written instead of
// sscanf: usable from the fork child handler and free of locale effects.

// Lower-case hexadecimal, as the kernel prints addresses, offsets and device numbers.
bool parse_hex(const char *&p, const char *e, uint64_t *v) noexcept
{
    uint64_t x = 0;
    const char *s = p;
    for (; p < e; ++p) {
        const char c = *p;
        uint64_t d;
        if (c >= '0' && c <= '9')
            d = uint64_t(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = uint64_t(c - 'a' + 10);
        else
            break;
        x = (x << 4) | d;
    }
    *v = x;
    return p != s;
}

// Decimal (the inode; also /proc/sys/vm/max_map_count).
bool parse_dec(const char *&p, const char *e, uint64_t *v) noexcept
{
    uint64_t x = 0;
    const char *s = p;
    for (; p < e && *p >= '0' && *p <= '9'; ++p)
        x = x * 10 + uint64_t(*p - '0');
    *v = x;
    return p != s;
}

// One expected separator character.
bool skip(const char *&p, const char *e, char c) noexcept
{
    if (p >= e || *p != c)
        return false;
    ++p;
    return true;
}

// The column padding before the path.
void skip_spaces(const char *&p, const char *e) noexcept
{
    while (p < e && *p == ' ')
        ++p;
}

// "start-end perms offset major:minor inode   path"
bool parse_line(const char *p, const char *e, vma_info *v) noexcept
{
    // The device is parsed (to validate the line's shape) but not kept: the inode of a memfd
    // is unique within its internal mount, and a mapping is only ever compared with our own.
    uint64_t dev;
    if (!parse_hex(p, e, &v->start) || !skip(p, e, '-') || !parse_hex(p, e, &v->end) ||
        !skip(p, e, ' ') || e - p < 5)
        return false;
    // Four permission characters: r/w/x or '-', then 's' (shared) or 'p' (private).
    v->r = p[0] == 'r';
    v->w = p[1] == 'w';
    v->x = p[2] == 'x';
    v->shared = p[3] == 's';
    p += 4;
    if (!skip(p, e, ' ') || !parse_hex(p, e, &v->offset) || !skip(p, e, ' ') ||
        !parse_hex(p, e, &dev) || !skip(p, e, ':') || !parse_hex(p, e, &dev) || !skip(p, e, ' ') ||
        !parse_dec(p, e, &v->inode))
        return false;
    // The rest of the line is the path: empty (anonymous), "[heap]", "[stack]", "[anon:name]",
    // a file name, "/memfd:name (deleted)"...
    skip_spaces(p, e);
    const size_t n = std::min(size_t(e - p), sizeof v->path - 1);
    std::memcpy(v->path, p, n);
    v->path[n] = '\0';
    return true;
}

// Calls fn(const vma_info &) for every mapping, in address order, until fn returns false.
// Returns false when the file cannot be read.
template <class Fn> bool for_each_vma(Fn &&fn) noexcept
{
    // procfs may be missing (some containers): the caller then refuses to share (auto -> pvw).
    const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    // Lines are at most ~4200 bytes (PATH_MAX path), so 8 KiB holds any complete line but a
    // pathological one, which is handled below.
    char buf[8192];
    size_t fill = 0;
    bool skipping = false; // inside the tail of an over-long line
    bool ok = true;
    for (bool stop = false; !stop;) {
        // procfs produces whole lines per read where it can; a short read is not an error.
        const ssize_t n = ::read(fd, buf + fill, sizeof buf - fill);
        if (n < 0 && errno == EINTR)
            continue; // a signal: read again
        if (n <= 0) {
            ok = n == 0; // 0: end of file (a trailing partial line cannot happen: lines end in \n)
            break;
        }
        fill += size_t(n);
        // Hand every complete line to fn; keep a trailing partial line for the next read.
        size_t start = 0;
        while (!stop) {
            auto *nl = static_cast<char *>(std::memchr(buf + start, '\n', fill - start));
            if (nl == nullptr)
                break; // incomplete: wait for the rest
            vma_info v;
            // A line that does not parse is skipped (the kernel's format is stable; this is
            // defence, not an expected path). The tail of an over-long line is skipped too.
            if (!skipping && parse_line(buf + start, nl, &v) && !fn(v))
                stop = true;
            skipping = false;
            start = size_t(nl - buf) + 1;
        }
        // The partial line moves to the front of the buffer.
        std::memmove(buf, buf + start, fill - start);
        fill -= start;
        if (!stop && fill == sizeof buf) {
            // A line longer than the buffer (a very long path): use its prefix, skip the rest.
            vma_info v;
            if (parse_line(buf, buf + fill, &v) && !fn(v))
                stop = true;
            skipping = true;
            fill = 0;
        }
    }
    ::close(fd);
    return ok;
}

// Up to this many mappings may make up one range (more: refused, NOT_SUPPORTED).
constexpr size_t k_max_vmas = 64;

// The mappings intersecting [base, end), clipped to it, in order. false when maps is
// unreadable; *count = SIZE_MAX when there are too many.
bool collect_vmas(uint64_t base, uint64_t end, vma_info *out, size_t *count) noexcept
{
    // Into the caller's fixed array: no allocation (fork child handler).
    size_t n = 0;
    const bool ok = for_each_vma([&](const vma_info &v) {
        if (v.end <= base)
            return true; // below the range: keep looking
        if (v.start >= end)
            return false; // sorted: nothing further intersects
        if (n == k_max_vmas) {
            n = SIZE_MAX; // a range cut into this many pieces is not ordinary memory
            return false;
        }
        vma_info c = v;
        // Clip, keeping the file offset consistent with the clipped start.
        if (c.start < base) {
            c.offset += base - c.start;
            c.start = base;
        }
        if (c.end > end)
            c.end = end;
        out[n++] = c;
        return true;
    });
    *count = n;
    return ok;
}

// Ordinary private anonymous read-write memory: what share_range may replace.
bool private_anon_ok(const vma_info &v) noexcept
{
    // Read-write, not executable (JIT code is not a receive buffer), private, no file behind
    // it (a private file mapping would lose its file-backed semantics if replaced).
    if (!v.r || !v.w || v.x || v.shared || v.inode != 0)
        return false;
    // Plain anonymous, the brk heap, or a named anonymous mapping that is not a thread stack
    // (glibc names its mappings "[anon: glibc: ...]" when asked to).
    if (v.path[0] == '\0' || std::strcmp(v.path, "[heap]") == 0)
        return true;
    return std::strncmp(v.path, "[anon:", 6) == 0 && std::strstr(v.path, "stack") == nullptr;
}

// A read-write shared file mapping (memfd, /dev/shm, shared anonymous = "/dev/zero (deleted)").
bool shared_file_ok(const vma_info &v) noexcept
{
    return v.r && v.w && v.shared && v.inode != 0 && v.path[0] != '\0' && v.path[0] != '[';
}

// ---- registry of shared ranges (overlap checks and the fork child handler) ------------------

struct registry_entry {
    uint64_t base;
    uint64_t size;
    uint64_t ino;
    uint64_t file_offset;
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
bool file_write(int fd, const uint8_t *src, uint64_t len, uint64_t off) noexcept
{
    while (len != 0) {
        // Raw system call: libc's pwrite is intercepted by the sanitizers, which would check
        // the (partly foreign) source range.
        const long n = ::syscall(SYS_pwrite64, fd, src, len, off);
        if (n < 0 && errno == EINTR)
            continue; // interrupted before anything was written: again
        if (n <= 0) {
            if (n == 0)
                errno = EIO; // no progress at all: do not loop forever
            return false;    // ENOSPC/ENOMEM (shmem out of memory), EFAULT...
        }
        src += n;
        off += uint64_t(n);
        len -= uint64_t(n);
    }
    return true;
}

bool file_read(int fd, uint8_t *dst, uint64_t len, uint64_t off) noexcept
{
    while (len != 0) {
        // Raw system call, for the same reason as file_write().
        const long n = ::syscall(SYS_pread64, fd, dst, len, off);
        if (n < 0 && errno == EINTR)
            continue; // interrupted before anything was read: again
        if (n <= 0) {
            if (n == 0)
                errno = EIO; // end of file: the memfd is sealed, so only a bug gets here
            return false;
        }
        dst += n;
        off += uint64_t(n);
        len -= uint64_t(n);
    }
    return true;
}

// [mem, mem + len) (page aligned, len a page multiple) into the file at `off`: interior pages
// first, the first and last page last. The edge pages may hold foreign bytes that other
// threads write, so they are copied as late as possible before the switch (hazard 2).
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
            (void)privatize_range(e.base, e.size, e.ino, e.file_offset, e.fd);
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

// errno of a process_vm_* call -> DOCA error (`gone` for ESRCH).
doca_error_t pvw_errno(int e, doca_error_t gone) noexcept
{
    switch (e) {
    case EPERM:
    case EACCES:
        // The ptrace access check failed: Yama, another uid, a non-dumpable consumer.
        return DOCA_ERROR_NOT_PERMITTED;
    case ESRCH:
        // No such process: the consumer exited (probe: NOT_FOUND; copy: the peer is gone).
        return gone;
    case EFAULT:
        // The address is not mapped (writable) in the consumer: a bad post entry.
        return DOCA_ERROR_INVALID_VALUE;
    case ENOMEM:
        return DOCA_ERROR_NO_MEMORY;
    case ENOSYS:
        // A kernel built without CONFIG_CROSS_MEMORY_ATTACH, or a seccomp filter.
        return DOCA_ERROR_NOT_SUPPORTED;
    default:
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
}

// [a, a + n) inside the target's window (overflow-safe: no a + n is formed).
bool in_window(uint64_t wa, uint64_t wl, uint64_t a, uint64_t n) noexcept
{
    return a >= wa && a - wa <= wl && n <= wl - (a - wa);
}

} // namespace

// ---- policy ---------------------------------------------------------------------------------

// Read on every call (control path only): tests and tools change the variable at run time.
doca_error_t memory_policy_from_env(memory_policy *out) noexcept
{
    const char *v = std::getenv(k_memory_env);
    memory_policy p;
    if (v == nullptr || *v == '\0' || std::strcmp(v, "auto") == 0)
        p = memory_policy::auto_select;
    else if (std::strcmp(v, "shared") == 0)
        p = memory_policy::shared;
    else if (std::strcmp(v, "pvw") == 0)
        p = memory_policy::pvw;
    else
        return DOCA_ERROR_BAD_CONFIG; // case-sensitive on purpose, like the other knobs
    // Output on success only.
    *out = p;
    return DOCA_SUCCESS;
}

// Names as SOFTCOMCH_MEMORY spells them. No default case: -Wswitch flags a new enumerator.
const char *memory_policy_name(memory_policy p) noexcept
{
    switch (p) {
    case memory_policy::auto_select:
        return "auto";
    case memory_policy::shared:
        return "shared";
    case memory_policy::pvw:
        return "pvw";
    }
    return "?";
}

// Names for logs; no default case (see above).
const char *memory_mechanism_name(memory_mechanism m) noexcept
{
    switch (m) {
    case memory_mechanism::none:
        return "none";
    case memory_mechanism::shared:
        return "shared";
    case memory_mechanism::pvw:
        return "pvw";
    }
    return "?";
}

doca_error_t copy_plan_from_env(copy_plan *out) noexcept
{
    const char *v = std::getenv(k_copy_env);
    copy_plan plan;
    if (v == nullptr || *v == '\0' || std::strcmp(v, "auto") == 0)
        plan.policy = copy_policy::auto_select;
    else if (std::strcmp(v, "cached") == 0)
        plan.policy = copy_policy::cached;
    else if (std::strcmp(v, "streaming") == 0)
        plan.policy = copy_policy::streaming;
    else
        return DOCA_ERROR_BAD_CONFIG;
    plan.cache_budget = last_level_cache_bytes() / 2;
    *out = plan;
    return DOCA_SUCCESS;
}

const char *copy_policy_name(copy_policy p) noexcept
{
    switch (p) {
    case copy_policy::auto_select:
        return "auto";
    case copy_policy::cached:
        return "cached";
    case copy_policy::streaming:
        return "streaming";
    }
    return "?";
}

uint64_t last_level_cache_bytes() noexcept
{
    static const uint64_t bytes = [] {
        // sysfs describes the caches the (virtual) CPU really has; sysconf on some hypervisors
        // reports the host package's L3 (256 MiB where sysfs says 32 MiB).
        uint64_t best = 0;
        for (int index = 0; index < 8; ++index) {
            char path[96];
            std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size",
                          index);
            FILE *f = std::fopen(path, "re");
            if (f == nullptr)
                break;
            unsigned long long n = 0;
            char unit = '\0';
            const int got = std::fscanf(f, "%llu%c", &n, &unit);
            std::fclose(f);
            if (got >= 1) {
                if (unit == 'K')
                    n <<= 10;
                else if (unit == 'M')
                    n <<= 20;
                best = std::max<uint64_t>(best, n);
            }
        }
        if (best == 0) {
            const long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
            const long l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
            best = uint64_t(std::max({l3, l2, 0L}));
        }
        return best != 0 ? best : uint64_t(8) << 20;
    }();
    return bytes;
}

const char *active_memory_mechanism() noexcept
{
    memory_policy p;
    if (memory_policy_from_env(&p) != DOCA_SUCCESS)
        return "invalid";
    if (p != memory_policy::auto_select)
        return memory_policy_name(p);
    // auto: what would an ordinary private page get? Try it on a scratch page.
    // (Covers memfd availability, seccomp filters, /proc being readable, the map limit.)
    const uint64_t ps = page_size();
    void *m = ::mmap(nullptr, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return "pvw";
    shared_range r;
    const bool ok = share_range(m, ps, r) == DOCA_SUCCESS;
    if (ok)
        (void)unshare_range(r);
    ::munmap(m, ps);
    return ok ? "shared" : "pvw";
}

// ---- share / unshare ------------------------------------------------------------------------

// Moves transfer the sharing; the source is emptied (its destructor then unshares nothing).
shared_range::shared_range(shared_range &&o) noexcept
    : fd(std::move(o.fd)), addr(o.addr), len(o.len), base(o.base), size(o.size),
      file_offset(o.file_offset), ino(o.ino), remapped(o.remapped)
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
    addr = len = base = size = file_offset = ino = 0;
    remapped = false;
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

    install_atfork();
    registry &r = reg();
    // Held throughout: shares and unshares are serialized, and a fork() (prepare handler) waits
    // until this one is complete, so a child never inherits a half-switched range.
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const registry_entry &e : r.entries) {
        if (overlaps(e.base, e.size, base, size))
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
        // Already shared memory: hand out the same file. Reopening it needs the map_files
        // privilege (CAP_SYS_ADMIN / CAP_CHECKPOINT_RESTORE); without it the caller falls back.
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
        // hugetlbfs files (st_blksize = the huge page size) can only be mapped at huge-page
        // granularity, which the peer's page-granular description cannot promise: refuse
        // (auto falls back to pvw).
        if (uint64_t(st.st_blksize) != ps)
            return DOCA_ERROR_NOT_SUPPORTED;
        res.fd = std::move(fd);
        res.file_offset = v0.offset; // already clipped to base
        res.ino = v0.inode;
        res.remapped = false;
    } else if (all_private) {
        // Splitting mappings near vm.max_map_count could make the switch fail half-way.
        if (near_map_limit())
            return DOCA_ERROR_NO_MEMORY;
        // Fresh sealed memfd of the widened size.
        unique_fd fd(::memfd_create("softcomch-mem", MFD_CLOEXEC | MFD_ALLOW_SEALING));
        if (!fd)
            return resource_errno_to_doca(errno);
        // Sized to the widened range; a fresh memfd reads as zeros until written.
        if (::ftruncate(fd.get(), off_t(size)) != 0)
            return resource_errno_to_doca(errno);
        // The peer gets this fd: it must not be able to shrink it under our pointers (SIGBUS).
        (void)::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
        // The inode finds our pages in /proc/self/maps later (unshare, fork child).
        struct stat st;
        if (::fstat(fd.get(), &st) != 0)
            return resource_errno_to_doca(errno);
        // Our own reference for the registry (fork child handler), taken before the switch so
        // that nothing can fail after it.
        unique_fd own(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
        if (!own)
            return resource_errno_to_doca(errno);
        // Current contents into the file (kernel copy, edge pages last: hazard 2)...
        if (!write_edges_last(fd.get(), reinterpret_cast<const uint8_t *>(base), size, 0))
            return resource_errno_to_doca(errno);
        // ...and the file's pages over the range in one step: MAP_FIXED replaces the old pages
        // under the kernel's mmap lock, so no other thread sees a hole or zeros. (Near the map
        // limit a failure could leave a hole on older kernels: refused above.)
        void *m = ::mmap(reinterpret_cast<void *>(base), size, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd.get(), 0);
        if (m == MAP_FAILED)
            return resource_errno_to_doca(errno);
        // Switched: from here on nothing may fail (the registry capacity is reserved).
        res.fd = std::move(fd);
        res.file_offset = 0;
        res.ino = uint64_t(st.st_ino);
        res.remapped = true;
        registry_fd = own.release();
    } else {
        // File-backed private, stacks, executable/read-only, mixed kinds: not ours to replace.
        return DOCA_ERROR_NOT_SUPPORTED;
    }

    // Capacity was reserved above: cannot throw.
    r.entries.push_back(
        registry_entry{base, size, res.ino, res.file_offset, res.remapped, registry_fd});
    res.addr = a;
    res.len = len;
    res.base = base;
    res.size = size;
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
            privatize_range(rg.base, rg.size, rg.ino, rg.file_offset, rg.fd.get());
        if (err != DOCA_SUCCESS)
            return err;
    }
    // Forget it (absent in a fork child, whose registry was cleared).
    for (size_t i = 0; i < r.entries.size(); ++i) {
        const registry_entry &e = r.entries[i];
        if (e.base == rg.base && e.size == rg.size && e.ino == rg.ino) {
            if (e.fd >= 0)
                ::close(e.fd);
            r.entries.erase(r.entries.begin() + std::ptrdiff_t(i));
            break;
        }
    }
    // Closes the fd (the peer's mapping, if any, keeps the file alive until it unmaps) and
    // empties rg without recursing into the destructor's unshare.
    rg.release();
    return DOCA_SUCCESS;
}

// ---- pvw ------------------------------------------------------------------------------------

// Yama's PR_SET_PTRACER: "this process may be ptraced (and process_vm_* accessed) by `peer` and
// its descendants", in addition to the usual same-uid rule. Effective under ptrace_scope 1 only.
doca_error_t allow_peer_access(pid_t peer) noexcept
{
    const unsigned long who = peer < 0 ? PR_SET_PTRACER_ANY : static_cast<unsigned long>(peer);
    if (::prctl(PR_SET_PTRACER, who, 0, 0, 0) == 0)
        return DOCA_SUCCESS;
    // EINVAL without Yama: nothing restricts ptrace beyond the usual uid/dumpable rules.
    if (errno == EINVAL && ::access("/proc/sys/kernel/yama/ptrace_scope", F_OK) != 0)
        return DOCA_SUCCESS;
    return DOCA_ERROR_OPERATING_SYSTEM;
}

doca_error_t probe_pvw(pid_t pid, uint64_t peer_addr) noexcept
{
    if (pid <= 0)
        return DOCA_ERROR_INVALID_VALUE;
    // A one-byte read: same ptrace access check as a write, and harmless.
    uint8_t byte = 0;
    const iovec local{&byte, 1};
    const iovec remote{reinterpret_cast<void *>(peer_addr), 1};
    const ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n == 1)
        return DOCA_SUCCESS;
    return n < 0 ? pvw_errno(errno, DOCA_ERROR_NOT_FOUND) : DOCA_ERROR_INVALID_VALUE;
}

// ---- export / import ------------------------------------------------------------------------

// Consumer side: one call per consumer mmap (SoftComch shares an mmap once, however many
// consumers use it).
doca_error_t export_memory(void *addr, size_t len, memory_policy policy,
                           exported_memory &out) noexcept
{
    // The same argument rules as share_range, checked here for the pvw policy too.
    const auto a = reinterpret_cast<uint64_t>(addr);
    if (addr == nullptr || len == 0 || a + len < a)
        return DOCA_ERROR_INVALID_VALUE;
    // Built locally; `out` is written on success only.
    exported_memory m;
    m.desc.pid = uint32_t(::getpid());
    m.desc.addr = a;
    m.desc.len = len;
    if (policy != memory_policy::pvw) {
        shared_range r;
        const doca_error_t err = share_range(addr, len, r);
        if (err == DOCA_SUCCESS) {
            m.desc.mechanism = uint32_t(memory_mechanism::shared);
            m.desc.map_base = r.base;
            m.desc.map_size = r.size;
            m.desc.file_offset = r.file_offset;
            m.range = std::move(r);
            out = std::move(m);
            return DOCA_SUCCESS;
        }
        // Forced shared: no fallback. auto: anything share_range refuses goes to pvw.
        if (policy == memory_policy::shared || err == DOCA_ERROR_INVALID_VALUE)
            return err;
    }
    // pvw: the peer writes at our own addresses; nothing to prepare here (allow_peer_access is
    // per peer process, done by the caller once it knows the peer's pid).
    m.desc.mechanism = uint32_t(memory_mechanism::pvw);
    out = std::move(m);
    return DOCA_SUCCESS;
}

// The reverse; only the shared mechanism holds anything to undo.
doca_error_t unexport_memory(exported_memory &m) noexcept
{
    if (m.range.valid()) {
        const doca_error_t err = unshare_range(m.range);
        if (err != DOCA_SUCCESS)
            return err;
    }
    m = exported_memory();
    return DOCA_SUCCESS;
}

// Moves transfer the mapping; the source is left empty (its target no longer points anywhere).
peer_mapping::peer_mapping(peer_mapping &&other) noexcept
    : map_(std::move(other.map_)), target_(std::exchange(other.target_, peer_target{}))
{}

peer_mapping &peer_mapping::operator=(peer_mapping &&other) noexcept
{
    if (this != &other) {
        map_ = std::move(other.map_); // unmaps ours first
        target_ = std::exchange(other.target_, peer_target{});
    }
    return *this;
}

// The producer's view of consumer address `peer_addr`: local = mapping + (peer_addr - window
// start). Checked against the registered window, never just the mapped pages.
uint8_t *peer_mapping::translate(uint64_t peer_addr, uint64_t len) const noexcept
{
    if (target_.mechanism != memory_mechanism::shared ||
        !in_window(target_.addr, target_.len, peer_addr, len))
        return nullptr;
    return target_.local + (peer_addr - target_.addr);
}

// Producer side, control path: every field of `d` came from the peer and is checked here once;
// the data path then relies on the process-local target only.
doca_error_t map_peer(int fd, const memory_desc &d, peer_mapping &out) noexcept
{
    // The window producers may write: non-empty, not wrapping.
    if (d.len == 0 || d.addr + d.len < d.addr)
        return DOCA_ERROR_INVALID_VALUE;
    if (d.mechanism == uint32_t(memory_mechanism::pvw)) {
        // Check access now, so a refused pvw is a connection-time error, not a data-path one.
        const doca_error_t err = probe_pvw(pid_t(d.pid), d.addr);
        if (err != DOCA_SUCCESS)
            return err;
        out = peer_mapping();
        out.target_ = peer_target{memory_mechanism::pvw, d.addr, d.len, nullptr, pid_t(d.pid)};
        return DOCA_SUCCESS;
    }
    if (d.mechanism != uint32_t(memory_mechanism::shared) || fd < 0)
        return DOCA_ERROR_INVALID_VALUE;
    // Geometry: whole pages, no wrap, the window inside the pages.
    const uint64_t ps = page_size();
    if (d.map_size == 0 || d.map_base % ps != 0 || d.map_size % ps != 0 ||
        d.file_offset % ps != 0 || d.map_base + d.map_size < d.map_base ||
        d.file_offset + d.map_size < d.file_offset ||
        !in_window(d.map_base, d.map_size, d.addr, d.len))
        return DOCA_ERROR_INVALID_VALUE;
    // The file must hold every byte we map (else SIGBUS on access).
    struct stat st;
    if (::fstat(fd, &st) != 0)
        return resource_errno_to_doca(errno);
    if (!S_ISREG(st.st_mode) || st.st_size < 0 || uint64_t(st.st_size) < d.file_offset + d.map_size)
        return DOCA_ERROR_INVALID_VALUE;
    // Pre-faulted: the first touch is slow and must not land on the data path.
    void *m = ::mmap(nullptr, d.map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
                     off_t(d.file_offset));
    if (m == MAP_FAILED)
        return resource_errno_to_doca(errno);
    // For memfd (shmem) pages MAP_POPULATE already maps them writable (shmem needs no write
    // notification). A reused pre-existing file on a filesystem that tracks dirty pages would
    // get read-only entries, and each page's first write would fault on the data path:
    // MADV_POPULATE_WRITE (Linux 5.14) maps them writable without changing a byte. Older
    // kernels (EINVAL) keep the first-write faults.
    (void)::madvise(m, d.map_size, k_madv_populate_write);
    out = peer_mapping();
    out.map_ = mapped_region(m, d.map_size);
    out.target_ = peer_target{memory_mechanism::shared, d.addr, d.len,
                              static_cast<uint8_t *>(m) + (d.addr - d.map_base), 0};
    return DOCA_SUCCESS;
}

// ---- the copy -------------------------------------------------------------------------------

void copy_streaming(void *dst, const void *src, size_t len) noexcept
{
#if defined(__x86_64__)
    auto *d = static_cast<uint8_t *>(dst);
    auto *s = static_cast<const uint8_t *>(src);
    // Small copies gain nothing from bypassing the cache.
    if (len < 512) {
        std::memcpy(d, s, len);
        return;
    }
    // Align the destination to a cache line so every streaming store fills whole lines.
    const size_t head = (64 - (reinterpret_cast<uintptr_t>(d) & 63)) & 63;
    std::memcpy(d, s, head);
    d += head;
    s += head;
    len -= head;
    // 64 bytes per iteration: four unaligned loads, four 16-byte non-temporal stores (SSE2 is
    // baseline on x86-64; the stores are memory-bound, wider ones do not help).
    for (size_t n = len / 64; n != 0; --n) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + 32));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + 48));
        _mm_stream_si128(reinterpret_cast<__m128i *>(d), a);
        _mm_stream_si128(reinterpret_cast<__m128i *>(d + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i *>(d + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i *>(d + 48), e);
        s += 64;
        d += 64;
    }
    // Non-temporal stores are weakly ordered even on x86: without this fence the completion's
    // release store (a plain mov) could become visible before the payload.
    _mm_sfence();
    std::memcpy(d, s, len % 64);
#else
    std::memcpy(dst, src, len);
#endif
}

doca_error_t copy_to_peer(const peer_target &t, uint64_t peer_addr, const void *src, size_t len,
                          bool streaming) noexcept
{
    // Never a byte outside the window the consumer registered (not even inside its pages).
    if (!in_window(t.addr, t.len, peer_addr, len))
        return DOCA_ERROR_INVALID_VALUE;
    if (len == 0)
        return DOCA_SUCCESS;
    switch (t.mechanism) {
    case memory_mechanism::shared: {
        // In bounds (checked above): the byte offset into the window is the offset from `local`.
        uint8_t *dst = t.local + (peer_addr - t.addr);
#if defined(__SANITIZE_THREAD__)
        // ThreadSanitizer sees one process only. Two threads of this process that write the
        // same posted buffer one after the other are ordered through the consumer's process
        // (R23 -> A23 there, the buffer is posted again, R21 -> A21 here), a chain TSan cannot
        // see, so it would report a race on the buffer. Model that chain on the buffer's
        // address: each copy to dst acquires what the previous copy to dst released. Copies
        // that really overlap (two claims of one post: a broken queue) are still reported when
        // TSan sees them overlap, since the later acquire then finds no release yet.
        __tsan_acquire(dst);
#endif
        if (streaming)
            copy_streaming(dst, src, len);
        else
            std::memcpy(dst, src, len);
#if defined(__SANITIZE_THREAD__)
        __tsan_release(dst);
#endif
        return DOCA_SUCCESS;
    }
    case memory_mechanism::pvw: {
        // The kernel may stop short (a fault part-way): resume until done or an error.
        size_t done = 0;
        while (done < len) {
            const iovec local{const_cast<uint8_t *>(static_cast<const uint8_t *>(src)) + done,
                              len - done};
            const iovec remote{reinterpret_cast<void *>(peer_addr + done), len - done};
            const ssize_t n = ::process_vm_writev(t.pid, &local, 1, &remote, 1, 0);
            if (n < 0)
                return pvw_errno(errno, DOCA_ERROR_CONNECTION_ABORTED);
            if (n == 0)
                return DOCA_ERROR_INVALID_VALUE; // nothing writable at the address
            done += size_t(n);
        }
        return DOCA_SUCCESS;
    }
    case memory_mechanism::none:
        // An empty peer_mapping (map_peer failed or was never called).
        break;
    }
    return DOCA_ERROR_INVALID_VALUE;
}

} // namespace softcomch::transport::shm
