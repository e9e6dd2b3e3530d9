// SPDX-License-Identifier: Apache-2.0
//
// The data-path server's life:
//   1. open the DPU device and the representor, start a Comch server (synchronously) with the
//      consumer events registered, and wait for a client;
//   2. the client says DP_START_MSG on the control path; the server answers the same;
//   3. fast path, receive first: a consumer of our own gets the client's text (printed);
//   4. fast path, then send: a producer writes --text into the client's consumer, whose id came
//      with the new-consumer event;
//   5. the client says DP_STOP_MSG; the server answers it and stops once the answer is sent.
// If the fast path fails, the server tells the client with DP_STOP_MSG and stops.
// Callbacks only record what happened; the server is stopped from the main flow, after the
// consumer and producer are gone.
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "comch_data_path_common.h"
#include "sample_common.h"

DOCA_LOG_REGISTER(DATA_PATH_SERVER::SAMPLE);

#define SERVER_RECV_QUEUE_SIZE 10
#define SERVER_SEND_TASKS      1024
#define RECEIVED_TEXT_MAX      4096 // longest text printed; longer messages are cut when printed

// What a control-path send is for, kept in its task's user data.
enum ctrl_msg_kind {
	CTRL_START_REPLY = 1,
	CTRL_STOP_REPLY,  // the answer to the client's stop
	CTRL_STOP_NOTICE, // the server gives up and tells the client
};

struct dp_server {
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *server;
	struct doca_ctx *ctx;
	struct doca_comch_connection *connection; // the client that sent DP_START_MSG
	struct dp_peer peer;                      // the client's consumer, from the consumer events
	bool started;                             // DP_START_MSG arrived and was answered
	bool stop_requested;                      // DP_STOP_MSG arrived
	bool stop_sent;                           // our DP_STOP_MSG (answer or notice) completed
	bool abort;                               // the exchange cannot go on (fast-path waits end)
	bool done;                                // the server is back in IDLE
	doca_error_t result;                      // first control-path failure
};

static void fail(struct dp_server *s, doca_error_t result)
{
	if (s->result == DOCA_SUCCESS)
		s->result = result;
	s->abort = true;
}

static doca_error_t send_ctrl(struct dp_server *s, const char *msg, enum ctrl_msg_kind kind)
{
	union doca_data user_data = {.u64 = kind};

	return sample_server_send(s->server, s->connection, msg, (uint32_t)strlen(msg), user_data, "a control message");
}

static void
on_ctrl_sent(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct dp_server *s = ctx_user_data.ptr;

	doca_task_free(doca_comch_task_send_as_task(task));
	if (task_user_data.u64 == CTRL_STOP_REPLY || task_user_data.u64 == CTRL_STOP_NOTICE)
		s->stop_sent = true;
}

static void
on_ctrl_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct dp_server *s = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	DOCA_LOG_ERR("A control message could not be sent: %s", doca_error_get_name(status));
	doca_task_free(doca_comch_task_send_as_task(task));
	if (task_user_data.u64 == CTRL_STOP_REPLY || task_user_data.u64 == CTRL_STOP_NOTICE)
		s->stop_sent = true; // nothing more to wait for
	fail(s, status);
}

static void on_message(struct doca_comch_event_msg_recv *event,
		       uint8_t *recv_buffer,
		       uint32_t msg_len,
		       struct doca_comch_connection *connection)
{
	struct dp_server *s = sample_server_user_data(connection);
	doca_error_t result;

	(void)event;
	if (s == NULL)
		return;
	if (s->connection != NULL && connection != s->connection) {
		DOCA_LOG_WARN("A second client sent a message; only one client is served");
		return;
	}
	if (dp_is_msg(recv_buffer, msg_len, DP_START_MSG) && !s->started) {
		DOCA_LOG_INFO("The client asks to start the data-path exchange");
		s->connection = connection;
		result = send_ctrl(s, DP_START_MSG, CTRL_START_REPLY);
		if (result != DOCA_SUCCESS) {
			fail(s, result);
			return;
		}
		s->started = true;
	} else if (dp_is_msg(recv_buffer, msg_len, DP_STOP_MSG) && s->started) {
		DOCA_LOG_INFO("The client asks to stop the data-path exchange");
		s->stop_requested = true;
		s->abort = true;
		result = send_ctrl(s, DP_STOP_MSG, CTRL_STOP_REPLY);
		if (result != DOCA_SUCCESS) {
			s->stop_sent = true;
			fail(s, result);
		}
	} else {
		DOCA_LOG_WARN("Unexpected control message ignored: '%.*s'", (int)msg_len, (const char *)recv_buffer);
	}
}

