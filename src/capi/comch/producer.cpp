// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_comch_producer.h: argument checks and delegation only.
#include <doca_comch_producer.h>

#include "capi/comch/checks.hpp"
#include "comch/producer.hpp"
#include "core/buf.hpp"
#include "core/mmap.hpp"

using namespace softcomch::capi;

extern "C" {

// ---------------------------------------------------------------------------------------------
// producer
// ---------------------------------------------------------------------------------------------

doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_comch_producer **producer)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_RESOLVE_CONNECTION(conn, comch_connection);
        SC_CHECK_NOT_NULL(producer);
        return doca_comch_producer::create(conn, api_function(), producer);
    });
}

doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
    return destroy_idle(__func__, SC_ARG(producer), "producer");
}

doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
    return fastpath_supported(__func__, devinfo);
}

doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id)
{
    return get_into(__func__, SC_ARG(producer), SC_ARG(id), [](auto &o) { return o.id(); });
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

doca_error_t doca_comch_producer_get_gpu_handle(struct doca_comch_producer *p,
                                                struct doca_comch_gpu_producer **h)
{
    return no_gpu(__func__, p, h);
}

doca_error_t doca_comch_producer_task_send_set_conf(
    struct doca_comch_producer *producer,
    doca_comch_producer_task_send_completion_cb_t task_completion_cb,
    doca_comch_producer_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
    return delegate(__func__, SC_ARG(producer), [&](auto &o) {
        return o.task_send_set_conf(task_completion_cb, task_error_cb, num_send_tasks,
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
    return why_unusable(task) ? nullptr : task->buf();
}

void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task,
                                           const struct doca_buf *buf)
{
    if (usable(task, "task", __func__) && usable(buf, "buf", __func__))
        task->set_buf(buf, __func__);
}

uint32_t
doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task)
{
    return why_unusable(task) ? 0 : task->consumer_id();
}

void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
                                                   const uint32_t consumer_id)
{
    if (usable(task, "task", __func__))
        task->set_consumer_id(consumer_id, __func__);
}

uint8_t *
doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task)
{
    return why_unusable(task) ? nullptr : const_cast<uint8_t *>(task->imm_data());
}

uint32_t
doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task)
{
    return why_unusable(task) ? 0 : task->imm_data_len();
}

void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task,
                                                uint8_t *imm_data, uint32_t imm_data_len)
{
    if (usable(task, "task", __func__))
        task->set_imm_data(imm_data, imm_data_len, __func__);
}

struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

} // extern "C"
