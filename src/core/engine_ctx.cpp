// SPDX-License-Identifier: Apache-2.0
#include "core/engine_ctx.hpp"

#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/buf.hpp"
#include "core/mmap.hpp"

namespace softcomch::core {

uint8_t *tail_of(const doca_buf &b) noexcept
{
    return static_cast<uint8_t *>(b.data()) + b.data_len();
}

size_t tail_room(const doca_buf &b) noexcept
{
    const auto *end = static_cast<const uint8_t *>(b.head()) + b.len();
    return size_t(end - tail_of(b));
}

doca_error_t check_local_buf(const doca_buf *b, const doca_dev *dev, bool write,
                             const char **why) noexcept
{
    if (b == nullptr || !b->tag_.is(object_kind::buf) || !b->in_use()) {
        *why = write ? "the destination buffer is NULL or was released"
                     : "the source buffer is NULL or was released";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (b->next() != nullptr || !b->is_head()) {
        *why = "the engine takes one buffer, not a chained list (max_buf_list_len is 1)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    const doca_mmap *m = b->mmap();
    if (m == nullptr || !m->started() || !m->has_device(dev)) {
        *why = "the buffer's mmap does not have this context's device (doca_mmap_add_dev before "
               "doca_mmap_start)";
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (m->from_export()) {
        *why = "this engine does not work on another process's memory (an mmap created from an "
               "export) in this emulation";
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (write && (m->permissions() & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) == 0) {
        *why = "the destination buffer's mmap is read-only (doca_mmap_set_permissions with "
               "DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)";
        return DOCA_ERROR_NOT_PERMITTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t engine_ctx::submit(doca_task *t)
{
    t->state_ = task_state::submitted;
    task_submitted();
    SC_TRACE(softcomch::trace::engine_task_begin(t, task_kind_name(t->kind_), this));
    queue_.push_back(t);
    return DOCA_SUCCESS;
}

doca_error_t engine_ctx::validate(const doca_task *t) const
{
    char buf[192];
    const char *why = nullptr;
    const doca_error_t rc = check_task(*t, &why, buf, sizeof buf);
    if (rc != DOCA_SUCCESS)
        SC_LOG_ERR("doca_task_try_submit: invalid %s task: %s", task_kind_name(t->kind_), why);
    return rc;
}

doca_error_t check_src_dst(const doca_buf *src, const doca_buf *dst, const doca_dev *dev,
                           const char **why) noexcept
{
    if (doca_error_t rc = check_local_buf(src, dev, false, why); rc != DOCA_SUCCESS)
        return rc;
    return check_local_buf(dst, dev, true, why);
}

unsigned engine_ctx::poll()
{
    switch (state()) {
    case DOCA_CTX_STATE_RUNNING:
        if (failed_) [[unlikely]] {
            // A task failed at the last poll and its error callback has run: the context stops
            // by itself, as DOCA's does after a fatal task error, and flushes the rest.
            failed_ = false;
            set_state(DOCA_CTX_STATE_STOPPING); // the STOPPING callback cannot destroy us
            flush(DOCA_ERROR_SHUTDOWN);
            return 1;
        }
        if (queue_.empty())
            return 0;
        if (queue_.front()->abandoned_) [[unlikely]] {
            // Freed by the program while queued or being worked on: its buffers are not touched
            // again; back to its pool at its turn, without a callback (doca_pe).
            reset_cursor();
            complete(queue_.pop_front(), DOCA_ERROR_SHUTDOWN);
            return 1;
        }
        return execute();
    case DOCA_CTX_STATE_STOPPING:
        // Everything was flushed: IDLE once the engine delivered it (the IDLE callback may
        // destroy the context: nothing of it is touched after).
        return try_finish_stop() ? 1 : 0;
    case DOCA_CTX_STATE_IDLE:
    case DOCA_CTX_STATE_STARTING:
        break;
    }
    return 0;
}

void engine_ctx::finish_front(doca_error_t status) noexcept
{
    reset_cursor();
    complete(queue_.pop_front(), status);
    if (status != DOCA_SUCCESS)
        failed_ = true;
}

void engine_ctx::flush(doca_error_t status) noexcept
{
    reset_cursor();
    while (doca_task *t = queue_.pop_front())
        complete(t, status);
}

void engine_ctx::do_stop()
{
    failed_ = false;
    flush(DOCA_ERROR_SHUTDOWN);
}

arm_result engine_ctx::try_arm()
{
    arm_result r;
    // Queued tasks, a failure to act on, a stop to finish: the next poll has work.
    r.busy = !queue_.empty() || failed_ || state() == DOCA_CTX_STATE_STOPPING;
    return r;
}

} // namespace softcomch::core
