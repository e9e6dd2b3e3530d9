// SPDX-License-Identifier: Apache-2.0
//
// Reading /proc/self/maps for share_range (shared_range.cpp): which mappings make up a range,
// and of which kind they are. Private to src/transport/shm.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace softcomch::transport::shm {

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

// Decimal (the inode; also /proc/sys/vm/max_map_count).
bool parse_dec(const char *&p, const char *e, uint64_t *v) noexcept;

// "start-end perms offset major:minor inode   path"
bool parse_line(const char *p, const char *e, vma_info *v) noexcept;

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
bool collect_vmas(uint64_t base, uint64_t end, vma_info *out, size_t *count) noexcept;

// Ordinary private anonymous read-write memory: what share_range may replace.
bool private_anon_ok(const vma_info &v) noexcept;

// A read-write shared file mapping (memfd, /dev/shm, shared anonymous = "/dev/zero (deleted)").
bool shared_file_ok(const vma_info &v) noexcept;

} // namespace softcomch::transport::shm
