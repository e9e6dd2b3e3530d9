// SPDX-License-Identifier: Apache-2.0
//
// SPSC ring: single-thread semantics, corruption handling, and two-thread stress with data
// integrity (sequence number + checksum on every message) in polled and armed (eventfd) modes.
#include "transport/shm/ring.hpp"

#include "backoff.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using namespace softcomch::transport::shm;

namespace {

// Page-aligned zeroed buffer.
struct aligned_mem {
    explicit aligned_mem(uint64_t n) : size((n + 4095) & ~uint64_t(4095))
    {
        ptr = static_cast<uint8_t *>(std::aligned_alloc(4096, size));
        std::memset(ptr, 0, size);
    }
    ~aligned_mem() { std::free(ptr); }
    aligned_mem(const aligned_mem &) = delete;
    aligned_mem &operator=(const aligned_mem &) = delete;
    uint8_t *ptr;
    uint64_t size;
};

// A ring in private memory with both ends attached.
struct test_ring {
    explicit test_ring(ring_params p) : params(p), mem(ring_layout::memsize(p.capacity))
    {
        EXPECT_EQ(ring_layout::init(mem.ptr, mem.size, params), DOCA_SUCCESS);
        EXPECT_EQ(prod.attach(mem.ptr, mem.size), DOCA_SUCCESS);
        EXPECT_EQ(cons.attach(mem.ptr, mem.size), DOCA_SUCCESS);
    }
    test_ring(uint32_t queue, uint32_t max_payload)
        : test_ring(ring_layout::params_for(queue, max_payload))
    {}
    ring_ctrl *ctrl() { return reinterpret_cast<ring_ctrl *>(mem.ptr); }
    // Header at byte offset `off` of the data area.
    record_header *header(uint32_t off)
    {
        return reinterpret_cast<record_header *>(mem.ptr + k_ring_ctrl_size + off);
    }
    ring_params params;
    aligned_mem mem;
    ring_producer prod;
    ring_consumer cons;
};

uint32_t fnv32(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

uint64_t xorshift(uint64_t &s)
{
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

// Message format of the stress tests: [u64 seq][u32 checksum of the rest][u32 pad][payload].
constexpr uint32_t k_msg_hdr = 16;

void fill_msg(uint8_t *p, uint32_t len, uint64_t seq)
{
    uint64_t s = seq * 0x9e3779b97f4a7c15ull + 1;
    for (uint32_t i = k_msg_hdr; i < len; ++i)
        p[i] = uint8_t(xorshift(s));
    std::memcpy(p, &seq, 8);
    const uint32_t sum = fnv32(p + k_msg_hdr, len - k_msg_hdr);
    std::memcpy(p + 8, &sum, 4);
    std::memset(p + 12, 0, 4);
}

bool check_msg(const record_view &v, uint64_t expect_seq)
{
    if (v.len < k_msg_hdr)
        return false;
    const auto *p = static_cast<const uint8_t *>(v.data);
    uint64_t seq;
    uint32_t sum;
    std::memcpy(&seq, p, 8);
    std::memcpy(&sum, p + 8, 4);
    return seq == expect_seq && sum == fnv32(p + k_msg_hdr, v.len - k_msg_hdr) &&
           v.type == uint16_t(seq) && v.flags == uint16_t(seq >> 16);
}

} // namespace

TEST(unit_transport_ring_layout, sizing_helpers)
{
    EXPECT_EQ(ring_layout::record_size_for(4080), 4096u);
    EXPECT_EQ(ring_layout::record_size_for(0), 64u);
    EXPECT_EQ(ring_layout::record_size_for(48), 64u);
    EXPECT_EQ(ring_layout::record_size_for(49), 128u);
    EXPECT_EQ(ring_layout::pow2_at_least(0), 1u);
    EXPECT_EQ(ring_layout::pow2_at_least(10), 16u);
    EXPECT_EQ(ring_layout::pow2_at_least(16), 16u);
    // The whole queue of maximal records when it fits.
    EXPECT_EQ(ring_layout::params_for(10, 4080), (ring_params{65536, 4096, 10}));
    EXPECT_EQ(ring_layout::params_for(16, 4080), (ring_params{65536, 4096, 16}));
    EXPECT_EQ(ring_layout::params_for(17, 4080), (ring_params{131072, 4096, 17}));
    // Small messages pack: 8192 records of 64 bytes.
    EXPECT_EQ(ring_layout::params_for(8192, 48), (ring_params{524288, 64, 8192}));
    // A large queue of large messages: the budget, whatever the queue size (sends then wait).
    EXPECT_EQ(ring_layout::params_for(8192, 4080),
              (ring_params{k_ring_default_budget, 4096, 8192}));
    EXPECT_EQ(ring_layout::params_for(1u << 24, 4080),
              (ring_params{k_ring_default_budget, 4096, 1u << 24}));
    // Never less than two maximal records.
    EXPECT_EQ(ring_layout::params_for(1, 4080), (ring_params{8192, 4096, 1}));
    EXPECT_EQ(ring_layout::params_for(4, 1 << 20, 4096),
              (ring_params{4u << 20, (1u << 20) + 64, 4}));
    EXPECT_EQ(ring_layout::memsize(65536), uint64_t(k_ring_ctrl_size) + 65536);
    for (uint32_t q : {1u, 10u, 16u, 1000u, 8192u})
        for (uint32_t m : {0u, 1u, 64u, 4080u})
            EXPECT_TRUE(ring_layout::valid(ring_layout::params_for(q, m))) << q << " " << m;
}

TEST(unit_transport_ring_layout, rejects_invalid_params)
{
    EXPECT_EQ(ring_layout::memsize(0), 0u);
    EXPECT_EQ(ring_layout::memsize(192), 0u);
    EXPECT_EQ(ring_layout::memsize(64), 0u); // not even two minimal records
    EXPECT_EQ(ring_layout::memsize(k_ring_max_capacity * 2u), 0u);
    EXPECT_NE(ring_layout::memsize(128), 0u);
    EXPECT_FALSE(ring_layout::valid({1024, 32, 4}));   // record below a line
    EXPECT_FALSE(ring_layout::valid({1024, 100, 4}));  // not whole lines
    EXPECT_FALSE(ring_layout::valid({1024, 1024, 4})); // fewer than two maximal records
    EXPECT_FALSE(ring_layout::valid({1u << 22, k_ring_max_record + 64, 4}));
    EXPECT_FALSE(ring_layout::valid({1024, 64, 0}));
    EXPECT_FALSE(ring_layout::valid({1024, 64, k_ring_max_limit + 1}));
    EXPECT_TRUE(ring_layout::valid({1024, 512, 1}));
    EXPECT_TRUE(
        ring_layout::valid({1024, 64, k_ring_max_limit})); // more messages than lines is legal

    aligned_mem mem(8192);
    EXPECT_EQ(ring_layout::init(mem.ptr, mem.size, {1024, 64, 0}), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(ring_layout::init(mem.ptr + 8, mem.size - 8, {1024, 64, 4}),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(ring_layout::init(mem.ptr, 512 + 1023, {1024, 64, 4}), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(ring_layout::init(nullptr, 8192, {1024, 64, 4}), DOCA_ERROR_INVALID_VALUE);
}

TEST(unit_transport_ring_layout, validate_detects_corruption)
{
    aligned_mem mem(8192);
    ASSERT_EQ(ring_layout::init(mem.ptr, mem.size, {1024, 128, 6}), DOCA_SUCCESS);
    ring_params p;
    ASSERT_EQ(ring_layout::validate(mem.ptr, mem.size, &p), DOCA_SUCCESS);
    EXPECT_EQ(p, (ring_params{1024, 128, 6}));
    // Too short for the data area, or even for the control block.
    EXPECT_EQ(ring_layout::validate(mem.ptr, 512 + 1023, &p), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(ring_layout::validate(mem.ptr, 100, &p), DOCA_ERROR_INVALID_VALUE);
    // Every byte of the config block matters: flip each and expect a rejection. The exception
    // is the message limit's low bytes: any limit of 1..2^24 is a legal ring (the byte capacity
    // bounds the memory), so such a flip yields another valid ring, reported as such.
    for (uint32_t i = 0; i < sizeof(ring_config); ++i) {
        mem.ptr[i] ^= 0x5a;
        const doca_error_t err = ring_layout::validate(mem.ptr, mem.size, &p);
        if (i >= offsetof(ring_config, limit) && i < offsetof(ring_config, limit) + 3) {
            EXPECT_EQ(err, DOCA_SUCCESS) << "byte " << i;
            EXPECT_NE(p.limit, 6u);
            mem.ptr[i] ^= 0x5a;
            continue;
        }
        EXPECT_NE(err, DOCA_SUCCESS) << "byte " << i;
        if (i >= 4 && i < 8) {
            EXPECT_EQ(err, DOCA_ERROR_UNSUPPORTED_VERSION);
        }
        mem.ptr[i] ^= 0x5a;
    }
    // A layout-1 ring (fixed slots) is another version, not garbage.
    reinterpret_cast<ring_config *>(mem.ptr)->layout_version = 1;
    EXPECT_EQ(ring_layout::validate(mem.ptr, mem.size, &p), DOCA_ERROR_UNSUPPORTED_VERSION);
    reinterpret_cast<ring_config *>(mem.ptr)->layout_version = k_ring_layout_version;
    ring_producer prod;
    ring_consumer cons;
    mem.ptr[0] ^= 1;
    EXPECT_EQ(prod.attach(mem.ptr, mem.size), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cons.attach(mem.ptr, mem.size), DOCA_ERROR_INVALID_VALUE);
    EXPECT_FALSE(prod.attached());
    EXPECT_FALSE(cons.attached());
}

TEST(unit_transport_ring, empty_ring)
{
    test_ring r(ring_params{1024, 128, 4});
    EXPECT_EQ(r.cons.peek(), nullptr);
    EXPECT_FALSE(r.cons.ready());
    EXPECT_EQ(r.cons.pending(), 0u);
    EXPECT_EQ(r.prod.in_flight(), 0u);
    EXPECT_FALSE(r.prod.full());
    EXPECT_EQ(r.prod.capacity(), 1024u);
    EXPECT_EQ(r.prod.limit(), 4u);
    EXPECT_EQ(r.prod.max_payload(), 128u - 16u);
}

TEST(unit_transport_ring, send_receive_in_place)
{
    test_ring r(4, 4080);
    void *p = r.prod.try_claim(5);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 16u);
    EXPECT_EQ(r.prod.try_claim(5), p); // same place until commit
    std::memcpy(p, "hello", 5);
    EXPECT_FALSE(r.prod.commit(7, 5, 9));
    EXPECT_EQ(r.cons.pending(), 1u);
    const record_view *v = r.cons.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->len, 5u);
    EXPECT_EQ(v->type, 7u);
    EXPECT_EQ(v->flags, 9u);
    EXPECT_EQ(v->data, p); // zero copy: the consumer reads the producer's record
    EXPECT_EQ(std::memcmp(v->data, "hello", 5), 0);
    EXPECT_EQ(r.cons.peek(), v); // stable until release
    r.cons.release();
    EXPECT_EQ(r.cons.peek(), nullptr);
    EXPECT_EQ(r.cons.position(), 1u);
    EXPECT_EQ(r.prod.position(), 1u);
    // The next record follows in the next line: 5 bytes take one line, not a 4 KiB slot.
    void *q = r.prod.try_claim(0);
    EXPECT_EQ(static_cast<uint8_t *>(q) - static_cast<uint8_t *>(p), 64);
    // Zero-length messages are legal.
    bool wake = true;
    EXPECT_EQ(r.prod.send(3, nullptr, 0, &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
    v = r.cons.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->len, 0u);
    EXPECT_EQ(v->type, 3u);
    r.cons.release();
}

TEST(unit_transport_ring, full_by_messages_and_by_bytes)
{
    {
        test_ring r(ring_params{1024, 64, 5}); // 16 lines, at most 5 messages
        bool wake;
        for (uint32_t i = 0; i < 5; ++i)
            ASSERT_EQ(r.prod.send(1, &i, sizeof i, &wake), DOCA_SUCCESS) << i;
        EXPECT_EQ(r.prod.try_claim(1), nullptr);
        EXPECT_TRUE(r.prod.full());
        uint32_t x = 99;
        EXPECT_EQ(r.prod.send(1, &x, sizeof x, &wake), DOCA_ERROR_AGAIN);
        EXPECT_EQ(r.prod.in_flight(), 5u);
        EXPECT_EQ(r.cons.pending(), 5u);
        // Freeing one admits exactly one more message.
        ASSERT_NE(r.cons.peek(), nullptr);
        r.cons.release();
        r.cons.flush();
        EXPECT_FALSE(r.prod.full());
        EXPECT_EQ(r.prod.send(1, &x, sizeof x, &wake), DOCA_SUCCESS);
        EXPECT_EQ(r.prod.try_claim(1), nullptr);
        // Everything comes out in order.
        for (uint32_t i = 1; i < 5; ++i) {
            const record_view *v = r.cons.peek();
            ASSERT_NE(v, nullptr);
            EXPECT_EQ(*static_cast<const uint32_t *>(v->data), i);
            r.cons.release();
        }
        const record_view *v = r.cons.peek();
        ASSERT_NE(v, nullptr);
        EXPECT_EQ(*static_cast<const uint32_t *>(v->data), 99u);
        r.cons.release();
        EXPECT_EQ(r.cons.peek(), nullptr);
    }
    {
        // 4096 bytes, records of 1024 (1008-byte payloads), up to 100 messages: bytes bound it.
        // Three big ones and 16 one-line ones fill it exactly; the next must wait for room.
        test_ring r(ring_params{4096, 1024, 100});
        std::vector<uint8_t> big(1008, 7);
        bool wake;
        for (int i = 0; i < 3; ++i)
            ASSERT_EQ(r.prod.send(1, big.data(), 1008, &wake), DOCA_SUCCESS) << i;
        for (int i = 0; i < 15; ++i)
            ASSERT_EQ(r.prod.send(2, "s", 1, &wake), DOCA_SUCCESS) << i;
        EXPECT_EQ(r.prod.send(1, big.data(), 1008, &wake), DOCA_ERROR_AGAIN);
        ASSERT_EQ(r.prod.send(2, "s", 1, &wake), DOCA_SUCCESS) << "the last line";
        EXPECT_TRUE(r.prod.full());
        // Exactly full: the header after the last record is the oldest record's, which must
        // survive (the zeroing rule skips it). Everything comes out in order.
        for (int i = 0; i < 3; ++i) {
            const record_view *v = r.cons.peek();
            ASSERT_NE(v, nullptr) << i;
            EXPECT_EQ(v->type, 1u);
            EXPECT_EQ(v->len, 1008u);
            r.cons.release();
        }
        for (int i = 0; i < 16; ++i) {
            const record_view *v = r.cons.peek();
            ASSERT_NE(v, nullptr) << i;
            EXPECT_EQ(v->type, 2u);
            r.cons.release();
        }
        EXPECT_EQ(r.cons.peek(), nullptr);
        EXPECT_FALSE(r.cons.corrupted());
    }
    {
        // Padding: three big ones and 8 small ones leave 512 bytes at the end of the lap. A big
        // one needs the padding plus its own 1024 bytes, so it waits until the first big one is
        // released (and the release published), then lands at the start of the next lap.
        test_ring r(ring_params{4096, 1024, 100});
        std::vector<uint8_t> big(1008, 7);
        bool wake;
        for (int i = 0; i < 3; ++i)
            ASSERT_EQ(r.prod.send(1, big.data(), 1008, &wake), DOCA_SUCCESS) << i;
        for (int i = 0; i < 8; ++i)
            ASSERT_EQ(r.prod.send(2, "s", 1, &wake), DOCA_SUCCESS) << i;
        EXPECT_EQ(r.prod.send(1, big.data(), 1008, &wake), DOCA_ERROR_AGAIN)
            << "512 bytes left, in the wrong place";
        EXPECT_FALSE(r.prod.full()) << "a small one still fits";
        ASSERT_NE(r.cons.peek(), nullptr);
        r.cons.release(); // a quarter of the capacity: published at once
        EXPECT_EQ(r.ctrl()->tail.load(), 1024u);
        EXPECT_EQ(r.prod.send(1, big.data(), 1008, &wake), DOCA_SUCCESS);
        for (int i = 0; i < 2; ++i) {
            ASSERT_NE(r.cons.peek(), nullptr);
            r.cons.release();
        }
        for (int i = 0; i < 8; ++i) {
            const record_view *v = r.cons.peek();
            ASSERT_NE(v, nullptr) << i;
            EXPECT_EQ(v->type, 2u);
            r.cons.release();
        }
        const record_view *v = r.cons.peek();
        ASSERT_NE(v, nullptr);
        EXPECT_EQ(v->type, 1u);
        EXPECT_EQ(v->len, 1008u);
        EXPECT_EQ(v->data, r.mem.ptr + k_ring_ctrl_size + 16) << "at the start of the next lap";
        r.cons.release();
        EXPECT_EQ(r.cons.peek(), nullptr);
        EXPECT_FALSE(r.cons.corrupted());
    }
}

TEST(unit_transport_ring, oversize_claim_refused)
{
    test_ring r(4, 100); // record 128, max payload 112
    ASSERT_EQ(r.prod.max_payload(), 112u);
    EXPECT_EQ(r.prod.try_claim(113), nullptr);
    EXPECT_EQ(r.prod.try_claim(UINT32_MAX), nullptr);
    EXPECT_NE(r.prod.try_claim(112), nullptr);
    std::vector<uint8_t> big(113, 1);
    bool wake;
    EXPECT_EQ(r.prod.send(1, big.data(), 113, &wake), DOCA_ERROR_TOO_BIG);
    EXPECT_EQ(r.prod.send(1, big.data(), 112, &wake), DOCA_SUCCESS);
    const record_view *v = r.cons.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->len, 112u);
}

TEST(unit_transport_ring, wraps_across_many_laps)
{
    // Random sizes across many laps: every offset, padding at every lap end, stale payload bytes
    // everywhere (the zeroing rule must keep them from looking like headers). Both bounds bite:
    // 2 KiB of data, at most 6 messages, records of 64..320 bytes.
    test_ring r(ring_params{2048, 320, 6});
    uint64_t sent = 0, recvd = 0, rng = 12345;
    while (recvd < 100000) {
        // Random burst in, random burst out: exercises every fill level and offset.
        const uint32_t nin = uint32_t(xorshift(rng) % 8);
        for (uint32_t i = 0; i < nin; ++i) {
            uint8_t buf[304];
            const uint32_t len = 16 + uint32_t(xorshift(rng) % 289);
            fill_msg(buf, len, sent);
            void *p = r.prod.try_claim(len);
            if (p == nullptr) {
                EXPECT_GT(sent - recvd, 0u);
                break;
            }
            std::memcpy(p, buf, len);
            // flags carry the high bits of seq (checked by check_msg).
            r.prod.commit(uint16_t(sent), len, uint16_t(sent >> 16));
            ++sent;
        }
        const uint32_t nout = uint32_t(xorshift(rng) % 8);
        for (uint32_t i = 0; i < nout; ++i) {
            const record_view *v = r.cons.peek();
            if (v == nullptr) {
                EXPECT_EQ(sent, recvd);
                break;
            }
            ASSERT_TRUE(check_msg(*v, recvd)) << recvd;
            r.cons.release();
            ++recvd;
        }
    }
    EXPECT_FALSE(r.cons.corrupted());
}

TEST(unit_transport_ring, positions_wrap_at_2_pow_64)
{
    // Start both ends just below 2^32 bytes (and, second round, just below 2^64). The data area
    // holds what an earlier lap left there: records at other offsets, payload bytes that look
    // like this lap's marks. Only the header at the start position is free (the zeroing rule).
    for (uint64_t start : {uint64_t(0xffffff00u), ~uint64_t(0) - 1023}) {
        const ring_params p{1024, 128, 8};
        aligned_mem mem(ring_layout::memsize(p.capacity));
        ASSERT_EQ(ring_layout::init(mem.ptr, mem.size, p), DOCA_SUCCESS);
        auto *ctrl = reinterpret_cast<ring_ctrl *>(mem.ptr);
        ctrl->head.store(start);
        ctrl->tail.store(start);
        for (uint32_t off = 0; off < p.capacity; off += 4) {
            const uint32_t stale = record_mark(start + (off & ~63u)); // the marks this lap uses
            std::memcpy(mem.ptr + k_ring_ctrl_size + off, &stale, 4);
        }
        reinterpret_cast<record_header *>(mem.ptr + k_ring_ctrl_size + (start & 1023))
            ->seq.store(0);
        ring_producer prod;
        ring_consumer cons;
        ASSERT_EQ(prod.attach(mem.ptr, mem.size), DOCA_SUCCESS);
        ASSERT_EQ(cons.attach(mem.ptr, mem.size), DOCA_SUCCESS);
        EXPECT_EQ(cons.peek(), nullptr);
        bool wake;
        uint64_t rng = start;
        for (uint64_t i = 0; i < 200; ++i) {
            uint8_t buf[112] = {};
            const uint64_t v = start + i;
            std::memcpy(buf, &v, 8);
            const uint32_t len = 8 + uint32_t(xorshift(rng) % 105);
            ASSERT_EQ(prod.send(1, buf, len, &wake), DOCA_SUCCESS) << i;
            const record_view *sv = cons.peek();
            ASSERT_NE(sv, nullptr) << i;
            EXPECT_EQ(sv->len, len);
            EXPECT_EQ(*static_cast<const uint64_t *>(sv->data), v);
            cons.release();
            EXPECT_EQ(cons.peek(), nullptr) << i;
        }
        EXPECT_FALSE(cons.corrupted());
    }
}

TEST(unit_transport_ring, lazy_tail_publication)
{
    test_ring r(ring_params{4096, 64, 16}); // releases published in batches of 4 messages
    ASSERT_EQ(r.cons.publish_batch(), 4u);
    bool wake;
    for (uint32_t i = 0; i < 16; ++i)
        ASSERT_EQ(r.prod.send(1, &i, sizeof i, &wake), DOCA_SUCCESS);
    ASSERT_TRUE(r.prod.full());
    // Three releases stay private to the consumer...
    for (int i = 0; i < 3; ++i) {
        ASSERT_NE(r.cons.peek(), nullptr);
        r.cons.release();
    }
    EXPECT_EQ(r.ctrl()->released.load(), 0u);
    EXPECT_EQ(r.ctrl()->tail.load(), 0u);
    EXPECT_TRUE(r.prod.full());
    // ...the fourth publishes all four.
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    EXPECT_EQ(r.ctrl()->released.load(), 4u);
    EXPECT_EQ(r.ctrl()->tail.load(), 4u * 64);
    EXPECT_EQ(r.prod.in_flight(), 12u);
    // flush() publishes explicitly.
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    EXPECT_EQ(r.ctrl()->released.load(), 4u);
    r.cons.flush();
    EXPECT_EQ(r.ctrl()->released.load(), 5u);
    // Finding the ring empty publishes everything.
    while (r.cons.peek() != nullptr)
        r.cons.release();
    EXPECT_EQ(r.ctrl()->released.load(), 16u);
    EXPECT_EQ(r.prod.in_flight(), 0u);
    // arm() publishes before it arms (no peek in between).
    ASSERT_EQ(r.prod.send(1, "z", 1, &wake), DOCA_SUCCESS);
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    EXPECT_EQ(r.ctrl()->released.load(), 16u);
    EXPECT_TRUE(r.cons.arm());
    EXPECT_EQ(r.ctrl()->released.load(), 17u);
    // A quarter of the capacity in bytes also publishes, whatever the message count.
    test_ring b(ring_params{4096, 1024, 1000});
    ASSERT_EQ(b.cons.publish_batch(), 250u);
    std::vector<uint8_t> big(1008, 1);
    ASSERT_EQ(b.prod.send(1, big.data(), 1008, &wake), DOCA_SUCCESS);
    ASSERT_NE(b.cons.peek(), nullptr);
    b.cons.release();
    EXPECT_EQ(b.ctrl()->tail.load(), 1024u);
}

// park() is arm() with another value: the producer's commit reports k_armed_bell once (the
// caller rings the consumer's doorbell), a sleeping arm replaces a park, and a park with a
// message waiting is refused and withdrawn.
TEST(unit_transport_ring, park_asks_for_the_bell_once)
{
    test_ring r(4, 64);
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    EXPECT_EQ(r.prod.commit(1, 1), 0u);
    EXPECT_FALSE(r.cons.park()); // a message waits
    EXPECT_FALSE(r.cons.armed());
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    EXPECT_TRUE(r.cons.park());
    EXPECT_TRUE(r.cons.armed());
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    EXPECT_EQ(r.prod.commit(1, 1), k_armed_bell);
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    EXPECT_EQ(r.prod.commit(1, 1), 0u); // one park, one bell
    while (r.cons.peek() != nullptr)
        r.cons.release();
    // A sleeping arm over a park: the next commit wakes instead.
    EXPECT_TRUE(r.cons.park());
    EXPECT_TRUE(r.cons.arm());
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    EXPECT_EQ(r.prod.commit(1, 1), k_armed_wake);
}

TEST(unit_transport_ring, deferred_commit_answers_a_seen_arm_at_once)
{
    test_ring r(4, 64);
    // Not armed: the look finds nothing and leaves `armed` alone; the settle finds nothing.
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    EXPECT_EQ(r.prod.commit_deferred(1, 1), 0u);
    EXPECT_EQ(r.prod.wake_needed(), 0u);
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    // Armed before the commit: answered by the commit itself (one arm, one wake-up), so the
    // settle after it finds nothing.
    EXPECT_TRUE(r.cons.arm());
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    EXPECT_EQ(r.prod.commit_deferred(1, 1), k_armed_wake);
    EXPECT_FALSE(r.cons.armed());
    EXPECT_EQ(r.prod.wake_needed(), 0u);
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    // A park is answered the same way, with its own value.
    EXPECT_TRUE(r.cons.park());
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    EXPECT_EQ(r.prod.commit_deferred(1, 1), k_armed_bell);
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    // Armed after a deferred commit the consumer has drained: the settle is what finds it.
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    EXPECT_EQ(r.prod.commit_deferred(1, 1), 0u);
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    EXPECT_TRUE(r.cons.arm());
    EXPECT_EQ(r.prod.wake_needed(), k_armed_wake);
}

TEST(unit_transport_ring, arm_and_wake)
{
    test_ring r(4, 64);
    bool wake = true;
    // Not armed: commits never ask for a wake-up.
    ASSERT_EQ(r.prod.send(1, "a", 1, &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
    // Armed with a message pending: busy, and the arm is withdrawn.
    EXPECT_FALSE(r.cons.arm());
    EXPECT_FALSE(r.cons.armed());
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    // Armed on an empty ring: the next commit asks for exactly one wake-up.
    EXPECT_TRUE(r.cons.arm());
    EXPECT_TRUE(r.cons.armed());
    ASSERT_EQ(r.prod.send(1, "b", 1, &wake), DOCA_SUCCESS);
    EXPECT_TRUE(wake);
    EXPECT_FALSE(r.cons.armed());
    ASSERT_EQ(r.prod.send(1, "c", 1, &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
    // Disarm withdraws.
    while (r.cons.peek() != nullptr)
        r.cons.release();
    EXPECT_TRUE(r.cons.arm());
    r.cons.disarm();
    ASSERT_EQ(r.prod.send(1, "d", 1, &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
    // publish() + wake_needed() split.
    ASSERT_NE(r.cons.peek(), nullptr);
    r.cons.release();
    ASSERT_EQ(r.cons.peek(), nullptr);
    EXPECT_TRUE(r.cons.arm());
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    r.prod.publish(1, 1);
    ASSERT_NE(r.prod.try_claim(1), nullptr);
    r.prod.publish(1, 1);
    EXPECT_TRUE(r.prod.wake_needed());
    EXPECT_FALSE(r.prod.wake_needed());
}

TEST(unit_transport_ring, arm_sees_a_message_behind_padding)
{
    // The message that matters when arming sits after a padding record: arm() must report busy.
    test_ring r(ring_params{1024, 512, 8});
    std::vector<uint8_t> buf(496, 3);
    bool wake;
    ASSERT_EQ(r.prod.send(1, buf.data(), 300, &wake), DOCA_SUCCESS); // 320 bytes at 0
    ASSERT_EQ(r.prod.send(1, buf.data(), 300, &wake), DOCA_SUCCESS); // 320 bytes at 320
    for (int i = 0; i < 2; ++i) {
        ASSERT_NE(r.cons.peek(), nullptr);
        r.cons.release();
    }
    ASSERT_EQ(r.cons.peek(), nullptr);                               // publishes the tail
    ASSERT_EQ(r.prod.send(1, buf.data(), 496, &wake), DOCA_SUCCESS); // pads 640..1023, then 0
    EXPECT_FALSE(r.cons.arm());
    const record_view *v = r.cons.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->len, 496u);
    EXPECT_EQ(v->data, r.mem.ptr + k_ring_ctrl_size + 16);
}

TEST(unit_transport_ring, corrupt_peer_cannot_break_bounds)
{
    bool wake;
    {
        // A hostile producer rewrites the length beyond the record size: never returned.
        test_ring r(4, 64);
        ASSERT_EQ(r.prod.send(1, "x", 1, &wake), DOCA_SUCCESS);
        r.header(0)->len = 1000;
        EXPECT_EQ(r.cons.peek(), nullptr);
        EXPECT_TRUE(r.cons.corrupted());
        EXPECT_EQ(r.cons.peek(), nullptr); // sticky
    }
    {
        // A length that is legal but would run past the end of the data area.
        test_ring r(ring_params{1024, 512, 8});
        std::vector<uint8_t> buf(300, 1);
        for (int i = 0; i < 3; ++i) {
            ASSERT_EQ(r.prod.send(1, buf.data(), 100, &wake), DOCA_SUCCESS); // 128 each
            ASSERT_NE(r.cons.peek(), nullptr);
            r.cons.release();
        }
        ASSERT_EQ(r.cons.peek(), nullptr);
        // Forge a record at 384... no: at the consumer's position, claiming 496 bytes from 896.
        for (int i = 0; i < 4; ++i) {
            ASSERT_EQ(r.prod.send(1, buf.data(), 100, &wake), DOCA_SUCCESS);
            ASSERT_NE(r.cons.peek(), nullptr);
            r.cons.release();
        }
        ASSERT_EQ(r.cons.peek(), nullptr); // consumer at 896
        record_header *h = r.header(896);
        h->len = 496;
        h->type = 1;
        h->seq.store(record_mark(896));
        EXPECT_EQ(r.cons.peek(), nullptr);
        EXPECT_TRUE(r.cons.corrupted());
    }
    {
        // Padding that does not end exactly at the lap's end, and padding at offset 0.
        test_ring r(ring_params{1024, 128, 8});
        record_header *h = r.header(0);
        h->kind = k_record_padding;
        h->len = 1024 - 16;
        h->seq.store(record_mark(0));
        EXPECT_EQ(r.cons.peek(), nullptr);
        EXPECT_TRUE(r.cons.corrupted());
        test_ring r2(ring_params{1024, 128, 8});
        ASSERT_EQ(r2.prod.send(1, "y", 1, &wake), DOCA_SUCCESS);
        ASSERT_NE(r2.cons.peek(), nullptr);
        r2.cons.release();
        record_header *p = r2.header(64);
        p->kind = k_record_padding;
        p->len = 100;
        p->seq.store(record_mark(64));
        EXPECT_EQ(r2.cons.peek(), nullptr);
        EXPECT_TRUE(r2.cons.corrupted());
    }
    {
        // A hostile consumer publishes positions beyond the producer's: ignored, the producer
        // keeps its (conservative) view and never over-commits.
        test_ring r2(ring_params{1024, 64, 4});
        for (int i = 0; i < 4; ++i)
            ASSERT_EQ(r2.prod.send(1, "y", 1, &wake), DOCA_SUCCESS);
        r2.ctrl()->tail.store(1000 * 64);
        r2.ctrl()->released.store(1000);
        EXPECT_EQ(r2.prod.try_claim(1), nullptr);
        EXPECT_EQ(r2.prod.in_flight(), 4u);
        r2.ctrl()->tail.store(2 * 64);
        r2.ctrl()->released.store(2);
        EXPECT_NE(r2.prod.try_claim(1), nullptr);
        EXPECT_EQ(r2.prod.in_flight(), 2u);
        // pending() clamps a nonsense value.
        r2.ctrl()->committed.store(~uint64_t(0));
        EXPECT_LE(r2.cons.pending(), r2.cons.limit());
    }
    {
        // A consumer position that is not a record boundary: the consumer refuses to read.
        aligned_mem mem(ring_layout::memsize(1024));
        ASSERT_EQ(ring_layout::init(mem.ptr, mem.size, {1024, 64, 4}), DOCA_SUCCESS);
        reinterpret_cast<ring_ctrl *>(mem.ptr)->tail.store(8);
        ring_consumer c;
        ASSERT_EQ(c.attach(mem.ptr, mem.size), DOCA_SUCCESS);
        EXPECT_TRUE(c.corrupted());
        EXPECT_EQ(c.peek(), nullptr);
    }
}

TEST(unit_transport_ring_stress, two_threads_polled)
{
    test_ring r(64, 240); // records up to 256 bytes, 64 in flight
    // Runs for `budget`, but not before `min_msgs` went through (many laps of the ring), so a
    // slow machine (sanitizers, a parallel build) still exercises the wrap-around; `hard_limit`
    // bounds a wedged run below the CTest timeout.
    constexpr auto budget = std::chrono::milliseconds(600);
    constexpr auto hard_limit = std::chrono::seconds(60);
    constexpr uint64_t min_msgs = 20'000;
    constexpr uint64_t max_msgs = 20'000'000;
    std::atomic<uint64_t> total{~uint64_t(0)};
    std::atomic<bool> stop{false};

    std::thread producer([&] {
        const auto start = std::chrono::steady_clock::now();
        uint64_t seq = 0, rng = 777;
        sc_test::backoff wait;
        while (seq < max_msgs) {
            if ((seq & 1023) == 0) {
                const auto now = std::chrono::steady_clock::now();
                if ((seq >= min_msgs && now > start + budget) || now > start + hard_limit)
                    break;
            }
            const uint32_t len = k_msg_hdr + uint32_t(xorshift(rng) % (240 - k_msg_hdr + 1));
            void *p;
            while ((p = r.prod.try_claim(len)) == nullptr && !stop.load())
                wait.pause();
            if (p == nullptr)
                break;
            fill_msg(static_cast<uint8_t *>(p), len, seq);
            r.prod.commit(uint16_t(seq), len, uint16_t(seq >> 16));
            ++seq;
        }
        total.store(seq, std::memory_order_release);
    });

    uint64_t got = 0;
    sc_test::backoff wait;
    bool ok = true;
    for (;;) {
        const record_view *v = r.cons.peek();
        if (v == nullptr) {
            if (got == total.load(std::memory_order_acquire) && !r.cons.ready())
                break;
            wait.pause();
            continue;
        }
        if (!check_msg(*v, got)) {
            ok = false;
            stop.store(true);
            break;
        }
        r.cons.release();
        ++got;
    }
    producer.join();
    EXPECT_TRUE(ok) << "bad message at " << got;
    if (ok) {
        EXPECT_EQ(got, total.load());
    }
    EXPECT_FALSE(r.cons.corrupted());
    EXPECT_GT(got, 10000u);
    std::printf("two_threads_polled: %llu messages\n", static_cast<unsigned long long>(got));
}

namespace {
// The consumer sleeps on an eventfd whenever the ring is empty; the producer sends bursts
// separated by pauses and signals only when its check says so. A lost wake-up shows as a poll()
// timeout with a message ready. `deferred`: each message only looks (commit_deferred) and the
// producer settles once per burst, before its pause, as comch does before it sleeps.
void armed_stress(bool deferred)
{
    test_ring r(16, 64);
    const int efd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    ASSERT_GE(efd, 0);
    constexpr auto budget = std::chrono::milliseconds(500);
    std::atomic<uint64_t> total{~uint64_t(0)};
    std::atomic<uint64_t> wakes{0};
    std::atomic<bool> stop{false};

    std::thread producer([&] {
        const auto end = std::chrono::steady_clock::now() + budget;
        uint64_t seq = 0, rng = 4242;
        sc_test::backoff wait;
        while (std::chrono::steady_clock::now() < end && !stop.load()) {
            const uint32_t burst = 1 + uint32_t(xorshift(rng) % 20);
            for (uint32_t b = 0; b < burst; ++b) {
                uint8_t buf[64];
                fill_msg(buf, 64, seq);
                void *p;
                while ((p = r.prod.try_claim(64)) == nullptr && !stop.load())
                    wait.pause();
                if (p == nullptr)
                    break;
                std::memcpy(p, buf, 64);
                const uint32_t armed =
                    deferred ? r.prod.commit_deferred(uint16_t(seq), 64, uint16_t(seq >> 16))
                             : r.prod.commit(uint16_t(seq), 64, uint16_t(seq >> 16));
                if (armed) {
                    const uint64_t one = 1;
                    ASSERT_EQ(::write(efd, &one, 8), 8);
                    wakes.fetch_add(1, std::memory_order_relaxed);
                }
                ++seq;
            }
            if (deferred && r.prod.wake_needed()) {
                const uint64_t one = 1;
                ASSERT_EQ(::write(efd, &one, 8), 8);
                wakes.fetch_add(1, std::memory_order_relaxed);
            }
            // Pause of random length: sometimes the consumer is still polling, sometimes asleep.
            const uint32_t pause = uint32_t(xorshift(rng) % 4000);
            for (uint32_t i = 0; i < pause; ++i)
                asm volatile("" ::: "memory");
            if (xorshift(rng) % 8 == 0)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        total.store(seq, std::memory_order_release);
        // Final wake in case the consumer sleeps: the end marker is `total`, not a message.
        const uint64_t one = 1;
        ASSERT_EQ(::write(efd, &one, 8), 8);
    });

    uint64_t got = 0, sleeps = 0;
    bool ok = true, lost = false;
    for (;;) {
        const record_view *v = r.cons.peek();
        if (v != nullptr) {
            if (!check_msg(*v, got)) {
                ok = false;
                stop.store(true);
                break;
            }
            r.cons.release();
            ++got;
            continue;
        }
        if (got == total.load(std::memory_order_acquire))
            break;
        if (!r.cons.arm())
            continue; // busy: a message arrived meanwhile
        ++sleeps;
        pollfd pfd{efd, POLLIN, 0};
        const int n = ::poll(&pfd, 1, 2000);
        if (n == 0 && r.cons.ready()) {
            lost = true;
            stop.store(true);
            break;
        }
        uint64_t cnt;
        (void)!::read(efd, &cnt, 8);
        r.cons.disarm();
    }
    producer.join();
    ::close(efd);
    EXPECT_FALSE(lost) << "lost wake-up after " << got << " messages";
    EXPECT_TRUE(ok) << "bad message at " << got;
    if (ok && !lost) {
        EXPECT_EQ(got, total.load());
    }
    EXPECT_GT(sleeps, 10u);
    std::printf("two_threads_armed%s: %llu messages, %llu sleeps, %llu wakes\n",
                deferred ? " (deferred checks)" : "", static_cast<unsigned long long>(got),
                static_cast<unsigned long long>(sleeps),
                static_cast<unsigned long long>(wakes.load()));
}
} // namespace

TEST(unit_transport_ring_stress, two_threads_armed_no_lost_wakeup)
{
    armed_stress(false);
}

TEST(unit_transport_ring_stress, two_threads_deferred_checks_no_lost_wakeup)
{
    armed_stress(true);
}
