// SPDX-License-Identifier: Apache-2.0
#include "comch/live_stats.hpp"

#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "comch/server.hpp"
#include "core/device.hpp"
#include "transport/fabric.hpp"

namespace softcomch::comch {

namespace {

std::atomic<uint32_t> next_context_id{1};

transport::live_context_identity identity_of(const comch_ctx &ctx, doca_ctx_states state,
                                             uint32_t id)
{
    transport::live_context_identity i;
    i.id = id;
    i.name = ctx.name();
    i.bluefield = ctx.dev()->info()->bluefield_id();
    i.device = ctx.dev()->info()->pci_addr();
    i.max_msg_size = ctx.max_msg_size();
    i.recv_queue_size = ctx.recv_queue_size();
    i.state = uint32_t(state);
    if (const auto *srv = ctx.as<doca_comch_server>()) {
        i.kind = live::k_kind_server;
        i.host_function = srv->rep()->info()->pci_addr();
        i.representor = srv->rep()->info()->name();
    } else {
        i.kind = live::k_kind_client;
        i.host_function = i.device;
    }
    return i;
}

} // namespace

ctx_publication::ctx_publication() noexcept
    : id_(next_context_id.fetch_add(1, std::memory_order_relaxed))
{}

void ctx_publication::state_changed(const comch_ctx &ctx, doca_ctx_states next) noexcept
{
    try {
        if (next == DOCA_CTX_STATE_STARTING || next == DOCA_CTX_STATE_RUNNING) {
            const std::string fabric = transport::fabric_name();
            if (!slot_.get() || slot_.fabric() != fabric) {
                (void)slot_.claim(fabric, identity_of(ctx, next, id_));
                return;
            }
            // Restarted in the same fabric: its configuration may have changed while IDLE.
            slot_.get()->max_msg_size.store(ctx.max_msg_size(), std::memory_order_relaxed);
            slot_.get()->recv_queue_size.store(ctx.recv_queue_size(), std::memory_order_relaxed);
        }
    } catch (...) { // the fabric name's or the identity's allocation: not published
        return;
    }
    if (live::context_slot *s = slot_.get())
        s->state.store(uint32_t(next), std::memory_order_relaxed);
}

void conn_publication::open(const ctx_publication &ctx, const doca_comch_connection &conn) noexcept
{
    if (!ctx.slot().get() || !conn.link_)
        return;
    transport::live_connection_identity id;
    id.connection_id = conn.link_->id();
    id.peer_pid = conn.link_->peer_pid();
    id.max_msg_size = conn.link_->max_msg_size();
    const transport::link::queue_depths d = conn.link_->depths();
    id.send_ring_limit = d.send_limit;
    id.recv_ring_limit = d.recv_limit;
    if (!slot_.claim(ctx.slot(), id))
        return;
    counters_ = &slot_.get()->counters;
    // Whatever flowed before the claim (nothing, today: the claim follows the handshake).
    sent(conn.live_.sent_messages, conn.live_.sent_bytes);
    received(conn.live_.recv_messages, conn.live_.recv_bytes);
}

void conn_publication::close() noexcept
{
    counters_ = &fallback_;
    slot_.release();
}

void conn_publication::tick(doca_comch_connection &conn, uint64_t now_ns) noexcept
{
    live::connection_slot *s = slot_.get();
    if (!s || !conn.link_)
        return;
    constexpr auto relaxed = std::memory_order_relaxed;
    s->state.store(conn.state_ == doca_comch_connection::state::closing ? live::k_conn_closing
                                                                        : live::k_conn_open,
                   relaxed);
    uint32_t flags = 0;
    if (conn.peer_stalled_)
        flags |= live::k_flag_peer_stalled;
    if (conn.peer_asleep_)
        flags |= live::k_flag_peer_asleep;
    if (conn.peer_closed_ || conn.link_->peer_gone())
        flags |= live::k_flag_peer_gone;
    s->flags.store(flags, relaxed);
    const uint64_t silent_ns =
        conn.peer_stalled_ && now_ns > conn.peer_seen_ns_ ? now_ns - conn.peer_seen_ns_ : 0;
    s->peer_silent_ms.store(uint32_t(silent_ns / 1'000'000), relaxed);
    s->send_queued.store(uint32_t(conn.pending_.size()), relaxed);
    const transport::link::queue_depths d = conn.link_->depths();
    s->send_ring.store(d.send_in_flight, relaxed);
    s->recv_ring.store(d.recv_waiting, relaxed);
    s->consumers.store(conn.fast_.consumers.count(), relaxed);
    s->producers.store(conn.fast_.producers.count(), relaxed);
}

} // namespace softcomch::comch
