// SPDX-License-Identifier: Apache-2.0
#include "comch/comch_ctx.hpp"

#include <unistd.h>

#include <cstring>
#include <variant>

#include "comch/connection.hpp"
#include "comch/consumer.hpp"
#include "transport/unix_socket.hpp"
#include "common/error_names.hpp"
#include "common/log.hpp"
#include "core/device.hpp"
#include "core/pe.hpp"

namespace softcomch::comch {

namespace {
// Messages delivered per connection per progress call: keeps one busy connection from starving
// the others while amortising the per-call overhead.
constexpr unsigned k_recv_budget = 64;
// While sends wait for ring space, notifications also fire on this period so the sends retry
// (the peer does not signal when it frees space).
constexpr uint64_t k_pending_retry_ns = 1'000'000;
} // namespace

comch_ctx::comch_ctx(const char *kind, doca_dev *dev, std::string name)
    : doca_ctx(kind), dev_(dev), name_(std::move(name)),
      max_msg_size_(dev->info()->comch().max_msg_size),
      recv_queue_size_(dev->info()->comch().default_recv_queue_size)
{
    dev_->hold(); // doca_dev_close refuses (IN_USE) while a context uses the device
}

comch_ctx::~comch_ctx()
{
    dev_->release();
}

doca_error_t comch_ctx::set_max_msg_size(uint32_t size, const char *func)
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    uint32_t cap = dev_->info()->comch().max_msg_size;
    if (size == 0 || size > cap) {
        SC_LOG_ERR("%s: max message size %u is out of range (1..%u, the device cap; see "
                   "doca_comch_cap_get_max_msg_size)",
                   func, size, cap);
        return DOCA_ERROR_INVALID_VALUE;
    }
    max_msg_size_ = size;
    return DOCA_SUCCESS;
}

doca_error_t comch_ctx::set_recv_queue_size(uint32_t size, const char *func)
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    uint32_t cap = dev_->info()->comch().max_recv_queue_size;
    if (size == 0 || size > cap) {
        SC_LOG_ERR("%s: receive queue size %u is out of range (1..%u, see "
                   "doca_comch_cap_get_max_recv_queue_size)",
                   func, size, cap);
        return DOCA_ERROR_INVALID_VALUE;
    }
    recv_queue_size_ = size;
    return DOCA_SUCCESS;
}

