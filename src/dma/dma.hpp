// SPDX-License-Identifier: Apache-2.0
//
// DOCA DMA (include/doca_dma.h): a context whose memcpy tasks copy the data window of one buffer
// (or buffer list) after the data of another. The copy is done by this process's CPU, from the
// context's poll(), one task at a time in submission order and at most k_slice_bytes per poll,
// so that a task stays in flight until a later progress call completes it, as a hardware
// engine's would: a stop finds tasks to flush and a program that waits for completions waits.
//
// A task that cannot be executed fails when its turn comes (doca_task_submit checks nothing, as
// in DOCA; NVIDIA's pe_task_error depends on it) and stops the context (core/engine_ctx.hpp).
// docs/design.md ("DMA") has the choices and their evidence.
//
// Layer: dma depends on core (contexts, tasks, bufs, mmaps, devices) and common only.
#pragma once

#include <doca_dma.h>

#include <cstddef>
#include <cstdint>

#include <vector>

#include "common/visibility.hpp"
#include "core/engine_ctx.hpp"
#include "core/task.hpp"

struct doca_buf;
struct doca_dev;

namespace softcomch::core {
class remote_memory;
}

struct doca_dma_task_memcpy : doca_task {
    static constexpr softcomch::core::task_kind k_kind = softcomch::core::task_kind::dma_memcpy;
    explicit doca_dma_task_memcpy(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}

    const doca_buf *src() const noexcept { return src_; }
    doca_buf *dst() const noexcept { return dst_; }
    // doca_dma_task_memcpy_set_src/_dst: refused (logged, naming `func`) while in flight.
    void set_src(const doca_buf *src, const char *func) noexcept
    {
        if (reconfigurable(func))
            src_ = src;
    }
    void set_dst(doca_buf *dst, const char *func) noexcept
    {
        if (reconfigurable(func))
            dst_ = dst;
    }

    const doca_buf *src_ = nullptr;
    doca_buf *dst_ = nullptr;
};

// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_dma>() needs its typeinfo.
struct SOFTCOMCH_API doca_dma final : softcomch::core::engine_ctx {
    // Bytes copied per poll at most: a 64 MiB task takes 64 progress calls, each a fraction of a
    // millisecond, so a program's event loop keeps its other contexts served.
    static constexpr size_t k_slice_bytes = size_t(1) << 20;

    // doca_dma_create once the C API checked the device: NOT_SUPPORTED unless it supports memcpy.
    static doca_error_t create(doca_dev *dev, doca_dma **out);
    ~doca_dma() override; // exported: `delete` of a final class calls it directly

    doca_dev *dev() const noexcept { return dev_; }
    uint32_t max_num_tasks() const noexcept;
    doca_error_t task_memcpy_set_conf(doca_dma_task_memcpy_completion_cb_t ok,
                                      doca_dma_task_memcpy_completion_cb_t err, uint32_t num,
                                      const char *func);
    doca_error_t task_memcpy_alloc_init(const doca_buf *src, doca_buf *dst,
                                        union doca_data user_data, doca_dma_task_memcpy **task);
    // Whether `task` could be executed now: DOCA_SUCCESS, or the status it would fail with, and
    // in *why the reason (a static string, or one formatted into `buf`).
    SOFTCOMCH_LOCAL doca_error_t check(const doca_dma_task_memcpy &task, const char **why,
                                       char *buf, size_t buf_len) const noexcept;

    // The context's hooks (doca_ctx), called through its vtable only.
    SOFTCOMCH_LOCAL void free_task(doca_task *task) override;

private:
    SOFTCOMCH_LOCAL explicit doca_dma(doca_dev *dev) noexcept;
    // Copies the next slice of the queue's first task; completes it when it is done.
    SOFTCOMCH_LOCAL unsigned execute() override;
    void reset_cursor() noexcept override { cur_ = cursor{}; }
    SOFTCOMCH_LOCAL doca_error_t check_task(const doca_task &task, const char **why, char *buf,
                                            size_t buf_len) const noexcept override
    {
        return check(static_cast<const doca_dma_task_memcpy &>(task), why, buf, buf_len);
    }
    // The first task's copy, which may span several polls: where it stands.
    struct cursor {
        const doca_buf *src = nullptr; // element being read
        size_t src_off = 0;            // bytes of its data window already read
        doca_buf *dst = nullptr;       // element being written
        size_t dst_off = 0;            // bytes written after its data (its data_len is grown once
                                       // the task completes)
        size_t left = 0;               // bytes still to copy
        bool started = false;          // the task was checked and the cursor set up
    };
    // Grows every destination element's data length by what was written into it (once the
    // whole task is copied).
    SOFTCOMCH_LOCAL static void commit_dst(doca_buf *dst, size_t bytes) noexcept;
    // Copies `n` bytes from `src` to `dst`, each local (remote == nullptr) or another process's
    // memory (an mmap created from an export: the address is the exporter's). A refusal of the
    // remote side comes with its reason.
    SOFTCOMCH_LOCAL doca_error_t copy(const uint8_t *src,
                                      softcomch::core::remote_memory *src_remote, uint8_t *dst,
                                      softcomch::core::remote_memory *dst_remote, size_t n,
                                      const char **why) noexcept;
    static constexpr size_t k_bounce_bytes = size_t(64) << 10;

    doca_dev *dev_;
    softcomch::core::task_set<doca_dma_task_memcpy> memcpy_tasks_;
    cursor cur_;
    std::vector<uint8_t> bounce_; // between two imports, made on first use
};
