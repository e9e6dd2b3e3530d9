// SPDX-License-Identifier: Apache-2.0
//
// The definitions of fastpath_producer.hpp.
#include "fastpath_producer.hpp"

#include <doca_buf.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "backoff.hpp"
#include "fastpath_checks.hpp"

namespace sc_test::fp {

using namespace std::chrono_literals;
using clock = std::chrono::steady_clock;

producer::producer(doca_comch_connection *conn, doca_dev *dev, producer_options o)
    : opt_(o), mem_(dev, size_t(o.slots) * o.slot_size, region_options{o.mem, o.slots + 8}),
      group_({}, o.epoll)
{
    for (uint32_t s = 0; s < o.slots; ++s)
        free_slots_.push_back(o.slots - 1 - s);
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
    create_rc = doca_comch_producer_create(conn, &prod_);
    if (create_rc != DOCA_SUCCESS) {
        prod_ = nullptr;
        std::fprintf(stderr, "[pid %d] doca_comch_producer_create: %s\n", int(getpid()),
                     err_name(create_rc).c_str());
        return;
    }
    ctx_ = doca_comch_producer_as_ctx(prod_);
    setup_rc = setup();
}

producer::~producer()
{
    if (prod_) {
        if (state() != DOCA_CTX_STATE_IDLE) {
            doca_error_t rc = stop_and_wait(3000ms);
            if (rc != DOCA_SUCCESS)
                std::fprintf(stderr, "[pid %d] ~producer: stop: %s (state %s)\n", int(getpid()),
                             err_name(rc).c_str(), state_name(state()).c_str());
        }
        destroy();
    }
    if (pe_ && own_pe_) {
        doca_error_t rc = doca_pe_destroy(pe_);
        if (rc != DOCA_SUCCESS)
            std::fprintf(stderr, "[pid %d] ~producer: doca_pe_destroy: %s\n", int(getpid()),
                         err_name(rc).c_str());
    }
}

uint32_t producer::id() const
{
    uint32_t v = 0;
    doca_comch_producer_get_id(prod_, &v);
    return v;
}

doca_ctx_states producer::state() const
{
    doca_ctx_states s = DOCA_CTX_STATE_IDLE;
    if (ctx_)
        doca_ctx_get_state(ctx_, &s);
    return s;
}

doca_error_t producer::send(uint32_t cid, size_t len,
                            const std::function<void(uint8_t *, size_t)> &fill, const void *imm,
                            uint32_t imm_len, const send_options &so)
{
    if (len > opt_.slot_size)
        return DOCA_ERROR_TOO_BIG;
    auto end = clock::now() + so.timeout;
    while (free_slots_.empty()) {
        if (clock::now() > end)
            return DOCA_ERROR_TIME_OUT;
        group_.round(1);
        if (so.pump)
            so.pump();
    }
    size_t slot = free_slots_.back();
    uint8_t *dst = mem_.base() + slot * opt_.slot_size;
    if (fill && len)
        fill(dst, len);
    doca_buf *buf = len ? mem_.get_by_data(slot * opt_.slot_size, len)
                        : mem_.get_by_args(slot * opt_.slot_size, opt_.slot_size, 0);
    if (!buf)
        return mem_.last_rc;
    doca_comch_producer_task_send *t = nullptr;
    doca_error_t rc;
    for (;;) {
        rc = doca_comch_producer_task_send_alloc_init(
            prod_, buf, static_cast<uint8_t *>(const_cast<void *>(imm)), imm_len, cid, &t);
        if (rc != DOCA_ERROR_NO_MEMORY || clock::now() > end)
            break;
        group_.round(1);
    }
    if (rc != DOCA_SUCCESS) {
        doca_buf_dec_refcount(buf, nullptr);
        last_alloc_rc = rc;
        return rc;
    }
    union doca_data ud;
    ud.u64 = slot;
    doca_task_set_user_data(doca_comch_producer_task_send_as_task(t), ud);
    rc = submit_retrying(doca_comch_producer_task_send_as_task(t), so, end);
    if (rc != DOCA_SUCCESS) {
        doca_task_free(doca_comch_producer_task_send_as_task(t));
        doca_buf_dec_refcount(buf, nullptr);
        return rc;
    }
    free_slots_.pop_back();
    ++in_flight_;
    ++submitted;
    return DOCA_SUCCESS;
}

doca_error_t producer::send(uint32_t cid, const void *bytes, size_t len, const void *imm,
                            uint32_t imm_len, const send_options &so)
{
    return send(
        cid, len, [bytes](uint8_t *d, size_t n) { std::memcpy(d, bytes, n); }, imm, imm_len, so);
}

doca_error_t producer::submit_retrying(doca_task *t, const send_options &so, clock::time_point end)
{
    doca_error_t rc;
    backoff wait;
    for (;;) {
        rc = doca_task_submit(t);
        if (rc != DOCA_ERROR_AGAIN)
            return rc;
        ++again;
        if (clock::now() > end)
            return rc;
        if (so.pump)
            so.pump();
        else
            wait.pause();
    }
}

bool producer::wait_completions(std::chrono::milliseconds timeout,
                                const std::function<void()> &pump)
{
    auto end = clock::now() + timeout;
    while (in_flight_ > 0) {
        if (clock::now() > end)
            return false;
        group_.round(1);
        if (pump)
            pump();
    }
    return true;
}

doca_error_t producer::stop_and_wait(std::chrono::milliseconds timeout)
{
    doca_error_t rc = doca_ctx_stop(ctx_);
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
        return rc;
    return group_.until([&] { return state() == DOCA_CTX_STATE_IDLE; }, timeout)
               ? DOCA_SUCCESS
               : DOCA_ERROR_TIME_OUT;
}

doca_error_t producer::destroy()
{
    if (!prod_)
        return DOCA_SUCCESS;
    doca_error_t rc = doca_comch_producer_destroy(prod_);
    if (rc == DOCA_SUCCESS) {
        prod_ = nullptr;
        ctx_ = nullptr;
    } else {
        std::fprintf(stderr, "[pid %d] doca_comch_producer_destroy: %s\n", int(getpid()),
                     err_name(rc).c_str());
    }
    return rc;
}

doca_error_t producer::setup()
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
            static_cast<producer *>(ud.ptr)->states.push_back(next);
        });
    return doca_comch_producer_task_send_set_conf(prod_, send_done, send_done, opt_.num_tasks);
}

void producer::send_done(doca_comch_producer_task_send *task, union doca_data task_ud,
                         union doca_data ctx_ud)
{
    auto *p = static_cast<producer *>(ctx_ud.ptr);
    doca_error_t st = doca_task_get_status(doca_comch_producer_task_send_as_task(task));
    if (st == DOCA_SUCCESS) {
        ++p->ok_count;
    } else {
        ++p->err_count;
        p->err_statuses.push_back(st);
    }
    if (p->on_complete)
        p->on_complete(*p, task, st);
    auto *buf = const_cast<doca_buf *>(doca_comch_producer_task_send_get_buf(task));
    if (buf)
        doca_buf_dec_refcount(buf, nullptr);
    doca_task_free(doca_comch_producer_task_send_as_task(task));
    if (task_ud.u64 == kExternal)
        return;
    p->free_slots_.push_back(size_t(task_ud.u64));
    --p->in_flight_;
}

} // namespace sc_test::fp
