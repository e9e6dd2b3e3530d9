// SPDX-License-Identifier: Apache-2.0
//
// The producer's one copy (copy_to_peer) and how it writes (SOFTCOMCH_COPY). Contract in
// shared_memory.hpp; measurements in docs/performance.md ("copy policy").
//
// Ordering: nothing in this file publishes data to the other process by itself. The payload a
// producer copies (memcpy, streaming stores + sfence, or the kernel's copy in
// process_vm_writev) is published by the completion's release store (R23 in fast_channel.inl),
// which the producer issues after copy_to_peer() returns.
#include "transport/shm/shared_memory.hpp"

#include "common/enum_names.hpp"
#include "transport/shm/memory_detail.hpp"
#include "transport/shm/peer_checks.hpp"

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

namespace softcomch::transport::shm {

namespace {

// SOFTCOMCH_COPY's values; case-sensitive, like the other knobs.
constexpr enum_name<copy_policy> k_copy_policies[] = {{copy_policy::auto_select, "auto"},
                                                      {copy_policy::cached, "cached"},
                                                      {copy_policy::streaming, "streaming"}};

} // namespace

doca_error_t copy_plan_from_env(copy_plan *out) noexcept
{
    copy_plan plan;
    if (!value_from_env(k_copy_policies, k_copy_env, copy_policy::auto_select, &plan.policy))
        return DOCA_ERROR_BAD_CONFIG;
    plan.cache_budget = last_level_cache_bytes() / 2;
    *out = plan;
    return DOCA_SUCCESS;
}

uint64_t count_large_copy(uint64_t len) noexcept
{
    // Each thread adds its bytes to the process's count once per k_flush of them, so producers
    // on several threads do not bounce the counter's line on every copy (a locked add on a line
    // another core wrote costs 0.1-0.2 us here, against 1.5 us for a 64 KiB copy). The count
    // another thread sees is short by at most k_flush per other thread; the copy plan's budget
    // is 16 MiB.
    constexpr uint64_t k_flush = uint64_t(1) << 20;
    static std::atomic<uint64_t> published{0};
    static thread_local uint64_t pending __attribute__((tls_model("initial-exec"))) = 0;
    const uint64_t before = published.load(std::memory_order_relaxed) + pending;
    pending += len;
    if (pending >= k_flush) {
        published.fetch_add(pending, std::memory_order_relaxed);
        pending = 0;
    }
    return before;
}

const char *copy_policy_name(copy_policy p) noexcept
{
    return name_of(k_copy_policies, p);
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
        // The pid is the kernel's word on the connection (never a message's); once that process
        // has exited its pid may name another one, so nothing is written (pidfd check).
        if (!peer_running(t.pidfd))
            return DOCA_ERROR_CONNECTION_ABORTED;
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
