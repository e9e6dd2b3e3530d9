// SPDX-License-Identifier: Apache-2.0
//
// The descriptor budget of a process against RLIMIT_NOFILE (docs/failure-model.md, "Bounds"):
// how many descriptors are open, and raising the soft limit toward what a server needs.
#pragma once

#include <cstdint>

namespace softcomch {

// Descriptors this process has open now (the entries of /proc/self/fd, less the one used to
// read it), or 0 when that cannot be read.
uint64_t open_descriptors() noexcept;

struct nofile_limit {
    uint64_t soft_before = 0; // UINT64_MAX: unlimited
    uint64_t soft = 0;        // after the call
    uint64_t hard = 0;        // UINT64_MAX: unlimited
    bool raised = false;      // the call raised the soft limit
    int error = 0;            // errno of a failed getrlimit/setrlimit (0: none)
};

// Makes the soft RLIMIT_NOFILE at least `need` if the hard limit allows, else as high as the
// hard limit allows. Never lowers it. Process-wide: every thread sees the new limit.
nofile_limit raise_nofile(uint64_t need) noexcept;

} // namespace softcomch
