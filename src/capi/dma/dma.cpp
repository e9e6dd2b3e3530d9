// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_dma.h (libdoca_dma): argument checks and delegation only.
#include <doca_dma.h>

#include "capi/engine_publication.hpp"
#include "capi/handle.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"
#include "dma/dma.hpp"

namespace softcomch::capi {

SC_HANDLE(doca_dma, "a valid", "destroyed, foreign, or another kind of context",
          is_live_context(p));
SC_HANDLE(doca_dma_task_memcpy, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));

namespace {

// The capability getters of a devinfo: `out` gets the device's value.
template <typename Out, typename Get>
doca_error_t dma_cap(const char *func, const doca_devinfo *devinfo, Out *out, Get &&get) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(out);
        *out = Out(get(devinfo->dma()));
        return DOCA_SUCCESS;
    });
}

} // namespace

} // namespace softcomch::capi

using namespace softcomch::capi;

extern "C" {

doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(dma);
        return softcomch::capi::create_published(&doca_dma::create, dev, dma, "dma");
    });
}

doca_error_t doca_dma_destroy(struct doca_dma *dma)
{
    return destroy_idle(__func__, SC_ARG(dma), "DMA context");
}

doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        return DOCA_SUCCESS; // every function of the emulated machine (doca_dma.h)
    });
}

struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma)
{
    return usable(dma, "dma", __func__) ? dma : nullptr;
}

doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks)
{
    return get_into(__func__, SC_ARG(dma), SC_ARG(max_num_tasks),
                    [](auto &d) { return d.max_num_tasks(); });
}

doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                           uint32_t *max_buf_list_len)
{
    return dma_cap(__func__, devinfo, max_buf_list_len, [](const auto &c) {
        return std::min<uint64_t>(c.max_buf_list_len, UINT32_MAX);
    });
}

doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                       uint64_t *buf_size)
{
    return dma_cap(__func__, devinfo, buf_size, [](const auto &c) { return c.max_buf_size; });
}

doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
                                           doca_dma_task_memcpy_completion_cb_t task_completion_cb,
                                           doca_dma_task_memcpy_completion_cb_t task_error_cb,
                                           uint32_t num_memcpy_tasks)
{
    return delegate(__func__, SC_ARG(dma), [&](auto &d) {
        return d.task_memcpy_set_conf(task_completion_cb, task_error_cb, num_memcpy_tasks,
                                      api_function());
    });
}

doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src,
                                             struct doca_buf *dst, union doca_data user_data,
                                             struct doca_dma_task_memcpy **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dma);
        SC_REQUIRE(src);
        SC_REQUIRE(dst);
        SC_CHECK_NOT_NULL(task);
        return dma->task_memcpy_alloc_init(src, dst, user_data, task);
    });
}

struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src)
{
    if (usable(task, "task", __func__) && usable(src, "src", __func__))
        task->set_src(src, __func__);
}

const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task)
{
    return why_unusable(task) ? nullptr : task->src();
}

void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst)
{
    if (usable(task, "task", __func__) && usable(dst, "dst", __func__))
        task->set_dst(dst, __func__);
}

struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task)
{
    return why_unusable(task) ? nullptr : task->dst();
}

doca_error_t doca_dma_get_gpu_handle(struct doca_dma *dma, struct doca_gpu_dma **gpu_dma)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dma);
        SC_CHECK_NOT_NULL(gpu_dma);
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED,
                  "%s: the emulated device has no GPU; GPU data paths are not supported",
                  api_function());
    });
}

} // extern "C"
