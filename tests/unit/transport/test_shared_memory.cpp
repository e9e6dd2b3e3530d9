// SPDX-License-Identifier: Apache-2.0
//
// Consumer memory shared with the peer: SOFTCOMCH_MEMORY parsing, share_range/unshare_range
// (pointers and contents kept, privacy restored, refused kinds of memory, overlaps, already
// shared files), fork children getting private copies, bounds of the producer's view, the pvw
// fallback (probe, errors, forced through the environment), the streaming copy, and the whole
// fast path across fork(): a consumer process posts buffers from malloc, aligned_alloc and
// mmap (1 B to 64 MiB) through a fast_channel, a producer process fills them with one copy
// each, and every byte is checked.
#include "transport/shm/fast_channel.hpp"
#include "transport/shm/shared_memory.hpp"
#include "backoff.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace softcomch::transport::shm;

namespace {

const uint64_t k_page = uint64_t(sysconf(_SC_PAGESIZE));

// Sets (or unsets, value == nullptr) SOFTCOMCH_MEMORY for the scope, restoring it afterwards.
struct env_guard {
    explicit env_guard(const char *value, const char *name = k_memory_env) : name_(name)
    {
        if (const char *old = std::getenv(name_)) {
            had_ = true;
            old_ = old;
        }
        if (value != nullptr)
            setenv(name_, value, 1);
        else
            unsetenv(name_);
    }
    ~env_guard()
    {
        if (had_)
            setenv(name_, old_.c_str(), 1);
        else
            unsetenv(name_);
    }
    env_guard(const env_guard &) = delete;
    env_guard &operator=(const env_guard &) = delete;
    const char *name_;
    bool had_ = false;
    std::string old_;
};

// The /proc/self/maps line of the mapping containing `p` ("" if none).
std::string maps_line(const void *p)
{
    std::ifstream f("/proc/self/maps");
    std::string line;
    const auto a = reinterpret_cast<uint64_t>(p);
    while (std::getline(f, line)) {
        uint64_t s = 0, e = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &s, &e) == 2 && s <= a && a < e)
            return line;
    }
    return "";
}

bool is_our_memfd(const void *p)
{
    return maps_line(p).find("softcomch-mem") != std::string::npos;
}

uint8_t pattern(uint64_t i, uint32_t seed)
{
    return uint8_t(((i * 2654435761u) >> 11) ^ (seed * 31u) ^ (i >> 20));
}

void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; ++i)
        p[i] = pattern(i, seed);
}

// Index of the first wrong byte, or SIZE_MAX.
size_t check(const uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; ++i) {
        if (p[i] != pattern(i, seed))
            return i;
    }
    return SIZE_MAX;
}

// Index of the first byte of p[from, to) that is not fill(p, ..., seed)'s, or SIZE_MAX.
size_t check_part(const uint8_t *p, size_t from, size_t to, uint32_t seed)
{
    for (size_t i = from; i < to; ++i) {
        if (p[i] != pattern(i, seed))
            return i;
    }
    return SIZE_MAX;
}

// The inner pages of a shared range as offsets from its registered start: [lo, hi).
std::pair<size_t, size_t> inner_of(const shared_range &r)
{
    if (r.inner_size == 0)
        return {0, 0};
    return {size_t(r.inner_base - r.addr), size_t(r.inner_base + r.inner_size - r.addr)};
}

// Maps the whole file of `r` read-write, as a hostile peer would, and writes `v` into every
// byte of it: what the peer can reach of the program's memory.
void scribble_whole_file(const shared_range &r, uint8_t v)
{
    void *m =
        mmap(nullptr, r.size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd.get(), off_t(r.file_offset));
    ASSERT_NE(m, MAP_FAILED);
    std::memset(m, v, r.size);
    munmap(m, r.size);
}

// A memory_desc for a shared_range (what export_memory would produce).
memory_desc desc_of(const shared_range &r)
{
    memory_desc d{};
    d.mechanism = uint32_t(memory_mechanism::shared);
    d.pid = uint32_t(getpid());
    d.addr = r.addr;
    d.len = r.len;
    d.map_base = r.base;
    d.map_size = r.size;
    d.file_offset = r.file_offset;
    return d;
}

// Blocking one-byte pipe handshake between a test and its child.
struct pipe_pair {
    pipe_pair() { EXPECT_EQ(pipe(fds), 0); }
    ~pipe_pair()
    {
        close(fds[0]);
        close(fds[1]);
    }
    void send(char c) { (void)!write(fds[1], &c, 1); }
    char recv()
    {
        char c = 0;
        return read(fds[0], &c, 1) == 1 ? c : char(0);
    }
    int fds[2];
};

int wait_child(pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

} // namespace

TEST(unit_transport_shared_memory, policy_from_env)
{
    memory_policy p = memory_policy::pvw;
    {
        env_guard g(nullptr);
        ASSERT_EQ(memory_policy_from_env(&p), DOCA_SUCCESS);
        EXPECT_EQ(p, memory_policy::auto_select);
        // This machine can share ordinary memory.
        EXPECT_STREQ(active_memory_mechanism(), "shared");
    }
    {
        env_guard g("");
        ASSERT_EQ(memory_policy_from_env(&p), DOCA_SUCCESS);
        EXPECT_EQ(p, memory_policy::auto_select);
    }
    {
        env_guard g("auto");
        ASSERT_EQ(memory_policy_from_env(&p), DOCA_SUCCESS);
        EXPECT_EQ(p, memory_policy::auto_select);
    }
    {
        env_guard g("shared");
        ASSERT_EQ(memory_policy_from_env(&p), DOCA_SUCCESS);
        EXPECT_EQ(p, memory_policy::shared);
        EXPECT_STREQ(active_memory_mechanism(), "shared");
    }
    {
        env_guard g("pvw");
        ASSERT_EQ(memory_policy_from_env(&p), DOCA_SUCCESS);
        EXPECT_EQ(p, memory_policy::pvw);
        EXPECT_STREQ(active_memory_mechanism(), "pvw");
    }
    {
        env_guard g("PVW");
        p = memory_policy::shared;
        EXPECT_EQ(memory_policy_from_env(&p), DOCA_ERROR_BAD_CONFIG);
        EXPECT_EQ(p, memory_policy::shared); // untouched
        EXPECT_STREQ(active_memory_mechanism(), "invalid");
    }
    EXPECT_STREQ(memory_policy_name(memory_policy::auto_select), "auto");
    EXPECT_STREQ(memory_mechanism_name(memory_mechanism::pvw), "pvw");
    EXPECT_STREQ(memory_mechanism_name(memory_mechanism::shared), "shared");
    EXPECT_STREQ(memory_mechanism_name(memory_mechanism::none), "none");
}

