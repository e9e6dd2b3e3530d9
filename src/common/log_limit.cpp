// SPDX-License-Identifier: Apache-2.0
#include "common/log_limit.hpp"

namespace softcomch::log {

namespace {

// A 64-bit mix of the two addresses (splitmix64's finaliser); never 0, which marks a free slot.
uint64_t key_of(const void *site, const void *func) noexcept
{
    uint64_t x = uint64_t(reinterpret_cast<uintptr_t>(site)) * 0x9e3779b97f4a7c15ull ^
                 uint64_t(reinterpret_cast<uintptr_t>(func));
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x != 0 ? x : 1;
}

} // namespace

rate_limiter::slot &rate_limiter::find(uint64_t key) noexcept
{
    for (size_t i = 0; i < k_probes; ++i) {
        slot &s = slots_[(key + i) & (k_slots - 1)];
        uint64_t k = s.key.load(std::memory_order_acquire);
        if (k == key)
            return s;
        if (k == 0) {
            // Claim it; whoever wins, the slot then holds some key: check which.
            if (s.key.compare_exchange_strong(k, key, std::memory_order_acq_rel,
                                              std::memory_order_acquire) ||
                k == key)
                return s;
        }
    }
    return overflow_;
}

rate_limiter::verdict rate_limiter::admit(const void *site, const void *func, uint64_t now_ms,
                                          uint32_t burst) noexcept
{
    if (burst == 0)
        return {};
    if (burst > k_max_burst)
        burst = k_max_burst;
    slot &s = find(key_of(site, func));
    uint64_t w = s.window.load(std::memory_order_acquire);
    for (;;) {
        const uint64_t start = w >> k_count_bits;
        const uint64_t count = w & k_count_mask;
        // Signed: a thread that read the clock just before another opened the window sees a
        // start slightly in its future, which is still inside the window.
        const bool expired = count == 0 || int64_t(now_ms - start) >= int64_t(k_window_ms);
        if (expired) {
            if (s.window.compare_exchange_weak(w, (now_ms << k_count_bits) | 1,
                                               std::memory_order_acq_rel,
                                               std::memory_order_acquire))
                return {true, s.suppressed.exchange(0, std::memory_order_acq_rel)};
            continue;
        }
        if (count < burst) {
            if (s.window.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel,
                                               std::memory_order_acquire))
                return {};
            continue;
        }
        s.suppressed.fetch_add(1, std::memory_order_acq_rel);
        return {false, 0};
    }
}

void rate_limiter::clear() noexcept
{
    for (slot &s : slots_) {
        s.key.store(0, std::memory_order_relaxed);
        s.window.store(0, std::memory_order_relaxed);
        s.suppressed.store(0, std::memory_order_relaxed);
    }
    overflow_.window.store(0, std::memory_order_relaxed);
    overflow_.suppressed.store(0, std::memory_order_relaxed);
}

} // namespace softcomch::log
