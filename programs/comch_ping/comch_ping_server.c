// SPDX-License-Identifier: Apache-2.0
//
// Server side of comch_ping: echoes every message back on the connection it came from, after
// checking it. It stops once it has echoed the whole run (the count is in every message) or the
// client left after sending all of it, and with an error if the client goes away before that.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "comch_ping.h"
#include "sample_common.h"

DOCA_LOG_REGISTER(COMCH_PING::SERVER);

#define PING_RECV_QUEUE_SIZE   16
#define PING_SEND_TASKS        64
#define PING_MAX_LOGGED_ERRORS 10

struct ping_server {
	const struct ping_config *cfg;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *server;
	struct doca_ctx *ctx;
	struct doca_comch_connection *peer; // the client being served (the first one to send)
	uint32_t expected_seq;
	uint32_t count; // run length, learned from the messages (0 until the first one)
	uint32_t size;  // size of the last message
	uint32_t received;
	uint32_t echoed; // echo sends completed successfully
	uint32_t errors; // messages that failed verification, plus refused extra clients
	bool finished;   // the whole run was echoed
	bool done;       // back in IDLE
	doca_error_t result;
};

static void stop_with(struct ping_server *s, doca_error_t result)
{
	if (s->result == DOCA_SUCCESS)
		s->result = result;
	(void)doca_ctx_stop(s->ctx);
}

static void on_state_changed(const union doca_data user_data,
			     struct doca_ctx *ctx,
			     enum doca_ctx_states prev_state,
			     enum doca_ctx_states next_state)
{
	struct ping_server *s = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	if (next_state == DOCA_CTX_STATE_IDLE)
		s->done = true;
	else if (next_state == DOCA_CTX_STATE_RUNNING)
		DOCA_LOG_INFO("Server '%s' is listening", s->cfg->args.name);
}

static void on_connect(struct doca_comch_event_connection_status_changed *event,
		       struct doca_comch_connection *connection,
		       uint8_t change_successful)
{
	struct ping_server *s = sample_server_user_data(connection);

	(void)event;
	if (s == NULL)
		return;
	if (!change_successful)
		DOCA_LOG_WARN("A client failed to connect");
	else
		DOCA_LOG_INFO("Client connected");
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *event,
			  struct doca_comch_connection *connection,
			  uint8_t change_successful)
{
	struct ping_server *s = sample_server_user_data(connection);

	(void)event;
	(void)change_successful;
	if (s == NULL || connection != s->peer || s->finished)
		return;
	s->peer = NULL;
	// The client leaves once it has every echo, and its disconnect may be reported before the
	// completion of the last echo's send: having received the whole run is what counts.
	if (s->count != 0 && s->received >= s->count) {
		DOCA_LOG_INFO("The client left after the last message");
		s->finished = true;
		stop_with(s, s->errors == 0 ? DOCA_SUCCESS : DOCA_ERROR_UNEXPECTED);
		return;
	}
	DOCA_LOG_ERR("The client went away after %u of %u messages", s->received, s->count);
	stop_with(s, DOCA_ERROR_CONNECTION_ABORTED);
}

static void
on_echo_sent(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ping_server *s = ctx_user_data.ptr;

	free(task_user_data.ptr);
	doca_task_free(doca_comch_task_send_as_task(task));
	s->echoed++;
	if (s->count != 0 && s->echoed == s->count && !s->finished) {
		s->finished = true;
		stop_with(s, s->errors == 0 ? DOCA_SUCCESS : DOCA_ERROR_UNEXPECTED);
	}
}

static void
on_echo_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ping_server *s = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	free(task_user_data.ptr);
	doca_task_free(doca_comch_task_send_as_task(task));
	if (s->finished) {
		// The client already left with everything it asked for.
		DOCA_LOG_INFO("An echo was dropped after the client left: %s", doca_error_get_name(status));
		return;
	}
	DOCA_LOG_ERR("An echo could not be sent: %s", doca_error_get_name(status));
	stop_with(s, status);
}

