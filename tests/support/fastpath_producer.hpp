// SPDX-License-Identifier: Apache-2.0
//
// The producer wrapper of the fast-path harness (fastpath_harness.hpp): its own progress engine
// (or the connection's), source buffers, and send(), which retries DOCA_ERROR_AGAIN with a timeout
// and without progressing anything unless asked to. Used from one thread at a time. Definitions
// in fastpath_producer.cpp.
#pragma once

#include <doca_comch.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "fastpath_region.hpp"
#include "pe_group.hpp"

namespace sc_test::fp {

struct producer_options {
    uint32_t num_tasks = 16; // send-task pool
    uint32_t slots = 16;     // source buffers of slot_size bytes (messages in flight)
    size_t slot_size = 4096;
    mem_kind mem = mem_kind::aligned;
    bool epoll = false;
    doca_pe *pe = nullptr; // attach to this engine (e.g. the connection's) instead of an own one
};

struct send_options {
    std::chrono::milliseconds timeout{5000}; // for a free slot/task and for AGAIN retries
    std::function<void()> pump;              // called between AGAIN retries (default: sleep only)
};

class producer {
public:
    producer(doca_comch_connection *conn, doca_dev *dev, producer_options o = {});
    producer(const producer &) = delete;
    producer &operator=(const producer &) = delete;
    ~producer();

    bool ok() const { return create_rc == DOCA_SUCCESS && setup_rc == DOCA_SUCCESS; }
    doca_comch_producer *handle() const { return prod_; }
    doca_ctx *ctx() const { return ctx_; }
    doca_pe *pe() const { return pe_; }
    region &mem() { return mem_; }
    pe_group &group() { return group_; }

    uint32_t id() const;
    doca_ctx_states state() const;
    doca_error_t start() { return doca_ctx_start(ctx_); }

    size_t in_flight() const { return in_flight_; }

    // Sends `len` bytes written by `fill` straight into a source buffer, plus immediate data, to
    // remote consumer `cid`. Waits (progressing this producer's engine) for a free source buffer
    // and send task, then submits, retrying DOCA_ERROR_AGAIN until the timeout without progressing
    // any engine (so.pump, if set, runs between retries). Returns the last doca_task_submit()
    // result, DOCA_ERROR_TIME_OUT if no buffer/task became free, or the failing call's code.
    doca_error_t send(uint32_t cid, size_t len, const std::function<void(uint8_t *, size_t)> &fill,
                      const void *imm = nullptr, uint32_t imm_len = 0, const send_options &so = {});

    doca_error_t send(uint32_t cid, const void *bytes, size_t len, const void *imm = nullptr,
                      uint32_t imm_len = 0, const send_options &so = {});

    // doca_task_submit, retried while it returns DOCA_ERROR_AGAIN (sleeping or pumping).
    doca_error_t submit_retrying(doca_task *t, const send_options &so,
                                 std::chrono::steady_clock::time_point end);

    // Progresses this producer's engine until every submitted send has completed.
    bool wait_completions(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000),
                          const std::function<void()> &pump = {});

    doca_error_t stop_and_wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

    doca_error_t destroy();

    // Task user data of a send task the test built and submitted itself: the completion callback
    // counts it, releases its buf and frees it, without touching the source-slot bookkeeping.
    static constexpr uint64_t kExternal = UINT64_MAX;

    size_t ok_count = 0, err_count = 0, submitted = 0;
    uint64_t again = 0;
    std::vector<doca_error_t> err_statuses;
    doca_error_t last_alloc_rc = DOCA_SUCCESS;
    std::function<void(producer &, doca_comch_producer_task_send *, doca_error_t)> on_complete;
    std::vector<doca_ctx_states> states;
    doca_error_t create_rc = DOCA_ERROR_UNKNOWN;
    doca_error_t setup_rc = DOCA_ERROR_UNKNOWN;

private:
    doca_error_t setup();

    static void send_done(doca_comch_producer_task_send *task, union doca_data task_ud,
                          union doca_data ctx_ud);

    producer_options opt_;
    region mem_;
    pe_group group_;
    doca_pe *pe_ = nullptr;
    bool own_pe_ = true;
    doca_comch_producer *prod_ = nullptr;
    doca_ctx *ctx_ = nullptr;
    std::vector<size_t> free_slots_;
    size_t in_flight_ = 0;
};

} // namespace sc_test::fp
