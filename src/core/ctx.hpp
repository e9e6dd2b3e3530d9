// SPDX-License-Identifier: Apache-2.0
//
// The context base: DOCA's state machine (IDLE -> STARTING -> RUNNING -> STOPPING -> IDLE), the
// user data and state callback, and the hooks a concrete context (Comch server, client,
// consumer, producer) implements. `struct doca_ctx` is this class, so doca_comch_server_as_ctx
// is a plain upcast.
#pragma once

#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_types.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <typeinfo>

#include "common/object_tag.hpp"
#include "common/quarantine.hpp"
#include "common/visibility.hpp"

struct doca_pe;
struct doca_task;

namespace softcomch::core {

// What a context reports when the progress engine asks it to arm notifications.
struct arm_result {
    bool busy = false;       // work is pending: the handle must be made readable now
    uint64_t timeout_ns = 0; // > 0: wake the engine after this long even if nothing arrives
};

SOFTCOMCH_API const char *state_name(doca_ctx_states s) noexcept;

} // namespace softcomch::core

// Contexts' storage is quarantined (common/quarantine.hpp): a stale handle meets a dead tag.
// SOFTCOMCH_API on the class: UBSan's vptr check (make asan) in the C API compares the dynamic
// type of every doca_ctx it calls a member of with this class's typeinfo.
struct SOFTCOMCH_API doca_ctx : softcomch::quarantined<doca_ctx> {
    explicit doca_ctx(const char *kind_name) noexcept : kind_name_(kind_name) {}
    virtual ~doca_ctx();
    doca_ctx(const doca_ctx &) = delete;
    doca_ctx &operator=(const doca_ctx &) = delete;

    // ---- called by the C API (validation of NULL and tags is done there) ----
    SOFTCOMCH_API doca_error_t start();
    SOFTCOMCH_API doca_error_t stop();
    doca_error_t set_user_data(union doca_data d) noexcept
    {
        user_data_ = d;
        return DOCA_SUCCESS;
    }
    doca_error_t set_state_changed_cb(doca_ctx_state_changed_callback_t cb) noexcept
    {
        state_cb_ = cb;
        return DOCA_SUCCESS;
    }

    doca_ctx_states state() const noexcept { return state_; }
    union doca_data user_data() const noexcept { return user_data_; }
    doca_pe *pe() const noexcept { return pe_; }
    const char *kind_name() const noexcept { return kind_name_; }
    // This context as its concrete type T, or nullptr if it is of another kind. T is final, so
    // comparing type_info is enough and cheaper than dynamic_cast (the C API checks the kind on
    // every call, data path included).
    template <typename T> const T *as() const noexcept
    {
        static_assert(std::is_final_v<T> && std::is_base_of_v<doca_ctx, T>);
        return typeid(*this) == typeid(T) ? static_cast<const T *>(this) : nullptr;
    }
    template <typename T> T *as() noexcept
    {
        return const_cast<T *>(static_cast<const doca_ctx *>(this)->as<T>());
    }
    size_t inflight() const noexcept { return inflight_; }
    bool is_idle() const noexcept { return state_ == DOCA_CTX_STATE_IDLE; }

    // Refuses configuration calls outside IDLE, with a log line naming the call.
    SOFTCOMCH_API doca_error_t require_idle(const char *func) const noexcept;
    // Refuses task allocation outside RUNNING (BAD_STATE), with a log line naming the call.
    doca_error_t require_running(const char *func) const noexcept
    {
        return state_ == DOCA_CTX_STATE_RUNNING ? DOCA_SUCCESS : refuse_not_running(func);
    }
    // A configuration value bounded by a device cap: IDLE, then 1..cap, else INVALID_VALUE with
    // a line naming `what` and the query that reports the cap (`cap_fn`).
    doca_error_t require_idle_in_range(const char *func, const char *what, uint32_t value,
                                       uint32_t cap, const char *cap_fn) const noexcept;
    // The setter of such a value: require_idle_in_range, then `field = value`.
    doca_error_t set_in_range(const char *func, const char *what, uint32_t value, uint32_t cap,
                              const char *cap_fn, uint32_t &field) const noexcept
    {
        const doca_error_t rc = require_idle_in_range(func, what, value, cap, cap_fn);
        if (rc == DOCA_SUCCESS)
            field = value;
        return rc;
    }
    // The task_*_set_conf shape: IDLE, both callbacks given, 1..cap tasks.
    doca_error_t check_task_conf(const char *func, bool both_callbacks, const char *what,
                                 uint32_t num, uint32_t cap, const char *cap_fn) const noexcept;

