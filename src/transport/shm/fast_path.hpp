// SPDX-License-Identifier: Apache-2.0
//
// The shm transport's fast-path objects (transport.hpp): a consumer's memory made reachable by
// the peer (shared_memory.hpp), a consumer's end of its channel and the peer's consumer as our
// producers see it (fast_channel.hpp), and a producer's copy plan (SOFTCOMCH_COPY).
//
//   consumer side: memory_export (once per doca_mmap), consumer_endpoint (channel + wake-up
//                  socket); both travel to the peer in CONSUMER_ANNOUNCE (link::announce,
//                  link.cpp)
//   producer side: remote_consumer (our mapping of the channel and of the memory, the
//                  consumer's wake-up socket), built from the announcement (link::service)
//
// The data-path functions are inline and forward to fast_consumer / fast_producer /
// copy_to_peer: one copy per message, no system call but the wake-up of an armed consumer.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/unique_fd.hpp"
#include "transport/shm/fast_channel.hpp"
#include "transport/shm/shared_memory.hpp"
#include "transport/shm/wake.hpp"
#include "transport/transport.hpp"

namespace softcomch::transport::shm {

// A consumer range prepared for producers (export_memory), released at destruction.
class memory_export final : public transport::memory_export {
public:
    memory_export() noexcept;
    ~memory_export() override = default; // exported_memory's range unshares, best effort
    const char *mechanism_name() const noexcept override;
    doca_error_t release() noexcept override;
    const exported_memory &exported() const noexcept { return exported_; }
    exported_memory &exported() noexcept { return exported_; }

private:
    exported_memory exported_;
};

// A producer's copy decision (SOFTCOMCH_COPY), resolved at its start.
class write_plan final : public transport::write_plan {
public:
    explicit write_plan(const copy_plan &p) noexcept : plan(p) {}
    std::string describe() const override;
    copy_plan plan;
};

class consumer_endpoint final : public transport::consumer_endpoint {
public:
    using posted = post_entry;
    using completion = fast_completion;

    // Creates the channel in a memfd, binds this side to it and creates the wake-up socket.
    // The buffers live in `memory` (it outlives the endpoint): the registered bytes on its
    // edge pages are copied into place as completions arrive (shared_memory.hpp, hazard 1).
    // Errors: those of fast_channel::create / fast_consumer::attach / wake_listener::create.
    static doca_error_t create(const consumer_params &p, const exported_memory &memory,
                               std::unique_ptr<transport::consumer_endpoint> &out) noexcept;

    // [0] the wake-up socket producers signal.
    size_t handles(watch_handle (&out)[k_max_handles]) const noexcept override;
    void on_ready(size_t, uint32_t) noexcept override { (void)wake_.drain(); }

    // ---- data path (transport::consumer_data_path) ----
    doca_error_t post(uint32_t task, uint64_t addr, uint64_t capacity) noexcept
    {
        if (edges_ != nullptr && task < params_.num_tasks) [[unlikely]]
            posted_addr_[task] = addr;
        return queue_.post(task, addr, capacity);
    }
    const fast_completion *peek() noexcept
    {
        const fast_completion *c = queue_.peek();
        if (c != nullptr && edges_ != nullptr && !delivered_) [[unlikely]]
            deliver(*c);
        return c;
    }
    void release() noexcept
    {
        delivered_ = false;
        queue_.release();
    }
    bool revoke(post_entry *out) noexcept { return queue_.revoke(out); }
    bool arm() noexcept { return queue_.arm(); }
    void expire() noexcept { queue_.expire(); }
    bool accepted() const noexcept { return queue_.accepted(); }
    bool corrupted() const noexcept { return queue_.corrupted(); }

    // For the announcement.
    const consumer_params &params() const noexcept { return params_; }
    const fast_channel &channel() const noexcept { return channel_; }
    // The end of our wake-up socket that the peer's producers signal; closed here once the
    // announcement carried it (the peer holds its own copy).
    int wake_send_handle() const noexcept { return wake_send_end_.get(); }
    void wake_send_handle_sent() const noexcept { wake_send_end_.reset(); }

private:
    consumer_endpoint() noexcept;
    // The completion's bytes on edge pages of the memory, into place (once per completion).
    void deliver(const fast_completion &c) noexcept;

