/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_sync_event.h
 * @brief DOCA Sync Event (part of DOCA Core, libdoca_common): a 64-bit counter that one side
 * updates and the other reads and waits on, in one process or across the PCIe link.
 *
 * An event is created (doca_sync_event_create()), told where its publisher (the side that sets or
 * adds) and its subscriber (the side that reads and waits) run, and started, either on its own
 * (doca_sync_event_start(); then the synchronous calls update and wait) or as a context
 * (doca_sync_event_as_ctx(), connected to a progress engine and started with doca_ctx_start();
 * then tasks update and wait asynchronously). An event with a remote-PCI location is exported
 * (doca_sync_event_export_to_remote_pci()) as bytes the program carries to the other side of the
 * link (a Comch message, a file), which builds its own handle on the same counter with
 * doca_sync_event_create_from_export().
 *
 * SoftComch behaviour:
 * - The counter lives in the process that created the event. With a remote-PCI location it is
 *   a page of shared memory the importer maps (docs/shm_layout.md section 13); every update and
 *   read on either side is one atomic access of that word.
 * - Waits (doca_sync_event_wait_*) spin on the counter with no timeout, as DOCA's do; the _yield
 *   variants call sched_yield() between reads. An importer whose exporter exited or destroyed the
 *   event logs one warning during a wait that can then only end by its own update.
 * - Tasks run in the progress engine: set, add and get complete on the next doca_pe_progress()
 *   call; wait_eq and wait_neq complete on the first call that sees the condition. An engine in
 *   notification mode with a wait outstanding wakes itself every millisecond to look again.
 * - num_tasks 0 in the task_*_set_conf calls gives one task of that kind (NVIDIA's sync-event
 *   samples pass their --async-num-tasks option, 0 by default, and use one task at a time).
 * - No DPA, GPU or network location is emulated: those calls return DOCA_ERROR_NOT_SUPPORTED.
 *
 * Thread safety: an event is used from one thread at a time (DOCA: the API is thread-unsafe);
 * the counter itself may be updated from the other side at any moment.
 */
#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_dpa;
struct doca_gpu;
struct doca_task;

struct doca_sync_event;                 /**< an event (the CPU handle) */
struct doca_sync_event_remote_net;      /**< an event imported over the network (not emulated) */
struct doca_sync_event_task_get;        /**< reads the counter */
struct doca_sync_event_task_notify_set; /**< sets the counter */
struct doca_sync_event_task_notify_add; /**< adds to the counter */
struct doca_sync_event_task_wait_eq;    /**< waits until (counter & mask) == value */
struct doca_sync_event_task_wait_neq;   /**< waits until (counter & mask) != value */

/** @brief A DPA handle of an event (no DPA is emulated). */
typedef uint64_t doca_dpa_dev_sync_event_t;
/** @brief A DPA handle of a network-imported event (not emulated). */
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;
/** @brief A GPU handle of an event (no GPU is emulated). */
typedef uint64_t doca_gpu_dev_sync_event_t;
/** @brief A GPU handle of a network-imported event (not emulated). */
typedef uint64_t doca_gpu_dev_sync_event_remote_net_t;

/**
 * @brief Completion (and error) callbacks of the event's tasks, called inside
 * doca_pe_progress(). The task is the program's again: it may free it, submit it again or keep
 * it. doca_task_get_status() says how it ended.
 */
typedef void (*doca_sync_event_task_get_completion_cb_t)(struct doca_sync_event_task_get *task,
							 union doca_data task_user_data,
							 union doca_data ctx_user_data);
