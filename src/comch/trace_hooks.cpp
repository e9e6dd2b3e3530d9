// SPDX-License-Identifier: Apache-2.0
#include "comch/trace_hooks.hpp"

#include <cstdio>
#include <string>

#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "comch/consumer.hpp"
#include "comch/producer.hpp"
#include "comch/server.hpp"
#include "common/error_names.hpp"
#include "common/trace.hpp"

namespace softcomch::comch::tracing {

namespace trace = softcomch::trace;

namespace {

uint64_t conn_id(const doca_comch_connection &conn) noexcept
{
    return conn.link_ ? conn.link_->id() : 0;
}

int peer_pid(const doca_comch_connection &conn) noexcept
{
    return conn.link_ ? conn.link_->peer_pid() : 0;
}

// Why a connection ends, as its fields say just before its link goes.
const char *end_reason(const doca_comch_connection &conn) noexcept
{
    if (!conn.link_)
        return "closed";
    if (conn.link_->violation())
        return "protocol violation";
    if (conn.peer_closed_)
        return "peer disconnected";
    if (conn.peer_timed_out_ && !conn.link_->peer_gone())
        return "peer timed out";
    if (conn.link_->peer_gone())
        return "peer gone";
    return "closed by this side";
}

void label_fast(const void *ctx, const char *kind, uint32_t id,
                const doca_comch_connection &conn) noexcept
{
    char text[64];
    std::snprintf(text, sizeof text, "%s %u (conn %llu)", kind, id,
                  (unsigned long long)conn_id(conn));
    trace::label(ctx, text);
}

// A step of a consumer's announce handshake on `conn`, with its outcome.
void consumer_status(const char *what, const doca_comch_connection &conn, uint32_t id,
                     doca_error_t status) noexcept
{
    trace::event('i', "comch", what)
        .arg("conn", conn_id(conn))
        .arg("consumer", id)
        .arg("status", softcomch::error_name(status))
        .emit();
}

} // namespace

void starting(const comch_ctx &ctx, bool server) noexcept
{
    if (!trace::on())
        return;
    const char *role = server ? "server" : "client";
    trace::name_process(server ? "DPU" : "host", role, ctx.name());
    try {
        trace::label(&static_cast<const doca_ctx &>(ctx),
                     std::string(role) + " '" + ctx.name() + "'");
    } catch (...) {
    }
}

void starting(const doca_comch_consumer &c) noexcept
{
    if (trace::on())
        label_fast(&static_cast<const doca_ctx &>(c), "consumer", c.id(), *c.connection());
}

void starting(const doca_comch_producer &p) noexcept
{
    if (trace::on())
        label_fast(&static_cast<const doca_ctx &>(p), "producer", p.id(), *p.connection());
}

void connected(const comch_ctx &ctx, const doca_comch_connection &conn) noexcept
{
    trace::event('i', "comch", "connect")
        .arg("conn", conn_id(conn))
        .arg("peer_pid", peer_pid(conn))
        .arg(ctx.as<doca_comch_server>() ? "server" : "client", ctx.name())
        .arg("max_msg_size", conn.link_ ? conn.link_->max_msg_size() : 0u)
        .emit();
}

void disconnected(const comch_ctx &ctx, const doca_comch_connection &conn,
                  doca_error_t status) noexcept
{
    trace::event e('i', "comch", "disconnect");
    e.arg("conn", conn_id(conn))
        .arg("peer_pid", peer_pid(conn))
        .arg(ctx.as<doca_comch_server>() ? "server" : "client", ctx.name())
        .arg("reason", end_reason(conn));
    if (!conn.pending_.empty()) // they fail with `status`
        e.arg("queued_sends", uint64_t(conn.pending_.size()))
            .arg("queued_status", softcomch::error_name(status));
    e.emit();
}

void send_submitted(const doca_comch_connection &conn, const doca_task &task, uint32_t len) noexcept
{
    trace::task_begin(&task, "send", conn_id(conn), len);
}

void received(const doca_comch_connection &conn, uint32_t len) noexcept
{
    if (!trace::on() || !trace::take_budget())
        return;
    trace::event('i', "comch", "recv").arg("conn", conn_id(conn)).arg("len", len).emit();
}

void consumer_announced(const doca_comch_connection &conn, uint32_t id,
                        doca_error_t status) noexcept
{
    consumer_status("consumer announced", conn, id, status);
}

void consumer_acknowledged(const doca_comch_connection &conn, uint32_t id,
                           doca_error_t status) noexcept
{
    consumer_status("consumer acknowledged", conn, id, status);
}

void consumer_expired(const doca_comch_connection &conn, uint32_t id) noexcept
{
    trace::event('i', "comch", "consumer expired")
        .arg("conn", conn_id(conn))
        .arg("consumer", id)
        .emit();
}

} // namespace softcomch::comch::tracing
