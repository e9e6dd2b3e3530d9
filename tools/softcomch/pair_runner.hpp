// SPDX-License-Identifier: Apache-2.0
//
// The machinery behind `softcomch run` (and `demo`): start a DPU-side program in a fabric,
// wait until it has a Comch server listening there, start the host-side program, relay both
// programs' output line by line, and enforce the timeouts.
//
// Children run in their own process groups (so a signal reaches a shell command's whole
// pipeline) with stdin from /dev/null, SOFTCOMCH_FABRIC=<fabric> and SOFTCOMCH_SIDE=dpu|host.
// No threads: one poll() loop over the output pipes and a signalfd (SIGCHLD, SIGINT, SIGTERM,
// SIGHUP). While it runs, those signals are blocked in the calling process and delivered
// through the signalfd; the previous signal state is restored on return.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace softcomch::tools {

enum class side { dpu, host };
enum class stream_kind { out, err };

std::string_view side_name(side s) noexcept; // "dpu" / "host"

// Receives every complete line (without its '\n'); a last line without '\n' is delivered when
// the stream ends.
using line_sink = std::function<void(side, stream_kind, std::string_view line)>;

struct pair_config {
    std::vector<std::string> dpu_argv; // program (a path: no PATH search) and its arguments
    std::vector<std::string> host_argv;
    std::string fabric;                 // empty: a private fabric, removed at the end
    double timeout_s = 60;              // for the whole run
    double ready_timeout_s = 10;        // for the DPU side's server to appear
    std::vector<std::string> unset_env; // variables removed from the children's environment
    std::vector<std::string> set_env;   // "NAME=value" set in both children's environment
    line_sink on_line;                  // empty: "[dpu] "/"[host] " prefixed, stdout to stdout,
                                        // stderr to stderr
    std::string tag = "softcomch run";  // prefix of the messages printed to stderr
    bool report = true;                 // print why a run is being ended (timeout, ...) at once
    bool verbose = false;               // also print progress: fabric, readiness, host start
};

struct child_status {
    bool started = false;
    bool exited = false; // reaped
    int wait_status = 0;

    bool success() const noexcept;
    std::string describe() const; // "exited 0", "killed by SIGTERM", "not started", "still running"
};

enum class pair_outcome {
    completed,    // both programs ran to their end (successfully or not)
    not_ready,    // the DPU side exited or timed out before a server was listening
    timed_out,    // pair_config::timeout_s expired
    interrupted,  // SIGINT/SIGTERM/SIGHUP received and forwarded
    setup_failed, // fabric, pipes or fork failed
};

struct pair_result {
    pair_outcome outcome = pair_outcome::setup_failed;
    child_status dpu;
    child_status host;
    std::string fabric;
    std::string detail; // what went wrong, for every outcome but `completed`
    double elapsed_s = 0;
    double ready_s = -1; // when the DPU side's server appeared, -1 if it never did
    int signal = 0;      // `interrupted`: the signal received

    bool success() const noexcept
    {
        return outcome == pair_outcome::completed && dpu.success() && host.success();
    }
    int exit_code() const noexcept; // see command.hpp
    std::string summary() const;    // "dpu exited 0, host exited 0 (0.42 s)"
};

pair_result run_pair(const pair_config &cfg);

// {"/bin/sh", "-c", command}
std::vector<std::string> shell_command(const std::string &command);

} // namespace softcomch::tools
