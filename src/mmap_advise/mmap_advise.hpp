// SPDX-License-Identifier: Apache-2.0
//
// DOCA mmap advise (include/doca_mmap_advise.h): a context whose cache invalidation tasks check
// their buffer and complete, in order, on the poll after their submission (memory here is
// coherent: there is no cache to invalidate). An engine context (core/engine_ctx.hpp): a task
// that fails stops the context, as DOCA's do.
//
// Layer: mmap_advise depends on core and common only.
#pragma once

#include <doca_mmap_advise.h>

#include <cstddef>
#include <cstdint>

#include "common/visibility.hpp"
#include "core/engine_ctx.hpp"
#include "core/task.hpp"

struct doca_buf;
struct doca_dev;

struct doca_mmap_advise_task_invalidate_cache : doca_task {
    static constexpr softcomch::core::task_kind k_kind =
        softcomch::core::task_kind::mmap_advise_invalidate_cache;
    explicit doca_mmap_advise_task_invalidate_cache(doca_ctx *owner) noexcept
        : doca_task(owner, k_kind)
    {}

    doca_buf *buf() const noexcept { return buf_; }
    // doca_mmap_advise_task_invalidate_cache_set_buf: refused (logged) while in flight.
    void set_buf(doca_buf *buf, const char *func) noexcept
    {
        if (reconfigurable(func))
            buf_ = buf;
    }

    doca_buf *buf_ = nullptr;
};

// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_mmap_advise>() needs its typeinfo.
struct SOFTCOMCH_API doca_mmap_advise final : softcomch::core::engine_ctx {
    // Tasks completed per poll at most.
    static constexpr unsigned k_batch = 64;

    static doca_error_t create(doca_dev *dev, doca_mmap_advise **out);
    ~doca_mmap_advise() override;

    uint64_t max_buf_size() const noexcept;
    doca_error_t
    task_invalidate_cache_set_conf(doca_mmap_advise_task_invalidate_cache_completion_cb_t ok,
                                   doca_mmap_advise_task_invalidate_cache_completion_cb_t err,
                                   uint32_t num);
    doca_error_t task_invalidate_cache_alloc_init(doca_buf *buf, union doca_data user_data,
                                                  doca_mmap_advise_task_invalidate_cache **task);

    SOFTCOMCH_LOCAL void free_task(doca_task *task) override;

private:
    SOFTCOMCH_LOCAL explicit doca_mmap_advise(doca_dev *dev) noexcept;
    SOFTCOMCH_LOCAL unsigned execute() override;
    SOFTCOMCH_LOCAL doca_error_t check_task(const doca_task &task, const char **why, char *,
                                            size_t) const noexcept override
    {
        return check(static_cast<const doca_mmap_advise_task_invalidate_cache &>(task), why);
    }
    // DOCA_SUCCESS, or the status the task fails with and the reason in *why (static text).
    SOFTCOMCH_LOCAL doca_error_t check(const doca_mmap_advise_task_invalidate_cache &task,
                                       const char **why) const noexcept;

    doca_dev *dev_;
    softcomch::core::task_set<doca_mmap_advise_task_invalidate_cache> tasks_;
};
