// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_sync_event.h (DOCA Core: libdoca_common): argument checks and delegation only.
// The counter of an event that crosses the PCIe link goes through the process's memory exporter
// (src/memory), which the facade hands to the event.
#include <doca_sync_event.h>

#include "capi/handle.hpp"
#include "core/device.hpp"
#include "memory/exporter.hpp"
#include "sync_event/sync_event.hpp"

namespace softcomch::capi {

SC_HANDLE(doca_sync_event, "a valid", "destroyed, foreign, or another kind of object",
          is_live_context(p));
SC_HANDLE(doca_sync_event_task_get, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));
SC_HANDLE(doca_sync_event_task_notify_set, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));
SC_HANDLE(doca_sync_event_task_notify_add, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));
SC_HANDLE(doca_sync_event_task_wait_eq, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));
SC_HANDLE(doca_sync_event_task_wait_neq, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));

namespace {

using location = doca_sync_event::location;
using wait_kind = doca_sync_event::wait_kind;

// What no emulated device has (DPA, GPU, the network): NOT_SUPPORTED and one line, once the
// event is checked.
doca_error_t not_emulated(const char *func, doca_sync_event *event, const char *what) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED, "%s: %s", api_function(), what);
    });
}

// The functions of network events, none of which can exist.
doca_error_t net_not_emulated(const char *func, const doca_sync_event_remote_net *event) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(event);
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED,
                  "%s: events across the network are not emulated (remote PCI is)", api_function());
    });
}

// A capability every emulated device has (the sync events of the two sides of the link).
doca_error_t supported(const char *func, const doca_devinfo *devinfo) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        return DOCA_SUCCESS;
    });
}

// One no emulated device has.
doca_error_t unsupported(const char *func, const doca_devinfo *devinfo) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        return DOCA_ERROR_NOT_SUPPORTED;
    });
}

doca_error_t locate(const char *func, doca_sync_event *event, doca_dev *dev, bool publisher,
                    location where) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        if (where == location::cpu)
            SC_REQUIRE(dev);
        return publisher ? event->add_publisher(where, dev, api_function())
                         : event->add_subscriber(where, dev, api_function());
    });
}

doca_error_t wait(const char *func, doca_sync_event *event, wait_kind kind, uint64_t value,
                  uint64_t mask, bool yield) noexcept
{
    return delegate(func, SC_ARG(event),
                    [&](auto &e) { return e.wait(kind, value, mask, yield, api_function()); });
}

// The setter and getter shapes of task parameters: usable task (one line, else nothing), not in
// flight for a setter.
template <typename T, typename Fn> void set_param(const char *func, T *task, Fn &&fn) noexcept
{
    if (usable(task, "task", func) && task->reconfigurable(func))
        fn(*task);
}
template <typename T, typename R, typename Fn> R get_param(const T *task, R none, Fn &&fn) noexcept
{
    return why_unusable(task) ? none : fn(*task);
}

} // namespace

} // namespace softcomch::capi

using namespace softcomch::capi;

extern "C" {

// ---- life cycle and configuration -------------------------------------------------------------

doca_error_t doca_sync_event_create(struct doca_sync_event **event)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(event);
        return doca_sync_event::create(softcomch::memory::exporter(), event);
    });
}

doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data,
                                                size_t sz, struct doca_sync_event **event)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(data);
        if (sz == 0)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: sz is 0", api_function());
        SC_CHECK_NOT_NULL(event);
        return doca_sync_event::create_from_export(dev, data, sz, softcomch::memory::exporter(),
                                                   event);
    });
}

doca_error_t doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo)
{
    return supported(__func__, devinfo);
}

doca_error_t
doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
                                              struct doca_sync_event_remote_net **event)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(data);
        SC_CHECK_NOT_NULL(event);
        (void)sz;
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED,
                  "%s: events across the network are not emulated (remote PCI is)", api_function());
    });
}

doca_error_t
doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo)
{
    return unsupported(__func__, devinfo);
}