doca_error_t comch_ctx::task_send_set_conf(doca_comch_task_send_completion_cb_t ok,
                                           doca_comch_task_send_completion_cb_t err, uint32_t num,
                                           const char *func)
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    if (!ok || !err) {
        SC_LOG_ERR("%s: both the completion and the error callback are required", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    uint32_t cap = dev_->info()->comch().max_send_tasks;
    if (num == 0 || num > cap) {
        SC_LOG_ERR(
            "%s: %u send tasks is out of range (1..%u, see doca_comch_cap_get_max_send_tasks)",
            func, num, cap);
        return DOCA_ERROR_INVALID_VALUE;
    }
    send_pool_.configure(static_cast<doca_ctx *>(this), num, &comch_ctx::invoke_send);
    send_ok_cb_ = ok;
    send_err_cb_ = err;
    return DOCA_SUCCESS;
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
    if (state() != DOCA_CTX_STATE_RUNNING) {
        SC_LOG_ERR("%s: the %s is %s; send tasks can only be allocated while RUNNING", func,
                   kind_name(), softcomch::core::state_name(state()));
        return DOCA_ERROR_BAD_STATE;
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
    if (send_pool_.capacity() == 0) {
        SC_LOG_ERR("%s: no send tasks configured (call *_task_send_set_conf before start)", func);
        return DOCA_ERROR_NO_MEMORY;
    }
    doca_comch_task_send *t = send_pool_.alloc();
    if (!t) {
        // Common back-pressure: every task is in flight. Not an error worth a log line by default.
        SC_LOG_DBG("%s: all %u send tasks are in use", func, send_pool_.capacity());
        return DOCA_ERROR_NO_MEMORY;
    }
    t->conn_ = conn;
    t->msg_ = msg;
    t->len_ = len;
    *task = t;
    return DOCA_SUCCESS;
}

void comch_ctx::invoke_send(doca_task *t)
{
    auto *task = static_cast<doca_comch_task_send *>(t);
    auto *self = static_cast<comch_ctx *>(t->ctx_);
    doca_comch_task_send_completion_cb_t cb =
        t->status_ == DOCA_SUCCESS ? self->send_ok_cb_ : self->send_err_cb_;
    cb(task, t->user_data_, self->user_data());
}

bool comch_ctx::write_send(doca_comch_connection *conn, doca_comch_task_send *task) noexcept
{
    void *slot = conn->link_->try_claim(task->len_);
    if (!slot)
        return false;
    std::memcpy(slot, task->msg_, task->len_);
    conn->link_->commit(softcomch::transport::msg_type::data, task->len_);
    conn->live_.sent_messages++;
    conn->live_.sent_bytes += task->len_;
    return true;
}

doca_error_t comch_ctx::validate(const doca_task *t) const
{
    auto *task = static_cast<const doca_comch_task_send *>(t);
    if (!owns(task->conn_) || !task->conn_->is_open() || !task->msg_ || task->len_ == 0 ||
        task->len_ > task->conn_->link_->max_msg_size()) {
        SC_LOG_ERR("doca_task_try_submit: invalid send task (connection, buffer or length)");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t comch_ctx::submit(doca_task *t)
{
    auto *task = static_cast<doca_comch_task_send *>(t);
    doca_comch_connection *conn = task->conn_;
    if (!conn->is_open()) {
        SC_LOG_ERR("doca_task_submit: the connection of this send task is closed");
        return DOCA_ERROR_NOT_CONNECTED;
    }
    t->state_ = softcomch::core::task_state::submitted;
    task_submitted();
    // Keep order: a send may overtake nothing that waits for space.
    if (!conn->pending_.empty() || !write_send(conn, task)) {
        conn->pending_.push_back(t);
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
    if (t->state_ == softcomch::core::task_state::submitted && task->conn_ &&
        task->conn_->pending_.remove(t)) {
        SC_LOG_DBG("doca_task_free: a queued send was withdrawn before it reached the peer");
        task_retired();
        free_task(t);
        return;
    }
    doca_ctx::abandon(t);
}

unsigned comch_ctx::flush_pending(doca_comch_connection *conn) noexcept
{
    unsigned n = 0;
    while (doca_task *t = conn->pending_.front()) {
        if (!write_send(conn, static_cast<doca_comch_task_send *>(t)))
            break;
        // Unlink before completing: the completion queue threads through the same link.
        conn->pending_.pop_front();
        complete(t, DOCA_SUCCESS);
        ++n;
    }
    return n;
}

doca_error_t comch_ctx::register_connection(doca_comch_connection *conn)
{
    // EPOLLIN | EPOLLRDHUP: the socket carries nothing after the handshake, so readability means
    // the peer hung up (or sent a future slow-path message).
    doca_error_t rc = pe()->watch(conn->link_->socket_fd(), &conn->socket_watcher_, 0x001 | 0x2000);
    if (rc != DOCA_SUCCESS)
        return rc;
    rc = pe()->watch(conn->link_->event_fd(), &conn->event_watcher_);
    if (rc != DOCA_SUCCESS) {
        pe()->unwatch(conn->link_->socket_fd());
        return rc;
    }
    conn->events_registered_ = true;
    return DOCA_SUCCESS;
}

void comch_ctx::unregister_connection(doca_comch_connection *conn) noexcept
{
    if (!conn->events_registered_)
        return;
    pe()->unwatch(conn->link_->socket_fd());
    pe()->unwatch(conn->link_->event_fd());
    conn->events_registered_ = false;
}

unsigned comch_ctx::service_connection(doca_comch_connection *conn, bool &ended)
{
    ended = false;
    unsigned work = 0;
    auto &link = *conn->link_;
    if (conn->socket_ready_) {
        conn->socket_ready_ = false;
        work += service_socket(conn);
    }
    // Deliver what arrived. A callback may stop this context (the connection then closes after
    // the loop) but cannot destroy it: destroy is refused unless IDLE.
    for (unsigned i = 0; i < k_recv_budget && !conn->peer_closed_; ++i) {
        const softcomch::transport::message_view *m = link.peek();
        if (!m)
            break;
        ++work;
        if (m->type == uint16_t(softcomch::transport::msg_type::disconnect)) {
            conn->peer_closed_ = true;
            link.release();
            break;
        }
        if (m->type == uint16_t(softcomch::transport::msg_type::data)) {
            conn->live_.recv_messages++;
            conn->live_.recv_bytes += m->len;
            work += pe()->flush_completions();
            if (recv_cb_ && conn->state_ != doca_comch_connection::state::closed)
                recv_cb_(&recv_event_, static_cast<uint8_t *>(const_cast<void *>(m->data)), m->len,
                         conn);
        } else {
            SC_LOG_WARN("%s '%s': dropped a message of unknown type %u", kind_name(), name_.c_str(),
                        m->type);
        }
        link.release();
    }
    if (!conn->pending_.empty() && !conn->peer_closed_ && !conn->peer_gone_)
        work += flush_pending(conn);
    // The peer is gone once it said so, or once its process died and its ring is drained.
    if (conn->peer_closed_ || (conn->peer_gone_ && !link.peek()))
        ended = true;
    return work;
}

bool comch_ctx::close_connection(doca_comch_connection *conn)
{
    if (conn->state_ == doca_comch_connection::state::closed)
        return true;
    conn->state_ = doca_comch_connection::state::closing;
    if (conn->peer_gone_ || conn->peer_closed_) {
        abort_connection(conn, k_status_connection_lost);
        return true;
    }
    flush_pending(conn);
    if (!conn->pending_.empty())
        return false;
    if (!conn->link_->try_claim(0))
        return false; // the ring is full; the notice goes once the peer made room
    conn->link_->commit(softcomch::transport::msg_type::disconnect, 0);
    abort_connection(conn, k_status_connection_lost);
    return true;
}

unsigned comch_ctx::service_socket(doca_comch_connection *conn)
{
    namespace wire = softcomch::transport::wire;
    unsigned work = 0;
    for (;;) {
        uint8_t buf[wire::k_max_message_size];
        size_t len = 0;
        int fds[softcomch::transport::k_max_msg_fds];
        size_t nfds = 0;
        doca_error_t rc =
            softcomch::transport::recv_msg(conn->link_->socket_fd(), buf, sizeof buf, &len, fds,
                                           &nfds, softcomch::transport::k_max_msg_fds);
        if (rc == DOCA_ERROR_AGAIN)
            break;
        if (rc != DOCA_SUCCESS) {
            // EOF or reset: the peer process closed its end (exit, crash, or close).
            conn->peer_gone_ = true;
            break;
        }
        ++work;
        wire::message m;
        rc = wire::decode_any(buf, len, &m);
        if (rc == DOCA_SUCCESS && std::holds_alternative<wire::consumer_announce_msg>(m)) {
            handle_announce(conn, std::get<wire::consumer_announce_msg>(m), fds, nfds);
            continue;
        }
        for (size_t i = 0; i < nfds; ++i)
            ::close(fds[i]);
        if (rc != DOCA_SUCCESS) {
            SC_LOG_WARN("%s '%s': ignored an invalid message from the peer (%s)", kind_name(),
                        name_.c_str(), softcomch::error_name(rc));
        } else if (auto *ack = std::get_if<wire::consumer_ack_msg>(&m)) {
            std::lock_guard<std::mutex> g(conn->fast_.mu);
            auto it = conn->fast_.local.find(ack->consumer_id);
            if (it != conn->fast_.local.end())
                it->second->peer_acknowledged(ack->status);
        } else if (auto *exp = std::get_if<wire::consumer_expire_msg>(&m)) {
            handle_expire(conn, exp->consumer_id);
        } else {
            SC_LOG_WARN("%s '%s': unexpected handshake message on an established connection",
                        kind_name(), name_.c_str());
        }
    }
    return work;
}

void comch_ctx::send_ack(doca_comch_connection *conn, uint32_t id, doca_error_t status) noexcept
{
    namespace wire = softcomch::transport::wire;
    wire::consumer_ack_msg a;
    a.consumer_id = id;
    a.status = uint32_t(status);
    uint8_t buf[wire::k_max_message_size];
    size_t len = 0;
    if (wire::encode(a, buf, sizeof buf, &len) == DOCA_SUCCESS)
        softcomch::transport::send_msg(conn->link_->socket_fd(), buf, len, nullptr, 0);
}

void comch_ctx::handle_announce(doca_comch_connection *conn,
                                const softcomch::transport::wire::consumer_announce_msg &m,
                                int *fds, size_t nfds)
{
    namespace wire = softcomch::transport::wire;
    namespace shm = softcomch::transport::shm;
    const bool shared = m.mechanism == uint32_t(shm::memory_mechanism::shared);
    // Take ownership of every descriptor first, so each exits through one path.
    softcomch::unique_fd chan_fd(nfds > 0 ? fds[0] : -1), event_fd(nfds > 1 ? fds[1] : -1),
        mem_fd(nfds > 2 ? fds[2] : -1);
    for (size_t i = 3; i < nfds; ++i)
        ::close(fds[i]);
    auto rc_ok = std::make_shared<softcomch::comch::remote_consumer>();
    doca_error_t rc = nfds == (shared ? 3u : 2u) ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
    if (rc == DOCA_SUCCESS)
        rc = shm::fast_channel::attach(chan_fd.get(), m.channel_size, rc_ok->channel);
    if (rc == DOCA_SUCCESS)
        rc = rc_ok->queue.attach(rc_ok->channel);
    if (rc == DOCA_SUCCESS) {
        shm::memory_desc d{};
        d.mechanism = m.mechanism;
        d.pid = m.pid;
        d.addr = m.addr;
        d.len = m.len;
        d.map_base = m.map_base;
        d.map_size = m.map_size;
        d.file_offset = m.file_offset;
        rc = shm::map_peer(mem_fd.get(), d, rc_ok->memory);
    }
    if (rc != DOCA_SUCCESS) {
        SC_LOG_ERR("%s '%s': cannot reach the peer's consumer %u: %s", kind_name(), name_.c_str(),
                   m.consumer_id, softcomch::error_name(rc));
        send_ack(conn, m.consumer_id, rc);
        return;
    }
    rc_ok->id = m.consumer_id;
    rc_ok->imm_data_len = m.imm_data_len;
    rc_ok->event = softcomch::event_fd(std::move(event_fd));
    {
        std::lock_guard<std::mutex> g(conn->fast_.mu);
        conn->fast_.remote[m.consumer_id] = rc_ok;
    }
    // Both ways of saying yes: the shared word lets the consumer's own engine finish its start
    // (a program may progress only the consumer's engine while it waits for RUNNING, as
    // NVIDIA's dpu_gpu_remote_offload does); the message keeps the refusal path and old peers.
    rc_ok->queue.accept();
    send_ack(conn, m.consumer_id, DOCA_SUCCESS);
    pe()->flush_completions();
    if (new_consumer_cb_)
        new_consumer_cb_(&consumer_event_, conn, m.consumer_id);
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
    pe()->flush_completions();
    if (expired_consumer_cb_)
        expired_consumer_cb_(&consumer_event_, conn, id);
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
    end_fast_path(conn);
    while (doca_task *t = conn->pending_.pop_front())
        complete(t, status);
    unregister_connection(conn);
    conn->state_ = doca_comch_connection::state::closed;
    // Unmaps this side of the segment and closes the socket: the peer's liveness channel hangs
    // up, and its mapping (if it still has one) stays valid until it closes too.
    conn->link_.reset();
}

void comch_ctx::arm_connection(doca_comch_connection *conn, softcomch::core::arm_result &r) noexcept
{
    if (conn->state_ == doca_comch_connection::state::closed)
        return;
    if (conn->socket_ready_ || conn->peer_gone_ || conn->peer_closed_ || !conn->link_->arm())
        r.busy = true;
    if (!conn->pending_.empty() && (r.timeout_ns == 0 || r.timeout_ns > k_pending_retry_ns))
        r.timeout_ns = k_pending_retry_ns;
}

void comch_ctx::disarm() {}

} // namespace softcomch::comch
