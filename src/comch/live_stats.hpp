// SPDX-License-Identifier: Apache-2.0
//
// What a Comch server, client and connection publish of themselves for `softcomch top`
// (common/live_layout.hpp; the file and its slots: transport/live_publisher.hpp). A context
// claims its slot when it starts (in the fabric of that start) and keeps it until it is
// destroyed; a connection claims one when it is set up and gives it back when it closes.
//
// The data path's part is conn_publication::sent() and received(): two relaxed stores into the
// connection's own line of the mapped file (or of a private line when the connection found no
// slot), no system call, no lock, no branch. The rest runs on the slow path: the state changes
// and the engine's tick (comch_ctx::tick, about every 10 ms of progress).
#pragma once

#include <doca_ctx.h>

#include <atomic>
#include <cstdint>

#include "common/live_layout.hpp"
#include "transport/live_publisher.hpp"

struct doca_comch_connection;

namespace softcomch::comch {

class comch_ctx;

class ctx_publication {
public:
    ctx_publication() noexcept; // numbers the context (1, 2, ... in this process)
    ctx_publication(const ctx_publication &) = delete;
    ctx_publication &operator=(const ctx_publication &) = delete;

    // `ctx` entered `next`. Entering STARTING or RUNNING claims the slot, in the fabric this
    // start used (moving it when an earlier start used another); every state is published.
    void state_changed(const comch_ctx &ctx, doca_ctx_states next) noexcept;
    // The context's tick ran (it progresses).
    void tick(uint64_t now_ns) noexcept
    {
        if (live::context_slot *s = slot_.get())
            s->last_tick_ns.store(now_ns, std::memory_order_relaxed);
    }
    const transport::live_context_slot &slot() const noexcept { return slot_; }

private:
    const uint32_t id_;
    transport::live_context_slot slot_;
};

class conn_publication {
public:
    conn_publication() noexcept = default;
    conn_publication(const conn_publication &) = delete;
    conn_publication &operator=(const conn_publication &) = delete;

    // The connection is set up (its link is there): claims its slot beside its context's.
    void open(const ctx_publication &ctx, const doca_comch_connection &conn) noexcept;
    // The connection closed: gives the slot back.
    void close() noexcept;

    // ---- data path: the connection's counters after a send or a receive ----
    void sent(uint64_t messages, uint64_t bytes) noexcept
    {
        counters_->sent_messages.store(messages, std::memory_order_relaxed);
        counters_->sent_bytes.store(bytes, std::memory_order_relaxed);
    }
    void received(uint64_t messages, uint64_t bytes) noexcept
    {
        counters_->recv_messages.store(messages, std::memory_order_relaxed);
        counters_->recv_bytes.store(bytes, std::memory_order_relaxed);
    }

    // The connection's tick: state, queue depths, consumers and producers, the peer's liveness.
    void tick(doca_comch_connection &conn, uint64_t now_ns) noexcept;

private:
    live::connection_counters *counters_ = &fallback_;
    live::connection_counters fallback_{}; // where the counters go without a slot
    transport::live_connection_slot slot_;
};

} // namespace softcomch::comch
