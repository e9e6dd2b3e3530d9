// SPDX-License-Identifier: Apache-2.0
#include "comch/producer.hpp"

#include <cstring>
#include <string>

#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "comch/fastpath.hpp"
#include "comch/fault_hooks.hpp"
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
// Attempts to publish a completion whose slot the consumer has not released yet (each attempt
// is a few loads): about a millisecond, far beyond a live consumer's release latency.
constexpr uint32_t k_complete_spins = 1u << 20;
} // namespace

doca_error_t doca_comch_producer::create(doca_comch_connection *conn, const char *func,
                                         doca_comch_producer **out)
{
    if (doca_error_t rc = doca_comch_connection::require_established(conn, func);
        rc != DOCA_SUCCESS)
        return rc;
    return conn->fast_.producers.create(
        func, "producers", conn->owner_->caps().max_producers,
        [&](uint32_t id) { *out = new doca_comch_producer(conn, id); });
}

doca_comch_producer::doca_comch_producer(doca_comch_connection *conn, uint32_t id)
    : doca_ctx("comch producer"), conn_(conn), id_(id), faults_on_(conn->faults_on_)
{}

doca_comch_producer::~doca_comch_producer()
{
    conn_->fast_.producers.give_back();
}

doca_error_t
doca_comch_producer::task_send_set_conf(doca_comch_producer_task_send_completion_cb_t ok,
                                        doca_comch_producer_task_send_completion_cb_t err,
                                        uint32_t num, const char *func)
{
    return pool_.set_conf<&doca_comch_producer::pool_>(
        this, func, ok, err, "number of send tasks", num,
        conn_->owner_->caps().producer_max_num_tasks, "doca_comch_producer_cap_get_max_num_tasks");
}

