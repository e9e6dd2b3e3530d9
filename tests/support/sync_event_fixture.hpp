// SPDX-License-Identifier: Apache-2.0
//
// A sync event used as a context (doca_sync_event_as_ctx) on its own progress engine, with
// every task kind configured and completions recorded in the order they arrive, through the
// public API only: what the sync-event tests build on (tests/api test_sync_event.cpp and
// test_bad_input_sync_event.cpp, tests/integration test_sync_event_export.cpp).
#pragma once

#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_sync_event.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace sync_test {

// One completion, as a callback saw it.
struct completion {
    doca_task *task;
    doca_error_t status;
    bool error_cb; // the error callback ran (else the completion callback)
};

// The event's tasks, on `pe`, recorded into `done`. The callbacks find the recorder through the
// context's user data; they do not free the tasks (the test does).
struct tasks {
    doca_sync_event *event = nullptr;
    doca_ctx *ctx = nullptr;
    doca_pe *pe = nullptr;
    std::vector<completion> done;

    // `event`: a created (or imported) event not yet started; `num` tasks of each kind.
    explicit tasks(doca_sync_event *ev, uint32_t num = 4) : event(ev)
    {
        EXPECT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        ctx = doca_sync_event_as_ctx(event);
        EXPECT_NE(ctx, nullptr);
        union doca_data ud;
        ud.ptr = this;
        EXPECT_EQ(doca_ctx_set_user_data(ctx, ud), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
        EXPECT_EQ(doca_sync_event_task_get_set_conf(event, &cb<doca_sync_event_task_get, false>,
                                                    &cb<doca_sync_event_task_get, true>, num),
                  DOCA_SUCCESS);
        EXPECT_EQ(doca_sync_event_task_notify_set_set_conf(
                      event, &cb<doca_sync_event_task_notify_set, false>,
                      &cb<doca_sync_event_task_notify_set, true>, num),
                  DOCA_SUCCESS);
        EXPECT_EQ(doca_sync_event_task_notify_add_set_conf(
                      event, &cb<doca_sync_event_task_notify_add, false>,
                      &cb<doca_sync_event_task_notify_add, true>, num),
                  DOCA_SUCCESS);
        EXPECT_EQ(
            doca_sync_event_task_wait_eq_set_conf(event, &cb<doca_sync_event_task_wait_eq, false>,
                                                  &cb<doca_sync_event_task_wait_eq, true>, num),
            DOCA_SUCCESS);
        EXPECT_EQ(
            doca_sync_event_task_wait_neq_set_conf(event, &cb<doca_sync_event_task_wait_neq, false>,
                                                   &cb<doca_sync_event_task_wait_neq, true>, num),
            DOCA_SUCCESS);
    }
    ~tasks()
    {
        if (state() != DOCA_CTX_STATE_IDLE) {
            (void)doca_ctx_stop(ctx);
            progress_until([&] { return state() == DOCA_CTX_STATE_IDLE; });
        }
        for (const completion &c : done)
            doca_task_free(c.task);
        EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
    }
    tasks(const tasks &) = delete;
    tasks &operator=(const tasks &) = delete;

    doca_ctx_states state() const
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        EXPECT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
        return s;
    }
    // Progresses until `cond` holds: false after `limit` of trying (a bounded loop, no sleep).
    bool progress_until(const std::function<bool()> &cond,
                        std::chrono::milliseconds limit = std::chrono::milliseconds(10000))
    {
        const auto end = std::chrono::steady_clock::now() + limit;
        while (!cond()) {
            if (std::chrono::steady_clock::now() > end)
                return false;
            (void)doca_pe_progress(pe);
        }
        return true;
    }
    doca_error_t submit(doca_task *t) { return doca_task_submit(t); }

private:
    template <typename T, bool Error>
    static void cb(T *task, union doca_data, union doca_data ctx_user_data)
    {
        auto *self = static_cast<tasks *>(ctx_user_data.ptr);
        doca_task *t = as_task(task);
        self->done.push_back({t, doca_task_get_status(t), Error});
    }
    static doca_task *as_task(doca_sync_event_task_get *t)
    {
        return doca_sync_event_task_get_as_doca_task(t);
    }
    static doca_task *as_task(doca_sync_event_task_notify_set *t)
    {
        return doca_sync_event_task_notify_set_as_doca_task(t);
    }
    static doca_task *as_task(doca_sync_event_task_notify_add *t)
    {
        return doca_sync_event_task_notify_add_as_doca_task(t);
    }
    static doca_task *as_task(doca_sync_event_task_wait_eq *t)
    {
        return doca_sync_event_task_wait_eq_as_doca_task(t);
    }
    static doca_task *as_task(doca_sync_event_task_wait_neq *t)
    {
        return doca_sync_event_task_wait_neq_as_doca_task(t);
    }
};

} // namespace sync_test
