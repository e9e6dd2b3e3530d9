// SPDX-License-Identifier: Apache-2.0
#include "comch/comch_ctx.hpp"

#include <cstring>

#include "comch/connection.hpp"
#include "comch/connection_handle.hpp"
#include "comch/consumer.hpp"
#include "comch/fault_hooks.hpp"
#include "comch/trace_hooks.hpp"
#include "common/bounds.hpp"
#include "common/clock.hpp"
#include "common/error_names.hpp"
#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/device.hpp"
#include "core/pe.hpp"
#include "transport/registry.hpp"

namespace softcomch::comch {

namespace transport = softcomch::transport;

namespace {
// Messages delivered per connection per progress call: keeps one busy connection from starving
// the others while amortising the per-call overhead.
constexpr unsigned k_recv_budget = 64;
// While sends wait for ring space, notifications also fire on this period so the sends retry
// (the peer does not signal when it frees space).
constexpr uint64_t k_pending_retry_ns = 1'000'000;
// What the line about a stalled peer tells the user to do (comch/diagnostics.hpp).
constexpr const char *k_stall_advice =
    "; messages to it wait until it progresses: unless it is in a debugger, its program must keep "
    "calling doca_pe_progress on the engine of its Comch context (or sleep on that engine's "
    "notification handle) while the connection is open";
} // namespace

comch_ctx::comch_ctx(const char *kind, doca_dev *dev, std::string name)
    : doca_ctx(kind), dev_(dev), name_(std::move(name)),
      max_msg_size_(dev->info()->comch().max_msg_size),
      recv_queue_size_(dev->info()->comch().default_recv_queue_size)
{
    dev_->hold(); // doca_dev_close refuses (IN_USE) while a context uses the device
    unsettled_.reserve(k_unsettled_max);
}

comch_ctx::~comch_ctx()
{
    dev_->release();
}

doca_error_t comch_ctx::set_max_msg_size(uint32_t size, const char *func)
{
    return set_in_range(func, "max message size", size, caps().max_msg_size,
                        "doca_comch_cap_get_max_msg_size", max_msg_size_);
}

doca_error_t comch_ctx::set_recv_queue_size(uint32_t size, const char *func)
{
    return set_in_range(func, "receive queue size", size, caps().max_recv_queue_size,
                        "doca_comch_cap_get_max_recv_queue_size", recv_queue_size_);
}

doca_error_t comch_ctx::task_send_set_conf(doca_comch_task_send_completion_cb_t ok,
                                           doca_comch_task_send_completion_cb_t err, uint32_t num,
                                           const char *func)
{
    return send_pool_.set_conf<&comch_ctx::send_pool_>(this, func, ok, err, "number of send tasks",
                                                       num, caps().max_send_tasks,
                                                       "doca_comch_cap_get_max_send_tasks");
}

doca_error_t comch_ctx::event_msg_recv_register(doca_comch_event_msg_recv_cb_t cb, const char *func)
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    if (!cb) {
        SC_LOG_ERR("%s: recv_event_cb is NULL", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    recv_cb_ = cb;
    return DOCA_SUCCESS;
}

doca_error_t comch_ctx::event_consumer_register(doca_comch_event_consumer_cb_t new_cb,
                                                doca_comch_event_consumer_cb_t expired_cb,
                                                const char *func)
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    if (!new_cb || !expired_cb) {
        SC_LOG_ERR("%s: both the new-consumer and the expired-consumer callback are required",
                   func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    new_consumer_cb_ = new_cb;
    expired_consumer_cb_ = expired_cb;
    return DOCA_SUCCESS;
}

doca_error_t comch_ctx::task_send_alloc_init(doca_comch_connection *conn, const void *msg,
                                             uint32_t len, doca_comch_task_send **task,
                                             const char *func)
{
    if (doca_error_t rc = require_running(func); rc != DOCA_SUCCESS)
        return rc;
    if (!conn) {
        SC_LOG_ERR("%s: the connection is closed (the handle outlived it)", func);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (!owns(conn)) {
        SC_LOG_ERR("%s: the connection does not belong to this %s", func, kind_name());
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!conn->is_open()) {
        SC_LOG_ERR("%s: the connection is closed", func);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    uint32_t limit = conn->link_->max_msg_size();
    if (len == 0 || len > limit) {
        SC_LOG_ERR("%s: message length %u is out of range (1..%u, the maximum negotiated for this "
                   "connection)",
                   func, len, limit);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_comch_task_send *t = nullptr;
    if (doca_error_t rc =
            send_pool_.take(func, "doca_comch_{server,client}_task_send_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->conn_ = conn->handle();
    t->msg_ = msg;
    t->len_ = len;
    *task = t;
    return DOCA_SUCCESS;
}

template <bool Faults>
bool comch_ctx::write_send(doca_comch_connection *conn, doca_comch_task_send *task) noexcept
{
    if constexpr (Faults)
        if (conn->faults_->dropped)
            return false; // dropped by a fault: it waits, and fails when the end is seen
    const bool written = transport::with_concrete(*conn->link_, [&](auto &link) noexcept {
        void *slot = link.try_claim(task->len_);
        if (!slot)
            return false;
        std::memcpy(slot, task->payload(), task->len_);
        if (link.commit_deferred(transport::msg_type::data, task->len_) && !conn->unsettled_)
            owe_settle(conn);
        conn->live_.sent_messages++;
        conn->live_.sent_bytes += task->len_;
        conn->published_.sent(conn->live_.sent_messages, conn->live_.sent_bytes);
        return true;
    });
    if constexpr (Faults)
        if (written)
            fault_sent(conn);
    return written;
}

doca_error_t comch_ctx::validate(const doca_task *t) const
{
    auto *task = static_cast<const doca_comch_task_send *>(t);
    const doca_comch_connection *conn = resolve(task->conn_);
    if (!owns(conn) || !conn->is_open() || !task->msg_ || task->len_ == 0 ||
        task->len_ > conn->link_->max_msg_size()) {
        SC_LOG_ERR("doca_task_try_submit: invalid send task (connection, buffer or length)");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t comch_ctx::submit(doca_task *t)
{
    auto *task = static_cast<doca_comch_task_send *>(t);
    doca_comch_connection *conn = resolve(task->conn_); // nullptr: closed and freed since
    if (!conn || !conn->is_open()) {
        SC_LOG_ERR("doca_task_submit: the connection of this send task is closed");
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (conn->faults_on_) [[unlikely]]
        return submit_with_faults(conn, t);
    return submit_send<false>(conn, t);
}

doca_error_t comch_ctx::submit_with_faults(doca_comch_connection *conn, doca_task *t)
{
    if (fault_submit_again(*conn))
        return DOCA_ERROR_AGAIN; // the task stays the program's, untouched
    return submit_send<true>(conn, t);
}

template <bool Faults>
doca_error_t comch_ctx::submit_send(doca_comch_connection *conn, doca_task *t)
{
    auto *task = static_cast<doca_comch_task_send *>(t);
    t->state_ = softcomch::core::task_state::submitted;
    task_submitted();
    task->held_ = false;
    SC_TRACE(tracing::send_submitted(*conn, *t, task->len_));
    // Keep order: a send may overtake nothing that waits for space.
    if (!conn->pending_.empty() || !write_send<Faults>(conn, task)) {
        (void)task->hold(); // the program may reuse or free its message from here on
        conn->pending_.push_back(t);
        if (conn->parked_) [[unlikely]]
            unpark(conn); // the queue drains from poll
        return DOCA_SUCCESS;
    }
    // The message is in the peer's receive queue: the send is complete. Its callback runs on the
    // next progress call, i.e. before any reply to it can be delivered.
    complete(t, DOCA_SUCCESS);
    return DOCA_SUCCESS;
}

void comch_ctx::free_task(doca_task *t)
{
    send_pool_.release(static_cast<doca_comch_task_send *>(t));
}

void comch_ctx::abandon(doca_task *t) noexcept
{
    // A send still waiting for ring space is withdrawn: the program gave the task up, and with
    // it the message it points to (DOCA ties the message's lifetime to the task's), so writing
    // it later could read freed memory. A send already in the peer's ring (completion queued)
    // is delivered; only its callback is skipped.
    auto *task = static_cast<doca_comch_task_send *>(t);
    doca_comch_connection *conn =
        t->state_ == softcomch::core::task_state::submitted ? resolve(task->conn_) : nullptr;
    if (conn && conn->pending_.remove(t)) {
        SC_LOG_DBG("doca_task_free: a queued send was withdrawn before it reached the peer");
        SC_TRACE(softcomch::trace::task_end(t, softcomch::trace::k_withdrawn));
        task_retired();
        free_task(t);
        return;
    }
    doca_ctx::abandon(t);
}

template <bool Faults> unsigned comch_ctx::flush_pending(doca_comch_connection *conn) noexcept
{
    unsigned n = 0;
    while (doca_task *t = conn->pending_.front()) {
        if (!write_send<Faults>(conn, static_cast<doca_comch_task_send *>(t)))
            break;
        // Unlink before completing: the completion queue threads through the same link.
        conn->pending_.pop_front();
        complete(t, DOCA_SUCCESS);
        ++n;
    }
    return n;
}

transport::link_params comch_ctx::link_params() const noexcept
{
    transport::link_params p;
    p.max_msg_size = max_msg_size_;
    p.recv_queue_size = recv_queue_size_;
    p.max_peer_recv_queue_size = caps().max_recv_queue_size;
    p.max_peer_consumers = caps().max_consumers;
    p.max_peer_consumer_tasks = caps().consumer_max_num_tasks;
    return p;
}

doca_error_t comch_ctx::register_connection(doca_comch_connection *conn)
{
    conn->watch_.fired = [](void *arg) noexcept {
        auto *c = static_cast<doca_comch_connection *>(arg);
        if (c->parked_)
            c->owner_->unpark(c);
    };
    conn->watch_.fired_arg = conn;
    const doca_error_t rc = conn->watch_.watch(pe(), *conn->link_);
    if (rc == DOCA_SUCCESS)
        conn->published_.open(published_, *conn);
    return rc;
}

void comch_ctx::unregister_connection(doca_comch_connection *conn) noexcept
{
    conn->watch_.unwatch();
}

void comch_ctx::owe_settle(doca_comch_connection *conn) noexcept
{
    if (unsettled_.size() == unsettled_.capacity())
        settle_all(); // capacity reserved at construction: never allocates here
    conn->unsettled_ = true;
    unsettled_.push_back(conn->handle());
}

void comch_ctx::settle_all() noexcept
{
    // Handles, not pointers: a connection freed since its send resolves to nullptr (its link,
    // and with it the peer's wake-up, went when it closed).
    for (doca_comch_connection *h : unsettled_) {
        doca_comch_connection *c = resolve(h);
        if (!c || !c->unsettled_)
            continue;
        c->unsettled_ = false;
        if (c->link_)
            transport::with_concrete(*c->link_, [](auto &link) noexcept { link.settle(); });
    }
    unsettled_.clear();
}

struct comch_ctx::link_events final : transport::link_handler {
    comch_ctx *ctx;
    doca_comch_connection *conn;
    link_events(comch_ctx *c, doca_comch_connection *k) noexcept : ctx(c), conn(k) {}

    void consumer_announced(uint32_t id, std::unique_ptr<transport::remote_consumer> consumer,
                            doca_error_t status) override
    {
        ctx->handle_announce(conn, id, std::move(consumer), status);
    }
    void consumer_acknowledged(uint32_t id, doca_error_t status) override
    {
        std::lock_guard<std::mutex> g(conn->fast_.mu);
        auto it = conn->fast_.local.find(id);
        if (it == conn->fast_.local.end())
            return; // the consumer is gone (and its acceptance, if any, was traced then)
        if (it->second->claim_ack_trace())
            SC_TRACE(tracing::consumer_acknowledged(*conn, id, status));
        it->second->peer_acknowledged(uint32_t(status));
    }
    void consumer_expired(uint32_t id) override { ctx->handle_expire(conn, id); }
    void peer_rejected(doca_error_t reason, const std::string &text) override
    {
        SC_LOG_ERR("%s '%s': the peer (pid %d) closes the connection: %s (%s)", ctx->kind_name(),
                   ctx->name_.c_str(), conn->link_->peer_pid(), text.c_str(),
                   softcomch::error_name(reason));
    }
};

unsigned comch_ctx::serve_with_faults(doca_comch_connection *conn, bool &ended)
{
    ended = false;
    return conn->faults_->hung ? 0 : serve<true>(conn, ended); // hung: not even read
}

template <bool Faults> unsigned comch_ctx::serve(doca_comch_connection *conn, bool &ended)
{
    ended = false;
    // A callback below may end this connection (doca_comch_server_disconnect from a receive or
    // a consumer callback, or from a completion): abort_connection then parks its link here
    // instead of destroying it under the code that is using it, and it goes when this returns.
    serving_ = conn;
    struct leave {
        comch_ctx &ctx;
        ~leave()
        {
            ctx.serving_ = nullptr;
            if (ctx.retired_link_) [[unlikely]]
                ctx.retired_link_.reset();
        }
    } on_return{*this};
    unsigned work = 0;
    if (conn->link_->slow_pending()) {
        link_events events(this, conn);
        work += conn->link_->service(events);
        if (conn->state_ == doca_comch_connection::state::closed) [[unlikely]]
            return work; // ended by the program from a callback
    }
    // Inlined here, so that the ordinary instantiation has the shape the function had before
    // the fault hooks (one call less per poll).
    auto deliver = [&](auto &link) __attribute__((always_inline))
    {
        // Deliver what arrived. A callback may stop this context (the connection then closes
        // after the loop) but cannot destroy it: destroy is refused unless IDLE.
        for (unsigned i = 0; i < k_recv_budget && !conn->peer_closed_; ++i) {
            const auto *m = link.peek();
            if (!m)
                break;
            if constexpr (Faults)
                if (!fault_due(conn))
                    break; // delay: it stays in the ring (and so does everything after it)
            ++work;
            if (m->type == uint16_t(transport::msg_type::disconnect)) {
                conn->peer_closed_ = true;
                link.release();
                break;
            }
            if (m->type == uint16_t(transport::msg_type::data)) {
                conn->live_.recv_messages++;
                conn->live_.recv_bytes += m->len;
                SC_TRACE(tracing::received(*conn, m->len));
                conn->published_.received(conn->live_.recv_messages, conn->live_.recv_bytes);
                work += pe()->flush_completions();
                if (recv_cb_ && conn->state_ != doca_comch_connection::state::closed)
                    recv_cb_(&recv_event_, static_cast<uint8_t *>(const_cast<void *>(m->data)),
                             m->len, conn->handle());
            } else {
                // Nothing else travels on the ring: the connection ends (logged once, when it
                // does, with the link's violation()).
                link.release();
                link.protocol_violation("a ring message of an unknown type");
                break;
            }
            link.release();
            if (conn->state_ == doca_comch_connection::state::closed) [[unlikely]]
                return work; // ended by the program from a callback: not the peer's end
        }
        if (!conn->pending_.empty() && !conn->peer_closed_ && !link.peer_gone()) {
            work += flush_pending<Faults>(conn);
            if (conn->state_ == doca_comch_connection::state::closed) [[unlikely]]
                return work; // ended from a completion callback
        }
        // The peer is gone once it said so, or once its process died (or, where the program
        // opted in, stopped progressing for too long; or a fault dropped the connection) and its
        // ring is drained.
        bool gone = link.peer_gone() || conn->peer_timed_out_;
        if constexpr (Faults)
            gone = gone || conn->faults_->dropped;
        if (conn->peer_closed_ || (gone && !link.peek()))
            ended = true;
        return work;
    };
    return transport::with_concrete(*conn->link_, deliver);
}

// The ordinary instantiation is called from the server's and the client's poll
// (service_connection, comch_ctx.hpp).
template unsigned comch_ctx::serve<false>(doca_comch_connection *conn, bool &ended);

bool comch_ctx::close_connection(doca_comch_connection *conn)
{
    if (conn->state_ == doca_comch_connection::state::closed)
        return true;
    conn->state_ = doca_comch_connection::state::closing;
    if (conn->link_->peer_gone() || conn->peer_closed_ ||
        (conn->faults_on_ && conn->faults_->dropped)) {
        abort_connection(conn, k_status_connection_lost);
        return true;
    }
    if (conn->faults_on_)
        flush_pending<true>(conn);
    else
        flush_pending<false>(conn);
    if (!conn->pending_.empty())
        return false;
    const bool noticed = transport::with_concrete(*conn->link_, [](auto &link) noexcept {
        if (!link.try_claim(0))
            return false; // the ring is full; the notice goes once the peer made room
        link.commit(transport::msg_type::disconnect, 0);
        return true;
    });
    if (!noticed)
        return false;
    abort_connection(conn, k_status_connection_lost);
    return true;
}

void comch_ctx::handle_announce(doca_comch_connection *conn, uint32_t id,
                                std::unique_ptr<transport::remote_consumer> consumer,
                                doca_error_t status)
{
    SC_TRACE(tracing::consumer_announced(*conn, id, status));
    if (status != DOCA_SUCCESS) {
        SC_LOG_ERR("%s '%s': cannot reach the peer's consumer %u: %s", kind_name(), name_.c_str(),
                   id, softcomch::error_name(status));
        conn->link_->acknowledge(id, status);
        return;
    }
    auto r = std::make_shared<softcomch::comch::remote_consumer>();
    r->endpoint = std::move(consumer);
    {
        std::lock_guard<std::mutex> g(conn->fast_.mu);
        conn->fast_.remote[id] = r;
    }
    // Both ways of saying yes: the shared word lets the consumer's own engine finish its start
    // (a program may progress only the consumer's engine while it waits for RUNNING, as
    // NVIDIA's dpu_gpu_remote_offload does); the message keeps the refusal path and old peers.
    r->endpoint->accept();
    conn->link_->acknowledge(id, DOCA_SUCCESS);
    pe()->flush_completions();
    if (new_consumer_cb_)
        new_consumer_cb_(&consumer_event_, conn->handle(), id);
}

void comch_ctx::handle_expire(doca_comch_connection *conn, uint32_t id)
{
    std::shared_ptr<softcomch::comch::remote_consumer> r;
    {
        std::lock_guard<std::mutex> g(conn->fast_.mu);
        auto it = conn->fast_.remote.find(id);
        if (it == conn->fast_.remote.end())
            return;
        r = std::move(it->second);
        conn->fast_.remote.erase(it);
    }
    r->expired.store(true, std::memory_order_release);
    conn->fast_.generation.fetch_add(1, std::memory_order_acq_rel);
    SC_TRACE(tracing::consumer_expired(*conn, id));
    pe()->flush_completions();
    if (expired_consumer_cb_)
        expired_consumer_cb_(&consumer_event_, conn->handle(), id);
}

void comch_ctx::end_fast_path(doca_comch_connection *conn) noexcept
{
    std::lock_guard<std::mutex> g(conn->fast_.mu);
    for (auto &[id, r] : conn->fast_.remote)
        r->expired.store(true, std::memory_order_release);
    conn->fast_.remote.clear();
    conn->fast_.generation.fetch_add(1, std::memory_order_acq_rel);
    for (auto &[id, c] : conn->fast_.local)
        c->peer_gone();
}

void comch_ctx::abort_connection(doca_comch_connection *conn, doca_error_t status)
{
    SC_TRACE(tracing::disconnected(*this, *conn, status));
    end_fast_path(conn);
    while (doca_task *t = conn->pending_.pop_front())
        complete(t, status);
    unregister_connection(conn);
    conn->published_.close();
    conn->state_ = doca_comch_connection::state::closed;
    // What was sent before the end still reaches a peer that sleeps (it drains before it sees
    // the hang-up).
    if (conn->unsettled_ && conn->link_) {
        conn->unsettled_ = false;
        transport::with_concrete(*conn->link_, [](auto &link) noexcept { link.settle(); });
    }
    // Unmaps this side of the segment and closes the socket: the peer's liveness channel hangs
    // up, and its mapping (if it still has one) stays valid until it closes too. From a callback
    // inside serve() of this connection, once serve() returns.
    if (conn == serving_) [[unlikely]]
        retired_link_ = std::move(conn->link_);
    else
        conn->link_.reset();
}

doca_error_t comch_ctx::refuse_children(const char *func, const doca_comch_connection &conn) const
{
    const uint32_t consumers = conn.fast_.consumers.count();
    const uint32_t producers = conn.fast_.producers.count();
    if (consumers + producers == 0)
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: %u consumer(s) and %u producer(s) still exist on a connection of %s '%s'; "
               "destroy them (doca_comch_consumer_destroy, doca_comch_producer_destroy) first",
               func, consumers, producers, kind_name(), name_.c_str());
    return DOCA_ERROR_IN_USE;
}

void comch_ctx::arm_connection(doca_comch_connection *conn, softcomch::core::arm_result &r) noexcept
{
    if (conn->state_ == doca_comch_connection::state::closed)
        return;
    if (conn->faults_on_) [[unlikely]]
        if (fault_arm(conn, r))
            return;
    transport::link &l = *conn->link_;
    if (l.slow_pending() || l.peer_gone() || conn->peer_closed_ ||
        !transport::with_concrete(l, [](auto &link) noexcept { return link.arm(); }))
        r.busy = true;
    if (!conn->pending_.empty() && (r.timeout_ns == 0 || r.timeout_ns > k_pending_retry_ns))
        r.timeout_ns = k_pending_retry_ns;
}

void comch_ctx::disarm() {}

// ---- bounds and liveness (docs/failure-model.md, "Bounds") ----

doca_error_t comch_ctx::load_bounds()
{
    namespace b = softcomch::bounds;
    uint64_t v[b::all.size()] = {};
    std::string why;
    for (size_t i = 0; i < b::all.size(); ++i) {
        if (!b::read(*b::all[i], v[i], why)) {
            SC_LOG_ERR("doca_ctx_start: %s '%s': %s", kind_name(), name_.c_str(), why.c_str());
            return DOCA_ERROR_BAD_CONFIG;
        }
    }
    constexpr uint64_t ms = 1'000'000;
    bounds_.handshake_ns = v[0] * ms;
    bounds_.max_handshakes = v[1];
    bounds_.linger_ns = v[2] * ms;
    bounds_.stall_ns = v[3] * ms;
    bounds_.timeout_ns = v[4] * ms;
    bounds_.diag_ns = v[5] * ms;
    static_assert(b::all[0] == &b::handshake_timeout && b::all[1] == &b::max_handshakes &&
                  b::all[2] == &b::stop_linger && b::all[3] == &b::peer_stall &&
                  b::all[4] == &b::peer_timeout && b::all[5] == &b::diag_delay);
    next_tick_ns_ = 0;
    return DOCA_SUCCESS;
}

bool comch_ctx::tick_due(uint64_t now_ns) noexcept
{
    if (now_ns < next_tick_ns_)
        return false;
    next_tick_ns_ = now_ns + k_tick_interval_ns;
    return true;
}

void comch_ctx::tick(uint64_t now_ns) noexcept
{
    if (state() != DOCA_CTX_STATE_IDLE && tick_due(now_ns)) {
        published_.tick(now_ns);
        on_tick(now_ns);
    }
}

void comch_ctx::state_changed(doca_ctx_states next) noexcept
{
    published_.state_changed(*this, next);
}

void comch_ctx::first_beat(doca_comch_connection *conn) noexcept
{
    const uint64_t now = softcomch::coarse_now_ns();
    (void)conn->link_->beat(now);
    conn->peer_seen_ns_ = now;
}

void comch_ctx::begin_close(doca_comch_connection *conn) noexcept
{
    if (conn->state_ != doca_comch_connection::state::open)
        return;
    conn->state_ = doca_comch_connection::state::closing;
    conn->linger_deadline_ns_ = softcomch::coarse_deadline_ns(bounds_.linger_ns);
    conn->linger_over_ = bounds_.linger_ns == 0;
}

void comch_ctx::abort_lingering(doca_comch_connection *conn, const char *peer_kind)
{
    SC_LOG_WARN("%s '%s': the %s (pid %d) did not take the last %zu send(s) within %lu ms "
                "(SOFTCOMCH_STOP_LINGER_MS); they fail with %s and the connection closes",
                kind_name(), name_.c_str(), peer_kind, conn->link_->peer_pid(),
                conn->pending_.size(), (unsigned long)(bounds_.linger_ns / 1'000'000),
                softcomch::error_name(k_status_connection_lost));
    abort_connection(conn, k_status_connection_lost);
}

void comch_ctx::tick_connection(doca_comch_connection *conn, uint64_t now_ns) noexcept
{
    using state = doca_comch_connection::state;
    if (conn->state_ == state::closed)
        return;
    conn->published_.tick(*conn, now_ns); // what the previous tick found
    if (conn->state_ == state::closing && now_ns >= conn->linger_deadline_ns_)
        conn->linger_over_ = true;
    if (conn->faults_on_) [[unlikely]]
        if (fault_tick(conn, now_ns))
            return; // hung: no heartbeat of ours, no look at the peer's
    const transport::link::peer_activity seen = conn->link_->beat(now_ns);
    if (seen != transport::link::peer_activity::still || conn->link_->peer_gone() ||
        conn->peer_closed_) {
        if (conn->peer_stalled_)
            SC_LOG_WARN("%s '%s': the peer (pid %d) progresses again, after %lu ms without",
                        kind_name(), name_.c_str(), conn->link_->peer_pid(),
                        (unsigned long)((now_ns - conn->peer_seen_ns_) / 1'000'000));
        conn->peer_stalled_ = false;
        conn->peer_seen_ns_ = now_ns;
        conn->peer_asleep_ = seen == transport::link::peer_activity::asleep;
        return;
    }
    if (conn->peer_asleep_) {
        // Asleep at the last tick, still now: this side wrote to it since. Nothing was expected
        // of it before that write, so its time to react starts here, not at the last tick that
        // saw it asleep (which may be long before the write when this side is slow to tick).
        conn->peer_asleep_ = false;
        conn->peer_seen_ns_ = now_ns;
        return;
    }
    const uint64_t still_ns = now_ns - conn->peer_seen_ns_;
    if (bounds_.stall_ns && !conn->peer_stalled_ && still_ns >= bounds_.stall_ns) {
        conn->peer_stalled_ = true;
        if (bounds_.timeout_ns)
            SC_LOG_WARN("%s '%s': the peer (pid %d) has not progressed for %lu ms (stopped, in a "
                        "debugger, or not calling doca_pe_progress); it is disconnected after "
                        "%lu ms (SOFTCOMCH_PEER_TIMEOUT_MS)%s",
                        kind_name(), name_.c_str(), conn->link_->peer_pid(),
                        (unsigned long)(still_ns / 1'000'000),
                        (unsigned long)(bounds_.timeout_ns / 1'000'000), k_stall_advice);
        else
            SC_LOG_WARN("%s '%s': the peer (pid %d) has not progressed for %lu ms (stopped, in a "
                        "debugger, or not calling doca_pe_progress); the connection is kept "
                        "(SOFTCOMCH_PEER_TIMEOUT_MS would disconnect it)%s",
                        kind_name(), name_.c_str(), conn->link_->peer_pid(),
                        (unsigned long)(still_ns / 1'000'000), k_stall_advice);
    }
    if (bounds_.timeout_ns && still_ns >= bounds_.timeout_ns)
        conn->peer_timed_out_ = true;
}

} // namespace softcomch::comch
