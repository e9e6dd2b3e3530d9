// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_pe.h: argument checks and delegation only.
#include <doca_pe.h>

#include <cstring>
#include <memory>

#include "capi/handle.hpp"
#include "common/guard.hpp"
#include "core/ctx.hpp"
#include "core/pe.hpp"
#include "core/task.hpp"

using namespace softcomch::capi;

extern "C" {

doca_error_t doca_pe_create(struct doca_pe **pe)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(pe);
        auto p = std::make_unique<doca_pe>();
        doca_error_t rc = p->init();
        if (rc != DOCA_SUCCESS)
            return rc;
        *pe = p.release();
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_pe_destroy(struct doca_pe *pe)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(pe);
        if (pe->has_contexts())
            SC_REFUSE(DOCA_ERROR_IN_USE, "%s: contexts are still connected; destroy them first",
                      api_function());
        if (pe->has_graphs())
            SC_REFUSE(DOCA_ERROR_IN_USE, "%s: graphs still exist on it; destroy them first",
                      api_function());
        delete pe;
        return DOCA_SUCCESS;
    });
}

uint8_t doca_pe_progress(struct doca_pe *pe)
{
    // The tag is checked here too (one load of a line progress() reads anyway): a destroyed
    // engine's storage stays quarantined (core/pe.hpp), so a stale handle is refused, not run.
    if (doca_unlikely(!pe))
        return 0;
    if (doca_unlikely(!pe->tag_.is(softcomch::object_kind::pe))) {
        (void)usable(pe, "pe", __func__);
        return 0;
    }
    return guard_value<uint8_t>(__func__, 0, [&] { return pe->progress(); });
}

doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe,
                                             doca_notification_handle_t *handle)
{
    return get_into(__func__, SC_ARG(pe), SC_ARG(handle),
                    [](auto &o) { return o.notification_fd(); });
}

doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(pe);
        // The handle is not checked: NVIDIA's own event loop (samples/doca_common/pe_event)
        // passes 0, and on Linux the engine has one handle, so there is nothing to choose.
        (void)handle;
        return pe->clear_notification();
    });
}

doca_error_t doca_pe_request_notification(struct doca_pe *pe)
{
    return delegate(__func__, SC_ARG(pe), [](auto &o) { return o.request_notification(); });
}

doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks)
{
    return get_into(__func__, SC_ARG(pe), SC_ARG(num_inflight_tasks),
                    [](auto &o) { return o.inflight(); });
}

doca_error_t doca_task_submit(struct doca_task *task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(task);
        return doca_ctx::program_submit(task, false, api_function());
    });
}

doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(task);
        constexpr uint32_t known =
            DOCA_TASK_SUBMIT_FLAG_FLUSH | DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS;
        if (flags & ~known)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: unknown flags 0x%x", api_function(),
                      flags & ~known);
        return doca_ctx::program_submit(task, false, api_function());
    });
}

doca_error_t doca_task_try_submit(struct doca_task *task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(task);
        return doca_ctx::program_submit(task, true, api_function());
    });
}

void doca_task_free(struct doca_task *task)
{
    guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(task);
        return doca_ctx::program_free(task, api_function());
    });
}

doca_error_t doca_task_get_status(const struct doca_task *task)
{
    if (!usable(task, "task", __func__))
        return DOCA_ERROR_INVALID_VALUE;
    return task->status_;
}

void doca_task_set_user_data(struct doca_task *task, union doca_data user_data)
{
    if (!usable(task, "task", __func__))
        return;
    task->set_user_data(user_data);
}

union doca_data doca_task_get_user_data(const struct doca_task *task)
{
    if (!usable(task, "task", __func__))
        return doca_data{};
    return task->user_data();
}

struct doca_ctx *doca_task_get_ctx(const struct doca_task *task)
{
    if (!usable(task, "task", __func__))
        return nullptr;
    return task->ctx_;
}

doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(pe);
        SC_REQUIRE(ctx);
        return pe->connect(ctx);
    });
}

doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode event_mode)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(pe);
        // Read the raw value: a C caller may pass any int, which is not a valid C++ enum value.
        int mode;
        std::memcpy(&mode, &event_mode, sizeof mode);
        if (mode != DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE &&
            mode != DOCA_PE_EVENT_MODE_PROGRESS_ALL)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: unknown mode %d", api_function(), mode);
        return DOCA_SUCCESS;
    });
}

// ---- task batches: not offered by the emulated device ----

doca_error_t doca_task_batch_submit(struct doca_task_batch *)
{
    SC_LOG_ERR("doca_task_batch_submit: task batches are not supported by the emulated device");
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_task_batch_try_submit(struct doca_task_batch *)
{
    SC_LOG_ERR("doca_task_batch_try_submit: task batches are not supported by the emulated device");
    return DOCA_ERROR_NOT_SUPPORTED;
}

void doca_task_batch_free(struct doca_task_batch *)
{
    SC_LOG_ERR("doca_task_batch_free: task batches are not supported by the emulated device");
}

doca_error_t doca_task_batch_get_status(const struct doca_task_batch *)
{
    SC_LOG_ERR("doca_task_batch_get_status: task batches are not supported by the emulated device");
    return DOCA_ERROR_NOT_SUPPORTED;
}

void doca_task_batch_set_user_data(struct doca_task_batch *, union doca_data)
{
    SC_LOG_ERR(
        "doca_task_batch_set_user_data: task batches are not supported by the emulated device");
}

union doca_data doca_task_batch_get_user_data(const struct doca_task_batch *)
{
    SC_LOG_ERR(
        "doca_task_batch_get_user_data: task batches are not supported by the emulated device");
    return doca_data{};
}

struct doca_ctx *doca_task_batch_get_ctx(const struct doca_task_batch *)
{
    SC_LOG_ERR("doca_task_batch_get_ctx: task batches are not supported by the emulated device");
    return nullptr;
}

union doca_data doca_task_batch_get_ctx_user_data(const struct doca_task_batch *)
{
    SC_LOG_ERR(
        "doca_task_batch_get_ctx_user_data: task batches are not supported by the emulated device");
    return doca_data{};
}

uint16_t doca_task_batch_get_tasks_num(struct doca_task_batch *)
{
    SC_LOG_ERR(
        "doca_task_batch_get_tasks_num: task batches are not supported by the emulated device");
    return 0;
}

} // extern "C"
