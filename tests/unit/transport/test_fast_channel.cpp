// SPDX-License-Identifier: Apache-2.0
//
// Fast-path channel: single-thread semantics (post/claim/complete FIFO, peek_capacity, too-big,
// full/empty, expiry and revoke, arm/wake, immediate data), header validation against
// corruption, hostile run-time words, memfd create/attach, and a multi-thread stress (one
// consumer, four producer threads) with a sequence number and a checksum on every payload, in
// polled and armed (eventfd) modes.
#include "transport/shm/fast_channel.hpp"

#include "backoff.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using namespace softcomch::transport::shm;

namespace {

// Page-aligned zeroed memory.
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

// A channel in private memory with both ends bound.
struct test_channel {
    explicit test_channel(uint32_t tasks, uint32_t imm = 0) : mem(fast_channel::size_for(tasks))
    {
        fast_channel_params p;
        p.num_tasks = tasks;
        p.imm_data_len = imm;
        p.consumer_id = 7;
        EXPECT_EQ(fast_channel::init(mem.ptr, mem.size, p), DOCA_SUCCESS);
        EXPECT_EQ(cons.attach(mem.ptr, mem.size), DOCA_SUCCESS);
        EXPECT_EQ(prod.attach(mem.ptr, mem.size), DOCA_SUCCESS);
    }
    fast_channel_ctrl *ctrl() { return reinterpret_cast<fast_channel_ctrl *>(mem.ptr); }
    post_slot *post(uint32_t i)
    {
        return reinterpret_cast<post_slot *>(mem.ptr + k_fast_ctrl_size + uint64_t(i) * 32);
    }
    comp_slot *comp(uint32_t i)
    {
        fast_channel_layout lay;
        EXPECT_EQ(fast_channel::validate_header(mem.ptr, mem.size, &lay), DOCA_SUCCESS);
        return reinterpret_cast<comp_slot *>(mem.ptr + lay.comp_offset + uint64_t(i) * 64);
    }
    aligned_mem mem;
    fast_consumer cons;
    fast_producer prod;
};

fast_completion make_comp(uint32_t task, uint64_t len, uint32_t producer = 3)
{
    fast_completion c;
    c.task = task;
    c.len = len;
    c.producer_id = producer;
    return c;
}

uint32_t fnv32(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

} // namespace

TEST(unit_transport_fast_channel, sizing)
{
    EXPECT_EQ(fast_channel::capacity_for(0), 0u);
    EXPECT_EQ(fast_channel::capacity_for(1), 2u); // never below 2 (sequence protocol)
    EXPECT_EQ(fast_channel::capacity_for(2), 2u);
    EXPECT_EQ(fast_channel::capacity_for(10), 16u);
    EXPECT_EQ(fast_channel::capacity_for(k_fast_max_capacity), k_fast_max_capacity);
    EXPECT_EQ(fast_channel::capacity_for(k_fast_max_capacity + 1), 0u);
    // 640 + 16 * 32 = 1152 -> completion queue at 1152, + 16 * 64 = 2176 -> one page.
    EXPECT_EQ(fast_channel::size_for(10), 4096u);
    // 640 + 8192 * 32 = 262784 (128-aligned) + 8192 * 64 = 787072 -> 192 pages.
    EXPECT_EQ(fast_channel::size_for(8192), 786432u + 4096u);
    EXPECT_EQ(fast_channel::size_for(0), 0u);
    fast_channel_layout lay;
    test_channel t(10, 16);
    ASSERT_EQ(fast_channel::validate_header(t.mem.ptr, t.mem.size, &lay), DOCA_SUCCESS);
    EXPECT_EQ(lay.capacity, 16u);
    EXPECT_EQ(lay.num_tasks, 10u);
    EXPECT_EQ(lay.post_offset, 640u);
    EXPECT_EQ(lay.comp_offset, 1152u);
    EXPECT_EQ(lay.imm_data_len, 16u);
    EXPECT_EQ(lay.consumer_id, 7u);
    EXPECT_EQ(lay.creator_pid, uint32_t(getpid()));
}

TEST(unit_transport_fast_channel, post_claim_complete_fifo)
{
    test_channel t(4);
    post_entry e;
    uint64_t cap = 0;
    // Empty: nothing to claim, nothing to peek.
    EXPECT_EQ(t.prod.try_claim(0, &e), DOCA_ERROR_AGAIN);
    EXPECT_FALSE(t.prod.peek_capacity(&cap));
    EXPECT_EQ(t.cons.peek(), nullptr);
    EXPECT_FALSE(t.cons.ready());

    ASSERT_EQ(t.cons.post(2, 0x1000, 100), DOCA_SUCCESS);
    ASSERT_EQ(t.cons.post(0, 0x2000, 200), DOCA_SUCCESS);
    ASSERT_EQ(t.cons.post(3, 0x3000, 300), DOCA_SUCCESS);
    EXPECT_EQ(t.cons.outstanding(), 3u);
    // peek_capacity looks at the oldest entry without consuming it.
    ASSERT_TRUE(t.prod.peek_capacity(&cap));
    EXPECT_EQ(cap, 100u);
    ASSERT_TRUE(t.prod.peek_capacity(&cap));
    EXPECT_EQ(cap, 100u);
    // Claims in post order.
    ASSERT_TRUE(t.prod.claim(&e));
    EXPECT_EQ(e.task, 2u);
    EXPECT_EQ(e.addr, 0x1000u);
    EXPECT_EQ(e.capacity, 100u);
    ASSERT_TRUE(t.prod.claim(&e));
    EXPECT_EQ(e.task, 0u);
    ASSERT_TRUE(t.prod.peek_capacity(&cap));
    EXPECT_EQ(cap, 300u);

    // Completions in completion order (not post order), with all fields.
    bool wake = true;
    fast_completion c = make_comp(0, 150, 9);
    c.status = DOCA_ERROR_IO_FAILED;
    ASSERT_EQ(t.prod.complete(c, &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
    ASSERT_EQ(t.prod.complete(make_comp(2, 100), &wake), DOCA_SUCCESS);
    ASSERT_TRUE(t.cons.ready());
    const fast_completion *v = t.cons.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->task, 0u);
    EXPECT_EQ(v->len, 150u);
    EXPECT_EQ(v->status, uint32_t(DOCA_ERROR_IO_FAILED));
    EXPECT_EQ(v->producer_id, 9u);
    EXPECT_EQ(t.cons.peek(), v); // same until release
    // The task is still outstanding until release: reposting it is refused.
    EXPECT_EQ(t.cons.post(0, 0x2000, 200), DOCA_ERROR_INVALID_VALUE);
    t.cons.release();
    EXPECT_EQ(t.cons.post(0, 0x2000, 200), DOCA_SUCCESS);
    v = t.cons.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->task, 2u);
    t.cons.release();
    EXPECT_EQ(t.cons.peek(), nullptr);
    EXPECT_EQ(t.cons.outstanding(), 2u); // 3 and the reposted 0
    // The remaining entries, still FIFO: 3 then 0.
    ASSERT_TRUE(t.prod.claim(&e));
    EXPECT_EQ(e.task, 3u);
    ASSERT_TRUE(t.prod.claim(&e));
    EXPECT_EQ(e.task, 0u);
    EXPECT_FALSE(t.prod.claim(&e));
}

TEST(unit_transport_fast_channel, too_big_does_not_consume)
{
    test_channel t(2);
    ASSERT_EQ(t.cons.post(0, 0x1000, 64), DOCA_SUCCESS);
    post_entry e;
    EXPECT_EQ(t.prod.try_claim(65, &e), DOCA_ERROR_TOO_BIG);
    EXPECT_EQ(t.prod.try_claim(1u << 30, &e), DOCA_ERROR_TOO_BIG);
    // Still there for a message that fits, exactly at capacity.
    ASSERT_EQ(t.prod.try_claim(64, &e), DOCA_SUCCESS);
    EXPECT_EQ(e.task, 0u);
    EXPECT_EQ(t.prod.try_claim(1, &e), DOCA_ERROR_AGAIN);
}

TEST(unit_transport_fast_channel, full_empty_and_laps)
{
    // 5 tasks -> 8 slots; many laps through both queues with every task in flight.
    test_channel t(5);
    EXPECT_EQ(t.cons.capacity(), 8u);
    EXPECT_EQ(t.cons.post(5, 0, 1), DOCA_ERROR_INVALID_VALUE); // task out of range
    for (uint32_t i = 0; i < 5; ++i)
        ASSERT_EQ(t.cons.post(i, 0x1000 * (i + 1), 4096), DOCA_SUCCESS);
    // Every task outstanding: no sixth post possible, whatever the slot count.
    for (uint32_t i = 0; i < 5; ++i)
        EXPECT_EQ(t.cons.post(i, 0, 1), DOCA_ERROR_INVALID_VALUE);
    uint32_t expect_task = 0;
    for (uint32_t round = 0; round < 1000; ++round) {
        post_entry e;
        ASSERT_TRUE(t.prod.claim(&e));
        ASSERT_EQ(e.task, expect_task);
        ASSERT_EQ(e.addr, 0x1000u * (e.task + 1));
        bool wake;
        ASSERT_EQ(t.prod.complete(make_comp(e.task, round % 4097), &wake), DOCA_SUCCESS);
        const fast_completion *v = t.cons.peek();
        ASSERT_NE(v, nullptr);
        ASSERT_EQ(v->task, e.task);
        ASSERT_EQ(v->len, round % 4097);
        const uint32_t task = v->task;
        t.cons.release();
        ASSERT_EQ(t.cons.post(task, 0x1000 * (task + 1), 4096), DOCA_SUCCESS);
        expect_task = (expect_task + 1) % 5;
    }
    EXPECT_EQ(t.cons.outstanding(), 5u);
    EXPECT_FALSE(t.cons.corrupted());
}

TEST(unit_transport_fast_channel, single_task_two_slots)
{
    // One task: capacity 2 keeps "posted" and "free for the next lap" apart.
    test_channel t(1);
    EXPECT_EQ(t.cons.capacity(), 2u);
    for (uint32_t i = 0; i < 100; ++i) {
        ASSERT_EQ(t.cons.post(0, 0x1000, 10), DOCA_SUCCESS);
        post_entry e;
        ASSERT_TRUE(t.prod.claim(&e));
        EXPECT_FALSE(t.prod.claim(&e)); // handed back, but not posted again
        bool wake;
        ASSERT_EQ(t.prod.complete(make_comp(0, i % 11), &wake), DOCA_SUCCESS);
        ASSERT_NE(t.cons.peek(), nullptr);
        t.cons.release();
        EXPECT_EQ(t.cons.peek(), nullptr);
    }
}

TEST(unit_transport_fast_channel, post_waits_for_slow_claimer)
{
    // A claimer that won a position but has not handed the slot back yet (descheduled between
    // its CAS and R22) makes the post of the next lap at that slot report AGAIN, not overwrite.
    test_channel t(2);
    ASSERT_EQ(t.cons.post(0, 0x1000, 10), DOCA_SUCCESS); // pos 0, slot 0
    ASSERT_EQ(t.cons.post(1, 0x2000, 10), DOCA_SUCCESS); // pos 1, slot 1
    // "Slow claimer" of position 0: wins the CAS, does not hand back.
    uint64_t p = 0;
    ASSERT_TRUE(t.ctrl()->claim_pos.compare_exchange_strong(p, 1));
    // Its completion arrives anyway (the test plays the producer), task 0 is reposted: slot 0
    // for position 2 is not free yet.
    bool wake;
    ASSERT_EQ(t.prod.complete(make_comp(0, 1), &wake), DOCA_SUCCESS);
    ASSERT_NE(t.cons.peek(), nullptr);
    t.cons.release();
    EXPECT_EQ(t.cons.post(0, 0x1000, 10), DOCA_ERROR_AGAIN);
    // The claimer hands back: the post goes through.
    t.post(0)->seq.store(0 + 2);
    EXPECT_EQ(t.cons.post(0, 0x1000, 10), DOCA_SUCCESS);
    post_entry e;
    ASSERT_TRUE(t.prod.claim(&e));
    EXPECT_EQ(e.task, 1u);
    ASSERT_TRUE(t.prod.claim(&e));
    EXPECT_EQ(e.task, 0u);
}

TEST(unit_transport_fast_channel, expire_and_revoke)
{
    test_channel t(4);
    for (uint32_t i = 0; i < 4; ++i)
        ASSERT_EQ(t.cons.post(i, 0x1000 * i, 10), DOCA_SUCCESS);
    post_entry claimed;
    ASSERT_TRUE(t.prod.claim(&claimed)); // task 0 is being copied by a producer
    EXPECT_FALSE(t.prod.expired());
    t.cons.expire();
    EXPECT_TRUE(t.cons.expired());
    EXPECT_TRUE(t.prod.expired());
    post_entry e;
    uint64_t cap;
    EXPECT_EQ(t.prod.try_claim(0, &e), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_FALSE(t.prod.peek_capacity(&cap));
    EXPECT_EQ(t.cons.post(0, 0, 1), DOCA_ERROR_BAD_STATE);
    // The consumer takes back the unclaimed ones, FIFO.
    for (uint32_t i = 1; i < 4; ++i) {
        ASSERT_TRUE(t.cons.revoke(&e));
        EXPECT_EQ(e.task, i);
        EXPECT_EQ(e.addr, 0x1000u * i);
    }
    EXPECT_FALSE(t.cons.revoke(&e));
    // The claimed one is still outstanding until its producer completes it.
    EXPECT_EQ(t.cons.outstanding(), 1u);
    bool wake;
    ASSERT_EQ(t.prod.complete(make_comp(claimed.task, 10), &wake), DOCA_SUCCESS);
    const fast_completion *v = t.cons.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->task, 0u);
    t.cons.release();
    EXPECT_EQ(t.cons.outstanding(), 0u);
    EXPECT_FALSE(t.cons.corrupted());
}

TEST(unit_transport_fast_channel, arm_and_wake)
{
    test_channel t(4);
    bool wake = false;
    // Empty: armed.
    ASSERT_TRUE(t.cons.arm());
    EXPECT_TRUE(t.cons.armed());
    ASSERT_EQ(t.cons.post(0, 0x1000, 10), DOCA_SUCCESS);
    ASSERT_EQ(t.cons.post(1, 0x2000, 10), DOCA_SUCCESS);
    post_entry e;
    ASSERT_TRUE(t.prod.claim(&e));
    // The first completion consumes the arm and asks for a wake-up; the next one does not.
    ASSERT_EQ(t.prod.complete(make_comp(e.task, 1), &wake), DOCA_SUCCESS);
    EXPECT_TRUE(wake);
    EXPECT_FALSE(t.cons.armed());
    ASSERT_TRUE(t.prod.claim(&e));
    ASSERT_EQ(t.prod.complete(make_comp(e.task, 1), &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
    // Pending completion: arm refuses and withdraws.
    EXPECT_FALSE(t.cons.arm());
    EXPECT_FALSE(t.cons.armed());
    ASSERT_NE(t.cons.peek(), nullptr);
    EXPECT_FALSE(t.cons.arm()); // a peeked, unreleased completion counts as pending
    t.cons.release();
    ASSERT_NE(t.cons.peek(), nullptr);
    t.cons.release();
    // Empty again: arm, then disarm without any completion.
    ASSERT_TRUE(t.cons.arm());
    t.cons.disarm();
    EXPECT_FALSE(t.cons.armed());
    ASSERT_EQ(t.cons.post(0, 0x1000, 10), DOCA_SUCCESS);
    ASSERT_TRUE(t.prod.claim(&e));
    ASSERT_EQ(t.prod.complete(make_comp(e.task, 1), &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
}

TEST(unit_transport_fast_channel, deferred_completion_answers_a_seen_arm_at_once)
{
    test_channel t(4);
    bool wake = true;
    post_entry e;
    // Not armed: the look finds nothing, the settle finds nothing.
    ASSERT_EQ(t.cons.post(0, 0x1000, 10), DOCA_SUCCESS);
    ASSERT_TRUE(t.prod.claim(&e));
    ASSERT_EQ(t.prod.complete_deferred(make_comp(e.task, 1), &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
    EXPECT_FALSE(t.prod.wake_needed());
    ASSERT_NE(t.cons.peek(), nullptr);
    t.cons.release();
    // Armed before: answered by the completion itself (one arm, one wake-up).
    ASSERT_TRUE(t.cons.arm());
    ASSERT_EQ(t.cons.post(1, 0x2000, 10), DOCA_SUCCESS);
    ASSERT_TRUE(t.prod.claim(&e));
    ASSERT_EQ(t.prod.complete_deferred(make_comp(e.task, 1), &wake), DOCA_SUCCESS);
    EXPECT_TRUE(wake);
    EXPECT_FALSE(t.cons.armed());
    EXPECT_FALSE(t.prod.wake_needed());
    ASSERT_NE(t.cons.peek(), nullptr);
    t.cons.release();
    // Armed after a deferred completion the consumer has taken: the settle finds it.
    ASSERT_EQ(t.cons.post(2, 0x3000, 10), DOCA_SUCCESS);
    ASSERT_TRUE(t.prod.claim(&e));
    ASSERT_EQ(t.prod.complete_deferred(make_comp(e.task, 1), &wake), DOCA_SUCCESS);
    EXPECT_FALSE(wake);
    ASSERT_NE(t.cons.peek(), nullptr);
    t.cons.release();
    ASSERT_TRUE(t.cons.arm());
    EXPECT_TRUE(t.prod.wake_needed());
    EXPECT_FALSE(t.cons.armed());
}

TEST(unit_transport_fast_channel, immediate_data)
{
    test_channel t(2, 8);
    EXPECT_EQ(t.prod.imm_data_len(), 8u);
    ASSERT_EQ(t.cons.post(0, 0x1000, 10), DOCA_SUCCESS);
    post_entry e;
    ASSERT_TRUE(t.prod.claim(&e));
    fast_completion c = make_comp(0, 0);
    c.imm_len = 9; // more than the consumer accepts
    bool wake;
    EXPECT_EQ(t.prod.complete(c, &wake), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(t.cons.peek(), nullptr); // nothing was written
    c.imm_len = 8;
    for (uint32_t i = 0; i < 8; ++i)
        c.imm[i] = uint8_t(0xa0 + i);
    ASSERT_EQ(t.prod.complete(c, &wake), DOCA_SUCCESS);
    const fast_completion *v = t.cons.peek();
    ASSERT_NE(v, nullptr);
    ASSERT_EQ(v->imm_len, 8u);
    for (uint32_t i = 0; i < 8; ++i)
        EXPECT_EQ(v->imm[i], uint8_t(0xa0 + i));
    t.cons.release();
}

TEST(unit_transport_fast_channel, hostile_completions_mark_corrupted)
{
    // A completion for a task that was never posted.
    {
        test_channel t(4);
        bool wake;
        ASSERT_EQ(t.prod.complete(make_comp(1, 0), &wake), DOCA_SUCCESS);
        EXPECT_EQ(t.cons.peek(), nullptr);
        EXPECT_TRUE(t.cons.corrupted());
        EXPECT_EQ(t.cons.peek(), nullptr); // stays dead
    }
    // More bytes than the posted buffer holds.
    {
        test_channel t(4);
        ASSERT_EQ(t.cons.post(0, 0x1000, 100), DOCA_SUCCESS);
        bool wake;
        ASSERT_EQ(t.prod.complete(make_comp(0, 101), &wake), DOCA_SUCCESS);
        EXPECT_EQ(t.cons.peek(), nullptr);
        EXPECT_TRUE(t.cons.corrupted());
    }
    // Task index out of range, and an immediate length above the configured one written
    // straight into shared memory.
    {
        test_channel t(4, 4);
        ASSERT_EQ(t.cons.post(0, 0x1000, 100), DOCA_SUCCESS);
        comp_slot *s = t.comp(0);
        s->task = 0;
        s->len = 1;
        s->imm_len = 5;
        s->seq.store(1);
        EXPECT_EQ(t.cons.peek(), nullptr);
        EXPECT_TRUE(t.cons.corrupted());
    }
    {
        test_channel t(4);
        comp_slot *s = t.comp(0);
        s->task = 1u << 31;
        s->seq.store(1);
        EXPECT_EQ(t.cons.peek(), nullptr);
        EXPECT_TRUE(t.cons.corrupted());
    }
    // The same task completed twice.
    {
        test_channel t(4);
        ASSERT_EQ(t.cons.post(0, 0x1000, 100), DOCA_SUCCESS);
        bool wake;
        ASSERT_EQ(t.prod.complete(make_comp(0, 1), &wake), DOCA_SUCCESS);
        ASSERT_EQ(t.prod.complete(make_comp(0, 1), &wake), DOCA_SUCCESS);
        ASSERT_NE(t.cons.peek(), nullptr);
        t.cons.release();
        EXPECT_EQ(t.cons.peek(), nullptr);
        EXPECT_TRUE(t.cons.corrupted());
    }
}

TEST(unit_transport_fast_channel, hostile_sequence_words_never_hang)
{
    test_channel t(4);
    // Post-queue sequence far ahead of claim_pos: claims report empty instead of spinning.
    t.post(0)->seq.store(12345);
    post_entry e;
    uint64_t cap;
    EXPECT_EQ(t.prod.try_claim(0, &e), DOCA_ERROR_AGAIN);
    EXPECT_FALSE(t.prod.peek_capacity(&cap));
    // The consumer's own post sees a slot that is not free.
    EXPECT_EQ(t.cons.post(0, 0x1000, 1), DOCA_ERROR_AGAIN);
    EXPECT_FALSE(t.cons.revoke(&e));
    // Completion-queue sequence far ahead / behind: complete reports AGAIN, writes nothing.
    bool wake;
    t.comp(0)->seq.store(999);
    EXPECT_EQ(t.prod.complete(make_comp(0, 0), &wake), DOCA_ERROR_AGAIN);
    t.comp(0)->seq.store(uint64_t(0) - 4);
    EXPECT_EQ(t.prod.complete(make_comp(0, 0), &wake), DOCA_ERROR_AGAIN);
    EXPECT_EQ(t.cons.peek(), nullptr);
    // Garbage positions: every access stays inside the queues (masked), nothing hangs.
    t.ctrl()->claim_pos.store(~uint64_t(0) - 1);
    t.ctrl()->comp_head.store(uint64_t(1) << 62);
    EXPECT_EQ(t.prod.try_claim(0, &e), DOCA_ERROR_AGAIN);
    EXPECT_EQ(t.prod.complete(make_comp(0, 0), &wake), DOCA_ERROR_AGAIN);
    // A state word with an unknown value counts as expired.
    t.ctrl()->state.store(77);
    EXPECT_TRUE(t.prod.expired());
    EXPECT_EQ(t.prod.try_claim(0, &e), DOCA_ERROR_NOT_CONNECTED);
}

TEST(unit_transport_fast_channel, header_validation_rejects_corruption)
{
    test_channel t(10, 32);
    uint8_t *img = t.mem.ptr;
    const uint64_t n = t.mem.size;
    ASSERT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_SUCCESS);
    // Wrong lengths, null, misalignment.
    EXPECT_EQ(fast_channel::validate_header(img, n - 4096 + 64, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(fast_channel::validate_header(img, n + 4096, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(fast_channel::validate_header(nullptr, n, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(fast_channel::validate_header(img + 64, n - 64, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(fast_channel::validate_header(img, 100, nullptr), DOCA_ERROR_INVALID_VALUE);
    // Version: 0 = not published yet, anything else = another layout.
    auto *ctrl = t.ctrl();
    ctrl->layout_version.store(0);
    EXPECT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_ERROR_AGAIN);
    for (uint32_t other : {1u, 3u}) { // 1: the layout before the `accepted` word
        ctrl->layout_version.store(other);
        EXPECT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_ERROR_UNSUPPORTED_VERSION)
            << other;
    }
    ctrl->layout_version.store(k_fast_layout_version);
    // Every single bit flip in the immutable 128 bytes is caught, except in the version word
    // (above), the free-form fields (consumer_id at 16 + 44, creator_pid at 16 + 48) and the
    // two fields with a legal range (num_tasks at 16 + 12: any value whose capacity is still 16;
    // imm_data_len at 16 + 40: 0..32), which are checked at their limits below.
    for (uint32_t off = 0; off < 128; ++off) {
        if (off >= 8 && off < 12)
            continue;
        if ((off >= 16 + 44 && off < 16 + 52) || (off >= 16 + 12 && off < 16 + 16) ||
            (off >= 16 + 40 && off < 16 + 44))
            continue;
        for (uint32_t bit = 0; bit < 8; ++bit) {
            img[off] ^= uint8_t(1u << bit);
            EXPECT_NE(fast_channel::validate_header(img, n, nullptr), DOCA_SUCCESS)
                << "byte " << off << " bit " << bit;
            fast_consumer c;
            fast_producer p;
            EXPECT_NE(c.attach(img, n), DOCA_SUCCESS);
            EXPECT_NE(p.attach(img, n), DOCA_SUCCESS);
            img[off] ^= uint8_t(1u << bit);
        }
    }
    ASSERT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_SUCCESS);
    // A consistent-looking header whose capacity does not match num_tasks (oversized queues
    // would void the "never full" argument).
    fast_channel_config *cfg = &ctrl->config;
    cfg->capacity = 32;
    EXPECT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_ERROR_INVALID_VALUE);
    cfg->capacity = 16;
    // Range fields at and beyond their limits.
    for (uint32_t tasks : {9u, 16u}) {
        cfg->num_tasks = tasks;
        EXPECT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_SUCCESS);
    }
    for (uint32_t tasks : {0u, 8u, 17u, 1u << 31}) {
        cfg->num_tasks = tasks;
        EXPECT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_ERROR_INVALID_VALUE);
    }
    cfg->num_tasks = 10;
    cfg->imm_data_len = 0;
    EXPECT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_SUCCESS);
    cfg->imm_data_len = 33;
    EXPECT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_ERROR_INVALID_VALUE);
    cfg->imm_data_len = 32;
    // Random garbage images never crash and never validate.
    uint64_t s = 0x9e3779b97f4a7c15ull;
    std::vector<uint8_t> saved(img, img + 128);
    for (int i = 0; i < 20000; ++i) {
        for (uint32_t j = 0; j < 128; j += 8) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            std::memcpy(img + j, &s, 8);
        }
        if (i % 2 == 0)
            std::memcpy(img, &k_fast_magic, 8); // get past the magic check half the time
        if (i % 4 == 0)
            ctrl->layout_version.store(k_fast_layout_version);
        EXPECT_NE(fast_channel::validate_header(img, n, nullptr), DOCA_SUCCESS);
    }
    std::memcpy(img, saved.data(), 128);
    EXPECT_EQ(fast_channel::validate_header(img, n, nullptr), DOCA_SUCCESS);
}

TEST(unit_transport_fast_channel, memfd_create_and_attach)
{
    fast_channel_params p;
    p.num_tasks = 16;
    p.imm_data_len = 32;
    fast_channel cons_side;
    ASSERT_EQ(fast_channel::create(p, cons_side), DOCA_SUCCESS);
    ASSERT_GE(cons_side.fd(), 0);
    EXPECT_EQ(cons_side.size(), fast_channel::size_for(16));
    // Wrong sizes and bad fds are refused.
    fast_channel prod_side;
    EXPECT_EQ(fast_channel::attach(cons_side.fd(), cons_side.size() + 4096, prod_side),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(fast_channel::attach(-1, cons_side.size(), prod_side), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(fast_channel::attach(cons_side.fd(), 100, prod_side), DOCA_ERROR_INVALID_VALUE);
    // The size is sealed: the peer cannot shrink it.
    EXPECT_NE(ftruncate(cons_side.fd(), 0), 0);
    ASSERT_EQ(fast_channel::attach(cons_side.fd(), cons_side.size(), prod_side), DOCA_SUCCESS);
    EXPECT_LT(prod_side.fd(), 0); // no fd kept on the attach side
    EXPECT_NE(prod_side.base(), cons_side.base());
    auto *ctrl = static_cast<fast_channel_ctrl *>(cons_side.base());
    EXPECT_EQ(ctrl->producer_pid.load(), uint32_t(getpid()));

    // Two distinct mappings of one file: a full round trip.
    fast_consumer c;
    fast_producer pr;
    ASSERT_EQ(c.attach(cons_side), DOCA_SUCCESS);
    ASSERT_EQ(pr.attach(prod_side), DOCA_SUCCESS);
    ASSERT_EQ(c.post(5, 0xabc000, 4096), DOCA_SUCCESS);
    post_entry e;
    ASSERT_TRUE(pr.claim(&e));
    EXPECT_EQ(e.task, 5u);
    EXPECT_EQ(e.addr, 0xabc000u);
    bool wake;
    ASSERT_EQ(pr.complete(make_comp(5, 4096), &wake), DOCA_SUCCESS);
    const fast_completion *v = c.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->len, 4096u);
    c.release();

    // A file that is not a channel is refused.
    fast_channel bogus;
    int fd = memfd_create("not-a-channel", MFD_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, 4096), 0);
    EXPECT_EQ(fast_channel::attach(fd, 4096, bogus), DOCA_ERROR_INVALID_VALUE);
    close(fd);
    EXPECT_FALSE(bogus.valid());
}

// ---- multi-thread stress --------------------------------------------------------------------

namespace {

constexpr uint32_t k_stress_tasks = 16;
constexpr uint32_t k_stress_buf = 4096;
constexpr uint32_t k_stress_producers = 4;

// Payload: [u32 producer][u32 len][u64 seq][u32 checksum of the rest][u32 pad][bytes...]
uint32_t fill_payload(uint8_t *p, uint32_t producer, uint64_t seq, uint64_t &rng)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    const uint32_t len = 24 + uint32_t(rng % (k_stress_buf - 24 + 1));
    for (uint32_t i = 24; i < len; ++i)
        p[i] = uint8_t(seq * 7 + i * 13 + producer);
    const uint32_t sum = fnv32(p + 24, len - 24);
    std::memcpy(p, &producer, 4);
    std::memcpy(p + 4, &len, 4);
    std::memcpy(p + 8, &seq, 8);
    std::memcpy(p + 16, &sum, 4);
    std::memset(p + 20, 0, 4);
    return len;
}

struct stress_result {
    uint64_t received = 0;
    uint64_t errors = 0;
    uint64_t wakeups = 0;
    uint64_t timeouts = 0;
};

// One consumer thread and k_stress_producers producer threads for `seconds`. Producers claim,
// copy a payload into the claimed buffer (in-process: the address is directly usable), and
// complete; the consumer checks producer id, per-producer sequence, length and checksum, then
// reposts. `armed`: the consumer sleeps on an eventfd whenever it finds nothing. `deferred`:
// producers only look at the arm (complete_deferred) and settle (wake_needed) before they pause,
// as comch's producer does at its next poll.
stress_result run_stress(bool armed, double seconds, bool deferred = false)
{
    test_channel t(k_stress_tasks, 16);
    std::vector<uint8_t> bufs(size_t(k_stress_tasks) * k_stress_buf);
    const int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> sent_total{0};
    stress_result res;

    for (uint32_t i = 0; i < k_stress_tasks; ++i)
        EXPECT_EQ(t.cons.post(i, reinterpret_cast<uint64_t>(&bufs[size_t(i) * k_stress_buf]),
                              k_stress_buf),
                  DOCA_SUCCESS);

    std::vector<std::thread> producers;
    for (uint32_t id = 1; id <= k_stress_producers; ++id) {
        producers.emplace_back([&, id] {
            uint64_t rng = 0x1234567ull * id;
            uint64_t seq = 0;
            const fast_producer &prod = t.prod; // shared, const: the thread-safe API
            sc_test::backoff idle;
            while (!stop.load(std::memory_order_relaxed)) {
                post_entry e;
                const doca_error_t err = prod.try_claim(24, &e);
                if (err != DOCA_SUCCESS) {
                    if (deferred && prod.wake_needed()) {
                        const uint64_t one = 1;
                        (void)!write(efd, &one, 8);
                    }
                    idle.pause();
                    continue;
                }
                idle.reset();
                auto *dst = reinterpret_cast<uint8_t *>(e.addr);
                const uint32_t len = fill_payload(dst, id, seq++, rng);
                fast_completion c;
                c.task = e.task;
                c.len = len;
                c.producer_id = id;
                c.imm_len = 8;
                std::memcpy(c.imm, &seq, 8);
                bool wake = false;
                while ((deferred ? prod.complete_deferred(c, &wake) : prod.complete(c, &wake)) !=
                       DOCA_SUCCESS)
                    idle.pause(); // cannot happen; keep the completion if it did
                if (deferred && !wake && rng % 8 == 0)
                    wake = prod.wake_needed(); // settles at random points of a burst too
                if (wake) {
                    const uint64_t one = 1;
                    (void)!write(efd, &one, 8);
                }
                sent_total.fetch_add(1, std::memory_order_relaxed);
            }
            if (deferred && prod.wake_needed()) {
                const uint64_t one = 1;
                (void)!write(efd, &one, 8);
            }
        });
    }

    std::thread consumer([&] {
        uint64_t next_seq[k_stress_producers + 1] = {};
        const auto end =
            std::chrono::steady_clock::now() + std::chrono::microseconds(int64_t(seconds * 1e6));
        sc_test::backoff wait;
        for (;;) {
            const fast_completion *v = t.cons.peek();
            if (v == nullptr) {
                if (std::chrono::steady_clock::now() > end)
                    break;
                if (!armed) {
                    wait.pause();
                    continue;
                }
                if (!t.cons.arm())
                    continue;
                pollfd pfd{efd, POLLIN, 0};
                // A lost wake-up shows up as a timeout while a completion is ready.
                if (poll(&pfd, 1, 1000) == 0 && t.cons.ready())
                    ++res.timeouts;
                uint64_t cnt;
                if (read(efd, &cnt, 8) == 8)
                    ++res.wakeups;
                t.cons.disarm();
                continue;
            }
            wait.reset();
            const uint8_t *p = &bufs[size_t(v->task) * k_stress_buf];
            uint32_t producer, len, sum;
            uint64_t seq, imm;
            std::memcpy(&producer, p, 4);
            std::memcpy(&len, p + 4, 4);
            std::memcpy(&seq, p + 8, 8);
            std::memcpy(&sum, p + 16, 4);
            std::memcpy(&imm, v->imm, 8);
            const bool ok = producer >= 1 && producer <= k_stress_producers &&
                            producer == v->producer_id && len == v->len && len >= 24 &&
                            len <= k_stress_buf && seq == next_seq[producer] && imm == seq + 1 &&
                            v->imm_len == 8 && v->status == 0 && sum == fnv32(p + 24, len - 24);
            if (!ok)
                ++res.errors;
            else
                next_seq[producer] = seq + 1;
            ++res.received;
            const uint32_t task = v->task;
            t.cons.release();
            while (t.cons.post(task, reinterpret_cast<uint64_t>(&bufs[size_t(task) * k_stress_buf]),
                               k_stress_buf) == DOCA_ERROR_AGAIN)
                wait.pause(); // a claimer between CAS and hand-back
        }
        // Stop: expire, take back what is unclaimed, drain the claimed ones.
        t.cons.expire();
        stop.store(true);
        post_entry e;
        while (t.cons.revoke(&e)) {
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (t.cons.outstanding() != 0 && std::chrono::steady_clock::now() < deadline) {
            if (t.cons.peek() != nullptr) {
                ++res.received;
                t.cons.release();
            }
        }
        if (t.cons.outstanding() != 0 || t.cons.corrupted())
            ++res.errors;
    });
    consumer.join();
    for (auto &th : producers)
        th.join();
    close(efd);
    EXPECT_EQ(res.received, sent_total.load());
    return res;
}

} // namespace

TEST(unit_transport_fast_channel_stress, four_producers_polled)
{
    const stress_result r = run_stress(false, 1.0);
    EXPECT_EQ(r.errors, 0u);
    EXPECT_GT(r.received, 1000u);
    std::printf("polled: %llu messages\n", static_cast<unsigned long long>(r.received));
}

TEST(unit_transport_fast_channel_stress, four_producers_deferred_checks_no_lost_wakeup)
{
    const stress_result r = run_stress(true, 1.0, true);
    EXPECT_EQ(r.errors, 0u);
    EXPECT_EQ(r.timeouts, 0u);
    EXPECT_GT(r.received, 100u);
}

TEST(unit_transport_fast_channel_stress, four_producers_armed_no_lost_wakeup)
{
    const stress_result r = run_stress(true, 1.0);
    EXPECT_EQ(r.errors, 0u);
    EXPECT_EQ(r.timeouts, 0u);
    EXPECT_GT(r.received, 100u);
    std::printf("armed: %llu messages, %llu wake-ups\n",
                static_cast<unsigned long long>(r.received),
                static_cast<unsigned long long>(r.wakeups));
}
