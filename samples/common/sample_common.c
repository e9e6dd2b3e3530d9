// SPDX-License-Identifier: Apache-2.0
#include "sample_common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_log.h>

DOCA_LOG_REGISTER(SAMPLES::COMMON);

uint64_t sample_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t sample_deadline_ms(uint64_t timeout_ms)
{
	return timeout_ms ? sample_now_ns() + timeout_ms * 1000000ull : 0;
}

void sample_nap(uint64_t max_ns)
{
	uint64_t ns = SAMPLE_IDLE_SLEEP_NS;
	struct timespec nap;

	if (max_ns != 0 && max_ns < ns)
		ns = max_ns;
	nap.tv_sec = 0;
	nap.tv_nsec = (long)ns;
	nanosleep(&nap, NULL);
}

doca_error_t sample_logging_init(void)
{
	struct doca_log_backend *sdk_backend = NULL;
	doca_error_t result;

	result = doca_log_backend_create_standard();
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_log_backend_create_with_file_sdk(stderr, &sdk_backend);
	if (result != DOCA_SUCCESS)
		return result;
	return doca_log_backend_set_sdk_level(sdk_backend, DOCA_LOG_LEVEL_WARNING);
}

// Logs the PCI addresses of the devices this process can see, to help with a mistyped -p.
static void log_available_devices(struct doca_devinfo **list, uint32_t count)
{
	char addr[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint32_t i;

	if (count == 0) {
		DOCA_LOG_ERR("This process sees no device at all");
		return;
	}
	for (i = 0; i < count; i++) {
		if (doca_devinfo_get_pci_addr_str(list[i], addr) == DOCA_SUCCESS)
			DOCA_LOG_ERR("  available device: %s", addr);
	}
}

doca_error_t sample_open_dev_by_pci(const char *pci_addr, struct doca_dev **dev)
{
	struct doca_devinfo **list = NULL;
	uint32_t count = 0;
	uint32_t i;
	uint8_t match;
	doca_error_t result;

	result = doca_devinfo_create_list(&list, &count);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot list the devices: %s", doca_error_get_descr(result));
		return result;
	}

	result = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < count; i++) {
		match = 0;
		if (doca_devinfo_is_equal_pci_addr(list[i], pci_addr, &match) != DOCA_SUCCESS || !match)
			continue;
		result = doca_dev_open(list[i], dev);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot open the device at %s: %s", pci_addr, doca_error_get_descr(result));
		break;
	}
	if (result == DOCA_ERROR_NOT_FOUND) {
		DOCA_LOG_ERR("No device has the PCI address %s", pci_addr);
		log_available_devices(list, count);
	}

	doca_devinfo_destroy_list(list);
	return result;
}

doca_error_t sample_open_rep_by_pci(struct doca_dev *dev, const char *rep_pci_addr, struct doca_dev_rep **rep)
{
	struct doca_devinfo_rep **list = NULL;
	char addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	uint32_t count = 0;
	uint32_t i;
	uint8_t match;
	doca_error_t result;

	result = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &count);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot list representors (%s): representors exist only on the DPU side",
			     doca_error_get_descr(result));
		return DOCA_ERROR_INVALID_VALUE;
	}

	result = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < count; i++) {
		match = 0;
		if (doca_devinfo_rep_is_equal_pci_addr(list[i], rep_pci_addr, &match) != DOCA_SUCCESS || !match)
			continue;
		result = doca_dev_rep_open(list[i], rep);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot open the representor of %s: %s", rep_pci_addr,
				     doca_error_get_descr(result));
		break;
	}
	if (result == DOCA_ERROR_NOT_FOUND) {
		DOCA_LOG_ERR("No representor of this device stands for the host function %s", rep_pci_addr);
		for (i = 0; i < count; i++) {
			if (doca_devinfo_rep_get_pci_addr_str(list[i], addr) == DOCA_SUCCESS)
				DOCA_LOG_ERR("  available representor: %s", addr);
		}
	}

	doca_devinfo_rep_destroy_list(list);
	return result;
}

