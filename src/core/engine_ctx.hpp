// SPDX-License-Identifier: Apache-2.0
//
// A context that works like a hardware engine's queue (DMA, mmap advise, and the engines to
// come): tasks are executed by the context's poll(), in submission order, the first queued task
// at a time; a task stays in flight until a later progress call completes it. DOCA's error
// behaviour is here once: a task that fails stops its context (its error callback first, then
// RUNNING -> STOPPING by itself, the tasks behind it flushed with DOCA_ERROR_SHUTDOWN, IDLE once
// nothing is in flight), and doca_ctx_stop flushes the queue the same way. docs/design.md ("DMA")
// has the evidence.
//
// A concrete engine implements execute() (work on queue_.front(), ending it with finish_front())
// and, if it keeps state about the task being worked on, reset_cursor().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/intrusive_fifo.hpp"
#include "common/live_layout.hpp"
#include "core/ctx.hpp"
#include "core/task.hpp"

struct doca_buf;
struct doca_dev;

namespace softcomch::core {

// Where an engine writes its output: after the destination's data, up to the end of its buffer.
uint8_t *tail_of(const doca_buf &b) noexcept;
size_t tail_room(const doca_buf &b) noexcept;

// The checks of one buffer an engine reads (write == false) or writes: a live buffer, alone (no
// chained list), of a started mmap of this process that `dev` was added to, writable when
// written. DOCA_SUCCESS, or the task's failure status with the reason in *why (static text).
doca_error_t check_local_buf(const doca_buf *b, const doca_dev *dev, bool write,
                             const char **why) noexcept;
// Both buffers of a task that reads `src` and writes after the data of `dst`.
doca_error_t check_src_dst(const doca_buf *src, const doca_buf *dst, const doca_dev *dev,
                           const char **why) noexcept;

// Where an engine context's figures are shown (`softcomch top`): implemented above core
// (src/memory/live_figures.*), handed to the context by the C facade when it is created.
class engine_publication {
public:
    virtual ~engine_publication() = default;
    // The context entered `next`. Returns where its figures go from now on: the slot it holds
    // (claimed in the fabric of this start), or nullptr for none. The slot returned before may be
    // given back by this call.
    virtual live::engine_words *state_changed(doca_ctx_states next) noexcept = 0;
};

// SOFTCOMCH_API on the class: the C facade calls set_publication(), and sanitizer builds check
// the call against its typeinfo.
class SOFTCOMCH_API engine_ctx : public doca_ctx {
public:
    using doca_ctx::doca_ctx;

    void set_publication(std::unique_ptr<engine_publication> p) noexcept { pub_ = std::move(p); }
    // Its running figures (tests; the publication shows them).
    const live::engine_words &figures() const noexcept { return *words_; }

    // doca_ctx's hooks. validate (doca_task_try_submit): check_task(), and one line naming the
    // task's kind and why it would fail.
    doca_error_t submit(doca_task *task) override;
    doca_error_t validate(const doca_task *task) const override;
    unsigned poll() override;
    arm_result try_arm() override;

protected:
    // Works on the first queued task (never empty, never abandoned); returns the work done (1 if
    // anything happened). Ends the task with finish_front().
    virtual unsigned execute() = 0;
    // Whether `task` could be executed now: DOCA_SUCCESS, or the status it would fail with and in
    // *why the reason (static text, or formatted into `buf`).
    virtual doca_error_t check_task(const doca_task &task, const char **why, char *buf,
                                    size_t buf_len) const noexcept = 0;
    // Forgets the progress of the task being worked on (it was flushed or finished).
    virtual void reset_cursor() noexcept {}
    // Pops the first task and completes it with `status`; any status but DOCA_SUCCESS stops the
    // context at the next poll (after the task's error callback). `bytes`: what a successful task
    // processed (its source bytes), for the figures.
    void finish_front(doca_error_t status, uint64_t bytes = 0) noexcept;

    doca_error_t do_start() override { return DOCA_SUCCESS; }
    void do_stop() override;
    // After the flush nothing is left but completions already queued on the engine.
    bool quiesce() override { return true; }
    void state_changed(doca_ctx_states next) noexcept override;

    softcomch::intrusive_fifo<doca_task> queue_; // submitted, in order

private:
    void flush(doca_error_t status) noexcept;
    // One task left the queue with `status` (figures only).
    void count_completion(doca_error_t status, uint64_t bytes) noexcept;
    bool failed_ = false; // a task failed: STOPPING at the next poll
    uint32_t in_flight_ = 0;
    live::engine_words own_words_{};          // the figures while no slot holds them
    live::engine_words *words_ = &own_words_; // relaxed stores by the progressing thread
    std::unique_ptr<engine_publication> pub_;
};

} // namespace softcomch::core