TEST(unit_transport_shared_memory, share_keeps_pointers_and_contents)
{
    // A heap buffer of a few pages, 100 bytes past a page boundary whatever the allocator's
    // alignment (TSan's returns page-aligned blocks of this size), with neighbours on its edge
    // pages: the rest of the block, and malloc's chunk header when the block is not aligned.
    const size_t len = 10000;
    auto *block = static_cast<uint8_t *>(std::malloc(len + 2 * k_page));
    ASSERT_NE(block, nullptr);
    uint8_t *buf = block + (100 + k_page - reinterpret_cast<uintptr_t>(block) % k_page) % k_page;
    fill(buf, len, 1);
    EXPECT_FALSE(is_our_memfd(buf));

    shared_range r;
    ASSERT_EQ(share_range(buf, len, r), DOCA_SUCCESS);
    EXPECT_TRUE(r.remapped);
    EXPECT_GE(r.fd.get(), 0);
    EXPECT_EQ(r.addr, reinterpret_cast<uint64_t>(buf));
    EXPECT_EQ(r.len, len);
    EXPECT_EQ(r.base % k_page, 0u);
    EXPECT_EQ(r.size % k_page, 0u);
    EXPECT_LE(r.base, r.addr);
    EXPECT_GE(r.base + r.size, r.addr + len);
    EXPECT_EQ(r.offset(), r.addr - r.base);
    EXPECT_EQ(r.file_offset, 0u);
    // Only the whole pages inside the buffer are switched; the edge pages stay private.
    const auto [lo, hi] = inner_of(r);
    ASSERT_LT(lo, hi);
    EXPECT_EQ((r.addr + lo) % k_page, 0u);
    EXPECT_EQ(hi - lo, r.inner_size);
    EXPECT_TRUE(r.has_edges());
    EXPECT_TRUE(is_our_memfd(buf + lo));
    EXPECT_TRUE(is_our_memfd(buf + hi - 1));
    if (lo != 0) {
        EXPECT_FALSE(is_our_memfd(buf));
    }
    if (hi != len) {
        EXPECT_FALSE(is_our_memfd(buf + len - 1));
    }
    // Same pointer, same bytes; the file is sealed against truncation.
    EXPECT_EQ(check(buf, len, 1), SIZE_MAX);
    EXPECT_NE(ftruncate(r.fd.get(), 0), 0);

    // A second view (what the peer gets). The inner pages are the same memory both ways; the
    // edge bytes the peer writes reach the buffer when a completion delivers them.
    peer_mapping view;
    ASSERT_EQ(map_peer(r.fd.get(), desc_of(r), view), DOCA_SUCCESS);
    uint8_t *alias = view.translate(r.addr, len);
    ASSERT_NE(alias, nullptr);
    ASSERT_NE(alias, buf);
    EXPECT_EQ(check_part(alias, lo, hi, 1), SIZE_MAX);
    // The edge bytes were never copied into the file (neither the buffer's nor its neighbours').
    for (size_t i = 0; i < lo; ++i)
        ASSERT_EQ(alias[i], 0) << i;
    fill(alias, len, 2);
    EXPECT_EQ(check_part(buf, lo, hi, 2), SIZE_MAX);
    EXPECT_EQ(check_part(buf, 0, lo, 1), SIZE_MAX); // not delivered yet
    deliver_edges(r, r.addr, len);
    EXPECT_EQ(check(buf, len, 2), SIZE_MAX);
    fill(buf, len, 3);
    EXPECT_EQ(check_part(alias, lo, hi, 3), SIZE_MAX);
    // A partial delivery copies only its own bytes.
    fill(alias, len, 5);
    deliver_edges(r, r.addr + 1, 2);
    EXPECT_EQ(buf[0], pattern(0, 3));
    EXPECT_EQ(buf[1], pattern(1, 5));
    EXPECT_EQ(buf[3], pattern(3, 3));
    fill(buf, len, 3);

    // A hostile peer writes every byte of the file it holds: the neighbours (malloc's chunk
    // headers on the edge pages, which free() below checks) stay untouched, and so do the
    // buffer's own edge bytes until a completion delivers them.
    ASSERT_NO_FATAL_FAILURE(scribble_whole_file(r, 0xee));
    EXPECT_EQ(check_part(buf, 0, lo, 3), SIZE_MAX);
    EXPECT_EQ(check_part(buf, hi, len, 3), SIZE_MAX);
    fill(buf, len, 3);

    // Unshare: contents kept, private again, the old view is disconnected.
    ASSERT_EQ(unshare_range(r), DOCA_SUCCESS);
    EXPECT_FALSE(r.valid());
    EXPECT_LT(r.fd.get(), 0);
    EXPECT_FALSE(is_our_memfd(buf + lo));
    EXPECT_EQ(check(buf, len, 3), SIZE_MAX);
    fill(alias, len, 4);
    EXPECT_EQ(check(buf, len, 3), SIZE_MAX);
    // The heap around it is intact.
    std::free(block);
    void *more = std::malloc(len);
    std::free(more);
    // Unsharing twice is harmless.
    EXPECT_EQ(unshare_range(r), DOCA_SUCCESS);
}

