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
    words_->in_flight.store(++in_flight_, std::memory_order_relaxed);
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
            count_completion(DOCA_ERROR_SHUTDOWN, 0);
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

void engine_ctx::finish_front(doca_error_t status, uint64_t bytes) noexcept
{
    reset_cursor();
    complete(queue_.pop_front(), status);
    count_completion(status, bytes);
    if (status != DOCA_SUCCESS)
        failed_ = true;
}

void engine_ctx::flush(doca_error_t status) noexcept
{
    reset_cursor();
    while (doca_task *t = queue_.pop_front()) {
        complete(t, status);
        count_completion(status, 0);
    }
}

void engine_ctx::count_completion(doca_error_t status, uint64_t bytes) noexcept
{
    constexpr auto relaxed = std::memory_order_relaxed;
    live::engine_words &w = *words_;
    if (status == DOCA_SUCCESS) {
        w.tasks_done.store(w.tasks_done.load(relaxed) + 1, relaxed);
        w.bytes.store(w.bytes.load(relaxed) + bytes, relaxed);
    } else {
        w.tasks_failed.store(w.tasks_failed.load(relaxed) + 1, relaxed);
    }
    if (in_flight_ != 0)
        --in_flight_;
    w.in_flight.store(in_flight_, relaxed);
}

void engine_ctx::state_changed(doca_ctx_states next) noexcept
{
    constexpr auto relaxed = std::memory_order_relaxed;
    const auto copy = [&](const live::engine_words &from, live::engine_words &to) {
        to.tasks_done.store(from.tasks_done.load(relaxed), relaxed);
        to.tasks_failed.store(from.tasks_failed.load(relaxed), relaxed);
        to.bytes.store(from.bytes.load(relaxed), relaxed);
    };
    if (pub_) {
        // The figures so far back in our own words first: the publication may give its slot
        // back (and the file's mapping with it) before it claims another.
        if (words_ != &own_words_) {
            copy(*words_, own_words_);
            words_ = &own_words_;
        }
        if (live::engine_words *w = pub_->state_changed(next); w != nullptr) {
            copy(own_words_, *w);
            words_ = w;
        }
    }
    words_->in_flight.store(in_flight_, relaxed);
    words_->state.store(uint32_t(next), relaxed);
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
