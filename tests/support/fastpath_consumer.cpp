// SPDX-License-Identifier: Apache-2.0
//
// The definitions of fastpath_consumer.hpp.
#include "fastpath_consumer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "backoff.hpp"
#include "fastpath_checks.hpp"

namespace sc_test::fp {

using namespace std::chrono_literals;
using clock = std::chrono::steady_clock;

consumer::consumer(doca_comch_connection *conn, doca_dev *dev, consumer_options o)
    : opt_(o), mem_(dev, size_t(o.slots) * o.slot_size, region_options{o.mem, o.slots + 8}),
      group_({}, o.epoll), bufs_(o.slots, nullptr), posted_(o.slots, 0)
{
    if (!mem_.ok()) {
        create_rc = DOCA_ERROR_NO_MEMORY;
        return;
    }
    if (o.pe) {
        pe_ = o.pe;
        own_pe_ = false;
    } else if ((create_rc = doca_pe_create(&pe_)) != DOCA_SUCCESS) {
        pe_ = nullptr;
        return;
    }
    group_.add(pe_);
    create_rc = doca_comch_consumer_create(conn, mem_.mmap(), &cons_);
    if (create_rc != DOCA_SUCCESS) {
        cons_ = nullptr;
        std::fprintf(stderr, "[pid %d] doca_comch_consumer_create: %s\n", int(getpid()),
                     err_name(create_rc).c_str());
        return;
    }
    ctx_ = doca_comch_consumer_as_ctx(cons_);
    setup_rc = setup();
}

consumer::~consumer()
{
    if (cons_) {
        if (state() != DOCA_CTX_STATE_IDLE) {
            doca_error_t rc = stop_and_wait(nullptr, 3000ms);
            if (rc != DOCA_SUCCESS)
                std::fprintf(stderr, "[pid %d] ~consumer: stop: %s (state %s)\n", int(getpid()),
                             err_name(rc).c_str(), state_name(state()).c_str());
        }
        free_held();
        free_pending();
        destroy();
    }
    release_bufs();
    if (pe_ && own_pe_) {
        doca_error_t rc = doca_pe_destroy(pe_);
        if (rc != DOCA_SUCCESS)
            std::fprintf(stderr, "[pid %d] ~consumer: doca_pe_destroy: %s\n", int(getpid()),
                         err_name(rc).c_str());
    }
}

uint32_t consumer::id() const
{
    uint32_t v = 0;
    doca_comch_consumer_get_id(cons_, &v);
    return v;
}

doca_ctx_states consumer::state() const
{
    doca_ctx_states s = DOCA_CTX_STATE_IDLE;
    if (ctx_)
        doca_ctx_get_state(ctx_, &s);
    return s;
}

bool consumer::progress_until(const std::function<bool()> &pred, std::chrono::milliseconds timeout,
                              doca_pe *owner)
{
    auto check = [&] {
        retry_pending();
        return pred();
    };
    if (!owner)
        return group_.until(check, timeout);
    pe_group g({pe_, owner}, opt_.epoll);
    return g.until(check, timeout);
}

void consumer::retry_pending()
{
    for (size_t i = 0; i < pending_.size();) {
        auto [slot, task] = pending_[i];
        doca_error_t rc = DOCA_ERROR_BAD_STATE;
        if (state() == DOCA_CTX_STATE_RUNNING) {
            doca_buf_set_data(bufs_[slot], slot_addr(slot), 0);
            rc = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
        }
        if (rc == DOCA_ERROR_AGAIN) {
            ++repost_again;
            ++i;
            continue;
        }
        if (rc == DOCA_SUCCESS) {
            posted_[slot] = 1;
            ++posted_count_;
            post_order_.push_back(slot);
        } else {
            if (state() == DOCA_CTX_STATE_RUNNING) {
                ++repost_failures;
                last_repost_rc = rc;
            }
            doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
        }
        pending_.erase(pending_.begin() + long(i));
    }
}

bool consumer::wait_running(doca_pe *owner, std::chrono::milliseconds timeout)
{
    return progress_until([&] { return state() == DOCA_CTX_STATE_RUNNING; }, timeout, owner);
}

doca_error_t consumer::post(size_t slot)
{
    if (slot >= bufs_.size())
        return DOCA_ERROR_INVALID_VALUE;
    if (!bufs_[slot]) {
        bufs_[slot] = mem_.get_by_addr(slot * opt_.slot_size, opt_.slot_size);
        if (!bufs_[slot])
            return mem_.last_rc;
    } else {
        doca_buf_set_data(bufs_[slot], mem_.base() + slot * opt_.slot_size, 0);
    }
    doca_comch_consumer_task_post_recv *t = nullptr;
    doca_error_t rc = doca_comch_consumer_task_post_recv_alloc_init(cons_, bufs_[slot], &t);
    if (rc != DOCA_SUCCESS)
        return rc;
    union doca_data ud;
    ud.u64 = slot;
    doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(t), ud);
    // DOCA_ERROR_AGAIN is transient back-pressure (doca_task_submit): retry for a while.
    auto end = clock::now() + 1000ms;
    backoff wait;
    while ((rc = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t))) ==
               DOCA_ERROR_AGAIN &&
           clock::now() < end) {
        ++post_again;
        wait.pause();
    }
    if (rc != DOCA_SUCCESS) {
        doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
        return rc;
    }
    posted_[slot] = 1;
    ++posted_count_;
    post_order_.push_back(slot);
    return DOCA_SUCCESS;
}

