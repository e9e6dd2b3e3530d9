// SPDX-License-Identifier: Apache-2.0
//
// The server's life: open the DPU device and the representor of the host function to serve,
// create a Comch server on a progress engine, start it (a server starts synchronously), then
// let the callbacks do the work while the main loop progresses the engine:
//   client connects -> its message arrives -> the reply is submitted -> the reply's send
//   completes -> the server stops -> IDLE ends the loop.
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(CTRL_PATH_SERVER::SAMPLE);

#define SERVER_RECV_QUEUE_SIZE 10   // messages the server can hold before the client must wait
#define SERVER_SEND_TASKS      1024 // size of the send task pool

// The sample state; every callback reaches it through the server context's user data
// (sample_server_user_data()).
struct ctrl_server {
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *server;
	struct doca_ctx *ctx;
	const char *reply; // what the server answers with
	uint32_t reply_len;
	uint32_t clients;    // currently connected clients
	bool replied;        // a reply was submitted; later messages are only logged
	bool done;           // the server is back in IDLE: the loop may end
	doca_error_t result; // outcome reported to main()
};

static void finish(struct ctrl_server *s, doca_error_t result)
{
	s->result = result;
	(void)doca_ctx_stop(s->ctx);
}

static void on_state_changed(const union doca_data user_data,
			     struct doca_ctx *ctx,
			     enum doca_ctx_states prev_state,
			     enum doca_ctx_states next_state)
{
	struct ctrl_server *s = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("Server stopped");
		s->done = true;
		break;
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_ERR("Server entered STARTING: a server is expected to start synchronously");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("Server is running; waiting for a client");
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("Server is stopping; closing the client connections");
		break;
	default:
		break;
	}
}

static void on_client_connected(struct doca_comch_event_connection_status_changed *event,
				struct doca_comch_connection *connection,
				uint8_t change_successful)
{
	struct ctrl_server *s = sample_server_user_data(connection);

	(void)event;
	if (s == NULL)
		return;
	if (!change_successful) {
		DOCA_LOG_ERR("A client tried to connect and failed");
		return;
	}
	s->clients++;
	DOCA_LOG_INFO("A client connected (%u connected)", s->clients);
}

static void on_client_disconnected(struct doca_comch_event_connection_status_changed *event,
				   struct doca_comch_connection *connection,
				   uint8_t change_successful)
{
	struct ctrl_server *s = sample_server_user_data(connection);

	(void)event;
	(void)change_successful;
	if (s == NULL)
		return;
	if (s->clients > 0)
		s->clients--;
	DOCA_LOG_INFO("A client disconnected (%u connected)", s->clients);
}

static void
on_reply_sent(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ctrl_server *s = ctx_user_data.ptr;

	(void)task_user_data;
	DOCA_LOG_INFO("Reply sent");
	doca_task_free(doca_comch_task_send_as_task(task));
	finish(s, DOCA_SUCCESS);
}

static void
on_reply_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ctrl_server *s = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	(void)task_user_data;
	DOCA_LOG_ERR("The reply could not be sent: %s", doca_error_get_name(status));
	doca_task_free(doca_comch_task_send_as_task(task));
	finish(s, status);
}

static doca_error_t send_reply(struct ctrl_server *s, struct doca_comch_connection *connection)
{
	union doca_data no_user_data = {.u64 = 0};

	return sample_server_send(s->server, connection, s->reply, s->reply_len, no_user_data, "the reply task");
}

static void on_message(struct doca_comch_event_msg_recv *event,
		       uint8_t *recv_buffer,
		       uint32_t msg_len,
		       struct doca_comch_connection *connection)
{
	struct ctrl_server *s = sample_server_user_data(connection);
	doca_error_t result;

	(void)event;
	if (s == NULL)
		return;
	// The buffer is only valid during this callback: print it now.
	DOCA_LOG_INFO("Client says: '%.*s'", (int)msg_len, (const char *)recv_buffer);
	if (s->replied) {
		DOCA_LOG_WARN("Already answered one message; this one is not answered");
		return;
	}
	s->replied = true;
	result = send_reply(s, connection);
	if (result != DOCA_SUCCESS)
		finish(s, result);
}

// Releases whatever was created, stopping the server first if it is still active.
static void teardown(struct ctrl_server *s)
{
	doca_error_t result;

	if (s->server != NULL) {
		sample_stop_ctx(s->ctx, s->pe, &s->done);
		result = doca_comch_server_destroy(s->server);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the server: %s", doca_error_get_name(result));
	}
	sample_close(s->pe, s->rep, s->dev);
}

// Creates and configures the server; it is left IDLE.
static doca_error_t create_server(struct ctrl_server *s, const char *server_name, uint32_t max_msg_size)
{
	union doca_data user_data = {.ptr = s};
	doca_error_t result;

	result = doca_pe_create(&s->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a progress engine: %s", doca_error_get_name(result));
		return result;
	}
	result = doca_comch_server_create(s->dev, s->rep, server_name, &s->server);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the server '%s': %s", server_name, doca_error_get_name(result));
		s->server = NULL;
		return result;
	}
	s->ctx = doca_comch_server_as_ctx(s->server);

	result = doca_pe_connect_ctx(s->pe, s->ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(s->ctx, on_state_changed);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_task_send_set_conf(s->server, on_reply_sent, on_reply_failed,
							      SERVER_SEND_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_msg_recv_register(s->server, on_message);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_connection_status_changed_register(s->server, on_client_connected,
										    on_client_disconnected);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_set_max_msg_size(s->server, max_msg_size);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_set_recv_queue_size(s->server, SERVER_RECV_QUEUE_SIZE);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(s->ctx, user_data);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot configure the server: %s", doca_error_get_name(result));
	return result;
}

doca_error_t run_ctrl_path_server(
	const char *server_name, const char *pci_addr, const char *rep_pci_addr, const char *reply, uint32_t reply_len)
{
	struct ctrl_server s;
	uint32_t max_msg_size = 0;
	doca_error_t result;

	memset(&s, 0, sizeof(s));
	s.reply = reply;
	s.reply_len = reply_len;
	// Nothing has been answered yet: ending without a client is a failure.
	s.result = DOCA_ERROR_NOT_CONNECTED;

	result = sample_open_dev_by_pci(pci_addr, &s.dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_open_rep_by_pci(s.dev, rep_pci_addr, &s.rep);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_check_msg_len(s.dev, reply_len, &max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;
	result = create_server(&s, server_name, max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;

	result = doca_ctx_start(s.ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot start the server: %s", doca_error_get_name(result));
		goto out;
	}

	sample_poll_until(s.pe, &s.done);
	result = s.result;

out:
	teardown(&s);
	return result;
}
