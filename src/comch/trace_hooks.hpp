// SPDX-License-Identifier: Apache-2.0
//
// What Comch records in a trace (SOFTCOMCH_TRACE; common/trace.hpp, docs/trace.md): the event
// sites of src/comch call these behind SC_TRACE, one line each, so that tracing costs one branch
// when off. Each builds its event from the Comch objects; the recorder writes it.
#pragma once

#include <doca_error.h>

#include <cstdint>

struct doca_comch_connection;
struct doca_comch_consumer;
struct doca_comch_producer;
struct doca_task;

namespace softcomch::comch {
class comch_ctx;
}

namespace softcomch::comch::tracing {

// A server ("DPU") or client ("host") starts: names the process after its first role and labels
// the context's state spans "server 'x'" / "client 'x'".
void starting(const comch_ctx &ctx, bool server) noexcept;
// A consumer or producer starts: labels its state spans "consumer 3 (conn 1)".
void starting(const doca_comch_consumer &c) noexcept;
void starting(const doca_comch_producer &p) noexcept;

// The connection is established (server: handshake accepted; client: answer received).
void connected(const comch_ctx &ctx, const doca_comch_connection &conn) noexcept;
// The connection ends (before its link goes), with why: the peer's notice, its death, a timeout,
// a protocol violation, or this side's own close; `status` is what the sends still queued get.
void disconnected(const comch_ctx &ctx, const doca_comch_connection &conn,
                  doca_error_t status) noexcept;

// A control-path send is submitted (the span ends when its completion is delivered).
void send_submitted(const doca_comch_connection &conn, const doca_task &task,
                    uint32_t len) noexcept;
// A message is delivered to the receive callback.
void received(const doca_comch_connection &conn, uint32_t len) noexcept;

// The peer announced one of its consumers to this side (status: how this side answered), one of
// ours was acknowledged by the peer, or the peer's consumer expired.
void consumer_announced(const doca_comch_connection &conn, uint32_t id,
                        doca_error_t status) noexcept;
void consumer_acknowledged(const doca_comch_connection &conn, uint32_t id,
                           doca_error_t status) noexcept;
void consumer_expired(const doca_comch_connection &conn, uint32_t id) noexcept;

} // namespace softcomch::comch::tracing
