// SPDX-License-Identifier: Apache-2.0
//
// The fast path's send side (struct doca_comch_producer). A send copies the buffer's data window
// straight into the oldest buffer the target consumer posted (one copy, like a DMA write), then
// publishes the completion to the consumer and completes the send task.
#pragma once

#include <doca_comch_producer.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "common/visibility.hpp"
#include "core/ctx.hpp"
#include "core/task.hpp"
#include "transport/transport.hpp"

struct doca_comch_connection;
struct doca_buf;

namespace softcomch::comch {
struct remote_consumer;
}

struct doca_comch_producer_task_send : doca_task {
    static constexpr softcomch::core::task_kind k_kind = softcomch::core::task_kind::producer_send;
    explicit doca_comch_producer_task_send(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}

    const doca_buf *buf() const noexcept { return buf_; }
    uint32_t consumer_id() const noexcept { return consumer_id_; }
    const uint8_t *imm_data() const noexcept { return imm_len_ ? imm_ : nullptr; }
    uint32_t imm_data_len() const noexcept { return imm_len_; }
    // The doca_comch_producer_task_send_set_* calls (`func` names the one in a log line):
    // refused while the task is in flight, and set_imm_data for more than imm_ holds.
    SOFTCOMCH_API void set_buf(const doca_buf *buf, const char *func) noexcept;
    SOFTCOMCH_API void set_consumer_id(uint32_t consumer_id, const char *func) noexcept;
    SOFTCOMCH_API void set_imm_data(const uint8_t *data, uint32_t len, const char *func) noexcept;
    // True if `len` bytes at `data` can be a task's immediate data; otherwise false, logged.
    static bool imm_data_fits(const uint8_t *data, uint32_t len, const char *func) noexcept;

    const doca_buf *buf_ = nullptr;
    uint32_t consumer_id_ = 0;
    uint32_t imm_len_ = 0;
    uint8_t imm_[32] = {};
};

// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_comch_producer>() needs its typeinfo.
struct SOFTCOMCH_API doca_comch_producer final : doca_ctx {
    // doca_comch_producer_create once the C API checked the handle: the connection must be
    // established and below its producer limit.
    static doca_error_t create(doca_comch_connection *conn, const char *func,
                               doca_comch_producer **out);
    ~doca_comch_producer() override;

    uint32_t id() const noexcept { return id_; }
    doca_comch_connection *connection() const noexcept { return conn_; }
    doca_error_t task_send_set_conf(doca_comch_producer_task_send_completion_cb_t ok,
                                    doca_comch_producer_task_send_completion_cb_t err, uint32_t num,
                                    const char *func);
    doca_error_t task_send_alloc_init(const doca_buf *buf, const uint8_t *imm, uint32_t imm_len,
                                      uint32_t consumer_id, doca_comch_producer_task_send **task);
    // False (logged, naming `func`) for a buffer of an mmap created from an export: its
    // addresses are another process's, which only a DMA context reaches.
    static bool local_memory(const doca_buf *buf, const char *func) noexcept;

    doca_error_t submit(doca_task *task) override;
    doca_error_t validate(const doca_task *task) const override;
    void free_task(doca_task *task) override;
    unsigned poll() override;
    // Settles (below) before the program sleeps.
    softcomch::core::arm_result try_arm() override;
    // The slow path: says once which consumer ids exist when a send named one that does not
    // (comch/diagnostics.cpp).
    void tick(uint64_t now_ns) noexcept override;

protected:
    doca_error_t do_start() override;
    void do_stop() override { settle(); }
    // Sends complete at submit time: nothing but queued completions can remain.
    bool quiesce() override { return true; }

private:
    // Takes the slot `id` the connection gave it (create); the destructor gives it back.
    doca_comch_producer(doca_comch_connection *conn, uint32_t id);
    softcomch::comch::remote_consumer *lookup(uint32_t consumer_id);
    // The send, instantiated with and without the hooks of faults on demand
    // (comch/fault_hooks.hpp): only a connection a SOFTCOMCH_FAULTS rule matches takes `Faults`.
    template <bool Faults> doca_error_t submit_send(doca_comch_producer_task_send *task);
    [[gnu::cold, gnu::noinline]] doca_error_t
    submit_with_faults(doca_comch_producer_task_send *task);
    // The send once the consumer is known, instantiated for its concrete class
    // (transport/registry.hpp).
    template <bool Faults, class Remote>
    doca_error_t send_to(doca_comch_producer_task_send *task, const Remote &r);

    doca_comch_connection *conn_;
    uint32_t id_;
    bool faults_on_; // the connection's (comch/fault_hooks.hpp), in a line submit reads anyway
    softcomch::core::task_set<doca_comch_producer_task_send> pool_;
    std::unique_ptr<softcomch::transport::write_plan> plan_; // resolved at start
    // The check for a sleeping consumer that the sends to cached_ since the last settle put off
    // (complete_deferred; docs/design.md, "One barrier per burst"): at the start of every poll
    // and notification request, at stop, and before the cache moves to another consumer.
    void settle() noexcept
    {
        if (unsettled_) [[unlikely]]
            settle_cached();
    }
    void settle_cached() noexcept;

    // One-entry cache: a producer usually streams to one consumer.
    uint32_t cached_id_ = 0;
    uint64_t cached_generation_ = 0;
    std::shared_ptr<softcomch::comch::remote_consumer> cached_;
    bool unsettled_ = false; // cached_ owes its check
    // A consumer id a send named that does not exist, or'ed with k_unknown_set (0: none since
    // the last tick), for the tick's one warning; set on the refused submit only.
    static constexpr uint64_t k_unknown_set = uint64_t(1) << 32;
    std::atomic<uint64_t> unknown_consumer_{0};
    bool unknown_consumer_told_ = false;
};
