// SPDX-License-Identifier: Apache-2.0
//
// One Comch connection as the program sees it (struct doca_comch_connection): the link to the
// peer, the per-connection user data and counters, and the send tasks waiting for ring space.
#pragma once

#include <doca_comch.h>

#include <cstdint>
#include <memory>

#include "common/intrusive_fifo.hpp"
#include "comch/fastpath.hpp"
#include "common/object_tag.hpp"
#include "core/pe.hpp"
#include "core/task.hpp"
#include "transport/link.hpp"

namespace softcomch::comch {
class comch_ctx;
}

struct doca_comch_connection {
    enum class state : uint8_t {
        open,    // established, messages flow both ways
        closing, // local side is closing: pending sends drain, then the disconnect notice goes
        closed,  // no traffic; kept until the owner reaches IDLE so stale handles are detected
    };

    doca_comch_connection(softcomch::comch::comch_ctx *owner,
                          std::unique_ptr<softcomch::transport::link> l);
    ~doca_comch_connection();
    doca_comch_connection(const doca_comch_connection &) = delete;
    doca_comch_connection &operator=(const doca_comch_connection &) = delete;

    softcomch::object_tag tag_{softcomch::object_kind::connection};
    softcomch::comch::comch_ctx *owner_;
    std::unique_ptr<softcomch::transport::link> link_;
    state state_ = state::open;
    union doca_data user_data_ {};
    softcomch::intrusive_fifo<doca_task> pending_; // submitted, waiting for space in the peer ring
    bool peer_gone_ = false;   // liveness socket hung up (peer process died or closed)
    bool peer_closed_ = false; // the peer sent its disconnect notice
    bool events_registered_ = false;
    softcomch::comch::fast_registry fast_; // producers/consumers on this connection

    struct counters {
        uint64_t sent_messages = 0;
        uint64_t sent_bytes = 0;
        uint64_t recv_messages = 0;
        uint64_t recv_bytes = 0;
    };
    counters live_;
    counters snapshot_;

    // Descriptor watchers (run inside the progress engine's slow path; they only record).
    struct socket_watcher final : softcomch::core::fd_watcher {
        doca_comch_connection *conn;
        void on_ready(uint32_t events) override;
    } socket_watcher_;
    struct event_watcher final : softcomch::core::fd_watcher {
        doca_comch_connection *conn;
        void on_ready(uint32_t events) override;
    } event_watcher_;
    bool socket_ready_ = false;

    bool is_open() const noexcept { return state_ == state::open; }
};
