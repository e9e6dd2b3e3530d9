// SPDX-License-Identifier: Apache-2.0
//
// Faults on demand in the data path (SOFTCOMCH_FAULTS; the grammar and the triggers are in
// comch/faults.hpp, what a program sees in docs/failure-model.md). A connection that a rule
// matches carries a connection_fault_state (doca_comch_connection::faults_) and has its
// faults_on_ flag set; every hook sits behind that one flag, in a branch the data path of an
// ordinary connection never takes:
//
//   comch_ctx::submit            submit-again (control-path send)
//   comch_ctx::write_send        disconnect,after=N and hang,after=N count the sends that reach
//                                the peer's queue; sends after a drop wait, then fail
//   comch_ctx::service_connection  hang (not served), delay (the oldest message stays in the
//                                ring until it is due)
//   comch_ctx::tick_connection   disconnect,at=T and hang,at=T / for=T; no heartbeat while hung
//   comch_ctx::arm_connection    timers of the faults above, so that epoll programs wake for them
//   doca_comch_producer::submit  submit-again, kill-channel (fault_submit_again, fault_kill_*)
//   doca_comch_consumer::submit  submit-again; doca_comch_consumer::do_start: consumer-start-fail
//
// The comch_ctx hooks are members of comch_ctx, defined in fault_hooks.cpp.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <deque>
#include <utility>

#include "comch/faults.hpp"

struct doca_comch_connection;

namespace softcomch::comch {

// The faults of one connection and what the hooks keep about them.
struct connection_fault_state {
    connection_fault_state(const fault_plan &plan, const fault_scope &scope, uint64_t up_ns)
        : faults(plan, scope, up_ns)
    {}

    connection_faults faults; // thread-safe (producers and consumers ask from their threads)
    // The rest belongs to the connection's engine thread.
    bool dropped = false;       // a fault dropped it: sends wait for the end, then fail
    bool hung = false;          // hang: not served, its handles out of the epoll set
    uint64_t held_until_ns = 0; // delay: the oldest received message waits until then (now_ns)
    // delay: when the receive queue's count of arrived messages was seen to reach each value
    // (now_ns), oldest first; a message's delay counts from the first sample that includes it.
    std::deque<std::pair<uint64_t, uint64_t>> arrivals;
};

// A doca_task_submit of a producer send or a consumer post-receive on `conn` (any thread): true
// when it must return DOCA_ERROR_AGAIN.
bool fault_submit_again(doca_comch_connection &conn) noexcept;
// A consumer's doca_ctx_start on `conn`: DOCA_SUCCESS or the code it fails with.
doca_error_t fault_consumer_start(doca_comch_connection &conn) noexcept;
// A producer send on `conn` claimed its buffer: true when this send must kill the connection.
bool fault_kill_channel(doca_comch_connection &conn) noexcept;
// Kills `conn` from a producer's thread: the peer's consumers expire for this side's producers
// at once (later sends fail with DOCA_ERROR_NOT_FOUND, as after the peer's death), and the link
// is dropped (transport::link::drop), so both sides see the connection die.
void fault_kill_connection(doca_comch_connection &conn) noexcept;

} // namespace softcomch::comch
