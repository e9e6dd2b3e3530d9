// SPDX-License-Identifier: Apache-2.0
//
// Spin-then-sleep for the wait loops of tests that poll shared memory.
//
// Not sched_yield(): since the EEVDF scheduler (Linux 6.6) a yield forfeits the rest of the time
// slice and is charged as if the slice had been used, so a thread that yields in a loop next to
// busy processes (a parallel build, other tests on the 2-CPU CI machine) gets a tiny share of
// the CPU, and a test bounded by time fails for lack of it.
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace sc_test {

class backoff {
public:
    // Waits a little: a CPU pause per call, and every `k_spins` calls a 20 us sleep instead (the
    // other side is then likely descheduled, and sleeping lets it run).
    void pause() noexcept
    {
        if (++spins_ < k_spins) {
#if defined(__x86_64__) || defined(__i386__)
            _mm_pause();
#endif
            return;
        }
        spins_ = 0;
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    // Progress was made: a full round of spinning before the next sleep.
    void reset() noexcept
    {
        spins_ = 0;
    }

private:
    static constexpr uint32_t k_spins = 256;
    uint32_t spins_ = 0;
};

} // namespace sc_test