/** @brief See doca_sync_event_task_get_completion_cb_t. */
typedef void (*doca_sync_event_task_notify_set_completion_cb_t)(struct doca_sync_event_task_notify_set *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
/** @brief See doca_sync_event_task_get_completion_cb_t. */
typedef void (*doca_sync_event_task_notify_add_completion_cb_t)(struct doca_sync_event_task_notify_add *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
/** @brief See doca_sync_event_task_get_completion_cb_t. */
typedef void (*doca_sync_event_task_wait_eq_completion_cb_t)(struct doca_sync_event_task_wait_eq *task,
							     union doca_data task_user_data,
							     union doca_data ctx_user_data);
/** @brief See doca_sync_event_task_get_completion_cb_t. */
typedef void (*doca_sync_event_task_wait_neq_completion_cb_t)(struct doca_sync_event_task_wait_neq *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/* ---- life cycle and configuration ---------------------------------------------------------- */

/**
 * @brief Creates an event (not started; counter 0).
 * @param [out] event the new event.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL output; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_create(struct doca_sync_event **event);

/**
 * @brief Creates a handle on an event another process exported with
 * doca_sync_event_export_to_remote_pci(), for a device on the other side of the same PCIe link.
 * The handle cannot be configured; it is started with doca_sync_event_start() or as a context.
 * @param [in] dev the importing device.
 * @param [in] data the export's bytes.
 * @param [in] sz their length.
 * @param [out] event the new handle.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or bytes that are not an
 * export; DOCA_ERROR_NOT_PERMITTED for a device that cannot reach the exporter, a revoked
 * export, or no access to the exporting process; DOCA_ERROR_NOT_FOUND when the exporting process
 * has exited; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev,
								  const uint8_t *data,
								  size_t sz,
								  struct doca_sync_event **event);

/**
 * @brief Whether a device can import events (doca_sync_event_create_from_export()).
 * @return DOCA_SUCCESS if it can; DOCA_ERROR_NOT_SUPPORTED if not; DOCA_ERROR_INVALID_VALUE for
 * a NULL devinfo.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/** @brief Network import: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev,
									     const uint8_t *data,
									     size_t sz,
									     struct doca_sync_event_remote_net **event);

/** @brief Network import capability: DOCA_ERROR_NOT_SUPPORTED on every device. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Destroys an event or an imported handle. A started event is stopped first; an event
 * used as a context must be IDLE. Destroying an exported event revokes its export.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or destroyed event;
 * DOCA_ERROR_IN_USE for a context that is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_destroy(struct doca_sync_event *event);

/** @brief Network handles are not emulated: DOCA_ERROR_INVALID_VALUE for any handle. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event);

/**
 * @brief Declares that the publisher runs on a CPU (this process's side of the link). One
 * publisher location per event: a later declaration replaces an earlier one. Before start only.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments, a started or imported event.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event,
									  struct doca_dev *dev);
/** @brief DPA publisher: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event,
									  struct doca_dpa *dpa);
/** @brief GPU publisher: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event,
									  struct doca_gpu *gpu);
/**
 * @brief Declares that the publisher runs on the other side of the PCIe link: the counter is
 * placed in memory that side can reach once the event is exported.
 * @return as doca_sync_event_add_publisher_location_cpu().
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event);
/** @brief Network publisher: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event);

/** @brief Declares that the subscriber runs on a CPU; as doca_sync_event_add_publisher_location_cpu(). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event,
									   struct doca_dev *dev);
/** @brief DPA subscriber: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event,
									   struct doca_dpa *dpa);
/** @brief GPU subscriber: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event,
									   struct doca_gpu *gpu);
/** @brief Declares that the subscriber runs on the other side of the PCIe link. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event);

/**
 * @brief Backs the counter with 8 bytes of the program's memory instead of the library's. Such
 * an event cannot be exported to the other side (its memory is not shared).
 * @param [in] event a created, not started event.
 * @param [in] addr 8-byte aligned memory that outlives the event.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or misaligned arguments or an imported
 * event; DOCA_ERROR_BAD_STATE once started.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/** @brief Backing the counter with a doca_buf is not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf);

/**
 * @brief Starts an event on its own (the synchronous calls then work). An event started this way
 * is not used as a context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL event; DOCA_ERROR_BAD_STATE for one
 * already started or used as a context; the errors of placing the counter in shared memory.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_start(struct doca_sync_event *event);

/**
 * @brief Stops an event started with doca_sync_event_start().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL event; DOCA_ERROR_BAD_STATE for an
 * event that was not started that way.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_stop(struct doca_sync_event *event);

/**
 * @brief The event as a context (doca_ctx.h), for tasks on a progress engine. The context is
 * started with doca_ctx_start() (IDLE -> RUNNING at once) and stopped with doca_ctx_stop().
 * @return the context; NULL for a NULL event or one started with doca_sync_event_start().
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event);

/* ---- export -------------------------------------------------------------------------------- */

/**
 * @brief The bytes the other side of the PCIe link imports the event from. The event must have
 * a remote-PCI publisher or subscriber location. The bytes stay valid until the event is
 * destroyed; asking again returns the same bytes.
 * @param [in] event the event (started or not; exporting places its counter).
 * @param [in] dev the local device the other side reaches this one through.
 * @param [out] data the bytes.
 * @param [out] sz their length (at most 1024).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED
 * for an event without a remote-PCI location, backed by the program's memory, or imported itself;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event,
								    struct doca_dev *dev,
								    const uint8_t **data,
								    size_t *sz);

/** @brief Whether a device can export events to the other side of its PCIe link. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo);

/** @brief DPA handle: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event,
							      struct doca_dpa *dpa,
							      doca_dpa_dev_sync_event_t *dpa_dev_se_handle);
/** @brief DPA export capability: DOCA_ERROR_NOT_SUPPORTED on every device. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);
/** @brief GPU handle: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_gpu_handle(struct doca_sync_event *event,
							      struct doca_gpu *gpu,
							      doca_gpu_dev_sync_event_t **gpu_dev_se);
/** @brief GPU export capability: DOCA_ERROR_NOT_SUPPORTED on every device. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);
/** @brief Network export: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event,
								    const uint8_t **data,
								    size_t *sz);
/** @brief Network export capability: DOCA_ERROR_NOT_SUPPORTED on every device. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_is_export_to_remote_net_supported(const struct doca_devinfo *devinfo);
/** @brief DPA handle of a network handle: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event,
					  struct doca_dpa *dpa,
					  doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event);
/** @brief Capability: DOCA_ERROR_NOT_SUPPORTED on every device. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);
/** @brief GPU handle of a network handle: not emulated (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_remote_net_get_gpu_handle(struct doca_sync_event_remote_net *event,
					  struct doca_gpu *gpu,
					  doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event);
/** @brief Capability: DOCA_ERROR_NOT_SUPPORTED on every device. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);

/* ---- synchronous updates and waits (a started event) --------------------------------------- */

/**
 * @brief Reads the counter.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or an event not started.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);
/** @brief Adds to the counter atomically; *fetched gets the value before the addition. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_update_add(struct doca_sync_event *event,
							  uint64_t value,
							  uint64_t *fetched);
/** @brief Sets the counter. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);
/** @brief Spins until (counter & mask) > value. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);
/** @brief As doca_sync_event_wait_gt(), calling sched_yield() between reads. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event,
							     uint64_t value,
							     uint64_t mask);
/** @brief Spins until (counter & mask) == value. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
/** @brief As doca_sync_event_wait_eq(), calling sched_yield() between reads. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event,
							     uint64_t value,
							     uint64_t mask);
/** @brief Spins until (counter & mask) != value. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
/** @brief As doca_sync_event_wait_neq(), calling sched_yield() between reads. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event,
							      uint64_t value,
							      uint64_t mask);

/* ---- tasks (the event as a context) ---------------------------------------------------------
 * The *_set_conf calls: only while the context is IDLE (else DOCA_ERROR_NOT_PERMITTED); both
 * callbacks are required; num_tasks 0 gives one task. The *_alloc_init calls: only while RUNNING
 * (DOCA_ERROR_BAD_STATE); DOCA_ERROR_NO_MEMORY when every task of the kind is in use. Masks of
 * the wait tasks: 0 or 1, 2, 4 or 8 consecutive 0xff bytes (DOCA_ERROR_INVALID_VALUE otherwise).
 * ---------------------------------------------------------------------------------------------- */

/** @brief Whether a device runs get tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo);
/** @brief Configures the get tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_get_set_conf(struct doca_sync_event *event,
								 doca_sync_event_task_get_completion_cb_t completion_cb,
								 doca_sync_event_task_get_completion_cb_t error_cb,
								 uint32_t num_tasks);
/** @brief A get task writing the counter's value to *ret_val_ptr when it runs. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event,
								   uint64_t *ret_val_ptr,
								   union doca_data user_data,
								   struct doca_sync_event_task_get **task);
/** @brief The task as a generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task);
/** @brief Sets where the value goes (ignored, with an error line, while the task is in flight). */
DOCA_EXPERIMENTAL void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task,
								uint64_t *ret_val_ptr);
/** @brief Where the value goes. */
DOCA_EXPERIMENTAL uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task);

/** @brief Whether a device runs notify-set tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo);
/** @brief Configures the notify-set tasks. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_notify_set_set_conf(struct doca_sync_event *event,
					 doca_sync_event_task_notify_set_completion_cb_t completion_cb,
					 doca_sync_event_task_notify_set_completion_cb_t error_cb,
					 uint32_t num_tasks);
/** @brief A task setting the counter to set_val. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event,
					   uint64_t set_val,
					   union doca_data user_data,
					   struct doca_sync_event_task_notify_set **task);
/** @brief The task as a generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *
doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task);
/** @brief Sets the value the task sets. */
DOCA_EXPERIMENTAL void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task,
								   uint64_t set_val);