TEST(unit_transport_shared_memory, shares_every_ordinary_allocation_kind)
{
    struct region {
        uint8_t *p;
        size_t len;
        const char *what;
    };
    auto *big = static_cast<uint8_t *>(std::malloc(1 << 20)); // glibc: an mmap'd chunk
    auto *al = static_cast<uint8_t *>(std::aligned_alloc(4096, 3 * 4096));
    auto *mm = static_cast<uint8_t *>(
        mmap(nullptr, 5 * k_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(mm, MAP_FAILED);
    auto *arr = new uint8_t[200000];
    const region regions[] = {{big, 1 << 20, "malloc 1 MiB"},
                              {al, 3 * 4096, "aligned_alloc"},
                              {mm + 10, 5 * k_page - 20, "mmap"},
                              {arr, 200000, "new[]"}};
    uint32_t seed = 10;
    for (const region &g : regions) {
        SCOPED_TRACE(g.what);
        fill(g.p, g.len, seed);
        shared_range r;
        ASSERT_EQ(share_range(g.p, g.len, r), DOCA_SUCCESS);
        const auto [lo, hi] = inner_of(r);
        ASSERT_LT(lo, hi);
        EXPECT_TRUE(is_our_memfd(g.p + lo));
        EXPECT_EQ(r.has_edges(), lo != 0 || hi != g.len);
        EXPECT_EQ(check(g.p, g.len, seed), SIZE_MAX);
        g.p[0] ^= 0xff;
        g.p[g.len - 1] ^= 0xff;
        ASSERT_EQ(unshare_range(r), DOCA_SUCCESS);
        g.p[0] ^= 0xff;
        g.p[g.len - 1] ^= 0xff;
        EXPECT_EQ(check(g.p, g.len, seed), SIZE_MAX);
        EXPECT_FALSE(is_our_memfd(g.p));
        ++seed;
    }
    std::free(big);
    std::free(al);
    munmap(mm, 5 * k_page);
    delete[] arr;
}

namespace {
// .data: a file-backed private mapping (never shared).
uint8_t g_data_bytes[64] = {1, 2, 3};
} // namespace

TEST(unit_transport_shared_memory, refuses_what_it_cannot_replace)
{
    shared_range r;
    // Bad arguments.
    EXPECT_EQ(share_range(nullptr, 10, r), DOCA_ERROR_INVALID_VALUE);
    uint8_t local[64] = {};
    EXPECT_EQ(share_range(local, 0, r), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(share_range(reinterpret_cast<void *>(~uintptr_t(0) - 10), 100, r),
              DOCA_ERROR_INVALID_VALUE);
    // The stack, initialised data, read-only data.
    EXPECT_EQ(share_range(local, sizeof local, r), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(share_range(g_data_bytes, sizeof g_data_bytes, r), DOCA_ERROR_NOT_SUPPORTED);
    static const char k_text[] = "read-only data";
    EXPECT_EQ(share_range(const_cast<char *>(k_text), sizeof k_text, r), DOCA_ERROR_NOT_SUPPORTED);
    // Read-only anonymous memory.
    void *ro = mmap(nullptr, k_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(ro, MAP_FAILED);
    EXPECT_EQ(share_range(ro, k_page, r), DOCA_ERROR_NOT_SUPPORTED);
    munmap(ro, k_page);
    // A private mapping of a file.
    const int fd = memfd_create("private-file", MFD_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, off_t(k_page)), 0);
    void *pf = mmap(nullptr, k_page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    ASSERT_NE(pf, MAP_FAILED);
    EXPECT_EQ(share_range(pf, k_page, r), DOCA_ERROR_NOT_SUPPORTED);
    munmap(pf, k_page);
    close(fd);
    // A hole in the middle of the range.
    auto *h = static_cast<uint8_t *>(
        mmap(nullptr, 3 * k_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(h, MAP_FAILED);
    munmap(h + k_page, k_page);
    EXPECT_EQ(share_range(h, 3 * k_page, r), DOCA_ERROR_NOT_SUPPORTED);
    // A mixture (anonymous page next to a read-only one) is refused too.
    ASSERT_EQ(mmap(h + k_page, k_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
              h + k_page);
    EXPECT_EQ(share_range(h, 3 * k_page, r), DOCA_ERROR_NOT_SUPPORTED);
    munmap(h, 3 * k_page);
    EXPECT_FALSE(r.valid());

    // Overlaps with a range we already shared. Its inner pages (page 1 here) belong to it
    // alone; its edge pages (0 and 2), which are never switched, may be another range's edges.
    auto *m = static_cast<uint8_t *>(
        mmap(nullptr, 5 * k_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(m, MAP_FAILED);
    shared_range a;
    ASSERT_EQ(share_range(m + 100, 2 * k_page, a), DOCA_SUCCESS); // pages 0..2, inner page 1
    EXPECT_EQ(a.inner_base, reinterpret_cast<uint64_t>(m + k_page));
    EXPECT_EQ(a.inner_size, k_page);
    shared_range b;
    EXPECT_EQ(share_range(m + 100, 2 * k_page, b), DOCA_ERROR_IN_USE);
    EXPECT_EQ(share_range(m + k_page + 200, 10, b), DOCA_ERROR_IN_USE);   // on page 1
    EXPECT_EQ(share_range(m + k_page, 3 * k_page, b), DOCA_ERROR_IN_USE); // inner 1..3
    EXPECT_EQ(share_range(m + 2 * k_page + 300, 10, b), DOCA_SUCCESS);    // a's edge page
    EXPECT_EQ(unshare_range(b), DOCA_SUCCESS);
    EXPECT_EQ(share_range(m + 3 * k_page, k_page, b), DOCA_SUCCESS); // page 3: free
    EXPECT_EQ(unshare_range(a), DOCA_SUCCESS);
    EXPECT_EQ(unshare_range(b), DOCA_SUCCESS);
    munmap(m, 5 * k_page);

    // export_memory under auto falls back to pvw for refused memory; forced shared does not.
    exported_memory e;
    ASSERT_EQ(export_memory(local, sizeof local, memory_policy::auto_select, e), DOCA_SUCCESS);
    EXPECT_EQ(e.desc.mechanism, uint32_t(memory_mechanism::pvw));
    EXPECT_EQ(e.desc.addr, reinterpret_cast<uint64_t>(local));
    EXPECT_EQ(e.desc.pid, uint32_t(getpid()));
    EXPECT_FALSE(e.range.valid());
    EXPECT_EQ(unexport_memory(e), DOCA_SUCCESS);
    EXPECT_EQ(export_memory(local, sizeof local, memory_policy::shared, e),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(export_memory(nullptr, 1, memory_policy::pvw, e), DOCA_ERROR_INVALID_VALUE);
}

TEST(unit_transport_shared_memory, already_shared_file_is_reused)
{
    // The program's own shared memfd mapping: handed out as it is (when /proc/self/map_files
    // may be opened, which needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), but only a
    // page-aligned range (its edge pages cannot be bounced) of a file sealed as the peer
    // requires (it could truncate an unsealed one under the program).
    const int loose = memfd_create("app-unsealed", MFD_CLOEXEC);
    ASSERT_GE(loose, 0);
    ASSERT_EQ(ftruncate(loose, off_t(4 * k_page)), 0);
    auto *u = static_cast<uint8_t *>(
        mmap(nullptr, 4 * k_page, PROT_READ | PROT_WRITE, MAP_SHARED, loose, 0));
    ASSERT_NE(u, MAP_FAILED);
    shared_range r;
    EXPECT_EQ(share_range(u + 10, k_page, r), DOCA_ERROR_NOT_SUPPORTED); // unaligned
    const doca_error_t unsealed = share_range(u + k_page, k_page, r);
    EXPECT_TRUE(unsealed == DOCA_ERROR_NOT_SUPPORTED || unsealed == DOCA_ERROR_NOT_PERMITTED)
        << unsealed;
    munmap(u, 4 * k_page);
    close(loose);

    const int fd = memfd_create("app-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, off_t(8 * k_page)), 0);
    ASSERT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
    auto *m = static_cast<uint8_t *>(
        mmap(nullptr, 6 * k_page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(2 * k_page)));
    ASSERT_NE(m, MAP_FAILED);
    EXPECT_EQ(share_range(m + k_page + 10, 3 * k_page, r), DOCA_ERROR_NOT_SUPPORTED);
    uint8_t *addr = m + k_page;
    const doca_error_t err = share_range(addr, 3 * k_page, r);
    if (err == DOCA_ERROR_NOT_PERMITTED) {
        munmap(m, 6 * k_page);
        close(fd);
        GTEST_SKIP() << "/proc/self/map_files not openable here";
    }
    ASSERT_EQ(err, DOCA_SUCCESS);
    EXPECT_FALSE(r.remapped);
    EXPECT_FALSE(r.has_edges());
    EXPECT_EQ(r.base, reinterpret_cast<uint64_t>(m + k_page));
    EXPECT_EQ(r.file_offset, 3 * k_page); // mapping offset 2 pages + 1 page into it
    EXPECT_EQ(r.size, 3 * k_page);
    peer_mapping view;
    ASSERT_EQ(map_peer(r.fd.get(), desc_of(r), view), DOCA_SUCCESS);
    fill(view.translate(r.addr, r.len), r.len, 7);
    EXPECT_EQ(check(addr, r.len, 7), SIZE_MAX);
    ASSERT_EQ(unshare_range(r), DOCA_SUCCESS);
    // Still the program's shared mapping (never ours to replace).
    EXPECT_NE(maps_line(addr).find("app-shared"), std::string::npos);
    munmap(m, 6 * k_page);
    close(fd);
}

TEST(unit_transport_shared_memory, copy_plan_from_env)
{
    EXPECT_GE(last_level_cache_bytes(), uint64_t(256) << 10);
    const struct {
        const char *value;
        copy_policy policy;
    } ok[] = {{nullptr, copy_policy::auto_select},
              {"", copy_policy::auto_select},
              {"auto", copy_policy::auto_select},
              {"cached", copy_policy::cached},
              {"streaming", copy_policy::streaming}};
    for (const auto &c : ok) {
        env_guard g(c.value, k_copy_env);
        copy_plan plan;
        plan.policy =
            copy_policy::cached == c.policy ? copy_policy::streaming : copy_policy::cached;
        ASSERT_EQ(copy_plan_from_env(&plan), DOCA_SUCCESS) << (c.value ? c.value : "(unset)");
        EXPECT_EQ(plan.policy, c.policy);
        EXPECT_EQ(plan.cache_budget, last_level_cache_bytes() / 2);
        EXPECT_STREQ(copy_policy_name(c.policy), c.value && *c.value ? c.value : "auto");
    }
    for (const char *bad : {"Cached", "nt", "stream", " auto"}) {
        env_guard g(bad, k_copy_env);
        copy_plan plan;
        plan.cache_budget = 123;
        EXPECT_EQ(copy_plan_from_env(&plan), DOCA_ERROR_BAD_CONFIG) << bad;
        EXPECT_EQ(plan.cache_budget, 123u) << "untouched on error";
    }
}

TEST(unit_transport_shared_memory, copy_plan_streams_only_large_payloads_that_overflow_the_budget)
{
    constexpr uint64_t MiB = uint64_t(1) << 20;
    copy_plan plan;
    plan.cache_budget = 16 * MiB;
    // Below the minimum nothing streams, whatever the working set.
    EXPECT_FALSE(plan.streams(k_min_streaming_bytes - 1, 1024 * MiB));
    // Working set (posted buffers + the source) within the budget: plain stores.
    EXPECT_FALSE(plan.streams(4 * MiB, 8 * MiB));
    EXPECT_FALSE(plan.streams(4 * MiB, 12 * MiB));
    EXPECT_FALSE(plan.streams(k_min_streaming_bytes, 16 * MiB - k_min_streaming_bytes));
    // Beyond it: streaming.
    EXPECT_TRUE(plan.streams(4 * MiB, 12 * MiB + 1));
    EXPECT_TRUE(plan.streams(4 * MiB, 64 * MiB));
    EXPECT_TRUE(plan.streams(k_min_streaming_bytes, 64 * MiB));
    // The overrides ignore the working set, not the minimum.
    plan.policy = copy_policy::cached;
    EXPECT_FALSE(plan.streams(4 * MiB, 1024 * MiB));
    plan.policy = copy_policy::streaming;
    EXPECT_TRUE(plan.streams(k_min_streaming_bytes, 0));
    EXPECT_FALSE(plan.streams(4096, 1024 * MiB));
}

// A process's large copies, replayed against reuse_watch: `copy` advances the process-wide
// count the way count_large_copy does (one counter for every stream of the process).
struct copy_replay {
    uint64_t bytes = 0;
    uint64_t copy(reuse_watch &w, uint64_t addr, uint64_t len, uint64_t limit, uint64_t own)
    {
        const uint64_t before = bytes;
        bytes += len;
        return w.observe(addr, before, limit, own);
    }
};

TEST(unit_transport_shared_memory, reuse_watch_measures_the_working_set_a_stream_cycles_through)
{
    constexpr uint64_t MiB = uint64_t(1) << 20, KiB = 1024;
    constexpr uint64_t limit = 16 * MiB;
    constexpr uint64_t base = 0x7f0000000000;
    {
        // One stream into 4 buffers of 1 MiB: nothing until the first buffer comes back, then
        // 4 MiB, every time round.
        reuse_watch w;
        copy_replay p;
        for (uint64_t i = 0; i < 4; ++i)
            EXPECT_EQ(p.copy(w, base + i * MiB, MiB, limit, 64 * MiB), 0u) << i;
        for (uint64_t i = 4; i < 40; ++i)
            EXPECT_EQ(p.copy(w, base + (i % 4) * MiB, MiB, limit, 64 * MiB), 4 * MiB) << i;
    }
    {
        // A consumer re-posting from a pool of 1024 x 64 KiB (64 MiB; its task count says
        // nothing of that): the watched buffer has not come back after the limit, so the set is
        // beyond it, and stays so.
        reuse_watch w;
        copy_replay p;
        uint64_t last = 0;
        for (uint64_t i = 0; i < 3 * 1024; ++i)
            last = p.copy(w, base + (i % 1024) * 64 * KiB, 64 * KiB, limit, 64 * MiB);
        EXPECT_GT(last, limit);
        EXPECT_LE(last, 64 * MiB);
    }
    {
        // Four streams of one process, each into its own 4 MiB buffer: each buffer comes back
        // after the other three were written, so each sees 16 MiB, not its own 4.
        reuse_watch w[4];
        copy_replay p;
        uint64_t seen[4] = {};
        for (uint64_t i = 0; i < 40; ++i)
            seen[i % 4] = p.copy(w[i % 4], base + (i % 4) * 64 * MiB, 4 * MiB, limit, 4 * MiB);
        for (uint64_t k = 0; k < 4; ++k)
            EXPECT_EQ(seen[k], 16 * MiB) << k;
    }
    {
        // A consumer posting at ever-new offsets of a 2 MiB window: no buffer comes back, but
        // this stream cannot span more than the window.
        reuse_watch w;
        copy_replay p;
        uint64_t last = 0;
        for (uint64_t i = 0; i < 1000; ++i)
            last = p.copy(w, base + (i * 4099) % (2 * MiB), 64 * KiB, limit, 2 * MiB);
        EXPECT_EQ(last, 2 * MiB);
    }
    {
        // A count below the mark (another thread's count lagged): no huge distance, and nothing
        // taken for a measurement.
        reuse_watch w;
        EXPECT_EQ(w.observe(base, 10 * MiB, limit, 64 * MiB), 0u);
        EXPECT_EQ(w.observe(base, 9 * MiB, limit, 64 * MiB), 0u);
        EXPECT_EQ(w.observe(base + MiB, 9 * MiB + 512 * KiB, limit, 64 * MiB), 0u);
    }
    {
        // The working set shrinks again when the consumer goes back to fewer buffers.
        reuse_watch w;
        copy_replay p;
        for (uint64_t i = 0; i < 64; ++i)
            p.copy(w, base + (i % 32) * MiB, MiB, 64 * MiB, 64 * MiB);
        EXPECT_EQ(p.copy(w, base, MiB, 64 * MiB, 64 * MiB), 32 * MiB);
        uint64_t last = 0;
        for (uint64_t i = 0; i < 64; ++i)
            last = p.copy(w, base + (i % 2) * MiB, MiB, 64 * MiB, 64 * MiB);
        EXPECT_EQ(last, 2 * MiB);
    }
}

TEST(unit_transport_shared_memory, count_large_copy_is_exact_on_one_thread_and_sees_the_others)
{
    constexpr uint64_t KiB = 1024, MiB = KiB * KiB;
    // One thread: each count is the previous plus the previous copy, across the per-thread
    // flushes (every MiB).
    uint64_t prev = count_large_copy(64 * KiB);
    for (int i = 0; i < 100; ++i) {
        const uint64_t now = count_large_copy(64 * KiB);
        EXPECT_EQ(now - prev, 64 * KiB) << i;
        prev = now;
    }
    // Another thread's 8 MiB: all but its last unflushed MiB are in this thread's next count.
    std::thread other([] {
        for (int i = 0; i < 128; ++i)
            count_large_copy(64 * KiB);
    });
    other.join();
    const uint64_t after = count_large_copy(64 * KiB);
    EXPECT_GE(after - prev, 64 * KiB + 7 * MiB);
    EXPECT_LE(after - prev, 64 * KiB + 8 * MiB);
}

TEST(unit_transport_shared_memory, producer_view_is_bounded_to_the_window)
{
    // Page-aligned mmap with a window that leaves canary bytes on both edge pages.
    auto *m = static_cast<uint8_t *>(
        mmap(nullptr, 4 * k_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(m, MAP_FAILED);
    std::memset(m, 0xcc, 4 * k_page);
    uint8_t *win = m + 100;
    const size_t wlen = 4 * k_page - 200;
    exported_memory e;
    ASSERT_EQ(export_memory(win, wlen, memory_policy::shared, e), DOCA_SUCCESS);
    ASSERT_EQ(e.desc.mechanism, uint32_t(memory_mechanism::shared));
    peer_mapping view;
    ASSERT_EQ(map_peer(e.range.fd.get(), e.desc, view), DOCA_SUCCESS);
    const uint64_t a = e.desc.addr;
    EXPECT_NE(view.translate(a, wlen), nullptr);
    EXPECT_NE(view.translate(a + wlen, 0), nullptr);
    EXPECT_EQ(view.translate(a - 1, 1), nullptr);
    EXPECT_EQ(view.translate(a + wlen - 1, 2), nullptr);
    EXPECT_EQ(view.translate(a + wlen + 1, 0), nullptr);
    EXPECT_EQ(view.translate(a, ~uint64_t(0)), nullptr);
    EXPECT_EQ(view.translate(~uint64_t(0), 2), nullptr);
    std::vector<uint8_t> src(wlen + 1, 0x11);
    const peer_target &t = view.target();
    EXPECT_EQ(copy_to_peer(t, a - 1, src.data(), 10), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(copy_to_peer(t, a, src.data(), wlen + 1), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(copy_to_peer(t, a + 8, src.data(), ~size_t(0) - 4), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(copy_to_peer(t, a, src.data(), wlen), DOCA_SUCCESS);
    deliver_edges(e.range, a, wlen); // what the consumer does on the completion
    // Every window byte written, no canary touched.
    for (size_t i = 0; i < 4 * k_page; ++i) {
        const bool inside = i >= 100 && i < 100 + wlen;
        ASSERT_EQ(m[i], inside ? 0x11 : 0xcc) << i;
    }
    // The same through streaming stores (unaligned head and tail), still bounded.
    std::memset(src.data(), 0x22, src.size());
    EXPECT_EQ(copy_to_peer(t, a, src.data(), wlen + 1, true), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(copy_to_peer(t, a, src.data(), wlen, true), DOCA_SUCCESS);
    deliver_edges(e.range, a, wlen);
    for (size_t i = 0; i < 4 * k_page; ++i) {
        const bool inside = i >= 100 && i < 100 + wlen;
        ASSERT_EQ(m[i], inside ? 0x22 : 0xcc) << i;
    }
    // A peer that ignores the window and writes its whole mapping: the canaries are not in it.
    ASSERT_NO_FATAL_FAILURE(scribble_whole_file(e.range, 0x33));
    deliver_edges(e.range, a, wlen);
    for (size_t i = 0; i < 4 * k_page; ++i) {
        const bool inside = i >= 100 && i < 100 + wlen;
        ASSERT_EQ(m[i], inside ? 0x33 : 0xcc) << i;
    }
    // Descriptions that do not add up are refused.
    peer_mapping bad;
    memory_desc d = e.desc;
    d.map_base += 1;
    EXPECT_EQ(map_peer(e.range.fd.get(), d, bad), DOCA_ERROR_INVALID_VALUE);
    d = e.desc;
    d.addr = d.map_base + d.map_size; // window outside the pages
    EXPECT_EQ(map_peer(e.range.fd.get(), d, bad), DOCA_ERROR_INVALID_VALUE);
    d = e.desc;
    d.map_size += k_page; // more than the file holds
    d.len = 1;
    EXPECT_EQ(map_peer(e.range.fd.get(), d, bad), DOCA_ERROR_INVALID_VALUE);
    d = e.desc;
    d.file_offset = k_page; // offset + size beyond the file
    EXPECT_EQ(map_peer(e.range.fd.get(), d, bad), DOCA_ERROR_INVALID_VALUE);
    d = e.desc;
    d.len = 0;
    EXPECT_EQ(map_peer(e.range.fd.get(), d, bad), DOCA_ERROR_INVALID_VALUE);
    d = e.desc;
    d.mechanism = 0;
    EXPECT_EQ(map_peer(e.range.fd.get(), d, bad), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(map_peer(-1, e.desc, bad), DOCA_ERROR_INVALID_VALUE);
    EXPECT_FALSE(bad.valid());
    EXPECT_EQ(copy_to_peer(bad.target(), a, src.data(), 1), DOCA_ERROR_INVALID_VALUE);
    view = peer_mapping();
    ASSERT_EQ(unexport_memory(e), DOCA_SUCCESS);
    munmap(m, 4 * k_page);
}

TEST(unit_transport_shared_memory, pvw_probe_copy_and_errors)
{
    EXPECT_EQ(allow_peer_access(getpid()), DOCA_SUCCESS);
    EXPECT_EQ(allow_peer_access(k_any_peer), DOCA_SUCCESS);
    std::vector<uint8_t> buf(100000, 0);
    const auto a = reinterpret_cast<uint64_t>(buf.data());
    EXPECT_EQ(probe_pvw(getpid(), a), DOCA_SUCCESS);
    EXPECT_EQ(probe_pvw(0, a), DOCA_ERROR_INVALID_VALUE);
    // A pid that just exited (reaped): ESRCH.
    const pid_t gone = fork();
    ASSERT_GE(gone, 0);
    if (gone == 0)
        _exit(0);
    ASSERT_EQ(wait_child(gone), 0);
    EXPECT_EQ(probe_pvw(gone, a), DOCA_ERROR_NOT_FOUND);

    // Through map_peer with a pvw description (to ourselves), bounded like the shared view.
    memory_desc d{};
    d.mechanism = uint32_t(memory_mechanism::pvw);
    d.pid = uint32_t(getpid());
    d.addr = a + 10;
    d.len = buf.size() - 20;
    peer_mapping pm;
    ASSERT_EQ(map_peer(-1, d, pm), DOCA_SUCCESS);
    EXPECT_EQ(pm.target().mechanism, memory_mechanism::pvw);
    EXPECT_EQ(pm.translate(d.addr, 1), nullptr); // no local pointer for pvw
    std::vector<uint8_t> src(d.len);
    fill(src.data(), src.size(), 5);
    ASSERT_EQ(copy_to_peer(pm.target(), d.addr, src.data(), src.size()), DOCA_SUCCESS);
    EXPECT_EQ(check(buf.data() + 10, d.len, 5), SIZE_MAX);
    EXPECT_EQ(buf[9], 0);
    EXPECT_EQ(buf[buf.size() - 10], 0);
    EXPECT_EQ(copy_to_peer(pm.target(), d.addr + 1, src.data(), src.size()),
              DOCA_ERROR_INVALID_VALUE);
    // The window covers an unmapped page: EFAULT -> INVALID_VALUE.
    auto *m = static_cast<uint8_t *>(
        mmap(nullptr, 2 * k_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(m, MAP_FAILED);
    munmap(m + k_page, k_page);
    peer_target t{memory_mechanism::pvw, reinterpret_cast<uint64_t>(m), 2 * k_page, nullptr,
                  getpid()};
    EXPECT_EQ(copy_to_peer(t, t.addr + k_page, src.data(), 100), DOCA_ERROR_INVALID_VALUE);
    // Partly mapped: the mapped part is written, then the fault is reported.
    EXPECT_EQ(copy_to_peer(t, t.addr + k_page - 50, src.data(), 100), DOCA_ERROR_INVALID_VALUE);
    munmap(m, k_page);
    // A pvw description for a process that does not exist is refused at map time.
    d.pid = uint32_t(gone);
    peer_mapping dead;
    EXPECT_EQ(map_peer(-1, d, dead), DOCA_ERROR_NOT_FOUND);
}

TEST(unit_transport_shared_memory, streaming_copy_matches_memcpy)
{
    std::vector<uint8_t> src(3 << 20), dst(3 << 20);
    fill(src.data(), src.size(), 9);
    uint64_t s = 42;
    for (int i = 0; i < 300; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const size_t so = (s >> 10) % 64, dof = (s >> 20) % 64;
        size_t len = i < 100 ? size_t(i * 7) : size_t((s >> 30) % (2 << 20));
        std::memset(dst.data(), 0, len + dof + 64);
        copy_streaming(dst.data() + dof, src.data() + so, len);
        ASSERT_EQ(std::memcmp(dst.data() + dof, src.data() + so, len), 0) << len;
        ASSERT_EQ(dst[dof + len], 0) << len; // no overrun
        if (dof > 0) {
            ASSERT_EQ(dst[dof - 1], 0);
        }
    }
}

TEST(unit_transport_shared_memory, unshare_restores_content_and_privacy)
{
    const size_t len = 256 * 1024 + 123;
    auto *buf = static_cast<uint8_t *>(std::malloc(len));
    ASSERT_NE(buf, nullptr);
    fill(buf, len, 20);
    shared_range r;
    ASSERT_EQ(share_range(buf, len, r), DOCA_SUCCESS);
    const memory_desc d = desc_of(r);
    const int fd = r.fd.get();
    // The peer sees the program's writes on the inner pages (the edge pages are bounced, in
    // the other direction only).
    const auto [lo, hi] = inner_of(r);
    ASSERT_LT(lo, hi);
    pipe_pair to_child, to_parent;

    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The peer: its own mapping of the consumer's memfd.
        peer_mapping view;
        if (map_peer(fd, d, view) != DOCA_SUCCESS)
            _exit(10);
        const uint8_t *p = view.translate(d.addr, d.len);
        if (p == nullptr)
            _exit(11);
        // Our inherited copy of the buffer at the same address is private (fork handler).
        if (maps_line(buf).find("softcomch-mem") != std::string::npos)
            _exit(12);
        to_parent.send('m');
        // Step 1: the parent wrote seed 21 while shared: visible through the mapping.
        if (to_child.recv() != '1' || check_part(p, lo, hi, 21) != SIZE_MAX)
            _exit(13);
        to_parent.send('a');
        // Step 2: the parent unshared and wrote seed 22: NOT visible any more.
        if (to_child.recv() != '2' || check_part(p, lo, hi, 21) != SIZE_MAX)
            _exit(14);
        // Our writes through the old mapping do not reach the parent either.
        fill(const_cast<uint8_t *>(p), len, 23);
        to_parent.send('b');
        _exit(0);
    }
    ASSERT_EQ(to_parent.recv(), 'm');
    fill(buf, len, 21);
    to_child.send('1');
    ASSERT_EQ(to_parent.recv(), 'a');
    ASSERT_EQ(unshare_range(r), DOCA_SUCCESS);
    EXPECT_FALSE(is_our_memfd(buf));
    EXPECT_EQ(check(buf, len, 21), SIZE_MAX); // content restored
    fill(buf, len, 22);
    to_child.send('2');
    EXPECT_EQ(to_parent.recv(), 'b');
    EXPECT_EQ(wait_child(child), 0);
    EXPECT_EQ(check(buf, len, 22), SIZE_MAX);

    // Privacy after unshare: a new child's writes to the same address stay in the child.
    const pid_t c2 = fork();
    ASSERT_GE(c2, 0);
    if (c2 == 0) {
        if (check(buf, len, 22) != SIZE_MAX)
            _exit(20);
        fill(buf, len, 24);
        _exit(0);
    }
    EXPECT_EQ(wait_child(c2), 0);
    EXPECT_EQ(check(buf, len, 22), SIZE_MAX);
    std::free(buf);
}

TEST(unit_transport_shared_memory, fork_child_gets_a_private_copy)
{
    const size_t len = 3 * k_page;
    auto *buf = static_cast<uint8_t *>(std::aligned_alloc(k_page, len));
    fill(buf, len, 30);
    shared_range r;
    ASSERT_EQ(share_range(buf, len, r), DOCA_SUCCESS);
    pipe_pair to_parent;
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The child sees the pre-fork contents, in private memory, and writes them freely.
        if (check(buf, len, 30) != SIZE_MAX)
            _exit(30);
        if (maps_line(buf).find("softcomch-mem") != std::string::npos)
            _exit(31);
        fill(buf, len, 31);
        // The child's inherited range handle: unsharing it is harmless (nothing shared left).
        if (unshare_range(r) != DOCA_SUCCESS || check(buf, len, 31) != SIZE_MAX)
            _exit(32);
        to_parent.send('w');
        _exit(0);
    }
    EXPECT_EQ(to_parent.recv(), 'w');
    EXPECT_EQ(wait_child(child), 0);
    // Parent: untouched and still shared.
    EXPECT_EQ(check(buf, len, 30), SIZE_MAX);
    EXPECT_TRUE(is_our_memfd(buf));
    ASSERT_EQ(unshare_range(r), DOCA_SUCCESS);
    EXPECT_EQ(check(buf, len, 30), SIZE_MAX);
    std::free(buf);
}

// ---- the whole fast path across two processes ------------------------------------------------

namespace {

struct test_buffer {
    uint8_t *p = nullptr;  // the registered start
    size_t len = 0;        // registered length
    void *alloc = nullptr; // what to free
    size_t map_len = 0;    // mmap'd: bytes to munmap (canaries around the window)
    const char *what = "";
    exported_memory exp;
};

// Producer process: attaches the channel through the inherited fd, maps every exported range,
// then claims, copies and completes until it has filled `n` buffers. Exit code 0 on success.
int producer_main(int ch_fd, uint64_t ch_size, std::vector<test_buffer> &bufs, uint32_t n)
{
    fast_channel ch;
    if (fast_channel::attach(ch_fd, ch_size, ch) != DOCA_SUCCESS)
        return 40;
    fast_producer prod;
    if (prod.attach(ch) != DOCA_SUCCESS)
        return 41;
    std::vector<peer_mapping> views(bufs.size());
    for (size_t i = 0; i < bufs.size(); ++i) {
        const int fd = bufs[i].exp.range.valid() ? bufs[i].exp.range.fd.get() : -1;
        if (map_peer(fd, bufs[i].exp.desc, views[i]) != DOCA_SUCCESS)
            return 42;
    }
    std::vector<uint8_t> src;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    sc_test::backoff idle;
    for (uint32_t done = 0; done < n;) {
        post_entry e;
        if (prod.try_claim(0, &e) != DOCA_SUCCESS) {
            if (std::chrono::steady_clock::now() > deadline)
                return 43;
            idle.pause();
            continue;
        }
        idle.reset();
        // Which consumer range holds the address (the producer never trusts it blindly:
        // copy_to_peer checks it against that range's window again).
        const peer_target *t = nullptr;
        for (const peer_mapping &v : views) {
            const peer_target &c = v.target();
            if (e.addr >= c.addr && e.addr - c.addr < c.len)
                t = &c;
        }
        fast_completion c;
        c.task = e.task;
        c.producer_id = 42;
        if (t == nullptr) {
            c.status = DOCA_ERROR_INVALID_VALUE;
        } else {
            src.resize(e.capacity);
            fill(src.data(), src.size(), e.task + 100);
            const doca_error_t err = copy_to_peer(*t, e.addr, src.data(), src.size());
            c.status = uint32_t(err);
            c.len = err == DOCA_SUCCESS ? e.capacity : 0;
        }
        bool wake;
        while (prod.complete(c, &wake) != DOCA_SUCCESS)
            idle.pause();
        ++done;
    }
    return 0;
}

// Consumer side of the cross-process test for one policy.
void run_cross_process(memory_policy policy, bool expect_shared)
{
    const size_t mib = 1 << 20;
    std::vector<test_buffer> bufs;
    auto add_malloc = [&](size_t len, const char *what) {
        test_buffer b;
        b.alloc = std::malloc(len);
        b.p = static_cast<uint8_t *>(b.alloc);
        b.len = len;
        b.what = what;
        bufs.push_back(std::move(b));
        // A spacer so that the next small buffer does not share a page with this one.
        bufs.push_back(test_buffer{});
        bufs.back().alloc = std::malloc(2 * k_page);
    };
    auto add_aligned = [&](size_t align, size_t len, const char *what) {
        test_buffer b;
        b.alloc = std::aligned_alloc(align, (len + align - 1) / align * align);
        b.p = static_cast<uint8_t *>(b.alloc);
        b.len = len;
        b.what = what;
        bufs.push_back(std::move(b));
    };
    auto add_mmap = [&](size_t len, const char *what) {
        // Window in the middle of the mapping, canaries (0xcc) on both sides.
        test_buffer b;
        b.map_len = (len + 2 * 100 + k_page - 1) / k_page * k_page;
        b.alloc =
            mmap(nullptr, b.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        std::memset(b.alloc, 0xcc, b.map_len);
        b.p = static_cast<uint8_t *>(b.alloc) + 100;
        b.len = len;
        b.what = what;
        bufs.push_back(std::move(b));
    };
    add_malloc(1, "malloc 1 B");
    add_malloc(100, "malloc 100 B");
    add_malloc(4095, "malloc 4095 B");
    add_malloc(4097, "malloc 4097 B");
    add_malloc(65536 + 13, "malloc 64 KiB + 13");
    add_malloc(mib, "malloc 1 MiB");
    add_malloc(64 * mib, "malloc 64 MiB");
    add_aligned(4096, 4096, "aligned_alloc 4 KiB");
    add_aligned(64, 3 * mib + 64, "aligned_alloc(64) 3 MiB + 64");
    add_aligned(4096, 16 * mib, "aligned_alloc 16 MiB");
    add_mmap(1, "mmap 1 B");
    add_mmap(65536, "mmap 64 KiB");
    add_mmap(64 * mib, "mmap 64 MiB");
    // Drop the spacers from the list (they stay allocated until the end).
    std::vector<void *> spacers;
    std::vector<test_buffer> real;
    for (test_buffer &b : bufs) {
        if (b.p == nullptr)
            spacers.push_back(b.alloc);
        else
            real.push_back(std::move(b));
    }
    bufs = std::move(real);

    // Export every buffer (contents: 0x5a, to be overwritten in full). Under auto, a buffer
    // whose inner pages (the whole pages inside it) overlap the pages of a buffer shared before
    // it, or whose pages overlap the inner pages of one, cannot be shared (IN_USE) and must fall
    // back to pvw; every other one must be shared (edge pages may be shared by two buffers).
    // (Which small buffers share a page depends on the allocator: glibc vs the sanitizers'.)
    struct pages {
        uint64_t lo, hi, inner_lo, inner_hi;
    };
    std::vector<pages> shared_pages;
    uint32_t n_shared = 0, n_pvw = 0;
    auto overlaps = [](uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
        return a < d && c < b;
    };
    for (test_buffer &b : bufs) {
        SCOPED_TRACE(b.what);
        std::memset(b.p, 0x5a, b.len);
        const uint64_t a = reinterpret_cast<uint64_t>(b.p);
        pages pg{a & ~(k_page - 1), (a + b.len + k_page - 1) & ~(k_page - 1),
                 (a + k_page - 1) & ~(k_page - 1), (a + b.len) & ~(k_page - 1)};
        if (pg.inner_hi <= pg.inner_lo)
            pg.inner_lo = pg.inner_hi = 0;
        bool overlap = false;
        for (const pages &sp : shared_pages)
            overlap = overlap || overlaps(pg.inner_lo, pg.inner_hi, sp.lo, sp.hi) ||
                      overlaps(pg.lo, pg.hi, sp.inner_lo, sp.inner_hi);
        ASSERT_EQ(export_memory(b.p, b.len, policy, b.exp), DOCA_SUCCESS);
        const auto m = memory_mechanism(b.exp.desc.mechanism);
        const bool want_shared = expect_shared && !overlap;
        EXPECT_EQ(m, want_shared ? memory_mechanism::shared : memory_mechanism::pvw);
        if (m == memory_mechanism::shared) {
            shared_pages.push_back(pg);
            ++n_shared;
        } else {
            ++n_pvw;
        }
    }
    std::printf("%u buffers shared, %u through pvw\n", n_shared, n_pvw);
    if (expect_shared) {
        EXPECT_GE(n_shared, 8u); // at least every page-aligned and large one
    }
    const uint32_t n = uint32_t(bufs.size());
    fast_channel ch;
    fast_channel_params cp;
    cp.num_tasks = n;
    ASSERT_EQ(fast_channel::create(cp, ch), DOCA_SUCCESS);
    fast_consumer cons;
    ASSERT_EQ(cons.attach(ch), DOCA_SUCCESS);

    pipe_pair go;
    std::fflush(stdout); // the child must not inherit (and print again) buffered output
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (go.recv() != 'g')
            _exit(39);
        _exit(producer_main(ch.fd(), ch.size(), bufs, n));
    }
    // pvw under Yama ptrace_scope=1 needs this (the child writes into its parent), before the
    // child probes in map_peer().
    EXPECT_EQ(allow_peer_access(child), DOCA_SUCCESS);
    go.send('g');

    for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(cons.post(i, reinterpret_cast<uint64_t>(bufs[i].p), bufs[i].len), DOCA_SUCCESS);
    std::vector<bool> got(n, false);
    // Bounded by progress, not by a total tuned for uninstrumented builds: each completion may
    // take up to 30 s (the producer fills up to 64 MiB byte by byte; under ThreadSanitizer on a
    // busy 2-core machine the whole exchange took 32-45 s), and the whole run 100 s, below the
    // 120 s CTest timeout so that a wedged run fails here rather than being killed.
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::seconds(100);
    auto stall_deadline = start + std::chrono::seconds(30);
    sc_test::backoff idle;
    for (uint32_t seen = 0; seen < n;) {
        const fast_completion *c = cons.peek();
        if (c == nullptr) {
            ASSERT_FALSE(cons.corrupted());
            const auto now = std::chrono::steady_clock::now();
            ASSERT_LT(now, stall_deadline) << "no completion for 30 s; " << seen << " of " << n;
            ASSERT_LT(now, deadline) << seen << " of " << n << " completions in 100 s";
            idle.pause();
            continue;
        }
        idle.reset();
        stall_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        const test_buffer &b = bufs[c->task];
        SCOPED_TRACE(b.what);
        // What consumer_endpoint::peek does: the bytes on edge pages into place.
        if (c->status == 0)
            deliver_edges(b.exp.range, reinterpret_cast<uint64_t>(b.p), c->len);
        EXPECT_EQ(c->status, 0u);
        EXPECT_EQ(c->len, b.len);
        EXPECT_EQ(c->producer_id, 42u);
        EXPECT_FALSE(got[c->task]);
        got[c->task] = true;
        // Every byte of the window, and the canaries around mmap'd windows.
        EXPECT_EQ(check(b.p, b.len, c->task + 100), SIZE_MAX);
        if (b.map_len != 0) {
            const auto *base = static_cast<const uint8_t *>(b.alloc);
            for (size_t k = 0; k < 100; ++k)
                ASSERT_EQ(base[k], 0xcc);
            for (size_t k = 100 + b.len; k < b.map_len; ++k)
                ASSERT_EQ(base[k], 0xcc);
        }
        cons.release();
        ++seen;
    }
    EXPECT_EQ(wait_child(child), 0);
    EXPECT_EQ(cons.outstanding(), 0u);

    // Unexport: the memory keeps the received data and is private again.
    for (test_buffer &b : bufs) {
        SCOPED_TRACE(b.what);
        const uint32_t task = uint32_t(&b - bufs.data());
        ASSERT_EQ(unexport_memory(b.exp), DOCA_SUCCESS);
        EXPECT_FALSE(is_our_memfd(b.p));
        EXPECT_EQ(check(b.p, b.len, task + 100), SIZE_MAX);
        if (b.map_len != 0)
            munmap(b.alloc, b.map_len);
        else
            std::free(b.alloc);
    }
    for (void *s : spacers)
        std::free(s);
}

} // namespace

TEST(unit_transport_shared_memory, cross_process_fast_path_shared)
{
    env_guard g("auto");
    memory_policy p;
    ASSERT_EQ(memory_policy_from_env(&p), DOCA_SUCCESS);
    run_cross_process(p, true);
}

TEST(unit_transport_shared_memory, cross_process_fast_path_pvw_forced_by_env)
{
    env_guard g("pvw");
    memory_policy p;
    ASSERT_EQ(memory_policy_from_env(&p), DOCA_SUCCESS);
    ASSERT_EQ(p, memory_policy::pvw);
    run_cross_process(p, false);
}
