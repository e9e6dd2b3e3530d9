// SPDX-License-Identifier: Apache-2.0
#include "core/ctx.hpp"

#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/pe.hpp"
#include "core/task.hpp"

namespace softcomch::core {

const char *state_name(doca_ctx_states s) noexcept
{
    switch (s) {
    case DOCA_CTX_STATE_IDLE:
        return "IDLE";
    case DOCA_CTX_STATE_STARTING:
        return "STARTING";
    case DOCA_CTX_STATE_RUNNING:
        return "RUNNING";
    case DOCA_CTX_STATE_STOPPING:
        return "STOPPING";
    }
    return "UNKNOWN";
}

} // namespace softcomch::core

using softcomch::core::state_name;

doca_ctx::~doca_ctx()
{
    if (pe_)
        pe_->disconnect(this);
}

doca_error_t doca_ctx::require_idle(const char *func) const noexcept
{
    if (state_ == DOCA_CTX_STATE_IDLE)
        return DOCA_SUCCESS;
    SC_LOG_ERR(
        "%s: %s context is %s; configuration is only allowed while IDLE (before doca_ctx_start)",
        func, kind_name_, state_name(state_));
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_ctx::refuse_not_running(const char *func) const noexcept
{
    SC_LOG_ERR("%s: %s context is %s; tasks can only be allocated while RUNNING", func, kind_name_,
               state_name(state_));
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_ctx::require_idle_in_range(const char *func, const char *what, uint32_t value,
                                             uint32_t cap, const char *cap_fn) const noexcept
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    if (value != 0 && value <= cap)
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: %s %u is out of range (1..%u, the device cap; see %s)", func, what, value, cap,
               cap_fn);
    return DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_ctx::check_task_conf(const char *func, bool both_callbacks, const char *what,
                                       uint32_t num, uint32_t cap,
                                       const char *cap_fn) const noexcept
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    if (!both_callbacks) {
        SC_LOG_ERR("%s: both the completion and the error callback are required", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return require_idle_in_range(func, what, num, cap, cap_fn);
}

void doca_ctx::set_state(doca_ctx_states next)
{
    doca_ctx_states prev = state_;
    if (prev == next)
        return;
    state_ = next;
    SC_LOG_DBG("%s context %p: %s -> %s", kind_name_, static_cast<void *>(this), state_name(prev),
               state_name(next));
    SC_TRACE(softcomch::trace::state_change(this, kind_name_, state_name(prev), state_name(next)));
    state_changed(next);
    if (state_cb_)
        state_cb_(user_data_, this, prev, next);
}

doca_error_t doca_ctx::start()
{
    if (state_ != DOCA_CTX_STATE_IDLE) {
        SC_LOG_ERR("doca_ctx_start: %s context is already %s", kind_name_, state_name(state_));
        return DOCA_ERROR_BAD_STATE;
    }
    if (!pe_) {
        SC_LOG_ERR("doca_ctx_start: %s context is not connected to a progress engine "
                   "(call doca_pe_connect_ctx first)",
                   kind_name_);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    doca_error_t rc = do_start();
    if (rc == DOCA_SUCCESS)
        set_state(DOCA_CTX_STATE_RUNNING);
    else if (rc == DOCA_ERROR_IN_PROGRESS)
        set_state(DOCA_CTX_STATE_STARTING);
    return rc;
}

doca_error_t doca_ctx::stop()
{
    switch (state_) {
    case DOCA_CTX_STATE_IDLE:
        // Nothing to do. NVIDIA's DMA samples stop from a completion callback and then again in
        // main, treating any error as fatal: stopping an IDLE context is a success.
        SC_LOG_DBG("doca_ctx_stop: %s context is already IDLE", kind_name_);
        return DOCA_SUCCESS;
    case DOCA_CTX_STATE_STOPPING:
        return DOCA_ERROR_IN_PROGRESS;
    case DOCA_CTX_STATE_STARTING:
    case DOCA_CTX_STATE_RUNNING:
        break;
    }
    if (!pe_) {
        SC_LOG_ERR("doca_ctx_stop: %s context is not connected to a progress engine", kind_name_);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    set_state(DOCA_CTX_STATE_STOPPING);
    // The STOPPING callback cannot have destroyed the context (destroy is refused outside IDLE),
    // so `this` is still valid here.
    do_stop();
    if (state_ == DOCA_CTX_STATE_STOPPING && inflight_ == 0 && quiesce()) {
        // Nothing to wait for: IDLE inside the call (include/doca_ctx.h, docs/design.md). The IDLE callback may
        // destroy the context, so nothing of it is touched after set_state.
        set_state(DOCA_CTX_STATE_IDLE);
        return DOCA_SUCCESS;
    }
    pe_->request_service();
    return DOCA_ERROR_IN_PROGRESS;
}

doca_error_t doca_ctx::program_submit(doca_task *task, bool validate, const char *func)
{
    if (task->state_ != softcomch::core::task_state::allocated) {
        SC_LOG_ERR("%s: the task is %s", func,
                   task->state_ == softcomch::core::task_state::free ? "free (not allocated)"
                                                                     : "already submitted");
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_ctx *ctx = task->ctx_;
    if (ctx->state() != DOCA_CTX_STATE_RUNNING) {
        SC_LOG_ERR("%s: the %s context is %s; tasks can only be submitted while RUNNING", func,
                   ctx->kind_name(), softcomch::core::state_name(ctx->state()));
        return DOCA_ERROR_BAD_STATE;
    }
    if (validate) {
        doca_error_t rc = ctx->validate(task);
        if (rc != DOCA_SUCCESS)
            return rc;
    }
    return ctx->submit(task);
}

doca_error_t doca_ctx::program_free(doca_task *task, const char *func)
{
    switch (task->abandoned_ ? softcomch::core::task_state::free : task->state_) {
    case softcomch::core::task_state::free:
        SC_LOG_ERR("%s: the task is already free", func);
        return DOCA_ERROR_INVALID_VALUE;
    case softcomch::core::task_state::allocated:
        task->ctx_->free_task(task);
        return DOCA_SUCCESS;
    case softcomch::core::task_state::submitted:
    case softcomch::core::task_state::completed:
        // In flight: DOCA's doca_task_free returns void and NVIDIA's own code frees posted
        // receives before stopping (docs/design.md). The task finishes, or is flushed by the stop,
        // and then returns to its pool without a callback.
        SC_LOG_DBG(
            "%s: the task is in flight; it returns to its pool when its work ends, without a "
            "callback",
            func);
        task->ctx_->abandon(task);
        return DOCA_SUCCESS;
    }
    return DOCA_SUCCESS;
}

void doca_ctx::abandon(doca_task *task) noexcept
{
    task->abandoned_ = true;
}

void doca_ctx::complete(doca_task *task, doca_error_t status) noexcept
{
    task->status_ = status;
    task->state_ = softcomch::core::task_state::completed;
    pe_->enqueue_completion(task);
}

bool doca_ctx::try_finish_stop()
{
    if (state_ != DOCA_CTX_STATE_STOPPING)
        return state_ == DOCA_CTX_STATE_IDLE;
    if (inflight_ != 0)
        return false;
    set_state(DOCA_CTX_STATE_IDLE);
    return true;
}
