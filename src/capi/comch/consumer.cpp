// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_comch_consumer.h: argument checks and delegation only.
#include <doca_comch_consumer.h>

#include "capi/comch/checks.hpp"
#include "comch/consumer.hpp"
#include "core/buf.hpp"
#include "core/mmap.hpp"

using namespace softcomch::capi;

extern "C" {

// ---------------------------------------------------------------------------------------------
// consumer
// ---------------------------------------------------------------------------------------------

doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_mmap *buf_mmap,
                                        struct doca_comch_consumer **consumer)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_RESOLVE_CONNECTION(conn, comch_connection);
        SC_REQUIRE(buf_mmap);
        SC_CHECK_NOT_NULL(consumer);
        return doca_comch_consumer::create(conn, buf_mmap, api_function(), consumer);
    });
}

doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
    return destroy_idle(__func__, SC_ARG(consumer), "consumer");
}

doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
    return fastpath_supported(__func__, devinfo);
}

doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id)
{
    return get_into(__func__, SC_ARG(consumer), SC_ARG(id), [](auto &o) { return o.id(); });
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
    return get_into(__func__, SC_ARG(consumer), SC_ARG(imm_data_len),
                    [](auto &o) { return o.imm_data_len(); });
}

doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
                                                  uint32_t imm_data_len)
{
    return delegate(__func__, SC_ARG(consumer),
                    [&](auto &o) { return o.set_imm_data_len(imm_data_len, api_function()); });
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
    return delegate(__func__, SC_ARG(consumer), [&](auto &o) {
        return o.task_post_recv_set_conf(task_completion_cb, task_error_cb, num_post_recv_tasks,
                                         api_function());
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
    return usable(task, "task", __func__) ? task->buf() : nullptr;
}

void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
                                                struct doca_buf *buf)
{
    if (usable(task, "task", __func__) && usable(buf, "buf", __func__))
        task->set_buf(buf, __func__);
}

uint32_t doca_comch_consumer_task_post_recv_get_producer_id(
    const struct doca_comch_consumer_task_post_recv *task)
{
    return why_unusable(task) ? 0 : task->producer_id();
}

const uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(
    const struct doca_comch_consumer_task_post_recv *task)
{
    return why_unusable(task) ? nullptr : task->imm_data();
}

uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(
    const struct doca_comch_consumer_task_post_recv *task)
{
    return why_unusable(task) ? 0 : task->imm_data_len();
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

doca_error_t doca_comch_consumer_get_gpu_handle(struct doca_comch_consumer *c,
                                                struct doca_comch_gpu_consumer **h)
{
    return no_gpu(__func__, c, h);
}

} // extern "C"
