// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_mmap_advise.h (DOCA Core: libdoca_common): argument checks and delegation only.
#include <doca_mmap_advise.h>

#include "capi/engine_publication.hpp"
#include "capi/handle.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"
#include "mmap_advise/mmap_advise.hpp"

namespace softcomch::capi {

SC_HANDLE(doca_mmap_advise, "a valid", "destroyed, foreign, or another kind of context",
          is_live_context(p));
SC_HANDLE(doca_mmap_advise_task_invalidate_cache, "a valid",
          "freed, foreign, or a task of another kind", core::is_task_of(p));

} // namespace softcomch::capi

using namespace softcomch::capi;

extern "C" {

doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(mmap_advise);
        return softcomch::capi::create_published(&doca_mmap_advise::create, dev, mmap_advise,
                                                 "mmap_advise");
    });
}

doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise)
{
    return destroy_idle(__func__, SC_ARG(mmap_advise), "mmap advise context");
}

struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise)
{
    return usable(mmap_advise, "mmap_advise", __func__) ? mmap_advise : nullptr;
}

doca_error_t
doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        return DOCA_SUCCESS; // every function of the emulated machine (doca_mmap_advise.h)
    });
}

doca_error_t
doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                        uint64_t *buf_size)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(buf_size);
        *buf_size = devinfo->dma().max_buf_size;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
    struct doca_mmap_advise *mmap_advise,
    doca_mmap_advise_task_invalidate_cache_completion_cb_t task_completion_cb,
    doca_mmap_advise_task_invalidate_cache_completion_cb_t task_error_cb, uint32_t num_tasks)
{
    return delegate(__func__, SC_ARG(mmap_advise), [&](auto &m) {
        return m.task_invalidate_cache_set_conf(task_completion_cb, task_error_cb, num_tasks);
    });
}

doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(
    struct doca_mmap_advise *mmap_advise, struct doca_buf *buf, union doca_data user_data,
    struct doca_mmap_advise_task_invalidate_cache **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(mmap_advise);
        SC_REQUIRE(buf);
        SC_CHECK_NOT_NULL(task);
        return mmap_advise->task_invalidate_cache_alloc_init(buf, user_data, task);
    });
}

struct doca_task *doca_mmap_advise_task_invalidate_cache_as_doca_task(
    struct doca_mmap_advise_task_invalidate_cache *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

void doca_mmap_advise_task_invalidate_cache_set_buf(
    struct doca_mmap_advise_task_invalidate_cache *task, struct doca_buf *buf)
{
    if (usable(task, "task", __func__) && usable(buf, "buf", __func__))
        task->set_buf(buf, __func__);
}

struct doca_buf *doca_mmap_advise_task_invalidate_cache_get_buf(
    const struct doca_mmap_advise_task_invalidate_cache *task)
{
    return why_unusable(task) ? nullptr : task->buf();
}

} // extern "C"
