// SPDX-License-Identifier: Apache-2.0
//
// One Comch connection (struct doca_comch_connection): the link to the peer, the per-connection
// user data and counters, and the send tasks waiting for ring space. The program never sees the
// object's address: it gets handle(), a generation-tagged handle (comch/connection_handle.hpp)
// that the C API resolves, so the object can be freed once the connection closed (its owner
// reclaims it when no consumer or producer refers to it) while stale handles are refused.
#pragma once

#include <doca_comch.h>

#include <cstdint>
#include <memory>

#include "comch/fastpath.hpp"
#include "comch/live_stats.hpp"
#include "comch/watch.hpp"
#include "common/intrusive_fifo.hpp"
#include "common/object_tag.hpp"
#include "common/visibility.hpp"
#include "core/task.hpp"
#include "transport/transport.hpp"

namespace softcomch::comch {
class comch_ctx;
struct connection_fault_state;
} // namespace softcomch::comch

struct doca_comch_connection {
    enum class state : uint8_t {
        open,    // established, messages flow both ways
        closing, // local side is closing: pending sends drain, then the disconnect notice goes
        closed,  // no traffic; freed by its owner once no consumer or producer refers to it
    };

    doca_comch_connection(softcomch::comch::comch_ctx *owner,
                          std::unique_ptr<softcomch::transport::link> l);
    ~doca_comch_connection();
    doca_comch_connection(const doca_comch_connection &) = delete;
    doca_comch_connection &operator=(const doca_comch_connection &) = delete;

    softcomch::object_tag tag_{softcomch::object_kind::connection};
    // The program's name for this connection; nullptr when no handle was left (the owner then
    // drops the connection at once).
    doca_comch_connection *const handle_;
    softcomch::comch::comch_ctx *owner_;
    std::unique_ptr<softcomch::transport::link> link_;
    state state_ = state::open;
    // A SOFTCOMCH_FAULTS rule matches this connection (faults_ below is set): the one flag the
    // data path tests, beside state_, which every path reads anyway (comch/fault_hooks.hpp).
    // Set before the connection is published and never changed.
    bool faults_on_ = false;
    // Parking (server only; doca_comch_server::park_idle, docs/design.md "Idle connections cost
    // nothing"): not polled until its bell rings, a handle fires or work is queued on it.
    bool parked_ = false;
    // A poll since the last tick found work on it (false for a whole tick: it may be parked).
    bool worked_ = true;
    uint32_t bell_ = 0xffffffffu; // its link's bell (kept: the link goes before the connection)
    // A send was committed with the check for a sleeping peer put off: the connection is on its
    // owner's unsettled list (comch_ctx::settle_sends).
    bool unsettled_ = false;
    union doca_data user_data_ {};
    softcomch::intrusive_fifo<doca_task> pending_; // submitted, waiting for space in the peer ring
    bool peer_closed_ = false;                     // the peer sent its disconnect notice
    bool peer_timed_out_ = false; // stalled past SOFTCOMCH_PEER_TIMEOUT_MS (comch_ctx::tick)
    softcomch::comch::fast_registry fast_; // producers/consumers on this connection

    struct counters {
        uint64_t sent_messages = 0;
        uint64_t sent_bytes = 0;
        uint64_t recv_messages = 0;
        uint64_t recv_bytes = 0;
    };
    counters live_;
    counters snapshot_;
    softcomch::comch::conn_publication published_; // live_ for softcomch top (live_stats.hpp)

    // The link's handles in the engine's epoll set (declared after link_: removed before the
    // link goes). The link records what they say (transport::link::slow_pending, peer_gone).
    softcomch::comch::watch_set watch_;
    // Bounds and liveness (comch_ctx::tick_connection; docs/failure-model.md, "Bounds"), after
    // the fields the data path reads.
    uint64_t linger_deadline_ns_ = 0; // closing: when the sends still queued are given up
    uint64_t peer_seen_ns_ = 0;       // last tick that saw the peer progressing or asleep
    bool peer_asleep_ = false;        // that tick saw it asleep (waiting for our next write)
    bool linger_over_ = false;        // closing for longer than the stop's linger
    bool peer_stalled_ = false;       // the peer was reported stalled and has not resumed
    // Faults on demand (only when faults_on_), last: out of the data path's lines.
    std::unique_ptr<softcomch::comch::connection_fault_state> faults_;

    bool is_open() const noexcept { return state_ == state::open; }
    doca_comch_connection *handle() const noexcept { return handle_; }
    // Consumers and producers created on this connection and not destroyed yet (they refer to
    // it: the connection is not freed before they are gone).
    uint32_t children() const noexcept { return fast_.consumers.count() + fast_.producers.count(); }
    // A closed connection nothing refers to any more: its owner may free it.
    bool reclaimable() const noexcept { return state_ == state::closed && children() == 0; }
    // Producers and consumers are created only on an open connection of a RUNNING context:
    // BAD_STATE otherwise (`conn` nullptr: a connection closed and freed since), with a line
    // naming `func`.
    static doca_error_t require_established(const doca_comch_connection *conn,
                                            const char *func) noexcept;

    union doca_data user_data() const noexcept { return user_data_; }
    void set_user_data(union doca_data d) noexcept { user_data_ = d; }
    // doca_comch_connection_update_info: the counters doca_comch_connection_get_counter reports
    // become the live ones. CONNECTION_ABORTED (logged, naming `func`) once the connection closed
    // (`conn` nullptr: closed and freed since).
    SOFTCOMCH_API static doca_error_t update_info(doca_comch_connection *conn,
                                                  const char *func) noexcept;
    // The counters as of the last update_info.
    const counters &reported_counters() const noexcept { return snapshot_; }
};