doca_error_t doca_comch_producer::task_send_alloc_init(const doca_buf *buf, const uint8_t *imm,
                                                       uint32_t imm_len, uint32_t consumer_id,
                                                       doca_comch_producer_task_send **task)
{
    const char *func = "doca_comch_producer_task_send_alloc_init";
    if (doca_error_t rc = require_running(func); rc != DOCA_SUCCESS)
        return rc;
    if (!doca_comch_producer_task_send::imm_data_fits(imm, imm_len, func))
        return DOCA_ERROR_INVALID_VALUE;
    uint32_t max_buf = conn_->owner_->caps().producer_max_buf_size;
    if (buf->data_len() > max_buf) {
        SC_LOG_ERR(
            "%s: %zu bytes is above the maximum of %u (doca_comch_producer_cap_get_max_buf_size)",
            func, buf->data_len(), max_buf);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!buf->mmap() || !buf->mmap()->started()) {
        SC_LOG_ERR("%s: the buffer is not in a started doca_mmap", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!local_memory(buf, func))
        return DOCA_ERROR_NOT_SUPPORTED;
    doca_comch_producer_task_send *t = nullptr;
    if (doca_error_t rc = pool_.take(func, "doca_comch_producer_task_send_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->buf_ = buf;
    t->consumer_id_ = consumer_id;
    t->imm_len_ = imm_len;
    if (imm_len)
        std::memcpy(t->imm_, imm, imm_len);
    *task = t;
    return DOCA_SUCCESS;
}

bool doca_comch_producer_task_send::imm_data_fits(const uint8_t *data, uint32_t len,
                                                  const char *func) noexcept
{
    if (len <= sizeof imm_ && (len == 0 || data))
        return true;
    SC_LOG_ERR("%s: immediate data of %u bytes is invalid (at most %zu bytes, non-NULL)", func, len,
               sizeof imm_);
    return false;
}

void doca_comch_producer_task_send::set_buf(const doca_buf *buf, const char *func) noexcept
{
    if (reconfigurable(func) && doca_comch_producer::local_memory(buf, func))
        buf_ = buf;
}

bool doca_comch_producer::local_memory(const doca_buf *buf, const char *func) noexcept
{
    if (buf->mmap() == nullptr || !buf->mmap()->from_export())
        return true;
    // Its addresses are another process's: only a DMA context reaches that memory.
    SC_LOG_ERR("%s: the buffer belongs to an mmap created from an export (another process's "
               "memory); a producer sends from local memory only",
               func);
    return false;
}

void doca_comch_producer_task_send::set_consumer_id(uint32_t consumer_id, const char *func) noexcept
{
    if (reconfigurable(func))
        consumer_id_ = consumer_id;
}

void doca_comch_producer_task_send::set_imm_data(const uint8_t *data, uint32_t len,
                                                 const char *func) noexcept
{
    if (!reconfigurable(func) || !imm_data_fits(data, len, func))
        return;
    imm_len_ = len;
    if (len)
        std::memcpy(imm_, data, len);
}

doca_error_t doca_comch_producer::do_start()
{
    if (!conn_->is_open()) {
        SC_LOG_ERR("doca_ctx_start: the producer's connection is closed");
        return DOCA_ERROR_NOT_CONNECTED;
    }
    std::string why;
    if (conn_->link_->ops().make_write_plan(plan_, why) != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_ctx_start: %s", why.c_str());
        return DOCA_ERROR_BAD_CONFIG;
    }
    SC_LOG_DBG("producer %u: %s", id_, plan_->describe().c_str());
    SC_TRACE(softcomch::comch::tracing::starting(*this));
    return DOCA_SUCCESS; // nothing to negotiate: a producer is RUNNING at once, as on hardware
}

softcomch::comch::remote_consumer *doca_comch_producer::lookup(uint32_t consumer_id)
{
    uint64_t gen = conn_->fast_.generation.load(std::memory_order_acquire);
    if (!cached_ || cached_id_ != consumer_id || cached_generation_ != gen) {
        settle(); // the check the old entry owes, while it is still alive
        cached_ = conn_->fast_.find_remote(consumer_id); // control-path cost: the lock, a refcount
        cached_id_ = consumer_id;
        cached_generation_ = gen;
    }
    return cached_.get(); // cached_ keeps it alive until the next lookup on this (one) thread
}

doca_error_t doca_comch_producer::validate(const doca_task *t) const
{
    auto *task = static_cast<const doca_comch_producer_task_send *>(t);
    if (!task->buf_ || task->consumer_id_ == 0) {
        SC_LOG_ERR("doca_task_try_submit: producer send task without buffer or consumer id");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer::submit(doca_task *t)
{
    auto *task = static_cast<doca_comch_producer_task_send *>(t);
    if (faults_on_) [[unlikely]]
        return submit_with_faults(task);
    return submit_send<false>(task);
}

doca_error_t doca_comch_producer::submit_with_faults(doca_comch_producer_task_send *task)
{
    if (softcomch::comch::fault_submit_again(*conn_))
        return DOCA_ERROR_AGAIN; // the task stays the program's, untouched
    return submit_send<true>(task);
}

template <bool Faults>
doca_error_t doca_comch_producer::submit_send(doca_comch_producer_task_send *task)
{
    softcomch::comch::remote_consumer *rc = lookup(task->consumer_id_);
    if (!rc || rc->expired.load(std::memory_order_acquire) ||
        transport::with_concrete(*rc->endpoint,
                                 [](const auto &r) noexcept { return r.expired(); })) {
        SC_LOG_ERR(
            "doca_task_submit: no consumer %u on this connection (never announced by the peer, or "
            "expired)",
            task->consumer_id_);
        unknown_consumer_.store(k_unknown_set | task->consumer_id_,
                                std::memory_order_relaxed); // explained by tick()
        return DOCA_ERROR_NOT_FOUND;
    }
    if (task->imm_len_ > rc->endpoint->imm_data_len()) {
        SC_LOG_ERR("doca_task_submit: %u bytes of immediate data, but consumer %u accepts %u "
                   "(doca_comch_consumer_set_imm_data_len)",
                   task->imm_len_, task->consumer_id_, rc->endpoint->imm_data_len());
        return DOCA_ERROR_INVALID_VALUE;
    }
    return transport::with_concrete(*rc->endpoint,
                                    [&](const auto &r) { return send_to<Faults>(task, r); });
}

template <bool Faults, class Remote>
doca_error_t doca_comch_producer::send_to(doca_comch_producer_task_send *task, const Remote &r)
{
    doca_task *t = task;
    const uint64_t len = task->buf_->data_len();
    typename Remote::posted entry;
    doca_error_t claim = r.try_claim(len, &entry);
    switch (claim) {
    case DOCA_SUCCESS:
        break;
    case DOCA_ERROR_AGAIN:
        // Back-pressure: the consumer has no buffer posted. It clears as soon as the consumer
        // posts one (shared memory): retrying needs no progress on this side.
        return DOCA_ERROR_AGAIN;
    case DOCA_ERROR_TOO_BIG:
        SC_LOG_ERR("producer %u: %lu bytes do not fit the buffer consumer %u posted; the send "
                   "fails and the "
                   "buffer stays posted",
                   id_, (unsigned long)len, task->consumer_id_);
        t->state_ = softcomch::core::task_state::submitted;
        task_submitted();
        complete(t, DOCA_ERROR_TOO_BIG);
        return DOCA_SUCCESS;
    default:
        SC_LOG_ERR("doca_task_submit: consumer %u expired", task->consumer_id_);
        return DOCA_ERROR_NOT_FOUND;
    }
    t->state_ = softcomch::core::task_state::submitted;
    task_submitted();
    if constexpr (Faults) {
        if (softcomch::comch::fault_kill_channel(*conn_)) {
            // kill-channel: half the payload lands, its completion never does, and the
            // connection drops: what the consumer's side sees of a producer's process that dies
            // during the copy. This send fails.
            if (len > 1)
                (void)r.write(entry, task->buf_->data(), len / 2, *plan_);
            softcomch::comch::fault_kill_connection(*conn_);
            complete(t, DOCA_ERROR_CONNECTION_ABORTED);
            return DOCA_SUCCESS;
        }
    }
    typename Remote::completion c{};
    c.task = entry.task;
    c.producer_id = id_;
    c.imm_len = task->imm_len_;
    if (task->imm_len_)
        std::memcpy(c.imm, task->imm_, task->imm_len_);
    doca_error_t st = DOCA_SUCCESS;
    if (len) {
        // The one copy: straight into the consumer's posted buffer.
        st = r.write(entry, task->buf_->data(), len, *plan_);
        if (st != DOCA_SUCCESS)
            SC_LOG_ERR("producer %u: writing %lu bytes into consumer %u failed: %s", id_,
                       (unsigned long)len, task->consumer_id_, softcomch::error_name(st));
    }
    c.status = uint32_t(st);
    c.len = st == DOCA_SUCCESS ? len : 0;
    bool wake = false;
    // The completion slot of a claimed entry is free unless the consumer is behind on a
    // release; never for long. A consumer that never frees it is broken or gone: bounded wait.
    doca_error_t pub = DOCA_ERROR_AGAIN;
    for (uint32_t spins = 0; spins < k_complete_spins && pub == DOCA_ERROR_AGAIN; ++spins)
        pub = r.complete_deferred(c, &wake);
    if (pub != DOCA_SUCCESS) {
        SC_LOG_ERR("producer %u: consumer %u does not take completions (%s); the send fails", id_,
                   task->consumer_id_, softcomch::error_name(pub));
        st = DOCA_ERROR_CONNECTION_ABORTED;
    } else if (wake) {
        r.wake();
    } else {
        unsettled_ = true; // `r` is cached_'s (submit_send looked it up)
    }
    SC_TRACE(if (st == DOCA_SUCCESS) softcomch::trace::fast_sent(len));
    complete(t, st);
    return DOCA_SUCCESS;
}

void doca_comch_producer::free_task(doca_task *t)
{
    pool_.release(static_cast<doca_comch_producer_task_send *>(t));
}

void doca_comch_producer::settle_cached() noexcept
{
    unsettled_ = false;
    if (cached_)
        transport::with_concrete(*cached_->endpoint, [](const auto &r) noexcept { r.settle(); });
}

softcomch::core::arm_result doca_comch_producer::try_arm()
{
    settle();
    return {};
}

unsigned doca_comch_producer::poll()
{
    settle();
    // Sends complete at submit time; only a stop has to be finished here.
    if (state() == DOCA_CTX_STATE_STOPPING && try_finish_stop())
        return 1;
    return 0;
}
