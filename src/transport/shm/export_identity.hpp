// SPDX-License-Identifier: Apache-2.0
//
// What the shm transport's exports to other processes share (region.hpp: memory for DMA;
// counter.hpp: a sync event's counter): the exporter names itself by pid and start time in the
// descriptor, lets importers reach it (Yama's PR_SET_PTRACER_ANY: it does not know their pids),
// and an importer opens a pidfd on it, checked against that start time, before anything else.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <string>

#include "common/unique_fd.hpp"

namespace softcomch::transport::shm {

// This process's start time (/proc/self/stat field 22), 0 if unreadable.
uint64_t own_start_time() noexcept;

// A random 64-bit token, never 0 (getrandom; a weaker mix of pid and time if that fails): what
// names one export among all the exports a process ever made.
uint64_t random_token() noexcept;

// Lets any process of ours reach this one with process_vm_* and pidfd_getfd (Yama ptrace_scope
// 1), once per process; later calls do nothing. Best effort: without it an importer's access is
// refused with a line that says why.
void grant_importers_access() noexcept;

// A pidfd on the exporter `pid` that started at `start_time`: DOCA_SUCCESS and `out`, or
// DOCA_ERROR_NOT_FOUND (it exited, or its pid now names another process) with `why`. The pidfd
// is taken before the start time is compared: a pid reused before it shows another start time,
// one reused after leaves the pidfd on the exited process.
doca_error_t open_exporter(uint32_t pid, uint64_t start_time, unique_fd &out, std::string &why);

// A copy of the exporter's descriptor `fd` (pidfd_getfd on its pidfd): DOCA_SUCCESS and `out`;
// NOT_PERMITTED with `why` for no access or a closed descriptor (`revoked` says what closing it
// means), NOT_FOUND once the exporter exited, NOT_SUPPORTED on kernels before 5.6.
doca_error_t take_exporter_fd(int pidfd, uint32_t fd, const char *revoked, unique_fd &out,
                              std::string &why);

// pid_max's ceiling (2^22): a descriptor naming a larger pid names no process.
inline constexpr uint32_t k_max_pid = 1u << 22;

} // namespace softcomch::transport::shm
