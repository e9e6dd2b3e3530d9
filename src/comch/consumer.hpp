// SPDX-License-Identifier: Apache-2.0
//
// The fast path's receive side (struct doca_comch_consumer). It posts receive buffers into its
// channel (transport::consumer_endpoint); the peer's producers copy payloads straight into them
// (its memory is exported to the peer) and publish completions, which this context's progress
// turns into completed post-receive tasks.
#pragma once

#include <doca_comch_consumer.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "comch/watch.hpp"
#include "common/visibility.hpp"
#include "core/ctx.hpp"
#include "core/task.hpp"
#include "transport/transport.hpp"

struct doca_comch_connection;
struct doca_mmap;
struct doca_buf;

namespace softcomch::comch {
struct shared_mmap;
}

struct doca_comch_consumer_task_post_recv : doca_task {
    static constexpr softcomch::core::task_kind k_kind =
        softcomch::core::task_kind::consumer_post_recv;
    explicit doca_comch_consumer_task_post_recv(doca_ctx *owner) noexcept : doca_task(owner, k_kind)
    {}

    doca_buf *buf() const noexcept { return buf_; }
    uint32_t producer_id() const noexcept { return producer_id_; }
    const uint8_t *imm_data() const noexcept { return imm_len_ ? imm_ : nullptr; }
    uint32_t imm_data_len() const noexcept { return imm_len_; }
    // doca_comch_consumer_task_post_recv_set_buf (`func` names it): refused while in flight.
    void set_buf(doca_buf *buf, const char *func) noexcept
    {
        if (reconfigurable(func))
            buf_ = buf;
    }

    doca_buf *buf_ = nullptr;
    uint32_t producer_id_ = 0;
    uint32_t imm_len_ = 0;
    uint8_t imm_[32] = {};
};

// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_comch_consumer>() needs its typeinfo.
struct SOFTCOMCH_API doca_comch_consumer final : doca_ctx {
    // doca_comch_consumer_create once the C API checked the handles: the connection must be
    // established and below its consumer limit, the mmap started.
    static doca_error_t create(doca_comch_connection *conn, doca_mmap *mmap, const char *func,
                               doca_comch_consumer **out);
    ~doca_comch_consumer() override;

    uint32_t id() const noexcept { return id_; }
    doca_comch_connection *connection() const noexcept { return conn_; }
    doca_mmap *mmap() const noexcept { return mmap_; }
    uint32_t imm_data_len() const noexcept { return imm_data_len_; }
    doca_error_t set_imm_data_len(uint32_t len, const char *func);
    doca_error_t task_post_recv_set_conf(doca_comch_consumer_task_post_recv_completion_cb_t ok,
                                         doca_comch_consumer_task_post_recv_completion_cb_t err,
                                         uint32_t num, const char *func);
    doca_error_t task_post_recv_alloc_init(doca_buf *buf,
                                           doca_comch_consumer_task_post_recv **task);

    // Called on the connection's thread when the peer answered this consumer's announcement.
    void peer_acknowledged(uint32_t status) noexcept
    {
        ack_status_.store(int(status), std::memory_order_release);
    }
    // The acceptance of this start goes on the trace once, by whichever side sees it first: the
    // connection's engine reading the peer's answer, or this consumer's engine reading the
    // channel's accepted word (which may come first, and then the answer may never be read).
    bool claim_ack_trace() noexcept
    {
        return !ack_traced_.exchange(true, std::memory_order_acq_rel);
    }
    // Called on the connection's thread when the connection ended.
    void peer_gone() noexcept { peer_gone_.store(true, std::memory_order_release); }

    doca_error_t submit(doca_task *task) override;
    doca_error_t validate(const doca_task *task) const override;
    void free_task(doca_task *task) override;
    unsigned poll() override;
    softcomch::core::arm_result try_arm() override;

protected:
    doca_error_t do_start() override;
    void do_stop() override;
    bool quiesce() override;

private:
    // Takes the slot `id` the connection gave it (create); the destructor gives it back.
    doca_comch_consumer(doca_comch_connection *conn, doca_mmap *mmap, uint32_t id);
    // The data path, instantiated for the endpoint's concrete class (transport/registry.hpp).
    template <class Endpoint> unsigned drain_completions(Endpoint &q);
    template <class Endpoint> void flush_posted(Endpoint &q, doca_error_t status);
    void announce_expired() noexcept;
    void release_transport() noexcept;

    doca_comch_connection *conn_;
    doca_mmap *mmap_;
    uint32_t id_;
    uint32_t imm_data_len_ = 0;
    softcomch::core::task_set<doca_comch_consumer_task_post_recv> pool_;

    // Our end of the channel; producers signal its handle to wake this consumer's engine.
    std::unique_ptr<softcomch::transport::consumer_endpoint> endpoint_;
    softcomch::comch::watch_set watch_; // the endpoint's handle in our engine's epoll set
    std::shared_ptr<softcomch::comch::shared_mmap> shared_;
    std::atomic<int> ack_status_{-1};
    std::atomic<bool> ack_traced_{false};
    std::atomic<bool> peer_gone_{false};
    uint32_t posted_ = 0; // submitted and not yet completed
    bool registered_ = false;
    bool expired_sent_ = false;
    bool faults_on_; // the connection's (comch/fault_hooks.hpp), in a line submit reads anyway
};
