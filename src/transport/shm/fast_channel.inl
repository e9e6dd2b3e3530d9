// SPDX-License-Identifier: Apache-2.0
//
// Data path of the fast-path channel (included by fast_channel.hpp; do not include directly).
// Everything here is inline: a post, a claim or a completion is a handful of loads, stores and
// one CAS.
//
// Ownership of the shared words (layout in fast_channel.hpp, docs/shm_layout.md section 10):
//   post_slot.{task,addr,capacity}  consumer, for positions it posts
//   post_slot.seq                   consumer sets "posted" (pos + 1); the claimer of pos sets
//                                   "free for the next lap" (pos + C)
//   ctrl.claim_pos                  producer threads and the consumer's revoke: CAS only
//   comp_slot (all but seq)         the producer thread that won the position (CAS on comp_head)
//   comp_slot.seq                   that producer sets "full" (pos + 1); the consumer sets
//                                   "free for the next lap" (pos + C)
//   ctrl.comp_head                  producer threads: CAS only
//   ctrl.state                      consumer (open -> expired)
//   ctrl.armed                      consumer sets 1, either side clears; exchanges only
//
// Edges (each acquire/release below names its partner):
//   R21 -> A21  post seq = pos + 1 (consumer, release) -> post seq load (claimer, acquire):
//               task/addr/capacity written before R21 are visible to the claimer.
//   R22 -> A22  post seq = pos + C (claimer, release) -> post seq load (consumer, acquire):
//               the claimer's reads of the entry happen before the consumer rewrites it.
//   R23 -> A23  comp seq = pos + 1 (producer, release) -> comp seq load (consumer, acquire):
//               the completion fields (and, by program order, the payload the producer copied
//               before calling complete()) are visible to the consumer.
//   R24 -> A24  comp seq = pos + C (consumer, release) -> comp seq load (producer, acquire):
//               the consumer's reads of a completion happen before a producer rewrites it.
//   R25 -> A25  armed exchange (producer, release) -> armed exchange (consumer, acquire): the
//               Dekker pair of the sleep protocol (see fast_consumer::arm()).
//   R26 -> A26  post capacity store (consumer, release) -> capacity load before the claim CAS
//               (claimer, acquire): a claimer that reads a LATER lap's capacity also sees that
//               its position was claimed meanwhile (claim_pos moved), so it never reports
//               "too big" on the strength of another lap's buffer (see try_claim()).
//
// Signed distances: seq - expected is computed in u64 and read as i64. Positions are free-running
// u64 values that never get anywhere near 2^63 (2^63 posts at 10^9/s take 292 years), so the
// sign cleanly separates "not yet" (< 0) from "already past" (> 0).
#pragma once

#include <cassert>
#include <cstring>

