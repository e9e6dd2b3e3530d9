// SPDX-License-Identifier: Apache-2.0
#include "comch/comch_ctx.hpp"

#include <cstring>

#include "comch/connection.hpp"
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

comch_ctx::~comch_ctx() { dev_->release(); }

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
        SC_LOG_ERR("%s: %u send tasks is out of range (1..%u, see doca_comch_cap_get_max_send_tasks)",
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
                                                doca_comch_event_consumer_cb_t expired_cb, const char *func)
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    if (!new_cb || !expired_cb) {
        SC_LOG_ERR("%s: both the new-consumer and the expired-consumer callback are required", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    new_consumer_cb_ = new_cb;
    expired_consumer_cb_ = expired_cb;
    return DOCA_SUCCESS;
}

doca_error_t comch_ctx::task_send_alloc_init(doca_comch_connection *conn, const void *msg, uint32_t len,
                                             doca_comch_task_send **task, const char *func)
{
    if (state() != DOCA_CTX_STATE_RUNNING) {
        SC_LOG_ERR("%s: the %s is %s; send tasks can only be allocated while RUNNING", func, kind_name(),
                   softcomch::core::state_name(state()));
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
    doca_comch_task_send_completion_cb_t cb = t->status_ == DOCA_SUCCESS ? self->send_ok_cb_ : self->send_err_cb_;
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
    // The message is in the peer's receive queue: the send is complete. Its callback runs on the
    // next progress call, i.e. before any reply to it can be delivered.
    complete(task, DOCA_SUCCESS);
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
    if (!conn->pending_.empty() || !write_send(conn, task))
        conn->pending_.push_back(t);
    return DOCA_SUCCESS;
}

void comch_ctx::free_task(doca_task *t)
{
    send_pool_.release(static_cast<doca_comch_task_send *>(t));
}

unsigned comch_ctx::flush_pending(doca_comch_connection *conn) noexcept
{
    unsigned n = 0;
    while (doca_task *t = conn->pending_.front()) {
        if (!write_send(conn, static_cast<doca_comch_task_send *>(t)))
            break;
        conn->pending_.pop_front();
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
        if (!link.peer_alive())
            conn->peer_gone_ = true;
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
                recv_cb_(&recv_event_, static_cast<uint8_t *>(const_cast<void *>(m->data)), m->len, conn);
        } else {
            SC_LOG_WARN("%s '%s': dropped a message of unknown type %u", kind_name(), name_.c_str(), m->type);
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

void comch_ctx::abort_connection(doca_comch_connection *conn, doca_error_t status)
{
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
    if (!conn->pending_.empty() &&
        (r.timeout_ns == 0 || r.timeout_ns > k_pending_retry_ns))
        r.timeout_ns = k_pending_retry_ns;
}

void comch_ctx::disarm() {}

} // namespace softcomch::comch
