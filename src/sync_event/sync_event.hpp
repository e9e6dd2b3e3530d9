// SPDX-License-Identifier: Apache-2.0
//
// DOCA Sync Event (include/doca_sync_event.h): a 64-bit counter, started on its own (the
// synchronous calls) or as a context whose tasks update and wait on it from the progress engine.
// An event with a remote-PCI location keeps its counter in memory another process can import
// (core::memory_exporter::export_counter); an event created from such an export works on the
// exporter's counter. Where the counter lives is decided once, when the event starts or is
// exported first ("placed"); the configuration is frozen from then on.
//
// Tasks: set, add and get run on the next poll, in submission order; wait_eq and wait_neq
// complete on the first poll that sees their condition (each wait is looked at on every poll,
// so a wait never holds back the tasks behind it). A stop flushes what is queued
// (DOCA_ERROR_SHUTDOWN). On an imported event whose exporter exited or destroyed the event, the
// tasks fail with the reason (DOCA_ERROR_NOT_FOUND / NOT_PERMITTED), found at most a tick late.
// docs/design.md ("Sync events") has the choices and their evidence.
//
// Layer: sync_event depends on core (contexts, tasks, devices, the exporter interface) and
// common only.
#pragma once

#include <doca_sync_event.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/intrusive_fifo.hpp"
#include "common/visibility.hpp"
#include "core/ctx.hpp"
#include "core/task.hpp"

namespace softcomch::core {
class memory_exporter;
class shared_counter;
} // namespace softcomch::core

// The tasks. A value the program gives (to set, add, compare) and where results go.
struct doca_sync_event_task_get : doca_task {
    static constexpr softcomch::core::task_kind k_kind = softcomch::core::task_kind::sync_event_get;
    explicit doca_sync_event_task_get(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}
    uint64_t *ret_ = nullptr;
};
struct doca_sync_event_task_notify_set : doca_task {
    static constexpr softcomch::core::task_kind k_kind =
        softcomch::core::task_kind::sync_event_notify_set;
    explicit doca_sync_event_task_notify_set(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}
    uint64_t value_ = 0;
};
struct doca_sync_event_task_notify_add : doca_task {
    static constexpr softcomch::core::task_kind k_kind =
        softcomch::core::task_kind::sync_event_notify_add;
    explicit doca_sync_event_task_notify_add(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}
    uint64_t value_ = 0;
    uint64_t *fetched_ = nullptr;
};
struct doca_sync_event_task_wait_eq : doca_task {
    static constexpr softcomch::core::task_kind k_kind =
        softcomch::core::task_kind::sync_event_wait_eq;
    explicit doca_sync_event_task_wait_eq(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}
    uint64_t value_ = 0;
    uint64_t mask_ = 0;
};
struct doca_sync_event_task_wait_neq : doca_task {
    static constexpr softcomch::core::task_kind k_kind =
        softcomch::core::task_kind::sync_event_wait_neq;
    explicit doca_sync_event_task_wait_neq(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}
    uint64_t value_ = 0;
    uint64_t mask_ = 0;
};

// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_sync_event>() needs its typeinfo.
struct SOFTCOMCH_API doca_sync_event final : doca_ctx {
    // Where a publisher or a subscriber runs (DOCA: one of each per event).
    enum class location : uint8_t { unset, cpu, remote_pci };
    // The synchronous waits.
    enum class wait_kind : uint8_t { eq, neq, gt };
    // The most tasks of one kind (no published figure; above what any program asks).
    static constexpr uint32_t k_max_tasks = 8192;
    // How often an engine in notification mode with a wait outstanding wakes to look again.
    static constexpr uint64_t k_wait_recheck_ns = 1'000'000;

