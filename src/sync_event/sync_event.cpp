// SPDX-License-Identifier: Apache-2.0
#include "sync_event/sync_event.hpp"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <string>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/device.hpp"
#include "core/export_desc.hpp"
#include "core/remote_memory.hpp"

namespace {

using softcomch::core::export_kind;

const char *location_name(doca_sync_event::location l) noexcept
{
    switch (l) {
    case doca_sync_event::location::cpu:
        return "CPU";
    case doca_sync_event::location::remote_pci:
        return "remote PCI";
    case doca_sync_event::location::unset:
        break;
    }
    return "unset";
}

bool satisfied(doca_sync_event::wait_kind kind, uint64_t counter, uint64_t value,
               uint64_t mask) noexcept
{
    const uint64_t v = counter & mask;
    switch (kind) {
    case doca_sync_event::wait_kind::eq:
        return v == value;
    case doca_sync_event::wait_kind::neq:
        return v != value;
    case doca_sync_event::wait_kind::gt:
        return v > value;
    }
    return false;
}

inline void cpu_relax() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

} // namespace

doca_sync_event::doca_sync_event(softcomch::core::memory_exporter &ex) noexcept
    : doca_ctx("sync_event"), ex_(ex)
{}

doca_sync_event::~doca_sync_event() = default;

