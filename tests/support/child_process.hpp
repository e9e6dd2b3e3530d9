// SPDX-License-Identifier: Apache-2.0
//
// Child processes and private fabrics for the tests, with no DOCA library: the public-API harness
// (comch_harness.hpp) and the tests that link the layers' own objects (the doctor's, the
// hostile peer's) both use them. Definitions in child_process.cpp (softcomch_test_process).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace sc_test {

using namespace std::chrono_literals;

// ---- child processes ----

// In a child just forked from `parent`: SIGKILL when the parent dies (also across exec), and
// exit at once if it already has.
void die_with_parent(pid_t parent) noexcept;

// Runs `body` in a forked child; its return value is the exit status. Failures inside the child
// are reported with child_check().
pid_t spawn(const std::function<int()> &body);

// Waits for `pid`; kills it after `timeout`. Returns its exit status, or 128+signal, or -1 on
// timeout.
int wait_child(pid_t pid, std::chrono::milliseconds timeout = 20000ms);
// The same, calling `meanwhile` (progressing this process's engine, say) instead of sleeping: for
// a child whose end depends on what this process still has to do.
int wait_child(pid_t pid, const std::function<void()> &meanwhile,
               std::chrono::milliseconds timeout = 20000ms);

// A one-way "go on" between processes: the writer says it once, the reader waits for it (or
// sees the writer's end close), polling so that a test that fails cannot hang. Made before the
// fork, used on both sides of it.
class gate {
public:
    gate();
    ~gate();
    gate(const gate &) = delete;
    gate &operator=(const gate &) = delete;
    void open();
    // Whether it opened (without waiting).
    bool opened() const;
    bool wait(std::chrono::milliseconds timeout) const;
    int read_end() const { return fd_[0]; }
    int write_end() const { return fd_[1]; }

private:
    int fd_[2];
};

#define CHILD_CHECK(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "child check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
            return __LINE__ % 200 + 1;                                                             \
        }                                                                                          \
    } while (0)

// A unique fabric per test so tests never see each other's servers.
void use_private_fabric(const std::string &tag);

} // namespace sc_test