/** @brief The value the task sets. */
DOCA_EXPERIMENTAL uint64_t
doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task);

/** @brief Whether a device runs notify-add tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo);
/** @brief Configures the notify-add tasks. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_notify_add_set_conf(struct doca_sync_event *event,
					 doca_sync_event_task_notify_add_completion_cb_t completion_cb,
					 doca_sync_event_task_notify_add_completion_cb_t error_cb,
					 uint32_t num_tasks);
/** @brief A task adding inc_val atomically; *fetched_val_ptr gets the value before it. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event,
					   uint64_t inc_val,
					   uint64_t *fetched_val_ptr,
					   union doca_data user_data,
					   struct doca_sync_event_task_notify_add **task);
/** @brief The task as a generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *
doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task);
/** @brief Sets the value the task adds. */
DOCA_EXPERIMENTAL void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task,
								   uint64_t inc_val);
/** @brief The value the task adds. */
DOCA_EXPERIMENTAL uint64_t
doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task);
/** @brief Sets where the previous value goes. */
DOCA_EXPERIMENTAL void doca_sync_event_task_notify_add_set_fetched_val_ptr(struct doca_sync_event_task_notify_add *task,
									   uint64_t *fetched_val_ptr);
/** @brief Where the previous value goes. */
DOCA_EXPERIMENTAL uint64_t *
doca_sync_event_task_notify_add_get_fetched_val_ptr(const struct doca_sync_event_task_notify_add *task);

