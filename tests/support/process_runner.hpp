// SPDX-License-Identifier: Apache-2.0
//
// For the CLI tests: run a program of the build tree to completion with a timeout, capturing its
// stdout and stderr, and match its output line by line. Definitions in process_runner.cpp (the
// test-support library, tests/support/CMakeLists.txt).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace sc_test {

// The build directory: $SOFTCOMCH_TEST_BIN_DIR, else the parent of the directory holding the
// test executable (<build>/tests/<test>).
std::string bin_dir();

std::string softcomch_path();

struct proc_result {
    int status = -1;        // exit status, or 128 + signal
    bool timed_out = false; // killed by the harness
    double seconds = 0;
    std::string out;
    std::string err;
};

struct run_options {
    double timeout_s = 60;
    // The child's whole environment ("NAME=value" entries); nullptr: ours.
    const std::vector<std::string> *env = nullptr;
    // Called about every 10 ms with the child's pid while it runs.
    std::function<void(pid_t)> on_tick;
};

// Runs argv (argv[0] a path) to completion, capturing stdout and stderr; SIGKILL after the
// timeout.
proc_result run_process(const std::vector<std::string> &argv, const run_options &o = {});

bool contains(const std::string &haystack, const std::string &needle);

// Whether `text` has a line that starts with `prefix` and contains every one of `parts`, in
// order. (Plain string matching: std::regex trips gcc 12's -Wmaybe-uninitialized under ASan.)
bool has_line(const std::string &text, const std::string &prefix,
              std::initializer_list<std::string> parts = {});

} // namespace sc_test
