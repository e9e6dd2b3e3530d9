// SPDX-License-Identifier: Apache-2.0
//
// What /proc says of a process: its state and start time (which, with the pid, names one process
// for as long as the machine runs: a pid is reused, a (pid, start time) pair is not), its command
// name and command line. The live-figures file (common/live_layout.hpp) records its writer's
// start time; its readers compare it with the process that has the pid now.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/visibility.hpp"

namespace softcomch {

struct process_stat {
    char state = '?';        // /proc/<pid>/stat field 3: R, S, D, T (stopped), t (traced), Z ...
    uint64_t start_time = 0; // field 22: clock ticks after boot at which the process started
};

// Reads /proc/<pid>/stat (pid 0: this process). False when there is no such process or the file
// is not what Linux writes there. (Exported for the reader of the live figures, introspect/.)
SOFTCOMCH_API bool read_process_stat(int pid, process_stat &out) noexcept;

// The parse of a /proc/<pid>/stat text (read_process_stat reads the file and calls it). The
// command name in field 2 may hold spaces and parentheses: the fields after it start after its
// last ')'.
bool parse_process_stat(const std::string &text, process_stat &out) noexcept;

// /proc/<pid>/comm without its newline (pid 0: this process); empty when unreadable.
std::string process_comm(int pid);

// /proc/<pid>/cmdline with its arguments joined by single spaces, at most `max` bytes (pid 0:
// this process); empty when unreadable (a kernel thread, a zombie).
std::string process_cmdline(int pid, size_t max);

} // namespace softcomch