doca_error_t consumer::post_all()
{
    for (size_t s = 0; s < bufs_.size(); ++s)
        if (!posted_[s]) {
            doca_error_t rc = post(s);
            if (rc != DOCA_SUCCESS)
                return rc;
        }
    return DOCA_SUCCESS;
}

doca_error_t consumer::stop_and_wait(doca_pe *owner, std::chrono::milliseconds timeout)
{
    doca_error_t rc = doca_ctx_stop(ctx_);
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
        return rc;
    return progress_until([&] { return state() == DOCA_CTX_STATE_IDLE; }, timeout, owner)
               ? DOCA_SUCCESS
               : DOCA_ERROR_TIME_OUT;
}

doca_error_t consumer::destroy()
{
    if (!cons_)
        return DOCA_SUCCESS;
    doca_error_t rc = doca_comch_consumer_destroy(cons_);
    if (rc == DOCA_SUCCESS) {
        cons_ = nullptr;
        ctx_ = nullptr;
    } else {
        std::fprintf(stderr, "[pid %d] doca_comch_consumer_destroy: %s\n", int(getpid()),
                     err_name(rc).c_str());
    }
    return rc;
}

void consumer::free_pending()
{
    for (auto &[slot, task] : pending_)
        doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
    pending_.clear();
}

void consumer::free_held()
{
    for (auto *t : held)
        doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
    held.clear();
}

void consumer::release_bufs()
{
    for (auto &b : bufs_)
        if (b) {
            doca_buf_dec_refcount(b, nullptr);
            b = nullptr;
        }
}

doca_error_t consumer::setup()
{
    doca_error_t rc;
    if ((rc = doca_pe_connect_ctx(pe_, ctx_)) != DOCA_SUCCESS)
        return rc;
    union doca_data d;
    d.ptr = this;
    if ((rc = doca_ctx_set_user_data(ctx_, d)) != DOCA_SUCCESS)
        return rc;
    doca_ctx_set_state_changed_cb(
        ctx_, [](const union doca_data ud, doca_ctx *, doca_ctx_states, doca_ctx_states next) {
            static_cast<consumer *>(ud.ptr)->states.push_back(next);
        });
    uint32_t tasks = opt_.num_tasks ? opt_.num_tasks : opt_.slots;
    if ((rc = doca_comch_consumer_task_post_recv_set_conf(cons_, recv_done, recv_error, tasks)) !=
        DOCA_SUCCESS)
        return rc;
    if (opt_.imm_data_len >= 0 && (rc = doca_comch_consumer_set_imm_data_len(
                                       cons_, uint32_t(opt_.imm_data_len))) != DOCA_SUCCESS)
        return rc;
    return DOCA_SUCCESS;
}