static void on_connect(struct doca_comch_event_connection_status_changed *event,
		       struct doca_comch_connection *connection,
		       uint8_t change_successful)
{
	(void)event;
	(void)connection;
	if (change_successful)
		DOCA_LOG_INFO("A client connected");
	else
		DOCA_LOG_ERR("A client tried to connect and failed");
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *event,
			  struct doca_comch_connection *connection,
			  uint8_t change_successful)
{
	struct dp_server *s = sample_server_user_data(connection);

	(void)event;
	(void)change_successful;
	if (s == NULL || connection != s->connection)
		return;
	s->connection = NULL;
	if (s->stop_requested)
		return;
	DOCA_LOG_ERR("The client disconnected in the middle of the exchange");
	fail(s, DOCA_ERROR_CONNECTION_ABORTED);
}

static void
on_new_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *connection, uint32_t id)
{
	struct dp_server *s = sample_server_user_data(connection);

	(void)event;
	if (s != NULL)
		dp_peer_consumer_created(&s->peer, id);
}

static void
on_expired_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *connection, uint32_t id)
{
	struct dp_server *s = sample_server_user_data(connection);

	(void)event;
	if (s != NULL)
		dp_peer_consumer_expired(&s->peer, id);
}

static void on_state_changed(const union doca_data user_data,
			     struct doca_ctx *ctx,
			     enum doca_ctx_states prev_state,
			     enum doca_ctx_states next_state)
{
	struct dp_server *s = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("Server stopped");
		s->abort = true;
		s->done = true;
		break;
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_ERR("Server entered STARTING: a server is expected to start synchronously");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("Server is running; waiting for a client");
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("Server is stopping");
		s->abort = true;
		break;
	default:
		break;
	}
}

static doca_error_t create_server(struct dp_server *s, const char *server_name, uint32_t max_msg_size)
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
		result = doca_comch_server_task_send_set_conf(s->server, on_ctrl_sent, on_ctrl_failed,
							      SERVER_SEND_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_msg_recv_register(s->server, on_message);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_connection_status_changed_register(s->server, on_connect,
										    on_disconnect);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_consumer_register(s->server, on_new_consumer, on_expired_consumer);
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

static void teardown(struct dp_server *s)
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

// Steps 3 and 4: receive the client's text, then send ours.
static doca_error_t exchange(struct dp_server *s, const char *text, uint32_t text_len)
{
	char received[RECEIVED_TEXT_MAX];
	size_t received_len = 0;
	struct dp_link link = {
		.dev = s->dev,
		.conn_pe = s->pe,
		.connection = s->connection,
		.peer = &s->peer,
		.abort = &s->abort,
	};
	doca_error_t result;

	result = dp_receive_one(&link, received, sizeof(received), &received_len);
	if (result != DOCA_SUCCESS)
		return result;
	DOCA_LOG_INFO("Client says (fast path): '%s'", received);
	if (received_len >= sizeof(received))
		DOCA_LOG_INFO("(the message had %zu bytes; only the first %zu are shown)", received_len,
			      sizeof(received) - 1);

	return dp_send_one(&link, text, text_len);
}

doca_error_t run_data_path_server(
	const char *server_name, const char *pci_addr, const char *rep_pci_addr, const char *text, uint32_t text_len)
{
	struct dp_server s;
	struct dp_link ctrl_link;
	uint32_t max_msg_size = 0;
	doca_error_t result;

	memset(&s, 0, sizeof(s));
	s.result = DOCA_SUCCESS;
	if (text_len == 0) {
		DOCA_LOG_ERR("The text to send must not be empty");
		return DOCA_ERROR_INVALID_VALUE;
	}

	result = sample_open_dev_by_pci(pci_addr, &s.dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_open_rep_by_pci(s.dev, rep_pci_addr, &s.rep);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_check_msg_len(s.dev, text_len, &max_msg_size);
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

	// Step 2: however long it takes a client to come.
	while (!s.started && !s.done) {
		if (doca_pe_progress(s.pe) == 0)
			sample_nap(0);
	}
	if (!s.started) {
		result = s.result != DOCA_SUCCESS ? s.result : DOCA_ERROR_NOT_CONNECTED;
		goto out;
	}

	result = exchange(&s, text, text_len);

	// Step 5. After a failure, the server closes the exchange itself so the client does not wait.
	ctrl_link = (struct dp_link){.conn_pe = s.pe, .abort = &s.abort};
	if (result == DOCA_SUCCESS) // (abort is raised by the stop message too, but the flag is checked first)
		result = dp_wait(&ctrl_link, NULL, &s.stop_requested, "the client's stop message");
	ctrl_link.abort = NULL;
	if (!s.stop_requested && s.connection != NULL) {
		DOCA_LOG_ERR("The exchange failed; telling the client");
		if (send_ctrl(&s, DP_STOP_MSG, CTRL_STOP_NOTICE) != DOCA_SUCCESS)
			s.stop_sent = true;
	} else if (!s.stop_requested) {
		s.stop_sent = true; // nobody left to tell
	}
	// Stopping drains submitted messages anyway; waiting here also catches their failures.
	(void)dp_wait(&ctrl_link, NULL, &s.stop_sent, "the last control message to be sent");
	if (result == DOCA_SUCCESS)
		result = s.result;

out:
	teardown(&s);
	return result;
}
