// SPDX-License-Identifier: Apache-2.0
//
// The shared flows of the fast-path tests (fastpath_harness.hpp): the control-channel helpers,
// connection set-up and orderly end, a whole side in a child process, and the start of a
// consumer or producer. Each returns an error text ("" = success, fastpath_checks.hpp) so that the
// same code serves the gtest parent and the forked children. Definitions in fastpath_flows.cpp.
#pragma once

#include <doca_comch.h>
#include <doca_error.h>
#include <doca_pe.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "comch_harness.hpp"
#include "fastpath_consumer.hpp"
#include "fastpath_producer.hpp"
#include "fastpath_sides.hpp"

namespace sc_test::fp {

// ---- child processes ----

// Owns a child process: wait() reaps it (killing it after the timeout, see wait_child); if the
// test bails out before, the destructor kills and reaps it, so no child outlives its test.
class child_guard {
public:
    explicit child_guard(pid_t pid) : pid_(pid) {}
    child_guard(const child_guard &) = delete;
    child_guard &operator=(const child_guard &) = delete;
    ~child_guard();
    pid_t pid() const { return pid_; }
    int wait(std::chrono::milliseconds timeout = 20000ms);
    int kill_and_wait(std::chrono::milliseconds timeout = 5000ms);

private:
    pid_t pid_;
};

// ---- control-channel helpers ----

// Waits for a control message starting with `prefix` (progressing `s`, and `also` if given) and
// takes it out of s.received; other messages stay queued in order. The rest of the text goes to
// `rest`.
bool expect_msg(side &s, const std::string &prefix, std::string *rest = nullptr,
                std::chrono::milliseconds timeout = 5000ms, doca_pe *also = nullptr);

// Sends `text` on `conn`, then progresses until the send task completed.
doca_error_t send_ctrl(side &s, doca_comch_connection *conn, const std::string &text,
                       std::chrono::milliseconds timeout = 5000ms);

// ---- connection set-up and orderly end, shared by parent and child code ----

bool establish(fp_server &s, doca_comch_connection *&conn, std::chrono::milliseconds t = 10000ms);
bool establish(fp_client &c, doca_comch_connection *&conn, std::chrono::milliseconds t = 10000ms);

inline doca_error_t expected_start_rc(const fp_server &)
{
    return DOCA_SUCCESS;
}
inline doca_error_t expected_start_rc(const fp_client &)
{
    return DOCA_ERROR_IN_PROGRESS;
}

// Both sides: say "fin" and wait for the peer's (each side destroys its fast-path objects before).
std::string exchange_fin(side &s, doca_comch_connection *conn);

std::string finish(fp_server &s, doca_comch_connection *conn);
std::string finish(fp_client &c, doca_comch_connection *conn);

// A whole side in a child process: start, connect, body, orderly end. Instantiated for
// fp_server and fp_client (fastpath_flows.cpp).
template <class S>
int run_side(const std::string &name, bool epoll,
             const std::function<std::string(S &, doca_comch_connection *)> &body);

// Waits for the peer's "cid <id>" and for this side's new-consumer event with that id.
std::string learn_remote_consumer(side &s, consumer_events &ev, doca_comch_connection *conn,
                                  uint32_t &cid, const char *prefix = "cid ");

// Starts a consumer and waits until it runs (progressing its engine and the connection's).
std::string start_consumer(consumer &c, side &s);

std::string start_producer(producer &p);

} // namespace sc_test::fp
