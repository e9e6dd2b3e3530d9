// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_comch_consumer.h and doca_comch_producer.h: argument checks and delegation only.
#include <doca_comch_consumer.h>
#include <doca_comch_msgq.h>
#include <doca_comch_producer.h>

#include <cstring>

#include "capi/handle.hpp"
#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "comch/consumer.hpp"
#include "comch/producer.hpp"
#include "common/guard.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"
#include "core/mmap.hpp"

using softcomch::api_function;
using softcomch::guard;
using softcomch::capi::usable;
using softcomch::capi::why_unusable;

namespace {

// The connection must be open and its owner RUNNING to carry producers and consumers.
doca_error_t check_connection(const doca_comch_connection *conn)
{
    if (!conn->is_open() || conn->owner_->state() != DOCA_CTX_STATE_RUNNING)
        SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: the connection is not established (or is closing)",
                  api_function());
    return DOCA_SUCCESS;
}

template <typename Fn>
doca_error_t cap_u32(const char *func, const doca_devinfo *devinfo, uint32_t *out, Fn &&get)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(out);
        *out = get(devinfo->comch());
        return DOCA_SUCCESS;
    });
}

doca_error_t fastpath_supported(const char *func, const doca_devinfo *devinfo)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        // Producers and consumers run on both sides, on any device that can hold a connection.
        return devinfo->server_capable() || devinfo->client_capable() ? DOCA_SUCCESS
                                                                      : DOCA_ERROR_NOT_SUPPORTED;
    });
}

// DPA and MsgQ: NULL arguments are refused as everywhere (INVALID_VALUE); otherwise the answer is
// that the emulated device has no DPA.
doca_error_t no_dpa(const char *func, const void *obj = reinterpret_cast<const void *>(1),
                    const void *arg = reinterpret_cast<const void *>(1))
{
    if (!obj || !arg) {
        SC_LOG_ERR("%s: NULL argument", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    SC_LOG_ERR("%s: the emulated device has no DPA; DPA data paths are not supported", func);
    return DOCA_ERROR_NOT_SUPPORTED;
}

} // namespace

extern "C" {

// ---------------------------------------------------------------------------------------------
// consumer
// ---------------------------------------------------------------------------------------------

doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_mmap *buf_mmap,
                                        struct doca_comch_consumer **consumer)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(comch_connection);
        SC_REQUIRE(buf_mmap);
        SC_CHECK_NOT_NULL(consumer);
        if (doca_error_t rc = check_connection(comch_connection); rc != DOCA_SUCCESS)
            return rc;
        if (!buf_mmap->started())
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: the mmap is not started (doca_mmap_start)",
                      api_function());
        uint32_t max = comch_connection->owner_->dev()->info()->comch().max_consumers;
        if (comch_connection->fast_.live_consumers.load() >= max)
            SC_REFUSE(DOCA_ERROR_NO_MEMORY,
                      "%s: the connection already has %u consumers (the maximum)", api_function(),
                      max);
        uint32_t id = comch_connection->fast_.next_consumer_id.fetch_add(1);
        *consumer = new doca_comch_consumer(comch_connection, buf_mmap, id);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(consumer);
        if (!consumer->is_idle())
            SC_REFUSE(DOCA_ERROR_IN_USE,
                      "%s: the consumer is %s; stop it and progress until IDLE first",
                      api_function(), softcomch::core::state_name(consumer->state()));
        delete consumer;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
    return fastpath_supported(__func__, devinfo);
}

doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(consumer);
        SC_CHECK_NOT_NULL(id);
        *id = consumer->id();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_num_tasks)
{
    return cap_u32(__func__, devinfo, max_num_tasks,
                   [](const auto &c) { return c.consumer_max_num_tasks; });
}

doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                      uint32_t *max_buf_size)
{
    return cap_u32(__func__, devinfo, max_buf_size,
                   [](const auto &c) { return c.consumer_max_buf_size; });
}

doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len)
{
    return cap_u32(__func__, devinfo, max_buf_list_len,
                   [](const auto &c) { return c.consumer_max_buf_list_len; });
}

doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_consumers)
{
    return cap_u32(__func__, devinfo, max_consumers, [](const auto &c) { return c.max_consumers; });
}

doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_imm_data_len)
{
    return cap_u32(__func__, devinfo, max_imm_data_len,
                   [](const auto &c) { return c.max_imm_data_len; });
}

doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer,
                                                  uint32_t *imm_data_len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(consumer);
        SC_CHECK_NOT_NULL(imm_data_len);
        *imm_data_len = consumer->imm_data_len();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
                                                  uint32_t imm_data_len)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(consumer);
        return consumer->set_imm_data_len(imm_data_len, api_function());
    });
}

struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer)
{
    return usable(consumer, "consumer", __func__) ? consumer : nullptr;
}

doca_error_t doca_comch_consumer_task_post_recv_set_conf(
    struct doca_comch_consumer *consumer,
    doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
    doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(consumer);
        return consumer->task_post_recv_set_conf(task_completion_cb, task_error_cb,
                                                 num_post_recv_tasks, api_function());
    });
}

doca_error_t
doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer,
                                              struct doca_buf *buf,
                                              struct doca_comch_consumer_task_post_recv **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(consumer);
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(task);
        return consumer->task_post_recv_alloc_init(buf, task);
    });
}

struct doca_buf *
doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task)
{
    return usable(task, "task", __func__) ? task->buf_ : nullptr;
}

void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
                                                struct doca_buf *buf)
{
    if (!usable(task, "task", __func__) || !usable(buf, "buf", __func__))
        return;
    if (task->state_ != softcomch::core::task_state::allocated) {
        SC_LOG_ERR("%s: the task is in flight", __func__);
        return;
    }
    task->buf_ = buf;
}

uint32_t doca_comch_consumer_task_post_recv_get_producer_id(
    const struct doca_comch_consumer_task_post_recv *task)
{
    return why_unusable(task) ? 0 : task->producer_id_;
}

const uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(
    const struct doca_comch_consumer_task_post_recv *task)
{
    return why_unusable(task) || task->imm_len_ == 0 ? nullptr : task->imm_;
}

uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(
    const struct doca_comch_consumer_task_post_recv *task)
{
    return why_unusable(task) ? 0 : task->imm_len_;
}

struct doca_task *
doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

// ---- DPA consumer completions: no DPA on the emulated device ----