void consumer::forget_post(size_t slot)
{
    auto it = std::find(post_order_.begin(), post_order_.end(), slot);
    if (it != post_order_.end())
        post_order_.erase(it);
}

void consumer::anomaly(const std::string &s)
{
    if (anomalies.size() < 32)
        anomalies.push_back(s);
    std::fprintf(stderr, "[pid %d] consumer %u: %s\n", int(getpid()), id(), s.c_str());
}

void consumer::recv_done(doca_comch_consumer_task_post_recv *task, union doca_data task_ud,
                         union doca_data ctx_ud)
{
    auto *c = static_cast<consumer *>(ctx_ud.ptr);
    size_t slot = task_ud.u64;
    doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
    void *data = nullptr;
    size_t len = 0;
    doca_buf_get_data(buf, &data);
    doca_buf_get_data_len(buf, &len);
    if (doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS)
        c->anomaly(
            "completion callback with status " +
            err_name(doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task))));
    if (slot < c->bufs_.size()) {
        if (buf != c->bufs_[slot])
            c->anomaly("completed task carries another buf");
        uint8_t *lo = c->slot_addr(slot), *hi = lo + c->opt_.slot_size;
        auto *d = static_cast<uint8_t *>(data);
        if (len && (d < lo || d + len > hi))
            c->anomaly("received data window outside its slot");
        c->posted_[slot] = 0;
        // Posted buffers are filled in the order they were posted (one producer at a time).
        if (c->opt_.check_order && !c->post_order_.empty() && c->post_order_.front() != slot)
            c->anomaly("message landed in slot " + std::to_string(slot) + " while slot " +
                       std::to_string(c->post_order_.front()) + " was posted earlier");
        c->forget_post(slot);
    }
    --c->posted_count_;
    ++c->recv_count;
    const uint8_t *imm = doca_comch_consumer_task_post_recv_get_imm_data(task);
    uint32_t imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(task);
    recv_view v{static_cast<const uint8_t *>(data),
                len,
                doca_comch_consumer_task_post_recv_get_producer_id(task),
                imm,
                imm_len,
                slot,
                task};
    if (c->on_recv) {
        c->on_recv(*c, v);
    } else {
        recv_record r;
        r.data.assign(v.data, v.data + len);
        r.producer_id = v.producer_id;
        r.imm_null = imm == nullptr;
        if (imm)
            r.imm.assign(imm, imm + imm_len);
        r.slot = slot;
        c->received.push_back(std::move(r));
    }
    if (c->opt_.auto_repost && c->state() == DOCA_CTX_STATE_RUNNING && slot < c->bufs_.size()) {
        doca_buf_set_data(buf, c->slot_addr(slot), 0);
        doca_error_t rc = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
        if (rc == DOCA_SUCCESS) {
            c->posted_[slot] = 1;
            ++c->posted_count_;
            c->post_order_.push_back(slot);
            return;
        }
        if (rc == DOCA_ERROR_AGAIN) {
            ++c->repost_again;
            c->pending_.emplace_back(slot, task);
            return;
        }
        ++c->repost_failures;
        c->last_repost_rc = rc;
    }
    doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

void consumer::recv_error(doca_comch_consumer_task_post_recv *task, union doca_data task_ud,
                          union doca_data ctx_ud)
{
    auto *c = static_cast<consumer *>(ctx_ud.ptr);
    size_t slot = task_ud.u64;
    doca_error_t st = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task));
    c->errors.push_back(st);
    if (st == DOCA_SUCCESS)
        c->anomaly("error callback with status DOCA_SUCCESS");
    if (slot < c->bufs_.size()) {
        c->posted_[slot] = 0;
        c->forget_post(slot);
        size_t len = 1;
        doca_buf_get_data_len(doca_comch_consumer_task_post_recv_get_buf(task), &len);
        if (len != 0)
            c->anomaly("buffer of a failed receive has data_len " + std::to_string(len) +
                       " (status " + err_name(st) + ")");
    }
    --c->posted_count_;
    if (c->opt_.hold_errors)
        c->held.push_back(task);
    else
        doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

} // namespace sc_test::fp