doca_error_t doca_sync_event::create(softcomch::core::memory_exporter &ex, doca_sync_event **out)
{
    *out = new doca_sync_event(ex);
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::create_from_export(doca_dev *dev, const uint8_t *data, size_t len,
                                                 softcomch::core::memory_exporter &ex,
                                                 doca_sync_event **out)
{
    const char *func = "doca_sync_event_create_from_export";
    softcomch::core::export_info info;
    std::string why;
    if (doca_error_t rc =
            softcomch::core::decode_export(data, len, export_kind::sync_event, info, why);
        rc != DOCA_SUCCESS) {
        SC_LOG_ERR("%s: the descriptor is refused: %s", func, why.c_str());
        return rc;
    }
    if (doca_error_t rc = softcomch::core::check_importer(info, *dev->info(), func);
        rc != DOCA_SUCCESS)
        return rc;
    std::unique_ptr<softcomch::core::shared_counter> counter;
    softcomch::core::resource_label label;
    label.function = dev->info()->pci_addr();
    label.peer_function = info.function;
    if (doca_error_t rc =
            ex.import_counter(info.via, info.body, info.body_len, label, counter, why);
        rc != DOCA_SUCCESS) {
        SC_LOG_ERR("%s: cannot reach the event %s exported: %s", func, info.function.c_str(),
                   why.c_str());
        return rc;
    }
    auto e = std::unique_ptr<doca_sync_event>(new doca_sync_event(ex));
    e->shared_ = std::move(counter);
    e->placed_ = true;
    e->imported_ = true;
    SC_LOG_DBG("%s: the event of %s (%s)", func, e->shared_->exporter().c_str(),
               info.function.c_str());
    *out = e.release();
    return DOCA_SUCCESS;
}

// ---- configuration ----------------------------------------------------------------------------

doca_error_t doca_sync_event::require_configurable(const char *func) const noexcept
{
    if (imported_) {
        SC_LOG_ERR("%s: an event created from an export cannot be configured", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (placed_) {
        SC_LOG_ERR("%s: the event was already started or exported; configure it before", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::add_publisher(location where, doca_dev *dev, const char *func)
{
    (void)dev; // a CPU location's device: this process's side of the link, nothing to record
    if (doca_error_t rc = require_configurable(func); rc != DOCA_SUCCESS)
        return rc;
    if (publisher_ != location::unset && publisher_ != where)
        SC_LOG_DBG("%s: the publisher location %s replaces %s", func, location_name(where),
                   location_name(publisher_));
    publisher_ = where;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::add_subscriber(location where, doca_dev *dev, const char *func)
{
    (void)dev;
    if (doca_error_t rc = require_configurable(func); rc != DOCA_SUCCESS)
        return rc;
    if (subscriber_ != location::unset && subscriber_ != where)
        SC_LOG_DBG("%s: the subscriber location %s replaces %s", func, location_name(where),
                   location_name(subscriber_));
    subscriber_ = where;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::set_addr(uint64_t *addr)
{
    const char *func = "doca_sync_event_set_addr";
    if (imported_) {
        SC_LOG_ERR("%s: an event created from an export cannot be configured", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (placed_) {
        SC_LOG_ERR("%s: the event was already started or exported", func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (reinterpret_cast<uintptr_t>(addr) % alignof(uint64_t) != 0) {
        SC_LOG_ERR("%s: the address %p is not 8-byte aligned (the counter is updated atomically)",
                   func, static_cast<void *>(addr));
        return DOCA_ERROR_INVALID_VALUE;
    }
    user_addr_ = addr;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::place(const char *func)
{
    if (placed_)
        return DOCA_SUCCESS;
    const bool remote = publisher_ == location::remote_pci || subscriber_ == location::remote_pci;
    if (remote && user_addr_ == nullptr) {
        std::string why;
        // The device is named at export (doca_sync_event_export_to_remote_pci), after this.
        const softcomch::core::resource_label label;
        if (doca_error_t rc = ex_.export_counter(label, shared_, counter_desc_, why);
            rc != DOCA_SUCCESS) {
            SC_LOG_ERR("%s: cannot place the counter where the other side can reach it: %s", func,
                       why.c_str());
            return rc;
        }
    }
    placed_ = true;
    return DOCA_SUCCESS;
}

// ---- standalone mode --------------------------------------------------------------------------

doca_error_t doca_sync_event::standalone_start()
{
    const char *func = "doca_sync_event_start";
    if (ctx_mode_) {
        SC_LOG_ERR("%s: the event is used as a context (doca_sync_event_as_ctx); start it with "
                   "doca_ctx_start",
                   func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (standalone_) {
        SC_LOG_ERR("%s: the event is already started", func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (doca_error_t rc = place(func); rc != DOCA_SUCCESS)
        return rc;
    standalone_ = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::standalone_stop()
{
    if (!standalone_) {
        SC_LOG_ERR("doca_sync_event_stop: the event was not started with doca_sync_event_start%s",
                   ctx_mode_ ? " (it is a context: stop it with doca_ctx_stop)" : "");
        return DOCA_ERROR_BAD_STATE;
    }
    standalone_ = false;
    return DOCA_SUCCESS;
}

doca_ctx *doca_sync_event::as_ctx(const char *func) noexcept
{
    if (standalone_) {
        SC_LOG_ERR("%s: the event was started with doca_sync_event_start; such an event is not "
                   "used as a context",
                   func);
        return nullptr;
    }
    ctx_mode_ = true;
    return this;
}

doca_error_t doca_sync_event::do_start()
{
    if (doca_error_t rc = place("doca_ctx_start"); rc != DOCA_SUCCESS)
        return rc;
    gone_ = DOCA_SUCCESS;
    warned_gone_ = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::export_to_remote_pci(doca_dev *dev, const uint8_t **data, size_t *len)
{
    const char *func = "doca_sync_event_export_to_remote_pci";
    if (imported_) {
        SC_LOG_ERR("%s: an event created from an export cannot be exported again", func);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (publisher_ != location::remote_pci && subscriber_ != location::remote_pci) {
        SC_LOG_ERR("%s: the event has no remote-PCI location (declare one with "
                   "doca_sync_event_add_publisher_location_remote_pci or "
                   "doca_sync_event_add_subscriber_location_remote_pci before starting it)",
                   func);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (user_addr_ != nullptr) {
        SC_LOG_ERR("%s: the counter is the program's memory (doca_sync_event_set_addr), which the "
                   "other side cannot reach",
                   func);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (doca_error_t rc = place(func); rc != DOCA_SUCCESS)
        return rc;
    // The descriptor: DOCA Core's header (which function exported it) and the exporter's bytes,
    // made once per exporting function (the same bytes when asked again).
    const doca_devinfo &di = *dev->info();
    for (const export_record &r : exports_)
        if (r.function == di.pci_addr()) {
            *data = r.desc.data();
            *len = r.desc.size();
            return DOCA_SUCCESS;
        }
    softcomch::core::export_info info;
    info.kind = export_kind::sync_event;
    info.dpu_side = di.side() == softcomch::core::side::dpu;
    info.bluefield = di.bluefield_id();
    info.function = di.pci_addr();
    info.via = ex_.name();
    info.body = counter_desc_.data();
    info.body_len = counter_desc_.size();
    std::string why;
    export_record rec{di.pci_addr(), {}};
    if (doca_error_t rc = softcomch::core::encode_export(info, rec.desc, why); rc != DOCA_SUCCESS) {
        SC_LOG_ERR("%s: %s", func, why.c_str());
        return rc;
    }
    exports_.push_back(std::move(rec));
    *data = exports_.back().desc.data();
    *len = exports_.back().desc.size();
    return DOCA_SUCCESS;
}

// ---- synchronous operations -------------------------------------------------------------------

doca_error_t doca_sync_event::require_started(const char *func) const noexcept
{
    if (placed_ && (standalone_ || state() == DOCA_CTX_STATE_RUNNING))
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: the event is not started (doca_sync_event_start, or doca_ctx_start on "
               "doca_sync_event_as_ctx)",
               func);
    return DOCA_ERROR_INVALID_VALUE;
}

uint64_t doca_sync_event::load() const noexcept
{
    if (shared_)
        return shared_->load();
    if (user_addr_)
        return std::atomic_ref<uint64_t>(*user_addr_).load(std::memory_order_seq_cst);
    return own_word_.load(std::memory_order_seq_cst);
}

doca_error_t doca_sync_event::get(uint64_t *value, const char *func)
{
    if (doca_error_t rc = require_started(func); rc != DOCA_SUCCESS)
        return rc;
    *value = load();
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::update_add(uint64_t value, uint64_t *fetched, const char *func)
{
    if (doca_error_t rc = require_started(func); rc != DOCA_SUCCESS)
        return rc;
    uint64_t before;
    if (shared_)
        before = shared_->fetch_add(value);
    else if (user_addr_)
        before = std::atomic_ref<uint64_t>(*user_addr_).fetch_add(value, std::memory_order_seq_cst);
    else
        before = own_word_.fetch_add(value, std::memory_order_seq_cst);
    if (fetched)
        *fetched = before;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::update_set(uint64_t value, const char *func)
{
    if (doca_error_t rc = require_started(func); rc != DOCA_SUCCESS)
        return rc;
    if (shared_)
        shared_->store(value);
    else if (user_addr_)
        std::atomic_ref<uint64_t>(*user_addr_).store(value, std::memory_order_seq_cst);
    else
        own_word_.store(value, std::memory_order_seq_cst);
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::wait(wait_kind kind, uint64_t value, uint64_t mask, bool yield,
                                   const char *func)
{
    if (doca_error_t rc = require_started(func); rc != DOCA_SUCCESS)
        return rc;
    // No timeout, as DOCA's: the wait ends when the condition holds. An import whose exporter
    // went away can only be ended by this process's own update; say so once.
    using clock = std::chrono::steady_clock;
    auto next_check = clock::now() + std::chrono::seconds(1);
    bool warned = false;
    for (uint64_t spins = 1;; ++spins) {
        if (satisfied(kind, load(), value, mask))
            return DOCA_SUCCESS;
        if (yield)
            ::sched_yield();
        else
            cpu_relax();
        if (spins % 1024 != 0 || warned || !shared_ || !imported_ || clock::now() < next_check)
            continue;
        next_check = clock::now() + std::chrono::seconds(1);
        const char *why = nullptr;
        if (shared_->alive(&why) != DOCA_SUCCESS) {
            SC_LOG_WARN("%s: %s (%s); nothing on the other side will update the event any more",
                        func, why, shared_->exporter().c_str());
            warned = true;
        }
    }
}

// ---- tasks ------------------------------------------------------------------------------------

bool doca_sync_event::wait_mask_ok(uint64_t mask) noexcept
{
    if (mask == 0)
        return true;
    // A run of whole 0xff bytes, 1, 2, 4 or 8 of them.
    const int low = __builtin_ctzll(mask);
    const int bits = 64 - __builtin_clzll(mask) - low;
    const uint64_t run = bits == 64 ? ~uint64_t(0) : ((uint64_t(1) << bits) - 1) << low;
    return mask == run && low % 8 == 0 && (bits == 8 || bits == 16 || bits == 32 || bits == 64);
}

template <auto Pool, typename Cb>
doca_error_t doca_sync_event::set_conf(const char *func, Cb ok, Cb err, const char *what,
                                       uint32_t num)
{
    if (!is_idle()) {
        SC_LOG_ERR("%s: the context is %s; tasks are configured while it is IDLE", func,
                   softcomch::core::state_name(state()));
        return DOCA_ERROR_NOT_PERMITTED;
    }
    // 0 means one task: NVIDIA's sync-event samples pass their --async-num-tasks (0 unless
    // given) and use one task of a kind at a time (docs/design.md, "Sync events").
    return (this->*Pool)
        .template set_conf<Pool>(this, func, ok, err, what, num == 0 ? 1 : num, k_max_tasks,
                                 "doca_sync_event.h (8192)");
}

doca_error_t doca_sync_event::task_get_set_conf(doca_sync_event_task_get_completion_cb_t ok,
                                                doca_sync_event_task_get_completion_cb_t err,
                                                uint32_t num, const char *func)
{
    return set_conf<&doca_sync_event::get_tasks_>(func, ok, err, "number of get tasks", num);
}

doca_error_t
doca_sync_event::task_notify_set_set_conf(doca_sync_event_task_notify_set_completion_cb_t ok,
                                          doca_sync_event_task_notify_set_completion_cb_t err,
                                          uint32_t num, const char *func)
{
    return set_conf<&doca_sync_event::set_tasks_>(func, ok, err, "number of notify-set tasks", num);
}

doca_error_t
doca_sync_event::task_notify_add_set_conf(doca_sync_event_task_notify_add_completion_cb_t ok,
                                          doca_sync_event_task_notify_add_completion_cb_t err,
                                          uint32_t num, const char *func)
{
    return set_conf<&doca_sync_event::add_tasks_>(func, ok, err, "number of notify-add tasks", num);
}

doca_error_t
doca_sync_event::task_wait_eq_set_conf(doca_sync_event_task_wait_eq_completion_cb_t ok,
                                       doca_sync_event_task_wait_eq_completion_cb_t err,
                                       uint32_t num, const char *func)
{
    return set_conf<&doca_sync_event::wait_eq_tasks_>(func, ok, err, "number of wait-eq tasks",
                                                      num);
}

doca_error_t
doca_sync_event::task_wait_neq_set_conf(doca_sync_event_task_wait_neq_completion_cb_t ok,
                                        doca_sync_event_task_wait_neq_completion_cb_t err,
                                        uint32_t num, const char *func)
{
    return set_conf<&doca_sync_event::wait_neq_tasks_>(func, ok, err, "number of wait-neq tasks",
                                                       num);
}

template <auto Pool, typename T>
doca_error_t doca_sync_event::take(const char *func, const char *conf_fn, T **out)
{
    if (doca_error_t rc = require_running(func); rc != DOCA_SUCCESS)
        return rc;
    return (this->*Pool).take(func, conf_fn, out);
}

doca_error_t doca_sync_event::task_get_alloc(uint64_t *ret, union doca_data user_data,
                                             doca_sync_event_task_get **task)
{
    doca_sync_event_task_get *t = nullptr;
    if (doca_error_t rc = take<&doca_sync_event::get_tasks_>(
            "doca_sync_event_task_get_alloc_init", "doca_sync_event_task_get_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->ret_ = ret;
    t->user_data_ = user_data;
    *task = t;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::task_notify_set_alloc(uint64_t value, union doca_data user_data,
                                                    doca_sync_event_task_notify_set **task)
{
    doca_sync_event_task_notify_set *t = nullptr;
    if (doca_error_t rc =
            take<&doca_sync_event::set_tasks_>("doca_sync_event_task_notify_set_alloc_init",
                                               "doca_sync_event_task_notify_set_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->value_ = value;
    t->user_data_ = user_data;
    *task = t;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::task_notify_add_alloc(uint64_t value, uint64_t *fetched,
                                                    union doca_data user_data,
                                                    doca_sync_event_task_notify_add **task)
{
    doca_sync_event_task_notify_add *t = nullptr;
    if (doca_error_t rc =
            take<&doca_sync_event::add_tasks_>("doca_sync_event_task_notify_add_alloc_init",
                                               "doca_sync_event_task_notify_add_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->value_ = value;
    t->fetched_ = fetched;
    t->user_data_ = user_data;
    *task = t;
    return DOCA_SUCCESS;
}

template <auto Pool, typename T>
doca_error_t doca_sync_event::take_wait(const char *func, const char *conf_fn, uint64_t value,
                                        uint64_t mask, union doca_data user_data, T **task)
{
    if (!wait_mask_ok(mask)) {
        SC_LOG_ERR("%s: mask 0x%llx is not 0 or 1, 2, 4 or 8 consecutive 0xff bytes", func,
                   (unsigned long long)mask);
        return DOCA_ERROR_INVALID_VALUE;
    }
    T *t = nullptr;
    if (doca_error_t rc = take<Pool>(func, conf_fn, &t); rc != DOCA_SUCCESS)
        return rc;
    t->value_ = value;
    t->mask_ = mask;
    t->user_data_ = user_data;
    *task = t;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::task_wait_eq_alloc(uint64_t value, uint64_t mask,
                                                 union doca_data user_data,
                                                 doca_sync_event_task_wait_eq **task)
{
    return take_wait<&doca_sync_event::wait_eq_tasks_>("doca_sync_event_task_wait_eq_alloc_init",
                                                       "doca_sync_event_task_wait_eq_set_conf",
                                                       value, mask, user_data, task);
}

doca_error_t doca_sync_event::task_wait_neq_alloc(uint64_t value, uint64_t mask,
                                                  union doca_data user_data,
                                                  doca_sync_event_task_wait_neq **task)
{
    return take_wait<&doca_sync_event::wait_neq_tasks_>("doca_sync_event_task_wait_neq_alloc_init",
                                                        "doca_sync_event_task_wait_neq_set_conf",
                                                        value, mask, user_data, task);
}

doca_error_t doca_sync_event::submit(doca_task *t)
{
    t->state_ = softcomch::core::task_state::submitted;
    task_submitted();
    SC_TRACE(
        softcomch::trace::engine_task_begin(t, softcomch::core::task_kind_name(t->kind_), this));
    queue_.push_back(t);
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::validate(const doca_task *t) const
{
    uint64_t mask = 0;
    if (t->kind_ == softcomch::core::task_kind::sync_event_wait_eq)
        mask = static_cast<const doca_sync_event_task_wait_eq *>(t)->mask_;
    else if (t->kind_ == softcomch::core::task_kind::sync_event_wait_neq)
        mask = static_cast<const doca_sync_event_task_wait_neq *>(t)->mask_;
    if (!wait_mask_ok(mask)) {
        SC_LOG_ERR("doca_task_try_submit: the wait task's mask 0x%llx is not 0 or 1, 2, 4 or 8 "
                   "consecutive 0xff bytes",
                   (unsigned long long)mask);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

void doca_sync_event::free_task(doca_task *t)
{
    switch (t->kind_) {
    case softcomch::core::task_kind::sync_event_get:
        get_tasks_.release(static_cast<doca_sync_event_task_get *>(t));
        return;
    case softcomch::core::task_kind::sync_event_notify_set:
        set_tasks_.release(static_cast<doca_sync_event_task_notify_set *>(t));
        return;
    case softcomch::core::task_kind::sync_event_notify_add:
        add_tasks_.release(static_cast<doca_sync_event_task_notify_add *>(t));
        return;
    case softcomch::core::task_kind::sync_event_wait_eq:
        wait_eq_tasks_.release(static_cast<doca_sync_event_task_wait_eq *>(t));
        return;
    case softcomch::core::task_kind::sync_event_wait_neq:
        wait_neq_tasks_.release(static_cast<doca_sync_event_task_wait_neq *>(t));
        return;
    default:
        return; // not one of ours: the engine never hands us another context's task
    }
}

bool doca_sync_event::run(doca_task *t) noexcept
{
    using softcomch::core::task_kind;
    if (t->abandoned_) [[unlikely]] {
        complete(t, DOCA_ERROR_SHUTDOWN); // back to its pool, no callback (doca_pe)
        return true;
    }
    if (gone_ != DOCA_SUCCESS) [[unlikely]] {
        complete(t, gone_);
        return true;
    }
    switch (t->kind_) {
    case task_kind::sync_event_get: {
        auto *g = static_cast<doca_sync_event_task_get *>(t);
        const uint64_t v = load();
        if (g->ret_)
            *g->ret_ = v;
        break;
    }
    case task_kind::sync_event_notify_set:
        (void)update_set(static_cast<doca_sync_event_task_notify_set *>(t)->value_,
                         "doca_sync_event_task_notify_set");
        break;
    case task_kind::sync_event_notify_add: {
        auto *a = static_cast<doca_sync_event_task_notify_add *>(t);
        (void)update_add(a->value_, a->fetched_, "doca_sync_event_task_notify_add");
        break;
    }
    case task_kind::sync_event_wait_eq:
    case task_kind::sync_event_wait_neq: {
        const bool eq = t->kind_ == task_kind::sync_event_wait_eq;
        const uint64_t value = eq ? static_cast<doca_sync_event_task_wait_eq *>(t)->value_
                                  : static_cast<doca_sync_event_task_wait_neq *>(t)->value_;
        const uint64_t mask = eq ? static_cast<doca_sync_event_task_wait_eq *>(t)->mask_
                                 : static_cast<doca_sync_event_task_wait_neq *>(t)->mask_;
        if (!wait_mask_ok(mask)) {
            SC_LOG_INFO("sync event %p: wait task refused: mask 0x%llx is not 0 or 1, 2, 4 or 8 "
                        "consecutive 0xff bytes",
                        static_cast<void *>(this), (unsigned long long)mask);
            complete(t, DOCA_ERROR_INVALID_VALUE);
            return true;
        }
        if (!satisfied(eq ? wait_kind::eq : wait_kind::neq, load(), value, mask))
            return false;
        break;
    }
    default:
        complete(t, DOCA_ERROR_UNEXPECTED);
        return true;
    }
    complete(t, DOCA_SUCCESS);
    return true;
}

unsigned doca_sync_event::poll()
{
    switch (state()) {
    case DOCA_CTX_STATE_RUNNING: {
        unsigned done = 0;
        // Every task queued now, once: those that cannot run yet (waits) go back in order.
        for (size_t n = queue_.size(); n != 0; --n) {
            doca_task *t = queue_.pop_front();
            if (run(t))
                ++done;
            else
                queue_.push_back(t);
        }
        return done;
    }
    case DOCA_CTX_STATE_STOPPING:
        return try_finish_stop() ? 1 : 0;
    case DOCA_CTX_STATE_IDLE:
    case DOCA_CTX_STATE_STARTING:
        break;
    }
    return 0;
}

void doca_sync_event::tick(uint64_t now_ns) noexcept
{
    (void)now_ns;
    if (!imported_ || !shared_ || gone_ != DOCA_SUCCESS || queue_.empty())
        return;
    const char *why = nullptr;
    if (const doca_error_t rc = shared_->alive(&why); rc != DOCA_SUCCESS) {
        gone_ = rc;
        if (!warned_gone_) {
            SC_LOG_WARN("sync event %p: %s (%s); its tasks fail with %s", static_cast<void *>(this),
                        why, shared_->exporter().c_str(), softcomch::error_name(rc));
            warned_gone_ = true;
        }
    }
}

void doca_sync_event::flush(doca_error_t status) noexcept
{
    while (doca_task *t = queue_.pop_front())
        complete(t, status);
}

void doca_sync_event::do_stop()
{
    flush(DOCA_ERROR_SHUTDOWN);
}

bool doca_sync_event::ready(const doca_task *t) const noexcept
{
    using softcomch::core::task_kind;
    if (t->abandoned_ || gone_ != DOCA_SUCCESS)
        return true;
    if (t->kind_ == task_kind::sync_event_wait_eq) {
        const auto *w = static_cast<const doca_sync_event_task_wait_eq *>(t);
        return !wait_mask_ok(w->mask_) || satisfied(wait_kind::eq, load(), w->value_, w->mask_);
    }
    if (t->kind_ == task_kind::sync_event_wait_neq) {
        const auto *w = static_cast<const doca_sync_event_task_wait_neq *>(t);
        return !wait_mask_ok(w->mask_) || satisfied(wait_kind::neq, load(), w->value_, w->mask_);
    }
    return true;
}

softcomch::core::arm_result doca_sync_event::try_arm()
{
    softcomch::core::arm_result r;
    if (state() == DOCA_CTX_STATE_STOPPING) {
        r.busy = true;
        return r;
    }
    for (const doca_task *t = queue_.front(); t != nullptr; t = t->next_)
        if (ready(t)) {
            r.busy = true;
            return r;
        }
    // Only waits whose condition does not hold yet: nothing signals a descriptor when the other
    // side updates the counter, so the engine looks again after a while.
    if (!queue_.empty())
        r.timeout_ns = k_wait_recheck_ns;
    return r;
}
