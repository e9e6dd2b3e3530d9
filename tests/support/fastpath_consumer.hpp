// SPDX-License-Identifier: Apache-2.0
//
// The consumer wrapper of the fast-path harness (fastpath_harness.hpp): its own progress engine
// (or the connection's), N posted buffers reposted from the completion callback; reposts refused
// with DOCA_ERROR_AGAIN are retried from its progress loops. Used from one thread at a time.
// Definitions in fastpath_consumer.cpp.
#pragma once

#include <doca_buf.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "fastpath_region.hpp"
#include "pe_group.hpp"

namespace sc_test::fp {

// What the receive callback sees: valid during the callback only.
struct recv_view {
    const uint8_t *data;
    size_t len;
    uint32_t producer_id;
    const uint8_t *imm;
    uint32_t imm_len;
    size_t slot;
    doca_comch_consumer_task_post_recv *task;
};

struct recv_record {
    std::vector<uint8_t> data;
    uint32_t producer_id;
    bool imm_null;
    std::vector<uint8_t> imm;
    size_t slot;
};

struct consumer_options {
    uint32_t slots = 8; // buffers of slot_size bytes, one per post-receive
    size_t slot_size = 4096;
    uint32_t num_tasks = 0; // post-receive task pool (0: as many as slots)
    int imm_data_len = -1;  // doca_comch_consumer_set_imm_data_len before start (-1: leave)
    mem_kind mem = mem_kind::aligned;
    bool auto_repost = true;  // resubmit a task from its completion callback
    bool hold_errors = false; // keep error-completed tasks (do not free them)
    bool epoll = false;
    doca_pe *pe = nullptr;    // attach to this engine (e.g. the connection's) instead of an own one
    bool check_order = false; // anomaly unless messages land in posting order (one producer only)
};

class consumer {
public:
    consumer(doca_comch_connection *conn, doca_dev *dev, consumer_options o = {});
    consumer(const consumer &) = delete;
    consumer &operator=(const consumer &) = delete;
    ~consumer();

    bool ok() const { return create_rc == DOCA_SUCCESS && setup_rc == DOCA_SUCCESS; }
    doca_comch_consumer *handle() const { return cons_; }
    doca_ctx *ctx() const { return ctx_; }
    doca_pe *pe() const { return pe_; }
    region &mem() { return mem_; }
    const consumer_options &options() const { return opt_; }
    pe_group &group() { return group_; }

    uint32_t id() const;
    doca_ctx_states state() const;

    doca_error_t start() { return doca_ctx_start(ctx_); }

    // Progresses this consumer's engine and `owner` (the engine of the connection's server or
    // client, when this thread drives it) until `pred` holds.
    // Reposts refused with DOCA_ERROR_AGAIN are retried on the way (retry_pending).
    bool progress_until(const std::function<bool()> &pred, std::chrono::milliseconds timeout,
                        doca_pe *owner = nullptr);

    // Resubmits the receives whose repost from the completion callback was refused with
    // DOCA_ERROR_AGAIN (transient back-pressure); frees them once the consumer is not RUNNING.
    // Loops that progress the consumer's engine by other means call this themselves.
    void retry_pending();
    size_t pending() const { return pending_.size(); }

    bool wait_running(doca_pe *owner,
                      std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

    // Posts the buffer of `slot` (its buf is taken once, empty data window, and reused).
    doca_error_t post(size_t slot);

    doca_error_t post_all();

    size_t posted() const { return posted_count_; }
    doca_buf *slot_buf(size_t slot) const { return bufs_[slot]; }
    uint8_t *slot_addr(size_t slot) { return mem_.base() + slot * opt_.slot_size; }

    // Stops and progresses until IDLE. Error-completed tasks are freed unless hold_errors.
    doca_error_t stop_and_wait(doca_pe *owner,
                               std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

    doca_error_t destroy();

    void free_pending();

    void free_held();

    void release_bufs();

    // Receive handling: on_recv (if set) sees every message, otherwise it is copied to `received`.
    std::function<void(consumer &, const recv_view &)> on_recv;
    std::deque<recv_record> received;
    size_t recv_count = 0;
    std::vector<doca_error_t> errors;                       // statuses of error completions
    std::vector<doca_comch_consumer_task_post_recv *> held; // error-completed tasks (hold_errors)
    std::vector<std::string> anomalies;                     // contract violations seen in callbacks
    size_t repost_failures = 0; // reposts refused with another code than DOCA_ERROR_AGAIN
    doca_error_t last_repost_rc = DOCA_SUCCESS;
    uint64_t repost_again = 0; // reposts refused with DOCA_ERROR_AGAIN (retried later)
    uint64_t post_again = 0;   // first posts refused with DOCA_ERROR_AGAIN (retried)
    std::vector<doca_ctx_states> states;
    doca_error_t create_rc = DOCA_ERROR_UNKNOWN;
    doca_error_t setup_rc = DOCA_ERROR_UNKNOWN;

private:
    doca_error_t setup();

    void forget_post(size_t slot);

    void anomaly(const std::string &s);

    static void recv_done(doca_comch_consumer_task_post_recv *task, union doca_data task_ud,
                          union doca_data ctx_ud);

    static void recv_error(doca_comch_consumer_task_post_recv *task, union doca_data task_ud,
                           union doca_data ctx_ud);

    consumer_options opt_;
    region mem_;
    pe_group group_;
    doca_pe *pe_ = nullptr;
    bool own_pe_ = true;
    doca_comch_consumer *cons_ = nullptr;
    doca_ctx *ctx_ = nullptr;
    std::vector<doca_buf *> bufs_;
    std::vector<uint8_t> posted_;
    size_t posted_count_ = 0;
    std::vector<std::pair<size_t, doca_comch_consumer_task_post_recv *>> pending_;
    std::deque<size_t> post_order_; // posted slots, oldest first
};

} // namespace sc_test::fp