    consumer_params params_;
    fast_channel channel_;            // the channel's memory (we created it)
    fast_consumer queue_;             // our side of it (declared after channel_: destroyed first)
    wake_listener wake_;              // producers signal it to wake this consumer's engine
    mutable unique_fd wake_send_end_; // its other end, until the announcement carried it
    const shared_range *edges_ = nullptr;     // the memory, when some of it is on edge pages
    std::unique_ptr<uint64_t[]> posted_addr_; // per task: where its buffer starts (edges_ only)
    bool delivered_ = false;                  // the peeked completion's edge bytes are in place
};

class remote_consumer final : public transport::remote_consumer {
public:
    using posted = post_entry;
    using completion = fast_completion;

    // Maps what a CONSUMER_ANNOUNCE carried: the channel (`channel_fd`, `channel_size` bytes),
    // the consumer's memory (`memory_fd`, borrowed, -1 for pvw; described by `d`, whose pid is
    // the kernel's), and takes the consumer's wake-up socket (checked by the caller). `pidfd`
    // (borrowed, -1: none) stops pvw writes once the consumer's process exited. Both files are
    // pre-faulted only where they have pages (their sizes are the peer's choice). Every value
    // came from the peer and is validated here.
    static doca_error_t attach(uint32_t id, uint32_t imm_data_len, int channel_fd,
                               uint64_t channel_size, int memory_fd, const memory_desc &d,
                               wake_target wake, int pidfd,
                               std::unique_ptr<transport::remote_consumer> &out) noexcept;

    void accept() noexcept override { queue_.accept(); }

    // ---- data path (transport::remote_consumer_data_path); thread-safe ----
    doca_error_t try_claim(uint64_t need, post_entry *out) const noexcept
    {
        return queue_.try_claim(need, out);
    }
    // The one copy: straight into the claimed buffer. The working set the copy plan weighs is
    // the one measured (reuse_watch: this process's large copies between two into the same
    // buffer); until there is one, the consumer's posted buffers (at most num_tasks of this
    // many bytes, all within its registered memory).
    doca_error_t write(const post_entry &e, const void *src, uint64_t len,
                       const transport::write_plan &plan) const noexcept
    {
        const peer_target &target = memory_.target();
        // The plan is ours: objects of one transport only meet each other (transport.hpp).
        const copy_plan &cp = static_cast<const shm::write_plan &>(plan).plan;
        // Only the automatic policy weighs the working set, and only for payloads it may stream.
        uint64_t working_set = 0;
        if (cp.policy == copy_policy::auto_select && len >= k_min_streaming_bytes) {
            working_set =
                reuse_.observe(e.addr, count_large_copy(len), cp.cache_budget, target.len);
            if (working_set == 0)
                working_set = std::min<uint64_t>(target.len, uint64_t(queue_.num_tasks()) * len);
        }
        return copy_to_peer(target, e.addr, src, len, cp.streams(len, working_set));
    }
    doca_error_t complete(const fast_completion &c, bool *wake) const noexcept
    {
        return queue_.complete(c, wake);
    }
    // complete() with the check for a sleeping consumer left to settle() unless it is seen
    // armed (*wake) (fast_producer::complete_deferred).
    doca_error_t complete_deferred(const fast_completion &c, bool *wake) const noexcept
    {
        return queue_.complete_deferred(c, wake);
    }
    void settle() const noexcept
    {
        if (queue_.wake_needed())
            wake_.signal();
    }
    // Wakes the consumer's progress engine (it armed its notifications): never blocks.
    void wake() const noexcept { wake_.signal(); }
    bool expired() const noexcept { return queue_.expired(); }

private:
    remote_consumer(uint32_t id, uint32_t imm_data_len) noexcept;

    mutable reuse_watch reuse_; // the working set of the sends to it (write)
    fast_channel channel_;      // our mapping of its channel
    fast_producer queue_;       // the producer side of that channel
    peer_mapping memory_;       // where its buffers are, and how to write them
    wake_target wake_;          // signalled to wake the consumer
};

} // namespace softcomch::transport::shm