doca_error_t doca_comch_consumer_completion_create(struct doca_comch_consumer_completion **c)
{
    return no_dpa(__func__, c);
}
doca_error_t doca_comch_consumer_completion_set_dpa_thread(struct doca_comch_consumer_completion *c,
                                                           struct doca_dpa_thread *t)
{
    return no_dpa(__func__, c, t);
}
doca_error_t doca_comch_consumer_completion_destroy(struct doca_comch_consumer_completion *c)
{
    return no_dpa(__func__, c);
}
doca_error_t doca_comch_consumer_completion_start(struct doca_comch_consumer_completion *c)
{
    return no_dpa(__func__, c);
}
doca_error_t doca_comch_consumer_completion_stop(struct doca_comch_consumer_completion *c)
{
    return no_dpa(__func__, c);
}
doca_error_t
doca_comch_consumer_completion_get_dpa_handle(struct doca_comch_consumer_completion *c,
                                              doca_dpa_dev_comch_consumer_completion_t *h)
{
    return no_dpa(__func__, c, h);
}
doca_error_t
doca_comch_consumer_completion_set_max_num_consumers(struct doca_comch_consumer_completion *c,
                                                     uint32_t)
{
    return no_dpa(__func__, c);
}
doca_error_t
doca_comch_consumer_completion_get_max_num_consumers(const struct doca_comch_consumer_completion *c,
                                                     uint32_t *v)
{
    return no_dpa(__func__, c, v);
}
doca_error_t
doca_comch_consumer_completion_set_max_num_recv(struct doca_comch_consumer_completion *c, uint32_t)
{
    return no_dpa(__func__, c);
}
doca_error_t
doca_comch_consumer_completion_get_max_num_recv(const struct doca_comch_consumer_completion *c,
                                                uint32_t *v)
{
    return no_dpa(__func__, c, v);
}
doca_error_t
doca_comch_consumer_completion_set_imm_data_len(struct doca_comch_consumer_completion *c, uint32_t)
{
    return no_dpa(__func__, c);
}
doca_error_t
doca_comch_consumer_completion_get_imm_data_len(const struct doca_comch_consumer_completion *c,
                                                uint32_t *v)
{
    return no_dpa(__func__, c, v);
}
doca_error_t doca_comch_consumer_set_dev_max_num_recv(struct doca_comch_consumer *c, uint32_t)
{
    return no_dpa(__func__, c);
}
doca_error_t doca_comch_consumer_set_completion(struct doca_comch_consumer *c,
                                                struct doca_comch_consumer_completion *cc, uint32_t)
{
    return no_dpa(__func__, c, cc);
}
doca_error_t doca_comch_consumer_get_dpa_handle(struct doca_comch_consumer *c,
                                                doca_dpa_dev_comch_consumer_t *h)
{
    return no_dpa(__func__, c, h);
}

// ---------------------------------------------------------------------------------------------
// producer
// ---------------------------------------------------------------------------------------------

doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_comch_producer **producer)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(comch_connection);
        SC_CHECK_NOT_NULL(producer);
        if (doca_error_t rc = check_connection(comch_connection); rc != DOCA_SUCCESS)
            return rc;
        uint32_t max = comch_connection->owner_->dev()->info()->comch().max_producers;
        if (comch_connection->fast_.live_producers.load() >= max)
            SC_REFUSE(DOCA_ERROR_NO_MEMORY,
                      "%s: the connection already has %u producers (the maximum)", api_function(),
                      max);
        uint32_t id = comch_connection->fast_.next_producer_id.fetch_add(1);
        *producer = new doca_comch_producer(comch_connection, id);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(producer);
        if (!producer->is_idle())
            SC_REFUSE(DOCA_ERROR_IN_USE,
                      "%s: the producer is %s; stop it and progress until IDLE first",
                      api_function(), softcomch::core::state_name(producer->state()));
        delete producer;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
    return fastpath_supported(__func__, devinfo);
}

doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(producer);
        SC_CHECK_NOT_NULL(id);
        *id = producer->id();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_num_tasks)
{
    return cap_u32(__func__, devinfo, max_num_tasks,
                   [](const auto &c) { return c.producer_max_num_tasks; });
}

doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                      uint32_t *max_buf_size)
{
    return cap_u32(__func__, devinfo, max_buf_size,
                   [](const auto &c) { return c.producer_max_buf_size; });
}

doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len)
{
    return cap_u32(__func__, devinfo, max_buf_list_len,
                   [](const auto &c) { return c.producer_max_buf_list_len; });
}

doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_producers)
{
    return cap_u32(__func__, devinfo, max_producers, [](const auto &c) { return c.max_producers; });
}

struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer)
{
    return usable(producer, "producer", __func__) ? producer : nullptr;
}

doca_error_t doca_comch_producer_set_dev_max_num_send(struct doca_comch_producer *p, uint32_t)
{
    return no_dpa(__func__, p);
}
doca_error_t doca_comch_producer_dpa_completion_attach(struct doca_comch_producer *p,
                                                       struct doca_dpa_completion *c)
{
    return no_dpa(__func__, p, c);
}
doca_error_t doca_comch_producer_get_dpa_handle(struct doca_comch_producer *p,
                                                doca_dpa_dev_comch_producer_t *h)
{
    return no_dpa(__func__, p, h);
}