/** @brief Whether a device runs wait-eq tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo);
/** @brief Configures the wait-eq tasks. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_wait_eq_set_conf(struct doca_sync_event *event,
				      doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
				      doca_sync_event_task_wait_eq_completion_cb_t error_cb,
				      uint32_t num_tasks);
/** @brief A task completing once (counter & mask) == wait_val. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event,
								       uint64_t wait_val,
								       uint64_t mask,
								       union doca_data user_data,
								       struct doca_sync_event_task_wait_eq **task);
/** @brief The task as a generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *
doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task);
/** @brief Sets the value waited for. */
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task,
								 uint64_t wait_val);
/** @brief The value waited for. */
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task);
/** @brief Sets the mask (checked at submission). */
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task, uint64_t mask);
/** @brief The mask. */
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task);

/** @brief Whether a device runs wait-neq tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo);
/** @brief Configures the wait-neq tasks. */
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_wait_neq_set_conf(struct doca_sync_event *event,
				       doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
				       doca_sync_event_task_wait_neq_completion_cb_t error_cb,
				       uint32_t num_tasks);
/** @brief A task completing once (counter & mask) != wait_val. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event,
									uint64_t wait_val,
									uint64_t mask,
									union doca_data user_data,
									struct doca_sync_event_task_wait_neq **task);
/** @brief The task as a generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *
doca_sync_event_task_wait_neq_as_doca_task(struct doca_sync_event_task_wait_neq *task);
/** @brief Sets the value compared with. */
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task,
								  uint64_t wait_val);
/** @brief The value compared with. */
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task);
/** @brief Sets the mask (checked at submission). */
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task,
							      uint64_t mask);
/** @brief The mask. */
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