doca_error_t sample_check_msg_len(struct doca_dev *dev, size_t len, uint32_t *max_msg_size)
{
	uint32_t max = 0;
	doca_error_t result;

	result = doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dev), &max);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot read the maximum message size: %s", doca_error_get_descr(result));
		return result;
	}
	if (max_msg_size != NULL)
		*max_msg_size = max;
	if (len > max) {
		DOCA_LOG_ERR("A message of %zu bytes is larger than the device allows (%u bytes)", len, max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

void sample_poll_until(struct doca_pe *pe, const bool *done)
{
	while (!*done) {
		if (doca_pe_progress(pe) == 0)
			sample_nap(0);
	}
}

doca_error_t sample_wait_until(bool (*cond)(const void *arg),
			       const void *cond_arg,
			       const bool *abort,
			       uint64_t deadline_ns,
			       sample_wait_step_fn step,
			       void *step_arg)
{
	doca_error_t result;

	while (!cond(cond_arg)) {
		if (abort != NULL && *abort)
			return DOCA_ERROR_CONNECTION_ABORTED;
		if (deadline_ns != 0 && sample_now_ns() >= deadline_ns)
			return DOCA_ERROR_TIME_OUT;
		result = step(step_arg, deadline_ns);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return DOCA_SUCCESS;
}

bool sample_flag_is_set(const void *flag)
{
	return *(const bool *)flag;
}

doca_error_t sample_start_async(struct doca_ctx *ctx, const char *what)
{
	doca_error_t result = doca_ctx_start(ctx);

	if (result == DOCA_ERROR_IN_PROGRESS)
		return DOCA_SUCCESS;
	DOCA_LOG_ERR("Cannot start the %s: %s (expected DOCA_ERROR_IN_PROGRESS)", what, doca_error_get_name(result));
	return result == DOCA_SUCCESS ? DOCA_ERROR_UNEXPECTED : result;
}

void sample_stop_ctx(struct doca_ctx *ctx, struct doca_pe *pe, bool *stopped)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

	if (doca_ctx_get_state(ctx, &state) != DOCA_SUCCESS || state == DOCA_CTX_STATE_IDLE)
		return;
	*stopped = false;
	if (doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS)
		sample_poll_until(pe, stopped);
}

void sample_close(struct doca_pe *pe, struct doca_dev_rep *rep, struct doca_dev *dev)
{
	doca_error_t result;

	if (pe != NULL && (result = doca_pe_destroy(pe)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot destroy the progress engine: %s", doca_error_get_name(result));
	if (rep != NULL && (result = doca_dev_rep_close(rep)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot close the representor: %s", doca_error_get_name(result));
	if (dev != NULL && (result = doca_dev_close(dev)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot close the device: %s", doca_error_get_name(result));
}

void *sample_server_user_data(struct doca_comch_connection *connection)
{
	union doca_data user_data = {.ptr = NULL};
	struct doca_comch_server *server = doca_comch_server_get_server_ctx(connection);

	if (server == NULL || doca_ctx_get_user_data(doca_comch_server_as_ctx(server), &user_data) != DOCA_SUCCESS)
		return NULL;
	return user_data.ptr;
}

void *sample_client_user_data(struct doca_comch_connection *connection)
{
	union doca_data user_data = {.ptr = NULL};
	struct doca_comch_client *client = doca_comch_client_get_client_ctx(connection);

	if (client == NULL || doca_ctx_get_user_data(doca_comch_client_as_ctx(client), &user_data) != DOCA_SUCCESS)
		return NULL;
	return user_data.ptr;
}

// The second half of sample_server_send() and sample_client_send(), after the allocation that
// returned `alloc_result`: gives the task its user data and submits it; frees it when that fails.
static doca_error_t
submit_send(doca_error_t alloc_result, struct doca_comch_task_send *task, union doca_data user_data, const char *what)
{
	struct doca_task *as_task;
	doca_error_t result;

	if (alloc_result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot allocate %s: %s", what, doca_error_get_name(alloc_result));
		return alloc_result;
	}
	as_task = doca_comch_task_send_as_task(task);
	doca_task_set_user_data(as_task, user_data);
	result = doca_task_submit(as_task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot submit %s: %s", what, doca_error_get_name(result));
		doca_task_free(as_task);
	}
	return result;
}

doca_error_t sample_server_send(struct doca_comch_server *server,
				struct doca_comch_connection *connection,
				const void *msg,
				uint32_t len,
				union doca_data user_data,
				const char *what)
{
	struct doca_comch_task_send *task = NULL;
	doca_error_t result = doca_comch_server_task_send_alloc_init(server, connection, msg, len, &task);

	return submit_send(result, task, user_data, what);
}

doca_error_t sample_client_send(struct doca_comch_client *client,
				struct doca_comch_connection *connection,
				const void *msg,
				uint32_t len,
				union doca_data user_data,
				const char *what)
{
	struct doca_comch_task_send *task = NULL;
	doca_error_t result = doca_comch_client_task_send_alloc_init(client, connection, msg, len, &task);

	return submit_send(result, task, user_data, what);
}

doca_error_t sample_event_loop_init(struct sample_event_loop *loop, struct doca_pe *pe)
{
	struct epoll_event ev;
	doca_error_t result;

	memset(loop, 0, sizeof(*loop));
	loop->pe = pe;
	loop->epoll_fd = -1;

	result = doca_pe_get_notification_handle(pe, &loop->handle);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot get the notification handle of the PE: %s", doca_error_get_descr(result));
		return result;
	}
	loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epoll_fd < 0) {
		DOCA_LOG_ERR("epoll_create1 failed: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	if (epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, loop->handle, &ev) != 0) {
		DOCA_LOG_ERR("Cannot watch the notification handle: %s", strerror(errno));
		close(loop->epoll_fd);
		loop->epoll_fd = -1;
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return DOCA_SUCCESS;
}

doca_error_t sample_event_loop_run(struct sample_event_loop *loop, const bool *done)
{
	struct epoll_event ev;
	bool after_timeout = false;
	doca_error_t result;
	int n;

	while (!*done) {
		// Deliver everything that is ready before going to sleep.
		if (doca_pe_progress(loop->pe) != 0) {
			if (after_timeout)
				loop->late_wakeups++;
			after_timeout = false;
			continue;
		}
		after_timeout = false;
		if (*done)
			break;

		// Arming leaves the handle readable if work is already pending, so nothing is lost
		// between the last progress call and epoll_wait().
		result = doca_pe_request_notification(loop->pe);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot arm the PE notification: %s", doca_error_get_descr(result));
			return result;
		}
		n = epoll_wait(loop->epoll_fd, &ev, 1, SAMPLE_EVENT_TIMEOUT_MS);
		if (n < 0 && errno != EINTR) {
			DOCA_LOG_ERR("epoll_wait failed: %s", strerror(errno));
			return DOCA_ERROR_OPERATING_SYSTEM;
		}
		if (n > 0) {
			loop->wakeups++;
		} else if (n == 0) {
			loop->timeouts++;
			after_timeout = true;
		}
		result = doca_pe_clear_notification(loop->pe, loop->handle);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot clear the PE notification: %s", doca_error_get_descr(result));
			return result;
		}
	}
	return DOCA_SUCCESS;
}

void sample_event_loop_fini(struct sample_event_loop *loop)
{
	if (loop->epoll_fd >= 0)
		close(loop->epoll_fd);
	loop->epoll_fd = -1;
}