namespace softcomch::transport::shm {

// Slot addresses come from process-local masks and base pointers taken at attach, so no shared
// value can steer them outside the queues.
inline post_slot *fast_channel_binding::post_at(uint64_t pos) const noexcept
{
    return reinterpret_cast<post_slot *>(post_ + uint64_t(pos & mask_) * k_fast_post_entry_size);
}

inline comp_slot *fast_channel_binding::comp_at(uint64_t pos) const noexcept
{
    return reinterpret_cast<comp_slot *>(comp_ + uint64_t(pos & mask_) * k_fast_comp_entry_size);
}

// ---- consumer ---------------------------------------------------------------------------------

inline doca_error_t fast_consumer::post(uint32_t task, uint64_t addr, uint64_t capacity) noexcept
{
    // No new buffers once the consumer is stopping (producers could not claim them anyway).
    if (expired_) [[unlikely]]
        return DOCA_ERROR_BAD_STATE;
    // One post per task at a time: that is what bounds both queues by num_tasks <= capacity.
    // k_not_posted doubles as the "free" marker, so it cannot be a capacity.
    if (task >= num_tasks_ || posted_cap_[task] != k_not_posted || capacity == k_not_posted)
        [[unlikely]]
        return DOCA_ERROR_INVALID_VALUE;
    post_slot *s = post_at(post_pos_);
    // A22: pairs with R22 in fast_producer::try_claim() / revoke(). The slot is free for this
    // lap once the claimer of the previous lap has handed it back. At most num_tasks entries
    // are unclaimed, so the previous lap's entry WAS claimed; if its claimer has not handed the
    // slot back yet (descheduled between its CAS and R22), say so and let the caller retry.
    if (s->seq.load(std::memory_order_acquire) != post_pos_) [[unlikely]]
        return DOCA_ERROR_AGAIN;
    // Plain stores: ordered before R21 below; claimers read them only after winning the slot.
    s->task = task;
    s->reserved = 0;
    s->addr = addr;
    // R26: pairs with A26 in fast_producer::try_claim()/peek_capacity(). Release so that a
    // claimer still looking at the previous lap and reading this value also sees the claim of
    // that lap (the CAS that preceded R22, which preceded our A22 above).
    s->capacity.store(capacity, std::memory_order_release);
    // R21: pairs with A21 in fast_producer::try_claim(). "Posted at post_pos_": the entry above
    // becomes claimable.
    s->seq.store(post_pos_ + 1, std::memory_order_release);
    // Local bookkeeping only (no shared mirror: producers never need our position).
    ++post_pos_;
    posted_cap_[task] = capacity;
    ++outstanding_;
    return DOCA_SUCCESS;
}

inline bool fast_consumer::ready() const noexcept
{
    // A peeked completion is still ready until release().
    if (peeked_)
        return true;
    // A23: pairs with R23 in fast_producer::complete().
    return comp_at(comp_pos_)->seq.load(std::memory_order_acquire) == comp_pos_ + 1;
}

inline const fast_completion *fast_consumer::peek() noexcept
{
    // A corrupted channel stays dead: the owner tears the consumer down.
    if (corrupted_) [[unlikely]]
        return nullptr;
    // Same completion until release().
    if (peeked_)
        return &view_;
    const comp_slot *s = comp_at(comp_pos_);
    // A23: pairs with R23 in fast_producer::complete(). Only this word is polled: an empty poll
    // touches one line, a hit brings the whole 64-byte completion with it.
    if (s->seq.load(std::memory_order_acquire) != comp_pos_ + 1)
        return nullptr;
    // Plain reads, ordered after A23, into process-local view_; every check below runs on the
    // local copy, so the peer cannot change a field after it has been checked.
    view_.task = s->task;
    view_.status = s->status;
    view_.len = s->len;
    view_.producer_id = s->producer_id;
    view_.imm_len = s->imm_len;
    // A completion must name a task we posted and have not finished, report no more bytes than
    // that buffer holds, and carry no more immediate data than configured. Anything else is a
    // buggy or hostile producer: refuse it for good (the caller reports and tears down).
    if (view_.task >= num_tasks_ || posted_cap_[view_.task] == k_not_posted ||
        view_.len > posted_cap_[view_.task] || view_.imm_len > imm_data_len_) [[unlikely]] {
        corrupted_ = true;
        return nullptr;
    }
    // imm_len was bounded above (<= 32), so this copy stays inside both arrays.
    if (view_.imm_len != 0)
        std::memcpy(view_.imm, s->imm, view_.imm_len);
    peeked_ = true;
    return &view_;
}

inline void fast_consumer::release() noexcept
{
    // The caller must have peeked a completion.
    assert(peeked_);
    // The task is finished: it may be posted again.
    posted_cap_[view_.task] = k_not_posted;
    --outstanding_;
    // R24: pairs with A24 in fast_producer::complete(). Our reads of the slot (in peek()) happen
    // before a producer rewrites it for position comp_pos_ + C.
    comp_at(comp_pos_)->seq.store(comp_pos_ + mask_ + 1, std::memory_order_release);
    ++comp_pos_;
    peeked_ = false;
}

inline bool fast_consumer::arm() noexcept
{
    // A25: pairs with R25 in fast_producer::complete(). Every write to `armed` is an exchange
    // (an RMW), so all of them sit in one modification order and each reads its predecessor.
    // Take a completion published concurrently with this arm: its R23 store, then its
    // exchange P (several producer threads: each completion has its own P, the argument holds
    // for each of them).
    //   - Our exchange A comes before P: P reads our 1 and that producer reports "wake".
    //   - P comes before A: A reads from P's release sequence (only RMWs follow P), so P
    //     synchronises with A; R23 happens-before our check below, which sees the completion
    //     at comp_pos_ if that is the one P published. (If P published a LATER position while
    //     comp_pos_ is still being written by a slower producer, that slower producer's own
    //     exchange comes after our arm, or it is covered by this same argument.)
    // So the completion the consumer waits for either wakes it or keeps it awake.
    ctrl_->armed.exchange(1, std::memory_order_acquire);
    // Re-check (A23 inside ready()).
    if (ready()) {
        // Busy: withdraw (an exchange, to keep every write an RMW: a plain store would end a
        // producer's release sequence and break the argument above).
        ctrl_->armed.exchange(0, std::memory_order_relaxed);
        return false;
    }
    return true;
}

inline void fast_consumer::disarm() noexcept
{
    // Relaxed: nothing is published through it; an exchange for the reason given in arm().
    ctrl_->armed.exchange(0, std::memory_order_relaxed);
}

inline bool fast_consumer::armed() const noexcept
{
    // Relaxed: diagnostics and tests.
    return ctrl_->armed.load(std::memory_order_relaxed) != 0;
}

inline void fast_consumer::expire() noexcept
{
    expired_ = true;
    // Relaxed: no data is published through the state word. It only makes producers stop
    // claiming early; exclusivity between a producer's claim and our revoke() comes from the
    // CAS on claim_pos, not from this word. A producer that read "open" just before this store
    // may still win an entry: that entry is then simply one of the claimed ones whose
    // completion we wait for.
    ctrl_->state.store(k_fast_state_expired, std::memory_order_relaxed);
}

inline bool fast_consumer::revoke(post_entry *out) noexcept
{
    // The consumer claims like any producer (same CAS), so every entry is taken exactly once:
    // either a producer copies into it and completes it, or we get it back here.
    uint64_t p = ctrl_->claim_pos.load(std::memory_order_relaxed);
    for (;;) {
        // Nothing of ours beyond our own post position (a corrupt claim_pos cannot make us read
        // entries we never posted).
        if (p >= post_pos_)
            return false;
        post_slot *s = post_at(p);
        // A21: pairs with R21 (our own post; also orders any concurrent claimer's view).
        const uint64_t seq = s->seq.load(std::memory_order_acquire);
        const int64_t d = int64_t(seq - (p + 1));
        if (d < 0)
            return false; // not posted at p: nothing unclaimed
        if (d > 0) {
            // Claimed by someone else meanwhile: catch up. An unchanged claim_pos with such a
            // sequence is corruption; stop instead of spinning.
            const uint64_t q = ctrl_->claim_pos.load(std::memory_order_relaxed);
            if (q == p)
                return false;
            p = q;
            continue;
        }
        // Relaxed CAS: the entry's visibility comes from A21 above (as in fast_producer::
        // try_claim()). On failure p holds the current claim position.
        if (!ctrl_->claim_pos.compare_exchange_weak(p, p + 1, std::memory_order_relaxed,
                                                    std::memory_order_relaxed))
            continue;
        // Won position p: read our entry back, then hand the slot back (R22, pairs with A22 in
        // post(); no further post happens after expire(), but keep the protocol uniform).
        const uint32_t task = s->task;
        out->task = task;
        out->reserved = 0;
        out->addr = s->addr;
        out->capacity = s->capacity.load(std::memory_order_relaxed);
        s->seq.store(p + mask_ + 1, std::memory_order_release);
        // The task must be one we posted and have not finished (else the peer scribbled on it).
        if (task >= num_tasks_ || posted_cap_[task] == k_not_posted) [[unlikely]] {
            corrupted_ = true;
            return false;
        }
        posted_cap_[task] = k_not_posted;
        --outstanding_;
        return true;
    }
}

// ---- producer ---------------------------------------------------------------------------------

inline bool fast_producer::expired() const noexcept
{
    // Relaxed: see fast_consumer::expire(); any value but "open" counts as expired.
    return ctrl_->state.load(std::memory_order_relaxed) != k_fast_state_open;
}

inline void fast_producer::accept() const noexcept
{
    // R26: pairs with A26 in fast_consumer::accepted(). Nothing the consumer reads is published
    // through it (the peer's bookkeeping is its own); release keeps the rule "everything the
    // peer did before accepting happened before the consumer runs" simple to state.
    ctrl_->accepted.store(1, std::memory_order_release);
}

inline bool fast_consumer::accepted() const noexcept
{
    // A26: pairs with R26. A hostile peer may set it early: the consumer then merely posts
    // buffers nobody fills, as it could after a genuine acceptance.
    return ctrl_->accepted.load(std::memory_order_acquire) == 1;
}

inline doca_error_t fast_producer::try_claim(uint64_t need, post_entry *out) const noexcept
{
    // Stopped consumer: fail early (the consumer's revoke() takes the remaining entries).
    if (expired()) [[unlikely]]
        return DOCA_ERROR_NOT_CONNECTED;
    // Relaxed: a starting point only; the CAS below validates it.
    uint64_t p = ctrl_->claim_pos.load(std::memory_order_relaxed);
    for (;;) {
        post_slot *s = post_at(p);
        // A21: pairs with R21 in fast_consumer::post(). seq == p + 1: posted and unclaimed.
        const uint64_t seq = s->seq.load(std::memory_order_acquire);
        const int64_t d = int64_t(seq - (p + 1));
        if (d < 0)
            return DOCA_ERROR_AGAIN; // nothing posted at p (yet)
        if (d > 0) {
            // Another claimer won p and handed it back (or the consumer already reposted it):
            // claim_pos has moved. That CAS happens-before our A21 (it preceded the R22 whose
            // value, or a successor's, we read), so this reload sees the move. An unchanged
            // value means a corrupt sequence word: report empty rather than spin.
            const uint64_t q = ctrl_->claim_pos.load(std::memory_order_relaxed);
            if (q == p)
                return DOCA_ERROR_AGAIN;
            p = q;
            continue;
        }
        // A26: pairs with R26 in fast_consumer::post(). Read before the CAS so that a too-small
        // buffer is refused without being consumed.
        const uint64_t cap = s->capacity.load(std::memory_order_acquire);
        if (cap < need) [[unlikely]] {
            // The value may belong to a later lap if p was claimed meanwhile; then A26 makes
            // that claim visible and this reload differs from p: start over at the new head.
            const uint64_t q = ctrl_->claim_pos.load(std::memory_order_relaxed);
            if (q != p) {
                p = q;
                continue;
            }
            return DOCA_ERROR_TOO_BIG;
        }
        // Relaxed CAS (as in Vyukov's queue): the entry's visibility comes from A21, and the
        // slot cannot be rewritten while we hold p, because the consumer reuses it only after
        // our R22 below. If the CAS succeeds, nobody claimed p before us, so the capacity read
        // above is lap p's. On failure p holds the current claim position: retry there.
        if (!ctrl_->claim_pos.compare_exchange_weak(p, p + 1, std::memory_order_relaxed,
                                                    std::memory_order_relaxed))
            continue;
        // Won position p. Copy the entry out (plain reads, ordered after A21)...
        out->task = s->task;
        out->reserved = 0;
        out->addr = s->addr;
        out->capacity = cap;
        // ...then hand the slot back. R22: pairs with A22 in fast_consumer::post(): our reads
        // above happen before the consumer rewrites this slot for position p + C.
        s->seq.store(p + mask_ + 1, std::memory_order_release);
        // The next claim's slot, while the caller copies: a consumer that keeps buffers posted
        // wrote it long ago, and without the hint its line arrives only when that claim asks.
        __builtin_prefetch(post_at(p + 1), 1, 3);
        return DOCA_SUCCESS;
    }
}

inline bool fast_producer::peek_capacity(uint64_t *capacity) const noexcept
{
    // Same walk as try_claim(), without the CAS.
    if (expired()) [[unlikely]]
        return false;
    uint64_t p = ctrl_->claim_pos.load(std::memory_order_relaxed);
    for (;;) {
        const post_slot *s = post_at(p);
        // A21: pairs with R21 in fast_consumer::post().
        const uint64_t seq = s->seq.load(std::memory_order_acquire);
        const int64_t d = int64_t(seq - (p + 1));
        if (d < 0)
            return false;
        if (d == 0) {
            // A26: pairs with R26 in fast_consumer::post().
            const uint64_t cap = s->capacity.load(std::memory_order_acquire);
            // Still the oldest unclaimed entry? (If not, the value may be another lap's.)
            const uint64_t q = ctrl_->claim_pos.load(std::memory_order_relaxed);
            if (q == p) {
                *capacity = cap;
                return true;
            }
            p = q;
            continue;
        }
        // Claimed meanwhile: catch up (see try_claim()); stop on a corrupt sequence.
        const uint64_t q = ctrl_->claim_pos.load(std::memory_order_relaxed);
        if (q == p)
            return false;
        p = q;
    }
}

inline doca_error_t fast_producer::complete(const fast_completion &c, bool *wake) const noexcept
{
    const doca_error_t rc = publish_completion(c);
    if (rc == DOCA_SUCCESS)
        *wake = wake_needed();
    return rc;
}

inline doca_error_t fast_producer::complete_deferred(const fast_completion &c,
                                                     bool *wake) const noexcept
{
    const doca_error_t rc = publish_completion(c);
    if (rc != DOCA_SUCCESS)
        return rc;
    // Relaxed: a look, not the check (as ring_producer::commit_deferred). Non-zero: the consumer
    // armed earlier, check now (R25). Zero: the caller's later wake_needed() settles it; the
    // argument of fast_consumer::arm() holds for that exchange in place of this one.
    *wake = ctrl_->armed.load(std::memory_order_relaxed) != 0 && wake_needed();
    return DOCA_SUCCESS;
}

inline bool fast_producer::wake_needed() const noexcept
{
    // R25: pairs with A25 in fast_consumer::arm(). Reads the arm and clears it in one step
    // (one arm -> at most one wake-up). In polling mode the consumer never writes `armed`, so
    // the line stays in the producers' caches and this costs one locked instruction.
    return ctrl_->armed.exchange(0, std::memory_order_release) != 0;
}

inline doca_error_t fast_producer::publish_completion(const fast_completion &c) const noexcept
{
    // The consumer would reject the completion (and mark the channel corrupted): refuse here.
    if (c.imm_len > imm_data_len_) [[unlikely]]
        return DOCA_ERROR_INVALID_VALUE;
    // Relaxed: a starting point; the CAS validates it.
    uint64_t p = ctrl_->comp_head.load(std::memory_order_relaxed);
    comp_slot *s;
    for (;;) {
        s = comp_at(p);
        // A24: pairs with R24 in fast_consumer::release(). seq == p: the consumer is done with
        // the slot's previous lap, so position p may be written.
        const uint64_t seq = s->seq.load(std::memory_order_acquire);
        const int64_t d = int64_t(seq - p);
        if (d == 0) {
            // Relaxed CAS: the slot's previous content is ordered by A24; our writes below are
            // published by R23. On failure p holds the current head: retry there.
            if (ctrl_->comp_head.compare_exchange_weak(p, p + 1, std::memory_order_relaxed,
                                                       std::memory_order_relaxed))
                break;
            continue;
        }
        if (d < 0) {
            // The previous lap at p is not consumed yet: the queue is full. Cannot happen while
            // the consumer keeps its contract (<= num_tasks <= capacity completions pending);
            // a stale view at worst. Nothing was written; the caller retries later.
            return DOCA_ERROR_AGAIN;
        }
        // Another producer took p: catch up. Unchanged head + such a sequence = corruption.
        const uint64_t q = ctrl_->comp_head.load(std::memory_order_relaxed);
        if (q == p)
            return DOCA_ERROR_AGAIN;
        p = q;
    }
    // Position p is ours. Plain stores, published together by R23.
    s->task = c.task;
    s->status = c.status;
    s->len = c.len;
    s->producer_id = c.producer_id;
    s->imm_len = c.imm_len;
    // imm_len <= imm_data_len_ <= 32 (checked above and at attach).
    if (c.imm_len != 0)
        std::memcpy(s->imm, c.imm, c.imm_len);
    // R23: pairs with A23 in fast_consumer::peek()/ready(). Everything this thread wrote
    // before, including the payload copied into the consumer's buffer, is visible to a
    // consumer that sees "full".
    s->seq.store(p + 1, std::memory_order_release);
    // The next completion's slot (released by the consumer a lap ago), as in try_claim().
    __builtin_prefetch(comp_at(p + 1), 1, 3);
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
