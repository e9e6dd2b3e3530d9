// SPDX-License-Identifier: Apache-2.0
//
// A DMA context on a device of the built-in machine with its own progress engine, and memory
// registered for it, through the public API only: what the DMA tests build on (tests/api
// test_dma.cpp and test_bad_input_dma.cpp, tests/integration test_dma_export.cpp). Completions
// are recorded in the order they arrive.
#pragma once

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "device_lookup.hpp"

namespace dma_test {

// Memory registered for a device: an mmap over `size` bytes (page-aligned, zeroed) and an
// inventory of `bufs` buffers.
struct region {
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    uint8_t *mem = nullptr;
    size_t size = 0;

    region(doca_dev *dev, size_t bytes, uint32_t permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
           uint32_t bufs = 64)
        : size(bytes)
    {
        mem = static_cast<uint8_t *>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
        std::fill(mem, mem + bytes, uint8_t(0));
        EXPECT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_set_memrange(mmap, mem, bytes), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_set_permissions(mmap, permissions), DOCA_SUCCESS);
        if (dev) {
            EXPECT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
        EXPECT_EQ(doca_buf_inventory_create(bufs, &inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    }
    ~region()
    {
        EXPECT_EQ(doca_buf_inventory_stop(inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        std::free(mem);
    }
    region(const region &) = delete;
    region &operator=(const region &) = delete;

    // A buffer over [off, off + len) with data [off, off + data_len).
    doca_buf *buf(size_t off, size_t len, size_t data_len) const
    {
        doca_buf *b = nullptr;
        EXPECT_EQ(
            doca_buf_inventory_buf_get_by_args(inv, mmap, mem + off, len, mem + off, data_len, &b),
            DOCA_SUCCESS);
        return b;
    }
    // A source of `len` bytes at `off`, filled with `seed`, seed+1, ...
    doca_buf *source(size_t off, size_t len, uint8_t seed) const
    {
        for (size_t i = 0; i < len; ++i)
            mem[off + i] = uint8_t(seed + i);
        return buf(off, len, len);
    }
};

// One completion, as the callbacks saw it.
struct completion {
    doca_dma_task_memcpy *task;
    doca_error_t status;
    uint64_t user;
};

struct context;
inline context *g_current = nullptr; // the callbacks' way back (tests run one context at a time)

// A DMA context on `pci` with `tasks` memcpy tasks, connected to its own progress engine.
struct context {
    doca_dev *dev = nullptr;
    doca_pe *pe = nullptr;
    doca_dma *dma = nullptr;
    doca_ctx *ctx = nullptr;
    std::vector<completion> done;
    std::vector<std::pair<doca_ctx_states, doca_ctx_states>> states;
    // Run inside the callbacks, after recording (may resubmit, stop, free...).
    std::function<void(const completion &)> on_done;
    std::function<void(doca_ctx_states)> on_state;
    bool free_in_callback = true; // the callback frees the task (after on_done)

    explicit context(const char *pci = "03:00.0", uint32_t tasks = 32)
    {
        g_current = this;
        dev = sc_devices::open_dev(pci);
        EXPECT_NE(dev, nullptr) << pci;
        EXPECT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        EXPECT_EQ(doca_dma_create(dev, &dma), DOCA_SUCCESS);
        ctx = doca_dma_as_ctx(dma);
        EXPECT_NE(ctx, nullptr);
        union doca_data ud;
        ud.ptr = this;
        EXPECT_EQ(doca_ctx_set_user_data(ctx, ud), DOCA_SUCCESS);
        EXPECT_EQ(doca_ctx_set_state_changed_cb(ctx, &context::on_state_cb), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
        if (tasks) {
            EXPECT_EQ(doca_dma_task_memcpy_set_conf(dma, &context::ok_cb, &context::err_cb, tasks),
                      DOCA_SUCCESS);
        }
    }
    ~context()
    {
        if (dma) {
            doca_ctx_states s = DOCA_CTX_STATE_IDLE;
            (void)doca_ctx_get_state(ctx, &s);
            if (s != DOCA_CTX_STATE_IDLE) {
                (void)doca_ctx_stop(ctx);
                for (int i = 0; i < 100000 && state() != DOCA_CTX_STATE_IDLE; ++i)
                    (void)doca_pe_progress(pe);
            }
            EXPECT_EQ(doca_dma_destroy(dma), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
        g_current = nullptr;
    }
    context(const context &) = delete;
    context &operator=(const context &) = delete;

    doca_ctx_states state() const
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        EXPECT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
        return s;
    }
    size_t inflight() const
    {
        size_t n = 0;
        EXPECT_EQ(doca_ctx_get_num_inflight_tasks(ctx, &n), DOCA_SUCCESS);
        return n;
    }
    doca_dma_task_memcpy *task(doca_buf *src, doca_buf *dst, uint64_t user = 0) const
    {
        union doca_data ud;
        ud.u64 = user;
        doca_dma_task_memcpy *t = nullptr;
        EXPECT_EQ(doca_dma_task_memcpy_alloc_init(dma, src, dst, ud, &t), DOCA_SUCCESS);
        return t;
    }
    doca_error_t submit(doca_dma_task_memcpy *t) const
    {
        return doca_task_submit(doca_dma_task_memcpy_as_task(t));
    }
    // Progresses until `pred` holds (false after `max_calls` progress calls).
    bool progress_until(const std::function<bool()> &pred, int max_calls = 1000000) const
    {
        for (int i = 0; i < max_calls; ++i) {
            if (pred())
                return true;
            (void)doca_pe_progress(pe);
        }
        return pred();
    }

private:
    static void record(doca_dma_task_memcpy *t, union doca_data task_ud, union doca_data ctx_ud)
    {
        auto *self = static_cast<context *>(ctx_ud.ptr);
        const completion c{t, doca_task_get_status(doca_dma_task_memcpy_as_task(t)), task_ud.u64};
        self->done.push_back(c);
        const bool free_it = self->free_in_callback;
        if (self->on_done)
            self->on_done(c); // may destroy nothing of ours but the task's reuse
        if (free_it) {
            doca_buf *src = const_cast<doca_buf *>(doca_dma_task_memcpy_get_src(t));
            doca_buf *dst = doca_dma_task_memcpy_get_dst(t);
            doca_task_free(doca_dma_task_memcpy_as_task(t));
            if (src)
                (void)doca_buf_dec_refcount(src, nullptr);
            if (dst)
                (void)doca_buf_dec_refcount(dst, nullptr);
        }
    }
    static void ok_cb(doca_dma_task_memcpy *t, union doca_data a, union doca_data b)
    {
        record(t, a, b);
    }
    static void err_cb(doca_dma_task_memcpy *t, union doca_data a, union doca_data b)
    {
        record(t, a, b);
    }
    static void on_state_cb(const union doca_data ud, doca_ctx *, doca_ctx_states prev,
                            doca_ctx_states next)
    {
        auto *self = static_cast<context *>(ud.ptr);
        self->states.emplace_back(prev, next);
        if (self->on_state)
            self->on_state(next);
    }
};

} // namespace dma_test