static doca_error_t
echo(struct ping_server *s, struct doca_comch_connection *connection, const uint8_t *msg, uint32_t len)
{
	union doca_data user_data;
	doca_error_t result;
	// The receive buffer is only ours during the callback; the send needs its bytes until
	// it completes.
	uint8_t *copy = malloc(len > 0 ? len : 1);

	if (copy == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memcpy(copy, msg, len);
	user_data.ptr = copy;
	result = sample_server_send(s->server, connection, copy, len, user_data, "an echo task");
	if (result != DOCA_SUCCESS)
		free(copy);
	return result;
}

static void on_message(struct doca_comch_event_msg_recv *event,
		       uint8_t *recv_buffer,
		       uint32_t msg_len,
		       struct doca_comch_connection *connection)
{
	struct ping_server *s = sample_server_user_data(connection);
	struct ping_header hdr;
	const char *problem;
	doca_error_t result;

	(void)event;
	if (s == NULL || s->finished)
		return;
	if (s->peer == NULL) {
		s->peer = connection;
	} else if (connection != s->peer) {
		DOCA_LOG_WARN("A second client sent a message; only one client is served");
		s->errors++;
		return;
	}

	s->received++;
	s->size = msg_len;
	memset(&hdr, 0, sizeof(hdr));
	problem = ping_verify(recv_buffer, msg_len, s->expected_seq, &hdr);
	if (problem != NULL) {
		if (s->errors++ < PING_MAX_LOGGED_ERRORS)
			DOCA_LOG_ERR("Message #%u (expected seq %u): %s", s->received, s->expected_seq, problem);
	}
	if (hdr.magic == PING_MAGIC && hdr.size == msg_len) {
		s->expected_seq = hdr.seq + 1;
		if (s->count == 0)
			s->count = hdr.count;
	} else {
		s->expected_seq++;
	}

	// Echo even a damaged message: the client checks it too and counts the failure.
	result = echo(s, connection, recv_buffer, msg_len);
	if (result != DOCA_SUCCESS)
		stop_with(s, result);
}

static doca_error_t create_server(struct ping_server *s, uint32_t max_msg_size)
{
	union doca_data user_data = {.ptr = s};
	doca_error_t result;

	result = doca_pe_create(&s->pe);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_comch_server_create(s->dev, s->rep, s->cfg->args.name, &s->server);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the server '%s': %s", s->cfg->args.name, doca_error_get_name(result));
		s->server = NULL;
		return result;
	}
	s->ctx = doca_comch_server_as_ctx(s->server);
	result = doca_pe_connect_ctx(s->pe, s->ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(s->ctx, on_state_changed);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_task_send_set_conf(s->server, on_echo_sent, on_echo_failed, PING_SEND_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_msg_recv_register(s->server, on_message);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_connection_status_changed_register(s->server, on_connect,
										    on_disconnect);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_set_max_msg_size(s->server, max_msg_size);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_set_recv_queue_size(s->server, PING_RECV_QUEUE_SIZE);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(s->ctx, user_data);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot configure the server: %s", doca_error_get_name(result));
	return result;
}

static void teardown(struct ping_server *s)
{
	if (s->server != NULL) {
		sample_stop_ctx(s->ctx, s->pe, &s->done);
		if (doca_comch_server_destroy(s->server) != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the server");
	}
	sample_close(s->pe, s->rep, s->dev);
}

doca_error_t ping_run_server(const struct ping_config *cfg)
{
	struct ping_server s;
	struct sample_event_loop loop_stats;
	uint32_t max_msg_size = 0;
	doca_error_t result;

	memset(&s, 0, sizeof(s));
	memset(&loop_stats, 0, sizeof(loop_stats));
	s.cfg = cfg;
	s.result = DOCA_SUCCESS;

	result = sample_open_dev_by_pci(cfg->args.comch.pci_addr, &s.dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_open_rep_by_pci(s.dev, cfg->args.comch.rep_pci_addr, &s.rep);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_check_msg_len(s.dev, PING_MIN_SIZE, &max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;
	result = create_server(&s, max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;
	result = doca_ctx_start(s.ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot start the server: %s", doca_error_get_name(result));
		goto out;
	}

	result = ping_drive(s.pe, cfg->args.use_epoll, &s.done, &loop_stats);
	if (result == DOCA_SUCCESS)
		result = s.result;
	if (result == DOCA_SUCCESS && !s.finished)
		result = DOCA_ERROR_UNEXPECTED;

	printf("comch_ping server: %u messages received, %u echoed, %u errors\n", s.received, s.echoed, s.errors);
	printf("RESULT role=server mode=%s count=%u size=%u received=%u echoed=%u errors=%u"
	       " wakeups=%llu timeouts=%llu late_wakeups=%llu\n",
	       program_mode_name(&cfg->args), s.count, s.size, s.received, s.echoed, s.errors,
	       (unsigned long long)loop_stats.wakeups, (unsigned long long)loop_stats.timeouts,
	       (unsigned long long)loop_stats.late_wakeups);
	fflush(stdout);

out:
	teardown(&s);
	return result;
}
