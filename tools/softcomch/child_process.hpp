// SPDX-License-Identifier: Apache-2.0
//
// The children of the pair runner (pair_runner.hpp): one side's process, started in its own
// process group with stdin from /dev/null and its stdout and stderr on non-blocking pipes, and the
// signal set-up the runner's loop needs while they run.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "common/unique_fd.hpp"
#include "pair_runner.hpp"

namespace softcomch::tools {

// One output stream of a child, split into lines.
struct output_pipe {
    unique_fd fd;
    stream_kind kind = stream_kind::out;
    std::string pending;
};

struct child {
    side who;
    pid_t pid = -1;
    child_status status;
    output_pipe out;
    output_pipe err;

    bool running() const noexcept { return status.started && !status.exited; }
};

// Blocks the signals the loop handles, routes them to a signalfd and ignores SIGPIPE (a
// relayed line written to a closed stdout must not kill us); everything is undone on exit.
class signal_scope {
public:
    signal_scope();
    ~signal_scope();
    signal_scope(const signal_scope &) = delete;
    signal_scope &operator=(const signal_scope &) = delete;

    bool ok() const noexcept { return blocked_ && bool(fd_); }
    int fd() const noexcept { return fd_.get(); }
    const sigset_t &child_mask() const noexcept { return old_mask_; }

private:
    sigset_t old_mask_{};
    struct sigaction old_pipe_ {};
    bool blocked_ = false;
    bool pipe_changed_ = false;
    unique_fd fd_;
};

// Forks and execs one side (argv[0] is a path: no PATH search) with exactly `env`, the signal
// mask `child_mask` and SIGTERM as its parent-death signal. Returns an empty string or why it
// could not.
std::string spawn(child &c, std::vector<std::string> argv, std::vector<std::string> env,
                  const sigset_t &child_mask);

// Sends `sig` to the child's process group (the child itself if the group is gone).
void signal_child(const child &c, int sig);

// Records the child's exit status if it has exited (never blocks).
void reap(child &c);

} // namespace softcomch::tools
