// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the files of the consumer memory (shared_memory.hpp): the page size, the
// window check and the errno map of process_vm_*. Private to src/transport/shm.
#pragma once

#include <doca_error.h>

#include <unistd.h>

#include <cstdint>

namespace softcomch::transport::shm {

// The unit of sharing: mappings are made of whole pages. Asked once (4 KiB on x86-64; 16 or
// 64 KiB on some Arm kernels, which is why nothing here hard-codes 4096).
inline uint64_t page_size() noexcept
{
    static const uint64_t ps = uint64_t(::sysconf(_SC_PAGESIZE));
    return ps;
}

// [a, a + n) inside the target's window (overflow-safe: no a + n is formed).
inline bool in_window(uint64_t wa, uint64_t wl, uint64_t a, uint64_t n) noexcept
{
    return a >= wa && a - wa <= wl && n <= wl - (a - wa);
}

// errno of a process_vm_* call -> DOCA error (`gone` for ESRCH).
doca_error_t pvw_errno(int e, doca_error_t gone) noexcept;

} // namespace softcomch::transport::shm
