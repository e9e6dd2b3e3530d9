// SPDX-License-Identifier: Apache-2.0
//
// What a Comch server and a Comch client have in common: configuration (max message size,
// receive queue size), the send-task pool, the receive and consumer callbacks, and the data path
// of their connections (send, receive, drain, close).
#pragma once

#include <doca_comch.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "comch/connection.hpp"
#include "comch/faults.hpp"
#include "comch/live_stats.hpp"
#include "common/visibility.hpp"
#include "core/ctx.hpp"
#include "core/device.hpp"
#include "core/task.hpp"
#include "transport/transport.hpp"

struct doca_comch_connection;

// The control-path send task.
struct doca_comch_task_send : doca_task {
    static constexpr softcomch::core::task_kind k_kind = softcomch::core::task_kind::comch_send;
    explicit doca_comch_task_send(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}
    // The connection's handle (comch/connection_handle.hpp), resolved when the task is used: a
    // task outlives its connection (the program may keep and resubmit it).
    doca_comch_connection *conn_ = nullptr;
    const void *msg_ = nullptr;
    uint32_t len_ = 0;
    // What is written to the ring: msg_, or, once the send had to wait for ring space, the
    // task's own copy of it. DOCA documents that the message must stay unchanged until the
    // send completes, but NVIDIA's file_compression frees its buffer right after submitting:
    // on hardware the message leaves with the submission. Copying only what has to wait keeps
    // the usual send a single copy into the ring (docs/design.md, "Fidelity decisions").
    const void *payload() const noexcept { return held_ ? copy_.get() : msg_; }
    // Takes the copy (reusing the task's buffer); false if memory ran out (msg_ is then used).
    bool hold() noexcept
    {
        if (copy_cap_ < len_) {
            copy_.reset(new (std::nothrow) uint8_t[len_]);
            copy_cap_ = copy_ ? len_ : 0;
        }
        if (!copy_)
            return false;
        std::memcpy(copy_.get(), msg_, len_);
        held_ = true;
        return true;
    }
    std::unique_ptr<uint8_t[]> copy_;
    uint32_t copy_cap_ = 0;
    bool held_ = false;
};

// Event objects handed to callbacks. DOCA passes an event handle the program never
// dereferences; one per context is enough.
struct doca_comch_event_msg_recv {
    int unused;
};
struct doca_comch_event_connection_status_changed {
    int unused;
};
struct doca_comch_event_consumer {
    int unused;
};

namespace softcomch::comch {

// Status of sends that can no longer be delivered because the connection went away.
constexpr doca_error_t k_status_connection_lost = DOCA_ERROR_CONNECTION_ABORTED;

// SOFTCOMCH_API on the class: UBSan's vptr check (make asan) in the C API compares the dynamic
// type of the server or client it calls a comch_ctx member of with this class's typeinfo.
class SOFTCOMCH_API comch_ctx : public doca_ctx {
public:
    comch_ctx(const char *kind, doca_dev *dev, std::string name);
    ~comch_ctx() override;

    // ---- configuration (IDLE only; checked here) ----
    SOFTCOMCH_API doca_error_t set_max_msg_size(uint32_t size, const char *func);
    SOFTCOMCH_API doca_error_t set_recv_queue_size(uint32_t size, const char *func);
    SOFTCOMCH_API doca_error_t task_send_set_conf(doca_comch_task_send_completion_cb_t ok,
                                                  doca_comch_task_send_completion_cb_t err,
                                                  uint32_t num, const char *func);
    SOFTCOMCH_API doca_error_t event_msg_recv_register(doca_comch_event_msg_recv_cb_t cb,
                                                       const char *func);
    SOFTCOMCH_API doca_error_t event_consumer_register(doca_comch_event_consumer_cb_t new_cb,
                                                       doca_comch_event_consumer_cb_t expired_cb,
                                                       const char *func);
    uint32_t max_msg_size() const noexcept { return max_msg_size_; }
    uint32_t recv_queue_size() const noexcept { return recv_queue_size_; }
    doca_dev *dev() const noexcept { return dev_; }
    // The device's Comch capabilities (the caps of every configuration check).
    const softcomch::core::comch_caps &caps() const noexcept { return dev_->info()->comch(); }
    const std::string &name() const noexcept { return name_; }

    // ---- data path ----
    // `conn` nullptr: a connection that closed and was freed (NOT_CONNECTED).
    SOFTCOMCH_API doca_error_t task_send_alloc_init(doca_comch_connection *conn, const void *msg,
                                                    uint32_t len, doca_comch_task_send **task,
                                                    const char *func);

    // doca_ctx hooks shared by server and client
    doca_error_t submit(doca_task *task) override;
    doca_error_t validate(const doca_task *task) const override;
    void free_task(doca_task *task) override;
    void abandon(doca_task *task) noexcept override;
    void disarm() override;

