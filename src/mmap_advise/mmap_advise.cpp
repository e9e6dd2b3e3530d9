// SPDX-License-Identifier: Apache-2.0
#include "mmap_advise/mmap_advise.hpp"

#include <algorithm>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"
#include "core/mmap.hpp"

doca_error_t doca_mmap_advise::create(doca_dev *dev, doca_mmap_advise **out)
{
    *out = new doca_mmap_advise(dev);
    return DOCA_SUCCESS;
}

doca_mmap_advise::doca_mmap_advise(doca_dev *dev) noexcept : engine_ctx("mmap advise"), dev_(dev)
{
    dev_->hold(); // doca_dev_close leaves the device to us until we go
}

doca_mmap_advise::~doca_mmap_advise()
{
    dev_->release();
}

uint64_t doca_mmap_advise::max_buf_size() const noexcept
{
    return dev_->info()->dma().max_buf_size;
}

doca_error_t doca_mmap_advise::task_invalidate_cache_set_conf(
    doca_mmap_advise_task_invalidate_cache_completion_cb_t ok,
    doca_mmap_advise_task_invalidate_cache_completion_cb_t err, uint32_t num)
{
    const char *func = "doca_mmap_advise_task_invalidate_cache_set_conf";
    // DOCA documents NOT_PERMITTED for a context that is not IDLE here.
    if (!is_idle()) {
        SC_LOG_ERR("%s: the context is %s; tasks are configured while IDLE", func,
                   softcomch::core::state_name(state()));
        return DOCA_ERROR_NOT_PERMITTED;
    }
    const uint32_t cap =
        uint32_t(std::min<uint64_t>(dev_->info()->dma().max_num_tasks, UINT32_MAX));
    return tasks_.set_conf<&doca_mmap_advise::tasks_>(this, func, ok, err,
                                                      "number of cache invalidation tasks", num,
                                                      cap, "doca_dma_cap_get_max_num_tasks");
}

doca_error_t
doca_mmap_advise::task_invalidate_cache_alloc_init(doca_buf *buf, union doca_data user_data,
                                                   doca_mmap_advise_task_invalidate_cache **task)
{
    const char *func = "doca_mmap_advise_task_invalidate_cache_alloc_init";
    if (doca_error_t rc = require_running(func); rc != DOCA_SUCCESS)
        return rc;
    doca_mmap_advise_task_invalidate_cache *t = nullptr;
    if (doca_error_t rc = tasks_.take(func, "doca_mmap_advise_task_invalidate_cache_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->buf_ = buf;
    t->user_data_ = user_data;
    *task = t;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise::check(const doca_mmap_advise_task_invalidate_cache &t,
                                     const char **why) const noexcept
{
    const doca_buf *b = t.buf_;
    if (b == nullptr || !b->tag_.is(softcomch::object_kind::buf) || !b->in_use()) {
        *why = "the buffer is NULL or was released";
        return DOCA_ERROR_INVALID_VALUE;
    }
    const doca_mmap *m = b->mmap();
    if (m == nullptr || !m->started() || !m->has_device(dev_)) {
        *why = "the buffer's mmap does not have this context's device (doca_mmap_add_dev before "
               "doca_mmap_start)";
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (b->len() > max_buf_size()) {
        *why = "the buffer is larger than the device takes "
               "(doca_mmap_advise_task_cache_invalidate_get_max_buf_size)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

void doca_mmap_advise::free_task(doca_task *t)
{
    tasks_.release(static_cast<doca_mmap_advise_task_invalidate_cache *>(t));
}

unsigned doca_mmap_advise::execute()
{
    // Nothing to wait for: the queued tasks complete now, a batch at a time, in order.
    unsigned n = 0;
    while (!queue_.empty() && n < k_batch && !queue_.front()->abandoned_) {
        const auto *t = static_cast<const doca_mmap_advise_task_invalidate_cache *>(queue_.front());
        const char *why = nullptr;
        const doca_error_t rc = check(*t, &why);
        ++n;
        if (rc != DOCA_SUCCESS) {
            SC_LOG_INFO("mmap advise context %p: cache invalidation task failed (%s): %s; the "
                        "context stops",
                        static_cast<const void *>(this), softcomch::error_name(rc), why);
            finish_front(rc);
            break;
        }
        finish_front(DOCA_SUCCESS);
    }
    return n;
}
