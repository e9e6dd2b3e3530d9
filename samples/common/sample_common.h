// SPDX-License-Identifier: Apache-2.0
//
// Small helpers shared by the SoftComch samples (and programs/): logging set-up, opening a device
// or a representor by PCI address, checking a message against the device's size limit, finding
// the program's state from a connection, sending a control message, the clock, and the loops that
// drive a progress engine (busy polling, bounded waits, or sleeping on the PE's notification fd).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#ifdef __cplusplus
extern "C" {
#endif

// How long the polling loop sleeps after a doca_pe_progress() call that found nothing to do.
#define SAMPLE_IDLE_SLEEP_NS 10000

// CLOCK_MONOTONIC in nanoseconds.
uint64_t sample_now_ns(void);

// The CLOCK_MONOTONIC time `timeout_ms` from now (0: no deadline, returns 0).
uint64_t sample_deadline_ms(uint64_t timeout_ms);

// Sleeps SAMPLE_IDLE_SLEEP_NS, or `max_ns` when that is shorter (0: no limit).
void sample_nap(uint64_t max_ns);

// Application messages go to stdout (up to INFO) and stderr (WARNING and worse); SDK messages of
// WARNING and worse go to stderr.
doca_error_t sample_logging_init(void);

// Opens the first device whose PCI address equals `pci_addr` ("b1:00.0" or "0000:b1:00.0").
// DOCA_ERROR_NOT_FOUND (after logging the addresses that do exist) when there is none.
doca_error_t sample_open_dev_by_pci(const char *pci_addr, struct doca_dev **dev);

// Opens the network representor of `dev` whose PCI address equals `rep_pci_addr` (the host
// function it represents). Listing representors only works on the DPU side: that failure is
// reported as DOCA_ERROR_INVALID_VALUE, a missing representor as DOCA_ERROR_NOT_FOUND.
doca_error_t sample_open_rep_by_pci(struct doca_dev *dev, const char *rep_pci_addr, struct doca_dev_rep **rep);

// DOCA_SUCCESS when a message of `len` bytes fits the device's control-path limit
// (doca_comch_cap_get_max_msg_size), DOCA_ERROR_INVALID_VALUE when it does not. The limit is
// stored in *max_msg_size when that pointer is not NULL.
doca_error_t sample_check_msg_len(struct doca_dev *dev, size_t len, uint32_t *max_msg_size);

// The classic DOCA loop: progress until *done, sleeping SAMPLE_IDLE_SLEEP_NS whenever a call
// found nothing to do. *done is set by callbacks that run inside doca_pe_progress().
void sample_poll_until(struct doca_pe *pe, const bool *done);

// What a bounded wait does between two checks of its condition (typically: progress, and nap when
// nothing happened), given the wait's deadline (0: none). A failure ends the wait.
typedef doca_error_t (*sample_wait_step_fn)(void *arg, uint64_t deadline_ns);

// Waits until cond(cond_arg) holds, running step(step_arg, deadline_ns) between the checks.
// DOCA_ERROR_CONNECTION_ABORTED once *abort is set (abort may be NULL), DOCA_ERROR_TIME_OUT once
// sample_now_ns() reaches deadline_ns (0: no deadline), or the first failure of step.
doca_error_t sample_wait_until(bool (*cond)(const void *arg),
			       const void *cond_arg,
			       const bool *abort,
			       uint64_t deadline_ns,
			       sample_wait_step_fn step,
			       void *step_arg);

// The condition "the bool at `flag` is set", for sample_wait_until().
bool sample_flag_is_set(const void *flag);

// Starts a context that starts asynchronously (a client, a consumer): DOCA_SUCCESS when
// doca_ctx_start() said DOCA_ERROR_IN_PROGRESS; anything else is logged as "Cannot start the
// <what>: ..." and returned (DOCA_SUCCESS as DOCA_ERROR_UNEXPECTED).
doca_error_t sample_start_async(struct doca_ctx *ctx, const char *what);

// Stops `ctx` unless it is IDLE, then polls `pe` until *stopped, which the context's state
// callback sets when it reaches IDLE (clients and consumers stop through STOPPING).
void sample_stop_ctx(struct doca_ctx *ctx, struct doca_pe *pe, bool *stopped);

// Destroys the progress engine and closes the representor and the device; NULL ones are skipped,
// failures are logged.
void sample_close(struct doca_pe *pe, struct doca_dev_rep *rep, struct doca_dev *dev);

// The user data of the server (client) context that `connection` belongs to: the samples keep
// their state there. NULL when there is none.
void *sample_server_user_data(struct doca_comch_connection *connection);
void *sample_client_user_data(struct doca_comch_connection *connection);

// Sends `len` bytes of `msg` on the control path: allocates a send task of `server` (or `client`)
// on `connection`, gives it `user_data` and submits it. A failure frees the task and is logged as
// "Cannot allocate <what>: ..." or "Cannot submit <what>: ...". The bytes must stay valid until
// the task completes.
doca_error_t sample_server_send(struct doca_comch_server *server,
				struct doca_comch_connection *connection,
				const void *msg,
				uint32_t len,
				union doca_data user_data,
				const char *what);
doca_error_t sample_client_send(struct doca_comch_client *client,
				struct doca_comch_connection *connection,
				const void *msg,
				uint32_t len,
				union doca_data user_data,
				const char *what);

// Event-driven alternative: sleeps in epoll_wait() on the PE's notification handle.
struct sample_event_loop {
	struct doca_pe *pe;
	int epoll_fd;
	doca_notification_handle_t handle;
	uint64_t wakeups;      // epoll_wait() returned because the handle became readable
	uint64_t timeouts;     // epoll_wait() gave up after SAMPLE_EVENT_TIMEOUT_MS
	uint64_t late_wakeups; // a timeout was followed by work: a notification that never came
};

// Safety net for epoll_wait(): after this long the loop progresses anyway (and counts it).
#define SAMPLE_EVENT_TIMEOUT_MS 1000

doca_error_t sample_event_loop_init(struct sample_event_loop *loop, struct doca_pe *pe);
// Runs until *done: progress until nothing is left, arm, sleep, clear, repeat.
doca_error_t sample_event_loop_run(struct sample_event_loop *loop, const bool *done);
void sample_event_loop_fini(struct sample_event_loop *loop);

#ifdef __cplusplus
}
#endif
