// SPDX-License-Identifier: Apache-2.0
//
// The fast path's bookkeeping on one connection: the peer's consumers as producers see them,
// this side's consumers (to route acknowledgements), id allocation, and live counts. Producers
// and consumers may run on other threads than the connection's progress engine, so the tables
// are guarded by a mutex; the data path takes it only when a producer meets a consumer id it
// has not cached.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/log.hpp"
#include "transport/transport.hpp"

struct doca_comch_consumer;

namespace softcomch::comch {

// A consumer of the peer, reachable by this side's producers.
struct remote_consumer {
    std::unique_ptr<softcomch::transport::remote_consumer> endpoint; // the transport's way to it
    std::atomic<bool> expired{false}; // set when its expiry arrived (link_handler)
};

// The ids and the live count of one kind of fast-path object (consumers or producers) on a
// connection.
struct endpoint_slots {
    std::atomic<uint32_t> next_id{1};
    std::atomic<uint32_t> live{0};

    // Takes a slot and the next id, or returns false when `max` are live. The check and the
    // take are one step, so threads creating at once cannot overshoot the limit.
    bool take(uint32_t max, uint32_t &id) noexcept
    {
        uint32_t n = live.load(std::memory_order_relaxed);
        do {
            if (n >= max)
                return false;
        } while (!live.compare_exchange_weak(n, n + 1, std::memory_order_relaxed));
        id = next_id.fetch_add(1, std::memory_order_relaxed);
        return true;
    }
    // Release, paired with count()'s acquire: the connection's owner may reclaim the connection
    // once the count is 0, so every access of the object giving its slot back (its last one is
    // this) happens before.
    void give_back() noexcept { live.fetch_sub(1, std::memory_order_release); }
    // The create of a consumer or producer: takes a slot and an id, then `make(id)` builds the
    // object, which gives the slot back when it goes. NO_MEMORY (a line naming `func` and
    // `what`, the objects' plural) when `max` are live; the slot goes back if `make` throws.
    template <typename Make>
    doca_error_t create(const char *func, const char *what, uint32_t max, Make &&make)
    {
        uint32_t id = 0;
        if (!take(max, id)) {
            SC_LOG_ERR("%s: the connection already has %u %s (the maximum)", func, max, what);
            return DOCA_ERROR_NO_MEMORY;
        }
        try {
            make(id);
        } catch (...) {
            give_back();
            throw;
        }
        return DOCA_SUCCESS;
    }
    uint32_t count() const noexcept { return live.load(std::memory_order_acquire); }
};

struct fast_registry {
    std::mutex mu;
    std::unordered_map<uint32_t, std::shared_ptr<remote_consumer>> remote; // by consumer id
    std::unordered_map<uint32_t, doca_comch_consumer *> local;             // by consumer id
    endpoint_slots consumers;
    endpoint_slots producers;
    // Bumped whenever a remote consumer expires: producers revalidate their cached entry.
    std::atomic<uint64_t> generation{0};

    std::shared_ptr<remote_consumer> find_remote(uint32_t id)
    {
        std::lock_guard<std::mutex> g(mu);
        auto it = remote.find(id);
        return it == remote.end() ? nullptr : it->second;
    }
};

} // namespace softcomch::comch