    // Does `conn` belong to this context?
    virtual bool owns(const doca_comch_connection *conn) const noexcept = 0;

    // The slow-path tick (doca_ctx::tick): heartbeats, the peer's liveness, stop linger.
    void tick(uint64_t now_ns) noexcept override;
    // Publishes the state for softcomch top (comch/live_stats.hpp).
    void state_changed(doca_ctx_states next) noexcept override;

protected:
    // The bounds of the current start (docs/failure-model.md, "Bounds"), in ns or counts.
    struct bound_values {
        uint64_t handshake_ns = 0;   // SOFTCOMCH_HANDSHAKE_TIMEOUT_MS
        uint64_t max_handshakes = 0; // SOFTCOMCH_MAX_HANDSHAKES
        uint64_t linger_ns = 0;      // SOFTCOMCH_STOP_LINGER_MS
        uint64_t stall_ns = 0;       // SOFTCOMCH_PEER_STALL_MS (0: not reported)
        uint64_t timeout_ns = 0;     // SOFTCOMCH_PEER_TIMEOUT_MS (0: never disconnected)
        uint64_t diag_ns = 0;        // SOFTCOMCH_DIAG_DELAY_MS (0: no diagnostics)
    };
    // Reads the knobs (at start): DOCA_ERROR_BAD_CONFIG and a line for a value that is not one.
    doca_error_t load_bounds();
    // Reads SOFTCOMCH_FAULTS (at start, beside the bounds; comch/fault_hooks.cpp):
    // DOCA_ERROR_BAD_CONFIG and a line naming the rule and the problem for a bad value.
    doca_error_t load_faults();
    // A new connection (accepted, or connected): its number in this process, and the faults of
    // the plan that match it (`side`: "dpu" for a server, "host" for a client).
    void attach_faults(doca_comch_connection *conn, const char *side);
    // Ticks of this context: every connection's heartbeat and liveness, at most this often.
    static constexpr uint64_t k_tick_interval_ns = 10'000'000; // 10 ms
    // Whether this tick is due (throttles tick() to k_tick_interval_ns).
    bool tick_due(uint64_t now_ns) noexcept;
    // A due tick of the concrete context: every connection it has (tick_connection), and its
    // own timers (a server's handshake deadlines).
    virtual void on_tick(uint64_t now_ns) noexcept = 0;
    // A parked connection has work (a handle fired, a send was queued): poll it again. Only a
    // server parks connections.
    virtual void unpark(doca_comch_connection *conn) noexcept { (void)conn; }
    // One connection's tick: our heartbeat, the peer's, the linger of a closing connection.
    void tick_connection(doca_comch_connection *conn, uint64_t now_ns) noexcept;
    // Starts the local close of an open connection (stop): the sends still queued drain, for
    // at most the linger, then the disconnect notice goes.
    void begin_close(doca_comch_connection *conn) noexcept;
    // A new connection's first heartbeat, so that the peer judges it from its first tick.
    void first_beat(doca_comch_connection *conn) noexcept;
    // Logs why `conn`, closing, gave up on its peer (linger over), then aborts it.
    void abort_lingering(doca_comch_connection *conn, const char *peer_kind);

    // What this side asks of a connection, with the caps that bound what the peer may ask of
    // it (receive queue, consumers and their tasks: docs/failure-model.md, "Peer input").
    softcomch::transport::link_params link_params() const noexcept;
    // Registers a new connection's link with the engine.
    doca_error_t register_connection(doca_comch_connection *conn);
    // Reads the link's slow channel (consumer announce/ack/expire, the peer's death), delivers
    // received messages, flushes pending sends. Returns work done. Sets `ended` when the peer
    // closed or died and the connection has been fully drained. (Inline: the poll calls the
    // ordinary instantiation directly, as it called this function before the fault hooks.)
    unsigned service_connection(doca_comch_connection *conn, bool &ended);
    // Local close: after pending sends drained, sends the disconnect notice. Returns true when
    // the connection is closed (false: still draining).
    bool close_connection(doca_comch_connection *conn);
    // The checks for a sleeping peer that the sends since the last call put off
    // (transport::link::commit_deferred): every poll starts with them, and every notification
    // request, so a peer that armed while a send was being committed is woken no later than
    // this side's next doca_pe_progress or doca_pe_request_notification (docs/design.md,
    // "One barrier per burst").
    void settle_sends() noexcept
    {
        if (!unsettled_.empty())
            settle_all();
    }
    // Adds one connection's answer to a notification request.
    void arm_connection(doca_comch_connection *conn, softcomch::core::arm_result &r) noexcept;
    // Closes at once: pending sends fail with `status`, descriptors are released.
    void abort_connection(doca_comch_connection *conn, doca_error_t status);
    // IN_USE, with a line naming `func` and the children, while consumers or producers exist on
    // `conn`: the connection may not be freed under them (they refer to it).
    SOFTCOMCH_API doca_error_t refuse_children(const char *func,
                                               const doca_comch_connection &conn) const;