doca_error_t doca_sync_event_destroy(struct doca_sync_event *event)
{
    return delegate(__func__, SC_ARG(event), [&](doca_sync_event &e) -> doca_error_t {
        if (!e.is_idle())
            SC_REFUSE(DOCA_ERROR_IN_USE,
                      "%s: the event's context is %s; stop it and progress until IDLE first",
                      api_function(), softcomch::core::state_name(e.state()));
        delete &e; // a standalone event needs no stop first
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(event);
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                  "%s: %p is not a network event (none can be created: not emulated)",
                  api_function(), static_cast<void *>(event));
    });
}

doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event,
                                                        struct doca_dev *dev)
{
    return locate(__func__, event, dev, true, location::cpu);
}

doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event,
                                                        struct doca_dpa *dpa)
{
    (void)dpa;
    return not_emulated(__func__, event, "no DPA is emulated");
}

doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event,
                                                        struct doca_gpu *gpu)
{
    (void)gpu;
    return not_emulated(__func__, event, "no GPU is emulated");
}

doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event)
{
    return locate(__func__, event, nullptr, true, location::remote_pci);
}

doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event)
{
    return not_emulated(__func__, event,
                        "events across the network are not emulated (remote PCI is)");
}

doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event,
                                                         struct doca_dev *dev)
{
    return locate(__func__, event, dev, false, location::cpu);
}

doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event,
                                                         struct doca_dpa *dpa)
{
    (void)dpa;
    return not_emulated(__func__, event, "no DPA is emulated");
}

doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event,
                                                         struct doca_gpu *gpu)
{
    (void)gpu;
    return not_emulated(__func__, event, "no GPU is emulated");
}

doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event)
{
    return locate(__func__, event, nullptr, false, location::remote_pci);
}

doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_CHECK_NOT_NULL(addr);
        return event->set_addr(addr);
    });
}

doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf)
{
    (void)buf;
    return not_emulated(__func__, event,
                        "a counter in a doca_buf is not emulated; use doca_sync_event_set_addr "
                        "or the library's own counter");
}

doca_error_t doca_sync_event_start(struct doca_sync_event *event)
{
    return delegate(__func__, SC_ARG(event), [](auto &e) { return e.standalone_start(); });
}

doca_error_t doca_sync_event_stop(struct doca_sync_event *event)
{
    return delegate(__func__, SC_ARG(event), [](auto &e) { return e.standalone_stop(); });
}

struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event)
{
    return usable(event, "event", __func__) ? event->as_ctx(__func__) : nullptr;
}

// ---- export -----------------------------------------------------------------------------------

doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event,
                                                  struct doca_dev *dev, const uint8_t **data,
                                                  size_t *sz)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(data);
        SC_CHECK_NOT_NULL(sz);
        return event->export_to_remote_pci(dev, data, sz);
    });
}

doca_error_t
doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo)
{
    return supported(__func__, devinfo);
}

doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
                                            doca_dpa_dev_sync_event_t *dpa_dev_se_handle)
{
    (void)dpa;
    (void)dpa_dev_se_handle;
    return not_emulated(__func__, event, "no DPA is emulated");
}

doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo)
{
    return unsupported(__func__, devinfo);
}

doca_error_t doca_sync_event_get_gpu_handle(struct doca_sync_event *event, struct doca_gpu *gpu,
                                            doca_gpu_dev_sync_event_t **gpu_dev_se)
{
    (void)gpu;
    (void)gpu_dev_se;
    return not_emulated(__func__, event, "no GPU is emulated");
}

doca_error_t doca_sync_event_cap_is_export_to_gpu_supported(const struct doca_devinfo *devinfo)
{
    return unsupported(__func__, devinfo);
}

doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event,
                                                  const uint8_t **data, size_t *sz)
{
    (void)data;
    (void)sz;
    return not_emulated(__func__, event,
                        "events across the network are not emulated (remote PCI is)");
}

doca_error_t
doca_sync_event_cap_is_export_to_remote_net_supported(const struct doca_devinfo *devinfo)
{
    return unsupported(__func__, devinfo);
}

doca_error_t
doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event,
                                          struct doca_dpa *dpa,
                                          doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event)
{
    (void)dpa;
    (void)dpa_remote_event;
    return net_not_emulated(__func__, event);
}