    // doca_task_submit (and _ex, and doca_task_try_submit with `validate`) on `task`, one of this
    // context's tasks: refused unless the program holds the task and the context is RUNNING;
    // `func` names the API function in the log line of a refusal.
    SOFTCOMCH_API static doca_error_t program_submit(doca_task *task, bool validate,
                                                     const char *func);
    // doca_task_free: back to its pool, or, in flight, abandoned (see abandon() below).
    // INVALID_VALUE for a task that is already free.
    SOFTCOMCH_API static doca_error_t program_free(doca_task *task, const char *func);

    // ---- implemented by concrete contexts ----

    // The destroy check beyond IDLE: IN_USE (logged, naming `func` and what is left) while
    // objects created from this context still exist and refer to it. The default: none.
    virtual doca_error_t require_no_children(const char *func) const
    {
        (void)func;
        return DOCA_SUCCESS;
    }

    // Task submission (doca_task_submit on one of this context's tasks).
    virtual doca_error_t submit(doca_task *task) = 0;
    // Parameter check of doca_task_try_submit; the default accepts everything.
    virtual doca_error_t validate(const doca_task *) const { return DOCA_SUCCESS; }
    // Returns a task to its pool (doca_task_free). The task is not in flight.
    virtual void free_task(doca_task *task) = 0;
    // doca_task_free on a task that is in flight. By default the task is marked abandoned: it
    // finishes its work, then returns to its pool without a callback (doca_pe delivers it that
    // way). A context overrides this where the work must not go on once the program gave the
    // task up (a queued control-path send whose message the program may already have freed).
    virtual void abandon(doca_task *task) noexcept;
    // Data path: deliver what arrived, advance asynchronous state changes. Returns work done.
    virtual unsigned poll() = 0;
    // Slow-path hook: the engine calls it each time it runs its slow path (about once a
    // millisecond of progress), after the descriptors' watchers, with the coarse monotonic
    // time. Timers live here (deadlines, heartbeats), never on the per-call path. Like a
    // watcher it only records and calls no user code; poll() acts on what it recorded.
    virtual void tick(uint64_t /*now_ns*/) noexcept {}
    // Called by set_state() with the new state, before the state callback (which may destroy
    // the context when it is IDLE). For what a context publishes of itself; calls no user code.
    virtual void state_changed(doca_ctx_states /*next*/) noexcept {}
    // Notification support (doca_pe_request_notification / clear_notification).
    virtual softcomch::core::arm_result try_arm() { return {}; }
    virtual void disarm() {}

    // ---- for the progress engine and concrete contexts ----
    void attach(doca_pe *pe) noexcept { pe_ = pe; }
    void detach() noexcept { pe_ = nullptr; }
    // Moves to `next` and runs the state callback (synchronously, context already in `next`).
    void set_state(doca_ctx_states next);
    // Queues a submitted task for its callback on this context's engine.
    void complete(doca_task *task, doca_error_t status) noexcept;
    // Book-keeping of tasks owned by the library.
    void task_submitted() noexcept { ++inflight_; }
    void task_retired() noexcept { --inflight_; }

    softcomch::object_tag tag_{softcomch::object_kind::ctx};

protected:
    // Start hook: DOCA_SUCCESS (now RUNNING), DOCA_ERROR_IN_PROGRESS (now STARTING; the context
    // calls set_state(RUNNING) from poll later) or an error (stays IDLE).
    virtual doca_error_t do_start() = 0;
    // Stop hook, called in STARTING or RUNNING after the state became STOPPING. The context
    // drains or flushes its work and calls finish_stop() from poll (or from here) when done.
    virtual void do_stop() = 0;
    // Called by stop() right after do_stop(): true when the context has nothing left to drain,
    // flush or tell its peer, so that it may go IDLE inside doca_ctx_stop (given that no task is
    // in flight either). May release what the stop no longer needs. The default: work remains.
    virtual bool quiesce() { return false; }
    // Called from poll once STOPPING and nothing is left: goes IDLE once no task is in flight
    // (completed or flushed through its callback; whether the program freed it does not
    // matter). Returns whether the context is now IDLE; the IDLE callback may have destroyed
    // the context, so the caller touches nothing of it afterwards.
    bool try_finish_stop();

private:
    doca_error_t refuse_not_running(const char *func) const noexcept;

    const char *kind_name_;
    doca_pe *pe_ = nullptr;
    doca_ctx_states state_ = DOCA_CTX_STATE_IDLE;
    union doca_data user_data_ {};
    doca_ctx_state_changed_callback_t state_cb_ = nullptr;
    size_t inflight_ = 0;
};
