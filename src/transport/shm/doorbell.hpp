// SPDX-License-Identifier: Apache-2.0
//
// A server's doorbell (docs/shm_layout.md, section "Doorbell"): one page of shared memory that
// every client of the server maps, where a client sets its connection's bit when it writes a
// message into a ring the server has parked. A server polls only its active connections and
// this page, so the cost of a progress call does not grow with idle connections.
//
//   offset  size  field     writer                     reader
//   0       8     magic     server, before sending it  client, once at attach
//   8       4     version   server                     client, once
//   12      4     bits      server (k_doorbell_bits)   client, once
//   64      8     summary   clients set bit w after    server: load, then exchange(0) when
//                           setting a bit of words[w]  non-zero
//   128     512   words[64] clients set their bit      server: exchange(0) of each word the
//                                                      summary names
//
// Memory-order edges (as in ring.hpp):
//   R4 -> A4  a client's fetch_or of its word bit and then of the summary bit (release: the
//             ring record it published, and the ring's armed exchange that told it to ring, are
//             sequenced before) -> the server's exchanges of the summary and the word (acquire):
//             the server then sees the record. A bit the server takes before the client's
//             fetch_or stays set for the next take: a ring is never lost, only possibly seen
//             twice (a spurious visit).
//
// The page is a hint, not a trust boundary: any client can set or clear any bit. A set bit
// costs the server one visit of a connection with nothing to read; a cleared bit delays that
// connection's message until the server's next tick looks at every parked ring (10 ms,
// comch_ctx::k_tick_interval_ns; docs/failure-model.md, "Peer input"). A client reads nothing
// from the page after attach.
#pragma once

#include <doca_error.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/unique_fd.hpp"

namespace softcomch::transport::shm {

inline constexpr uint64_t k_doorbell_magic = 0x4c4c4542484353ull; // "SCHBELL"
inline constexpr uint32_t k_doorbell_version = 1;
inline constexpr uint32_t k_doorbell_bits = 4096;
inline constexpr uint64_t k_doorbell_size = 4096;
// "This connection has no bell" (the server ran out of bits): it is never parked.
inline constexpr uint32_t k_no_bell = 0xffffffffu;

struct doorbell_page {
    uint64_t magic;
    uint32_t version;
    uint32_t bits;
    uint8_t pad0[48];
    std::atomic<uint64_t> summary;
    uint8_t pad1[56];
    std::atomic<uint64_t> words[k_doorbell_bits / 64];
};
static_assert(offsetof(doorbell_page, summary) == 64);
static_assert(offsetof(doorbell_page, words) == 128);
static_assert(sizeof(doorbell_page) <= k_doorbell_size);
static_assert(k_doorbell_bits / 64 <= 64, "one summary word names every word");

// The server's side: creates the page, hands out bits, takes the rung ones.
class doorbell_owner {
public:
    // A new page in a sealed memfd. DOCA_ERROR_NO_MEMORY / OPERATING_SYSTEM as the kernel says.
    static doca_error_t create(std::shared_ptr<doorbell_owner> &out) noexcept;
    ~doorbell_owner();
    doorbell_owner(const doorbell_owner &) = delete;
    doorbell_owner &operator=(const doorbell_owner &) = delete;

    // The memfd that travels to each client (the owner keeps it for later clients).
    int fd() const noexcept { return fd_.get(); }
    // A free bit, or k_no_bell when all are taken. Its bit is cleared first.
    uint32_t allocate() noexcept;
    void release(uint32_t bit) noexcept;

    // Calls f(bit) for every bit rung since the last take. One load when none was.
    template <class F> void take(F &&f) noexcept
    {
        // Relaxed: a cheap look; the exchanges below carry the order.
        if (page_->summary.load(std::memory_order_relaxed) == 0) [[likely]]
            return;
        // A4: pairs with R4 in doorbell_ringer::ring().
        uint64_t s = page_->summary.exchange(0, std::memory_order_acquire);
        while (s != 0) {
            const unsigned w = unsigned(__builtin_ctzll(s));
            s &= s - 1;
            uint64_t bits = page_->words[w].exchange(0, std::memory_order_acquire); // A4
            while (bits != 0) {
                const unsigned b = unsigned(__builtin_ctzll(bits));
                bits &= bits - 1;
                f(w * 64 + b);
            }
        }
    }

private:
    doorbell_owner() = default;
    unique_fd fd_;
    doorbell_page *page_ = nullptr;
    std::vector<uint64_t> used_; // process-local: which bits are handed out
};

// A client's side: the server's page, mapped, and the one bit this connection rings.
class doorbell_ringer {
public:
    doorbell_ringer() noexcept = default;
    ~doorbell_ringer();
    doorbell_ringer(doorbell_ringer &&o) noexcept;
    doorbell_ringer &operator=(doorbell_ringer &&o) noexcept;

    // Maps the server's page (`fd` is closed in every case). Returns what is wrong with it, or
    // nullptr: not a sealed memfd of k_doorbell_size bytes, a header that is not this version's,
    // or a bit out of range (k_no_bell is fine: nothing to ring).
    const char *attach(unique_fd fd, uint32_t bit) noexcept;

    // The server parked the ring this connection writes: tell it (no system call).
    void ring() noexcept
    {
        if (page_ == nullptr) [[unlikely]]
            return;
        // R4: pairs with A4 in doorbell_owner::take(). The word bit first, then the summary,
        // so that a server which sees the summary bit finds the word bit.
        page_->words[word_].fetch_or(mask_, std::memory_order_release);
        page_->summary.fetch_or(summary_mask_, std::memory_order_release);
    }

private:
    doorbell_page *page_ = nullptr;
    uint32_t word_ = 0;
    uint64_t mask_ = 0;
    uint64_t summary_mask_ = 0;
};

} // namespace softcomch::transport::shm