doca_error_t
doca_sync_event_cap_remote_net_is_export_to_dpa_supported(const struct doca_devinfo *devinfo)
{
    return unsupported(__func__, devinfo);
}

doca_error_t
doca_sync_event_remote_net_get_gpu_handle(struct doca_sync_event_remote_net *event,
                                          struct doca_gpu *gpu,
                                          doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event)
{
    (void)gpu;
    (void)gpu_remote_event;
    return net_not_emulated(__func__, event);
}

doca_error_t
doca_sync_event_cap_remote_net_is_export_to_gpu_supported(const struct doca_devinfo *devinfo)
{
    return unsupported(__func__, devinfo);
}

// ---- synchronous operations -------------------------------------------------------------------

doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_CHECK_NOT_NULL(value);
        return event->get(value, api_function());
    });
}

doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value,
                                        uint64_t *fetched)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_CHECK_NOT_NULL(fetched);
        return event->update_add(value, fetched, api_function());
    });
}

doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value)
{
    return delegate(__func__, SC_ARG(event),
                    [&](auto &e) { return e.update_set(value, api_function()); });
}

doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
    return wait(__func__, event, wait_kind::gt, value, mask, false);
}

doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value,
                                           uint64_t mask)
{
    return wait(__func__, event, wait_kind::gt, value, mask, true);
}

doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
    return wait(__func__, event, wait_kind::eq, value, mask, false);
}

doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value,
                                           uint64_t mask)
{
    return wait(__func__, event, wait_kind::eq, value, mask, true);
}

doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
    return wait(__func__, event, wait_kind::neq, value, mask, false);
}

doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value,
                                            uint64_t mask)
{
    return wait(__func__, event, wait_kind::neq, value, mask, true);
}

// ---- tasks ------------------------------------------------------------------------------------

doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo)
{
    return supported(__func__, devinfo);
}

doca_error_t doca_sync_event_task_get_set_conf(
    struct doca_sync_event *event, doca_sync_event_task_get_completion_cb_t completion_cb,
    doca_sync_event_task_get_completion_cb_t error_cb, uint32_t num_tasks)
{
    return delegate(__func__, SC_ARG(event), [&](auto &e) {
        return e.task_get_set_conf(completion_cb, error_cb, num_tasks, api_function());
    });
}

doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event,
                                                 uint64_t *ret_val_ptr, union doca_data user_data,
                                                 struct doca_sync_event_task_get **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_CHECK_NOT_NULL(ret_val_ptr);
        SC_CHECK_NOT_NULL(task);
        return event->task_get_alloc(ret_val_ptr, user_data, task);
    });
}

struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task,
                                              uint64_t *ret_val_ptr)
{
    set_param(__func__, task, [&](auto &t) { t.ret_ = ret_val_ptr; });
}

uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task)
{
    return get_param(task, static_cast<uint64_t *>(nullptr), [](const auto &t) { return t.ret_; });
}

doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo)
{
    return supported(__func__, devinfo);
}

doca_error_t doca_sync_event_task_notify_set_set_conf(
    struct doca_sync_event *event, doca_sync_event_task_notify_set_completion_cb_t completion_cb,
    doca_sync_event_task_notify_set_completion_cb_t error_cb, uint32_t num_tasks)
{
    return delegate(__func__, SC_ARG(event), [&](auto &e) {
        return e.task_notify_set_set_conf(completion_cb, error_cb, num_tasks, api_function());
    });
}

doca_error_t
doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
                                           union doca_data user_data,
                                           struct doca_sync_event_task_notify_set **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_CHECK_NOT_NULL(task);
        return event->task_notify_set_alloc(set_val, user_data, task);
    });
}

struct doca_task *
doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task,
                                                 uint64_t set_val)
{
    set_param(__func__, task, [&](auto &t) { t.value_ = set_val; });
}

uint64_t
doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task)
{
    return get_param(task, uint64_t(0), [](const auto &t) { return t.value_; });
}

doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo)
{
    return supported(__func__, devinfo);
}