    doca_dev *dev_;
    std::string name_;
    uint32_t max_msg_size_;
    uint32_t recv_queue_size_;
    doca_comch_event_msg_recv_cb_t recv_cb_ = nullptr;
    doca_comch_event_consumer_cb_t new_consumer_cb_ = nullptr;
    doca_comch_event_consumer_cb_t expired_consumer_cb_ = nullptr;
    softcomch::core::task_set<doca_comch_task_send> send_pool_;
    doca_comch_event_msg_recv recv_event_{};
    doca_comch_event_consumer consumer_event_{};
    bound_values bounds_;
    uint64_t next_tick_ns_ = 0;
    ctx_publication published_;               // this context in softcomch top
    softcomch::comch::fault_plan fault_plan_; // SOFTCOMCH_FAULTS of the current start

private:
    // What the link's slow channel reports, for one connection.
    struct link_events;

    void handle_announce(doca_comch_connection *conn, uint32_t id,
                         std::unique_ptr<softcomch::transport::remote_consumer> consumer,
                         doca_error_t status);
    void handle_expire(doca_comch_connection *conn, uint32_t id);
    // The connection ended: the peer's consumers expire, ours lose their peer.
    void end_fast_path(doca_comch_connection *conn) noexcept;
    // The data path, instantiated twice: `Faults` for the connections a SOFTCOMCH_FAULTS rule
    // matches (the hooks of comch/fault_hooks.hpp), without for all others, so that an ordinary
    // connection pays one branch on doca_comch_connection::faults_on_ per call.
    template <bool Faults>
    [[gnu::always_inline]] inline doca_error_t submit_send(doca_comch_connection *conn,
                                                           doca_task *t);
    // Writes one send into the ring (the caller completes the task); false if there is no room.
    template <bool Faults>
    [[gnu::always_inline]] inline bool write_send(doca_comch_connection *conn,
                                                  doca_comch_task_send *task) noexcept;
    template <bool Faults> unsigned flush_pending(doca_comch_connection *conn) noexcept;
    template <bool Faults> unsigned serve(doca_comch_connection *conn, bool &ended);
    // The Faults instantiations' entries: out of line and cold, so that the ordinary path keeps
    // its shape (inlined as before the hooks existed).
    [[gnu::cold, gnu::noinline]] doca_error_t submit_with_faults(doca_comch_connection *conn,
                                                                 doca_task *t);
    [[gnu::cold, gnu::noinline]] unsigned serve_with_faults(doca_comch_connection *conn,
                                                            bool &ended);
    void unregister_connection(doca_comch_connection *conn) noexcept;
    // settle_sends() with work to do; a connection that owes a check (out of line: once per
    // burst, not per send).
    void settle_all() noexcept;
    void owe_settle(doca_comch_connection *conn) noexcept;
    // The handles of the connections that owe a check. Bounded: when it is full, everything is
    // settled at once (early is always correct), so it never grows past its reservation.
    std::vector<doca_comch_connection *> unsettled_;
    // The connection serve() is delivering to, and its link if a callback ended it meanwhile
    // (freed when serve() returns: serve() is still using it).
    doca_comch_connection *serving_ = nullptr;
    std::unique_ptr<softcomch::transport::link> retired_link_;
    static constexpr size_t k_unsettled_max = 64;

    // ---- the hooks of faults on demand (comch/fault_hooks.cpp) ----
    // A send reached the peer's queue: disconnect,after=N and hang,after=N.
    void fault_sent(doca_comch_connection *conn) noexcept;
    // delay: whether the oldest received message is due (false: it stays in the ring).
    bool fault_due(doca_comch_connection *conn);
    // The connection's tick: time-triggered faults. True while it is hung (no heartbeat).
    bool fault_tick(doca_comch_connection *conn, uint64_t now_ns) noexcept;
    // Notification request: the faults' timers. True when that is the connection's whole
    // answer (hung, or a message held), false when the usual arm follows.
    bool fault_arm(doca_comch_connection *conn, softcomch::core::arm_result &r) noexcept;
    // Drops the connection as if this process had died (the sends after it wait for the end
    // and fail with it).
    void fault_drop(doca_comch_connection *conn) noexcept;
    // Starts or ends a hang as the faults say at `now_ns`.
    void update_hang(doca_comch_connection *conn, uint64_t now_ns) noexcept;
};

inline unsigned comch_ctx::service_connection(doca_comch_connection *conn, bool &ended)
{
    if (conn->faults_on_) [[unlikely]]
        return serve_with_faults(conn, ended);
    return serve<false>(conn, ended);
}

} // namespace softcomch::comch
