// SPDX-License-Identifier: Apache-2.0
//
// The /proc/self/maps parser (proc_maps.hpp), moved out of the consumer memory's code.
#include "transport/shm/proc_maps.hpp"

#include <algorithm>

namespace softcomch::transport::shm {

namespace {

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

} // namespace

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

} // namespace softcomch::transport::shm