doca_error_t doca_sync_event_task_notify_add_set_conf(
    struct doca_sync_event *event, doca_sync_event_task_notify_add_completion_cb_t completion_cb,
    doca_sync_event_task_notify_add_completion_cb_t error_cb, uint32_t num_tasks)
{
    return delegate(__func__, SC_ARG(event), [&](auto &e) {
        return e.task_notify_add_set_conf(completion_cb, error_cb, num_tasks, api_function());
    });
}

doca_error_t
doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
                                           uint64_t *fetched_val_ptr, union doca_data user_data,
                                           struct doca_sync_event_task_notify_add **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_CHECK_NOT_NULL(fetched_val_ptr);
        SC_CHECK_NOT_NULL(task);
        return event->task_notify_add_alloc(inc_val, fetched_val_ptr, user_data, task);
    });
}

struct doca_task *
doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task,
                                                 uint64_t inc_val)
{
    set_param(__func__, task, [&](auto &t) { t.value_ = inc_val; });
}

uint64_t
doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task)
{
    return get_param(task, uint64_t(0), [](const auto &t) { return t.value_; });
}

void doca_sync_event_task_notify_add_set_fetched_val_ptr(
    struct doca_sync_event_task_notify_add *task, uint64_t *fetched_val_ptr)
{
    set_param(__func__, task, [&](auto &t) { t.fetched_ = fetched_val_ptr; });
}

uint64_t *doca_sync_event_task_notify_add_get_fetched_val_ptr(
    const struct doca_sync_event_task_notify_add *task)
{
    return get_param(task, static_cast<uint64_t *>(nullptr),
                     [](const auto &t) { return t.fetched_; });
}

doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo)
{
    return supported(__func__, devinfo);
}

doca_error_t doca_sync_event_task_wait_eq_set_conf(
    struct doca_sync_event *event, doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
    doca_sync_event_task_wait_eq_completion_cb_t error_cb, uint32_t num_tasks)
{
    return delegate(__func__, SC_ARG(event), [&](auto &e) {
        return e.task_wait_eq_set_conf(completion_cb, error_cb, num_tasks, api_function());
    });
}

doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event,
                                                     uint64_t wait_val, uint64_t mask,
                                                     union doca_data user_data,
                                                     struct doca_sync_event_task_wait_eq **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_CHECK_NOT_NULL(task);
        return event->task_wait_eq_alloc(wait_val, mask, user_data, task);
    });
}

struct doca_task *
doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task,
                                               uint64_t wait_val)
{
    set_param(__func__, task, [&](auto &t) { t.value_ = wait_val; });
}

uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task)
{
    return get_param(task, uint64_t(0), [](const auto &t) { return t.value_; });
}

void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task, uint64_t mask)
{
    set_param(__func__, task, [&](auto &t) { t.mask_ = mask; });
}

uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task)
{
    return get_param(task, uint64_t(0), [](const auto &t) { return t.mask_; });
}

doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo)
{
    return supported(__func__, devinfo);
}

doca_error_t doca_sync_event_task_wait_neq_set_conf(
    struct doca_sync_event *event, doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
    doca_sync_event_task_wait_neq_completion_cb_t error_cb, uint32_t num_tasks)
{
    return delegate(__func__, SC_ARG(event), [&](auto &e) {
        return e.task_wait_neq_set_conf(completion_cb, error_cb, num_tasks, api_function());
    });
}

doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event,
                                                      uint64_t wait_val, uint64_t mask,
                                                      union doca_data user_data,
                                                      struct doca_sync_event_task_wait_neq **task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(event);
        SC_CHECK_NOT_NULL(task);
        return event->task_wait_neq_alloc(wait_val, mask, user_data, task);
    });
}

struct doca_task *
doca_sync_event_task_wait_neq_as_doca_task(struct doca_sync_event_task_wait_neq *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task,
                                                uint64_t wait_val)
{
    set_param(__func__, task, [&](auto &t) { t.value_ = wait_val; });
}

uint64_t
doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task)
{
    return get_param(task, uint64_t(0), [](const auto &t) { return t.value_; });
}

void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task,
                                            uint64_t mask)
{
    set_param(__func__, task, [&](auto &t) { t.mask_ = mask; });
}

uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task)
{
    return get_param(task, uint64_t(0), [](const auto &t) { return t.mask_; });
}

} // extern "C"
