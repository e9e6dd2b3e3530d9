// SPDX-License-Identifier: Apache-2.0
//
// Small helpers shared by the SoftComch samples: logging set-up, opening a device or a
// representor by PCI address, checking a message against the device's size limit, and the
// loops that drive a progress engine (busy polling, or sleeping on the PE's notification fd).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#ifdef __cplusplus
extern "C" {
#endif

// How long the polling loop sleeps after a doca_pe_progress() call that found nothing to do.
#define SAMPLE_IDLE_SLEEP_NS 10000

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

// Stops `ctx` unless it is IDLE, then polls `pe` until *stopped, which the context's state
// callback sets when it reaches IDLE (clients and consumers stop through STOPPING).
void sample_stop_ctx(struct doca_ctx *ctx, struct doca_pe *pe, bool *stopped);

// Destroys the progress engine and closes the representor and the device; NULL ones are skipped,
// failures are logged.
void sample_close(struct doca_pe *pe, struct doca_dev_rep *rep, struct doca_dev *dev);

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