    // doca_sync_event_create: an event whose counter `ex` places when it has a remote location.
    static doca_error_t create(softcomch::core::memory_exporter &ex, doca_sync_event **out);
    // doca_sync_event_create_from_export, once the C API checked its arguments.
    static doca_error_t create_from_export(doca_dev *dev, const uint8_t *data, size_t len,
                                           softcomch::core::memory_exporter &ex,
                                           doca_sync_event **out);
    ~doca_sync_event() override; // exported: `delete` of a final class calls it directly

    // ---- configuration (before the counter is placed) ----
    doca_error_t add_publisher(location where, doca_dev *dev, const char *func);
    doca_error_t add_subscriber(location where, doca_dev *dev, const char *func);
    doca_error_t set_addr(uint64_t *addr);

    // ---- standalone mode ----
    doca_error_t standalone_start();
    doca_error_t standalone_stop();
    // doca_sync_event_as_ctx: this context, or nullptr (logged) once started standalone.
    doca_ctx *as_ctx(const char *func) noexcept;

    doca_error_t export_to_remote_pci(doca_dev *dev, const uint8_t **data, size_t *len);

    // ---- synchronous operations (started: standalone or RUNNING) ----
    doca_error_t get(uint64_t *value, const char *func);
    doca_error_t update_add(uint64_t value, uint64_t *fetched, const char *func);
    doca_error_t update_set(uint64_t value, const char *func);
    doca_error_t wait(wait_kind kind, uint64_t value, uint64_t mask, bool yield, const char *func);

    // ---- tasks ----
    doca_error_t task_get_set_conf(doca_sync_event_task_get_completion_cb_t ok,
                                   doca_sync_event_task_get_completion_cb_t err, uint32_t num,
                                   const char *func);
    doca_error_t task_notify_set_set_conf(doca_sync_event_task_notify_set_completion_cb_t ok,
                                          doca_sync_event_task_notify_set_completion_cb_t err,
                                          uint32_t num, const char *func);
    doca_error_t task_notify_add_set_conf(doca_sync_event_task_notify_add_completion_cb_t ok,
                                          doca_sync_event_task_notify_add_completion_cb_t err,
                                          uint32_t num, const char *func);
    doca_error_t task_wait_eq_set_conf(doca_sync_event_task_wait_eq_completion_cb_t ok,
                                       doca_sync_event_task_wait_eq_completion_cb_t err,
                                       uint32_t num, const char *func);
    doca_error_t task_wait_neq_set_conf(doca_sync_event_task_wait_neq_completion_cb_t ok,
                                        doca_sync_event_task_wait_neq_completion_cb_t err,
                                        uint32_t num, const char *func);
    doca_error_t task_get_alloc(uint64_t *ret, union doca_data user_data,
                                doca_sync_event_task_get **task);
    doca_error_t task_notify_set_alloc(uint64_t value, union doca_data user_data,
                                       doca_sync_event_task_notify_set **task);
    doca_error_t task_notify_add_alloc(uint64_t value, uint64_t *fetched, union doca_data user_data,
                                       doca_sync_event_task_notify_add **task);
    doca_error_t task_wait_eq_alloc(uint64_t value, uint64_t mask, union doca_data user_data,
                                    doca_sync_event_task_wait_eq **task);
    doca_error_t task_wait_neq_alloc(uint64_t value, uint64_t mask, union doca_data user_data,
                                     doca_sync_event_task_wait_neq **task);
    // Masks a wait task accepts: 0, or 1, 2, 4 or 8 consecutive 0xff bytes.
    SOFTCOMCH_LOCAL static bool wait_mask_ok(uint64_t mask) noexcept;

    bool imported() const noexcept { return imported_; }

