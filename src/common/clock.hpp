// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <ctime>

namespace softcomch {

// Monotonic time in nanoseconds. CLOCK_MONOTONIC is served by the vDSO: no system call, so it
// may be used on the data path (to throttle slow-path work such as liveness checks).
inline uint64_t now_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

} // namespace softcomch
