// SPDX-License-Identifier: Apache-2.0
//
// For the tests of `softcomch top`: Comch servers and clients in forked processes over the real
// transport, driven by one-line commands, so that a test knows exactly what each has sent and
// received when it runs the tool. A server answers every message with k_reply_size bytes; a
// client sends on command. Definitions in top_peers.cpp.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>

namespace sc_cli {

inline constexpr uint32_t k_reply_size = 7;

class peer_process {
public:
    enum class role { server, client };
    // Forks the process; `env` is set in it before its context is created. A server reports
    // "listening" once started, a client "connected" once RUNNING (wait for them with expect).
    peer_process(role r, const std::string &name,
                 const std::map<std::string, std::string> &env = {});
    ~peer_process(); // kills what is still running
    peer_process(const peer_process &) = delete;
    peer_process &operator=(const peer_process &) = delete;

    pid_t pid() const noexcept { return pid_; }
    // Sends a command line. Clients: "send N SIZE" (N messages of SIZE bytes, then waits for the
    // N replies and reports "sent"), "flood N SIZE" (submits N messages and reports "flooded"
    // at once, whatever the peer does). Both: "quit" (stops the context and exits 0).
    bool command(const std::string &line);
    // Waits (bounded) until the process reports the line `want`; false on timeout or exit.
    bool expect(const std::string &want, int timeout_ms = 20000);
    // "quit", then the exit status (-1 on timeout).
    int finish(int timeout_ms = 20000);
    // SIGKILL and reap: it ends without destroying anything.
    void kill_and_reap();

private:
    pid_t pid_ = -1;
    int to_ = -1;   // commands
    int from_ = -1; // reports
    std::string buf_;
};

// Whether a row of a table in `text` (a line, leading spaces ignored: numbers are right-aligned)
// starts with `first` and holds every one of `parts`, in order.
bool has_row(const std::string &text, const std::string &first,
             std::initializer_list<std::string> parts = {});

} // namespace sc_cli