doca_error_t doca_comch_producer_task_send_set_conf(
    struct doca_comch_producer *producer,
    doca_comch_producer_task_send_completion_cb_t task_completion_cb,
    doca_comch_producer_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(producer);
        return producer->task_send_set_conf(task_completion_cb, task_error_cb, num_send_tasks,
                                            api_function());
    });
}

doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
                                                      const struct doca_buf *buf, uint8_t *imm_data,
                                                      uint32_t imm_data_len, uint32_t consumer_id,
                                                      struct doca_comch_producer_task_send **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(producer);
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(task);
        return producer->task_send_alloc_init(buf, imm_data, imm_data_len, consumer_id, task);
    });
}

const struct doca_buf *
doca_comch_producer_task_send_get_buf(const struct doca_comch_producer_task_send *task)
{
    return why_unusable(task) ? nullptr : task->buf_;
}

void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task,
                                           const struct doca_buf *buf)
{
    if (!usable(task, "task", __func__) || !usable(buf, "buf", __func__))
        return;
    if (task->state_ != softcomch::core::task_state::allocated) {
        SC_LOG_ERR("%s: the task is in flight", __func__);
        return;
    }
    task->buf_ = buf;
}

uint32_t
doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task)
{
    return why_unusable(task) ? 0 : task->consumer_id_;
}

void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
                                                   const uint32_t consumer_id)
{
    if (!usable(task, "task", __func__))
        return;
    if (task->state_ != softcomch::core::task_state::allocated) {
        SC_LOG_ERR("%s: the task is in flight", __func__);
        return;
    }
    task->consumer_id_ = consumer_id;
}

uint8_t *
doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task)
{
    if (why_unusable(task) || task->imm_len_ == 0)
        return nullptr;
    return const_cast<uint8_t *>(task->imm_);
}

uint32_t
doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task)
{
    return why_unusable(task) ? 0 : task->imm_len_;
}

void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task,
                                                uint8_t *imm_data, uint32_t imm_data_len)
{
    if (!usable(task, "task", __func__))
        return;
    if (task->state_ != softcomch::core::task_state::allocated) {
        SC_LOG_ERR("%s: the task is in flight", __func__);
        return;
    }
    if (imm_data_len > sizeof task->imm_ || (imm_data_len && !imm_data)) {
        SC_LOG_ERR("%s: invalid immediate data (at most %zu bytes)", __func__, sizeof task->imm_);
        return;
    }
    task->imm_len_ = imm_data_len;
    if (imm_data_len)
        std::memcpy(task->imm_, imm_data, imm_data_len);
}

struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

// ---------------------------------------------------------------------------------------------
// MsgQ (DPA message queues)
// ---------------------------------------------------------------------------------------------

doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq)
{
    return no_dpa(__func__, dev, msgq);
}
doca_error_t doca_comch_msgq_destroy(struct doca_comch_msgq *msgq)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_set_dpa_consumer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa)
{
    return no_dpa(__func__, msgq, dpa);
}
doca_error_t doca_comch_msgq_set_max_num_consumers(struct doca_comch_msgq *msgq, uint32_t)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_set_dpa_producer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa)
{
    return no_dpa(__func__, msgq, dpa);
}
doca_error_t doca_comch_msgq_set_max_num_producers(struct doca_comch_msgq *msgq, uint32_t)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_start(struct doca_comch_msgq *msgq)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_stop(struct doca_comch_msgq *msgq)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_consumer_create(struct doca_comch_msgq *msgq,
                                             struct doca_comch_consumer **consumer)
{
    return no_dpa(__func__, msgq, consumer);
}
doca_error_t doca_comch_msgq_producer_create(struct doca_comch_msgq *msgq,
                                             struct doca_comch_producer **producer)
{
    return no_dpa(__func__, msgq, producer);
}

} // extern "C"
