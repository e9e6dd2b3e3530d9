// SPDX-License-Identifier: Apache-2.0
//
// Rate limiting of SDK log lines (docs/logging_and_argp.md, "Rate limiting"). Every SC_LOG_*
// call site (log.hpp) has an identity, the address of a static object of its macro expansion;
// lines are "similar" when they come from the same call site reached through the same exported
// function (softcomch::api_function(), so one shared argument check does not make the refusals
// of two different functions suppress each other). Of similar lines, the first `burst` of a
// window of `k_window_ms` are written; the rest are counted, and the first similar line after
// the window ends is preceded by one summary line with the count.
//
// The state is a fixed table of slots, each claimed by one (site, function) key with a CAS and
// then updated with atomics only: no lock, no allocation, TSan-clean. It is only consulted for a
// line that is enabled (sdk_enabled() is still the single branch of a disabled line).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace softcomch::log {

// Lines of one kind written per window before suppression starts (SOFTCOMCH_LOG_BURST changes
// it; 0 turns rate limiting off).
constexpr uint32_t k_default_burst = 10;
// The window: one second.
constexpr uint64_t k_window_ms = 1000;
// Largest burst SOFTCOMCH_LOG_BURST accepts (the count field of a window word).
constexpr uint32_t k_max_burst = 1'000'000;

class rate_limiter {
public:
    struct verdict {
        bool write = true;       // write this line
        uint64_t suppressed = 0; // similar lines suppressed before it: report them first
    };

    constexpr rate_limiter() = default;
    rate_limiter(const rate_limiter &) = delete;
    rate_limiter &operator=(const rate_limiter &) = delete;

    // The decision for one line of `site` reached through `func` at `now_ms` (a monotonic clock
    // in milliseconds). burst 0: always write.
    verdict admit(const void *site, const void *func, uint64_t now_ms, uint32_t burst) noexcept;

    // Forgets every key (tests; not safe against concurrent admit()).
    void clear() noexcept;

    // Slots in the table; keys beyond it share one overflow slot (they are then limited
    // together, so their first lines are no longer guaranteed).
    static constexpr size_t k_slots = 1024;

private:
    struct slot {
        std::atomic<uint64_t> key{0};        // 0: free
        std::atomic<uint64_t> window{0};     // (start_ms << k_count_bits) | lines written
        std::atomic<uint64_t> suppressed{0}; // lines suppressed since the last summary
    };
    static constexpr unsigned k_count_bits = 20; // holds k_max_burst
    static constexpr uint64_t k_count_mask = (uint64_t(1) << k_count_bits) - 1;
    static constexpr size_t k_probes = 16;

    slot &find(uint64_t key) noexcept;

    slot slots_[k_slots];
    slot overflow_;
};

} // namespace softcomch::log