    // The context's hooks (doca_ctx), called through its vtable only.
    SOFTCOMCH_LOCAL doca_error_t submit(doca_task *task) override;
    SOFTCOMCH_LOCAL doca_error_t validate(const doca_task *task) const override;
    SOFTCOMCH_LOCAL void free_task(doca_task *task) override;
    SOFTCOMCH_LOCAL unsigned poll() override;
    SOFTCOMCH_LOCAL void tick(uint64_t now_ns) noexcept override;
    SOFTCOMCH_LOCAL softcomch::core::arm_result try_arm() override;

protected:
    SOFTCOMCH_LOCAL doca_error_t do_start() override;
    SOFTCOMCH_LOCAL void do_stop() override;
    bool quiesce() override { return true; }

private:
    SOFTCOMCH_LOCAL explicit doca_sync_event(softcomch::core::memory_exporter &ex) noexcept;
    // Refuses configuration once the counter is placed or on an import (INVALID_VALUE, logged).
    SOFTCOMCH_LOCAL doca_error_t require_configurable(const char *func) const noexcept;
    // Places the counter if it is not yet: shared memory with a remote-PCI location, else the
    // program's memory (set_addr) or the event's own word.
    SOFTCOMCH_LOCAL doca_error_t place(const char *func);
    // Started (standalone or RUNNING) and placed, else INVALID_VALUE with a line.
    SOFTCOMCH_LOCAL doca_error_t require_started(const char *func) const noexcept;
    // The task_*_set_conf shape of sync events: NOT_PERMITTED outside IDLE; 0 tasks means 1.
    template <auto Pool, typename Cb>
    SOFTCOMCH_LOCAL doca_error_t set_conf(const char *func, Cb ok, Cb err, const char *what,
                                          uint32_t num);
    // The *_alloc_init shape: RUNNING, then a task of `Pool`.
    template <auto Pool, typename T>
    SOFTCOMCH_LOCAL doca_error_t take(const char *func, const char *conf_fn, T **out);
    // The wait tasks' *_alloc_init: a mask the tasks accept (INVALID_VALUE, logged), then take.
    template <auto Pool, typename T>
    SOFTCOMCH_LOCAL doca_error_t take_wait(const char *func, const char *conf_fn, uint64_t value,
                                           uint64_t mask, union doca_data user_data, T **task);
    // Runs `t` if it can run now: true when it completed (its callback is queued).
    SOFTCOMCH_LOCAL bool run(doca_task *t) noexcept;
    // Whether run(t) would complete `t` now (a wait whose condition holds, or any other task).
    SOFTCOMCH_LOCAL bool ready(const doca_task *t) const noexcept;
    SOFTCOMCH_LOCAL void flush(doca_error_t status) noexcept;
    SOFTCOMCH_LOCAL uint64_t load() const noexcept;

    softcomch::core::memory_exporter &ex_;
    location publisher_ = location::unset;
    location subscriber_ = location::unset;
    uint64_t *user_addr_ = nullptr;     // set_addr
    std::atomic<uint64_t> own_word_{0}; // the counter when nothing else holds it
    std::unique_ptr<softcomch::core::shared_counter> shared_; // exported or imported counter
    std::vector<uint8_t> counter_desc_;                       // the exporter's bytes of shared_
    struct export_record {
        std::string function;      // the exporting device's PCI address
        std::vector<uint8_t> desc; // what doca_sync_event_export_to_remote_pci returned for it
    };
    std::vector<export_record> exports_;
    bool placed_ = false;
    bool imported_ = false;
    bool standalone_ = false;          // started with doca_sync_event_start
    bool ctx_mode_ = false;            // doca_sync_event_as_ctx was called
    doca_error_t gone_ = DOCA_SUCCESS; // an import's exporter is gone or revoked (tick)
    bool warned_gone_ = false;

    softcomch::core::task_set<doca_sync_event_task_get> get_tasks_;
    softcomch::core::task_set<doca_sync_event_task_notify_set> set_tasks_;
    softcomch::core::task_set<doca_sync_event_task_notify_add> add_tasks_;
    softcomch::core::task_set<doca_sync_event_task_wait_eq> wait_eq_tasks_;
    softcomch::core::task_set<doca_sync_event_task_wait_neq> wait_neq_tasks_;
    softcomch::intrusive_fifo<doca_task> queue_; // submitted, in order
};
