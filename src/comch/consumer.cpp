// SPDX-License-Identifier: Apache-2.0
#include "comch/consumer.hpp"

#include <cstring>

#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "comch/fastpath.hpp"
#include "comch/fault_hooks.hpp"
#include "comch/shared_mmap.hpp"
#include "comch/trace_hooks.hpp"
#include "common/error_names.hpp"
#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"
#include "core/mmap.hpp"
#include "transport/registry.hpp"

namespace transport = softcomch::transport;

namespace {
// Completions turned into finished receive tasks per progress call.
constexpr unsigned k_completion_budget = 64;
} // namespace

doca_error_t doca_comch_consumer::create(doca_comch_connection *conn, doca_mmap *mmap,
                                         const char *func, doca_comch_consumer **out)
{
    if (doca_error_t rc = doca_comch_connection::require_established(conn, func);
        rc != DOCA_SUCCESS)
        return rc;
    if (!mmap->started()) {
        SC_LOG_ERR("%s: the mmap is not started (doca_mmap_start)", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (mmap->from_export()) {
        // Its range is another process's addresses: nothing here can receive into it.
        SC_LOG_ERR("%s: the mmap was created from an export (another process's memory); a "
                   "consumer receives into local memory only",
                   func);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    return conn->fast_.consumers.create(
        func, "consumers", conn->owner_->caps().max_consumers,
        [&](uint32_t id) { *out = new doca_comch_consumer(conn, mmap, id); });
}

doca_comch_consumer::doca_comch_consumer(doca_comch_connection *conn, doca_mmap *mmap, uint32_t id)
    : doca_ctx("comch consumer"), conn_(conn), mmap_(mmap), id_(id), faults_on_(conn->faults_on_)
{
    mmap_->user_acquired(); // doca_mmap_stop/destroy refuse while this consumer exists
}

doca_comch_consumer::~doca_comch_consumer()
{
    release_transport();
    mmap_->user_released();
    // Last: once the slot is back, the connection's owner may reclaim the connection.
    conn_->fast_.consumers.give_back();
}

doca_error_t doca_comch_consumer::set_imm_data_len(uint32_t len, const char *func)
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    uint32_t cap = conn_->owner_->caps().max_imm_data_len;
    if (len > cap) {
        SC_LOG_ERR("%s: %u bytes of immediate data is above the maximum of %u "
                   "(doca_comch_consumer_cap_get_max_imm_data_len)",
                   func, len, cap);
        return DOCA_ERROR_INVALID_VALUE;
    }
    imm_data_len_ = len;
    return DOCA_SUCCESS;
}

doca_error_t
doca_comch_consumer::task_post_recv_set_conf(doca_comch_consumer_task_post_recv_completion_cb_t ok,
                                             doca_comch_consumer_task_post_recv_completion_cb_t err,
                                             uint32_t num, const char *func)
{
    return pool_.set_conf<&doca_comch_consumer::pool_>(
        this, func, ok, err, "number of post-receive tasks", num,
        conn_->owner_->caps().consumer_max_num_tasks, "doca_comch_consumer_cap_get_max_num_tasks");
}

doca_error_t
doca_comch_consumer::task_post_recv_alloc_init(doca_buf *buf,
                                               doca_comch_consumer_task_post_recv **task)
{
    const char *func = "doca_comch_consumer_task_post_recv_alloc_init";
    if (doca_error_t rc = require_running(func); rc != DOCA_SUCCESS)
        return rc;
    if (buf->mmap() != mmap_ || !mmap_->contains(buf->head(), buf->len())) {
        SC_LOG_ERR("%s: the buffer is not inside the consumer's doca_mmap", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_comch_consumer_task_post_recv *t = nullptr;
    if (doca_error_t rc = pool_.take(func, "doca_comch_consumer_task_post_recv_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->buf_ = buf;
    t->producer_id_ = 0;
    t->imm_len_ = 0;
    *task = t;
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer::do_start()
{
    const char *func = "doca_ctx_start";
    if (!conn_->is_open()) {
        SC_LOG_ERR("%s: the consumer's connection is closed", func);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (faults_on_) // consumer-start-fail (logged by the fault)
        if (doca_error_t rc = softcomch::comch::fault_consumer_start(*conn_); rc != DOCA_SUCCESS)
            return rc;
    if (pool_.capacity() == 0) {
        SC_LOG_ERR("%s: consumer %u has no post-receive tasks "
                   "(doca_comch_consumer_task_post_recv_set_conf)",
                   func, id_);
        return DOCA_ERROR_INVALID_VALUE;
    }
    const transport::transport_ops &t = conn_->link_->ops();
    doca_error_t rc = DOCA_SUCCESS;
    shared_ = softcomch::comch::share_mmap(mmap_, t, rc);
    if (!shared_)
        return rc;
    const transport::consumer_params params{pool_.capacity(), imm_data_len_, id_};
    if ((rc = t.make_consumer(params, *shared_->exported, endpoint_)) != DOCA_SUCCESS) {
        SC_LOG_ERR("%s: cannot create the channel of consumer %u: %s", func, id_,
                   softcomch::error_name(rc));
        shared_.reset();
        return DOCA_ERROR_INITIALIZATION;
    }
    if (watch_.watch(pe(), *endpoint_) != DOCA_SUCCESS) {
        SC_LOG_ERR("%s: cannot create the wake-up descriptor of consumer %u", func, id_);
        release_transport();
        return DOCA_ERROR_INITIALIZATION;
    }
    {
        std::lock_guard<std::mutex> g(conn_->fast_.mu);
        conn_->fast_.local[id_] = this;
    }
    registered_ = true;
    ack_status_.store(-1, std::memory_order_relaxed);
    ack_traced_.store(false, std::memory_order_relaxed);
    expired_sent_ = false;

    rc = conn_->link_->announce(*endpoint_, *shared_->exported);
    if (rc != DOCA_SUCCESS) {
        SC_LOG_ERR("%s: cannot announce consumer %u to the peer: %s", func, id_,
                   softcomch::error_name(rc));
        release_transport();
        return DOCA_ERROR_NOT_CONNECTED;
    }
    SC_TRACE(softcomch::comch::tracing::starting(*this));
    // STARTING until the peer mapped the channel and the memory (CONSUMER_ACK).
    return DOCA_ERROR_IN_PROGRESS;
}

void doca_comch_consumer::do_stop()
{
    // Producers see the channel expire at once; the peer's expired-consumer event follows.
    announce_expired();
}

bool doca_comch_consumer::quiesce()
{
    // With no receive posted there is nothing to flush: the channel and the shared memory go
    // now and the consumer is IDLE when doca_ctx_stop returns.
    if (posted_ != 0)
        return false;
    release_transport();
    return true;
}

void doca_comch_consumer::announce_expired() noexcept
{
    if (expired_sent_ || !endpoint_)
        return;
    expired_sent_ = true;
    transport::with_concrete(*endpoint_, [](auto &q) noexcept { q.expire(); });
    if (!conn_->link_ || peer_gone_.load(std::memory_order_acquire))
        return;
    conn_->link_->expire(id_);
}

void doca_comch_consumer::release_transport() noexcept
{
    if (registered_) {
        std::lock_guard<std::mutex> g(conn_->fast_.mu);
        conn_->fast_.local.erase(id_);
        registered_ = false;
    }
    watch_.unwatch();
    endpoint_.reset();
    shared_.reset(); // the last user restores private memory: the peer's access ends
}

doca_error_t doca_comch_consumer::validate(const doca_task *t) const
{
    auto *task = static_cast<const doca_comch_consumer_task_post_recv *>(t);
    if (!task->buf_ || task->buf_->mmap() != mmap_) {
        SC_LOG_ERR(
            "doca_task_try_submit: the post-receive task's buffer is not in the consumer's mmap");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer::submit(doca_task *t)
{
    auto *task = static_cast<doca_comch_consumer_task_post_recv *>(t);
    if (peer_gone_.load(std::memory_order_acquire)) {
        SC_LOG_ERR("doca_task_submit: the consumer's connection is closed");
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (faults_on_) [[unlikely]]
        if (softcomch::comch::fault_submit_again(*conn_))
            return DOCA_ERROR_AGAIN; // the task stays the program's, untouched
    doca_buf *b = task->buf_;
    auto *data = static_cast<uint8_t *>(b->data());
    auto *end = static_cast<uint8_t *>(b->head()) + b->len();
    uint64_t cap = uint64_t(end - data);
    // The payload lands at the buffer's data pointer; the consumer addresses are what the
    // producer translates into its mapping of this memory.
    doca_error_t rc = transport::with_concrete(*endpoint_, [&](auto &q) noexcept {
        return q.post(pool_.index_of(task), reinterpret_cast<uint64_t>(data), cap);
    });
    if (rc != DOCA_SUCCESS) {
        if (rc != DOCA_ERROR_AGAIN)
            SC_LOG_ERR("doca_task_submit: cannot post the receive buffer: %s",
                       softcomch::error_name(rc));
        return rc;
    }
    t->state_ = softcomch::core::task_state::submitted;
    task_submitted();
    ++posted_;
    return DOCA_SUCCESS;
}

void doca_comch_consumer::free_task(doca_task *t)
{
    pool_.release(static_cast<doca_comch_consumer_task_post_recv *>(t));
}

template <class Endpoint> unsigned doca_comch_consumer::drain_completions(Endpoint &q)
{
    unsigned n = 0;
    while (n < k_completion_budget) {
        const auto *c = q.peek();
        if (!c)
            break;
        doca_comch_consumer_task_post_recv *task = pool_.at(c->task);
        if (!task || task->state_ != softcomch::core::task_state::submitted) {
            SC_LOG_ERR("consumer %u: the peer completed receive %u, which is not posted; ignored",
                       id_, c->task);
            q.release();
            continue;
        }
        doca_error_t st = doca_error_t(c->status);
        SC_TRACE(if (st == DOCA_SUCCESS) softcomch::trace::fast_received(c->len));
        // An abandoned task's buffer may already be back in its inventory (the program freed
        // both): the payload is in the memory, but the doca_buf is no longer the task's to touch.
        if (st == DOCA_SUCCESS && !task->abandoned_) {
            task->buf_->set_data_len(c->len);
            task->producer_id_ = c->producer_id;
            task->imm_len_ = c->imm_len <= sizeof task->imm_ ? c->imm_len : 0;
            std::memcpy(task->imm_, c->imm, task->imm_len_);
        }
        q.release();
        --posted_;
        complete(task, st);
        ++n;
    }
    return n;
}

template <class Endpoint> void doca_comch_consumer::flush_posted(Endpoint &q, doca_error_t status)
{
    // Buffers no producer can take any more: reclaim them from the queue, then fail them.
    typename Endpoint::posted e;
    while (q.revoke(&e)) {
        doca_comch_consumer_task_post_recv *task = pool_.at(e.task);
        if (task && task->state_ == softcomch::core::task_state::submitted) {
            --posted_;
            complete(task, status);
        }
    }
    if (!peer_gone_.load(std::memory_order_acquire))
        return;
    // The peer is gone: buffers it had claimed will never be completed.
    for (uint32_t i = 0; i < pool_.constructed() && posted_; ++i) {
        doca_comch_consumer_task_post_recv *task = pool_.at(i);
        if (task->state_ == softcomch::core::task_state::submitted) {
            --posted_;
            complete(task, status);
        }
    }
}

unsigned doca_comch_consumer::poll()
{
    switch (state()) {
    case DOCA_CTX_STATE_IDLE:
        return 0;
    case DOCA_CTX_STATE_STARTING: {
        int st = ack_status_.load(std::memory_order_acquire);
        if (st < 0 && endpoint_ &&
            transport::with_concrete(*endpoint_, [](auto &q) noexcept { return q.accepted(); })) {
            st = 0; // accepted through the channel: no need to wait for the connection's engine
            if (claim_ack_trace())
                SC_TRACE(
                    softcomch::comch::tracing::consumer_acknowledged(*conn_, id_, DOCA_SUCCESS));
        }
        if (st < 0 && !peer_gone_.load(std::memory_order_acquire))
            return 0;
        if (st == 0) {
            set_state(DOCA_CTX_STATE_RUNNING);
            return 1;
        }
        SC_LOG_ERR("consumer %u: the peer %s", id_,
                   st > 0 ? softcomch::error_name(doca_error_t(st))
                          : "went away before accepting it");
        announce_expired();
        release_transport();
        set_state(DOCA_CTX_STATE_IDLE); // may destroy this consumer: return at once
        return 1;
    }
    case DOCA_CTX_STATE_RUNNING:
        return transport::with_concrete(*endpoint_, [this](auto &q) {
            unsigned work = drain_completions(q);
            if (q.corrupted() && !peer_gone_.load(std::memory_order_acquire)) {
                // The peer published an impossible completion: nothing it writes can be trusted.
                SC_LOG_ERR("consumer %u: the peer corrupted the channel; its receives fail", id_);
                peer_gone();
            }
            if (peer_gone_.load(std::memory_order_acquire) && posted_)
                flush_posted(q, DOCA_ERROR_CONNECTION_ABORTED);
            return work;
        });
    case DOCA_CTX_STATE_STOPPING:
        break;
    }
    unsigned work = 0;
    if (endpoint_) {
        transport::with_concrete(*endpoint_, [&](auto &q) {
            work += drain_completions(q);
            if (q.corrupted())
                peer_gone(); // stop must not wait for completions a corrupt peer will never send
            flush_posted(q, DOCA_ERROR_SHUTDOWN);
        });
    }
    if (posted_ == 0) {
        release_transport();
        if (try_finish_stop())
            return work + 1; // IDLE: the state callback may have destroyed this consumer
    }
    return work;
}

softcomch::core::arm_result doca_comch_consumer::try_arm()
{
    softcomch::core::arm_result r;
    if (state() == DOCA_CTX_STATE_STARTING) {
        r.timeout_ns = 1'000'000; // the peer's acceptance is a shared word: look again in 1 ms
        return r;
    }
    if (state() == DOCA_CTX_STATE_STOPPING ||
        (endpoint_ &&
         !transport::with_concrete(*endpoint_, [](auto &q) noexcept { return q.arm(); })))
        r.busy = true;
    return r;
}
