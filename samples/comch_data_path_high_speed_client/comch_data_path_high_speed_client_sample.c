// SPDX-License-Identifier: Apache-2.0
//
// The data-path client's life:
//   1. open the host device and start a Comch client with the consumer events registered; it
//      starts asynchronously (DOCA_ERROR_IN_PROGRESS) and is RUNNING once the server accepted it;
//   2. say DP_START_MSG on the control path and wait for the server to answer the same;
//   3. fast path, send first: a producer writes --text into the server's consumer, whose id came
//      with the new-consumer event;
//   4. fast path, then receive: a consumer of our own gets the server's text (printed);
//   5. say DP_STOP_MSG, wait for the server's answer, stop.
// Callbacks only record what happened; the client is stopped from the main flow, after the
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

DOCA_LOG_REGISTER(DATA_PATH_CLIENT::SAMPLE);

#define CLIENT_RECV_QUEUE_SIZE 10
#define CLIENT_SEND_TASKS      1024
#define RECEIVED_TEXT_MAX      4096 // longest text printed; longer messages are cut when printed

struct dp_client {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_comch_client *client;
	struct doca_ctx *ctx;
	struct doca_comch_connection *connection;
	struct dp_peer peer; // the server's consumer, from the consumer events
	bool connected;      // the client reached RUNNING
	bool started;        // the server answered DP_START_MSG
	bool stop_sent;      // we said DP_STOP_MSG
	bool stop_received;  // the server said DP_STOP_MSG (an answer, or a notice that it gave up)
	bool abort;          // the exchange cannot go on (fast-path waits end)
	bool done;           // the client is back in IDLE
	doca_error_t result; // first control-path failure
};

static void fail(struct dp_client *c, doca_error_t result)
{
	if (c->result == DOCA_SUCCESS)
		c->result = result;
	c->abort = true;
}

static doca_error_t send_ctrl(struct dp_client *c, const char *msg)
{
	union doca_data no_user_data = {.u64 = 0};

	return sample_client_send(c->client, c->connection, msg, (uint32_t)strlen(msg), no_user_data,
				  "a control message");
}

static void
on_ctrl_sent(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	(void)ctx_user_data;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
on_ctrl_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct dp_client *c = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	(void)task_user_data;
	DOCA_LOG_ERR("A control message could not be sent: %s", doca_error_get_name(status));
	doca_task_free(doca_comch_task_send_as_task(task));
	fail(c, status);
}

static void on_message(struct doca_comch_event_msg_recv *event,
		       uint8_t *recv_buffer,
		       uint32_t msg_len,
		       struct doca_comch_connection *connection)
{
	struct dp_client *c = sample_client_user_data(connection);

	(void)event;
	if (c == NULL)
		return;
	if (dp_is_msg(recv_buffer, msg_len, DP_START_MSG)) {
		DOCA_LOG_INFO("The server agreed to start the data-path exchange");
		c->started = true;
	} else if (dp_is_msg(recv_buffer, msg_len, DP_STOP_MSG)) {
		c->stop_received = true;
		c->abort = true;
		if (c->stop_sent) {
			DOCA_LOG_INFO("The server confirmed the end of the exchange");
		} else {
			DOCA_LOG_ERR("The server ended the exchange early");
			fail(c, DOCA_ERROR_CONNECTION_ABORTED);
		}
	} else {
		DOCA_LOG_WARN("Unexpected control message ignored: '%.*s'", (int)msg_len, (const char *)recv_buffer);
	}
}

static void
on_new_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *connection, uint32_t id)
{
	struct dp_client *c = sample_client_user_data(connection);

	(void)event;
	if (c != NULL)
		dp_peer_consumer_created(&c->peer, id);
}

static void
on_expired_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *connection, uint32_t id)
{
	struct dp_client *c = sample_client_user_data(connection);

	(void)event;
	if (c != NULL)
		dp_peer_consumer_expired(&c->peer, id);
}

static void on_state_changed(const union doca_data user_data,
			     struct doca_ctx *ctx,
			     enum doca_ctx_states prev_state,
			     enum doca_ctx_states next_state)
{
	struct dp_client *c = user_data.ptr;
	doca_error_t result;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("Client stopped");
		c->abort = true;
		c->done = true;
		break;
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_INFO("Client is starting; waiting for the server to accept the connection");
		break;
	case DOCA_CTX_STATE_RUNNING:
		result = doca_comch_client_get_connection(c->client, &c->connection);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot get the connection: %s", doca_error_get_name(result));
			fail(c, result);
			break;
		}
		DOCA_LOG_INFO("Client is connected");
		c->connected = true;
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("Client is stopping");
		c->abort = true;
		break;
	default:
		break;
	}
}

static doca_error_t create_client(struct dp_client *c, const char *server_name, uint32_t max_msg_size)
{
	union doca_data user_data = {.ptr = c};
	doca_error_t result;

	result = doca_pe_create(&c->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a progress engine: %s", doca_error_get_name(result));
		return result;
	}
	result = doca_comch_client_create(c->dev, server_name, &c->client);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a client for the server '%s': %s", server_name,
			     doca_error_get_name(result));
		c->client = NULL;
		return result;
	}
	c->ctx = doca_comch_client_as_ctx(c->client);

	result = doca_pe_connect_ctx(c->pe, c->ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(c->ctx, on_state_changed);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_task_send_set_conf(c->client, on_ctrl_sent, on_ctrl_failed,
							      CLIENT_SEND_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_event_msg_recv_register(c->client, on_message);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_event_consumer_register(c->client, on_new_consumer, on_expired_consumer);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_set_max_msg_size(c->client, max_msg_size);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_set_recv_queue_size(c->client, CLIENT_RECV_QUEUE_SIZE);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(c->ctx, user_data);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot configure the client: %s", doca_error_get_name(result));
	return result;
}

static void teardown(struct dp_client *c)
{
	doca_error_t result;

	if (c->client != NULL) {
		sample_stop_ctx(c->ctx, c->pe, &c->done);
		result = doca_comch_client_destroy(c->client);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the client: %s", doca_error_get_name(result));
	}
	sample_close(c->pe, NULL, c->dev);
}

// Steps 2 to 4: agree to start, send our text, receive the server's.
static doca_error_t exchange(struct dp_client *c, const char *text, uint32_t text_len)
{
	char received[RECEIVED_TEXT_MAX];
	size_t received_len = 0;
	struct dp_link link = {
		.dev = c->dev,
		.conn_pe = c->pe,
		.connection = c->connection,
		.peer = &c->peer,
		.abort = &c->abort,
	};
	doca_error_t result;

	result = send_ctrl(c, DP_START_MSG);
	if (result == DOCA_SUCCESS)
		result = dp_wait(&link, NULL, &c->started, "the server to agree to start");
	if (result != DOCA_SUCCESS)
		return result;

	result = dp_send_one(&link, text, text_len);
	if (result != DOCA_SUCCESS)
		return result;

	result = dp_receive_one(&link, received, sizeof(received), &received_len);
	if (result != DOCA_SUCCESS)
		return result;
	DOCA_LOG_INFO("Server says (fast path): '%s'", received);
	if (received_len >= sizeof(received))
		DOCA_LOG_INFO("(the message had %zu bytes; only the first %zu are shown)", received_len,
			      sizeof(received) - 1);
	return DOCA_SUCCESS;
}

doca_error_t run_data_path_client(const char *server_name, const char *pci_addr, const char *text, uint32_t text_len)
{
	struct dp_link ctrl_link;
	struct dp_client c;
	uint32_t max_msg_size = 0;
	doca_error_t result;

	memset(&c, 0, sizeof(c));
	c.result = DOCA_SUCCESS;
	if (text_len == 0) {
		DOCA_LOG_ERR("The text to send must not be empty");
		return DOCA_ERROR_INVALID_VALUE;
	}

	result = sample_open_dev_by_pci(pci_addr, &c.dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_check_msg_len(c.dev, text_len, &max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;
	result = create_client(&c, server_name, max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;

	// A client connects in the background: anything but IN_PROGRESS is a failure.
	result = sample_start_async(c.ctx, "client");
	if (result != DOCA_SUCCESS)
		goto out;

	// Step 1: however long the server takes to accept us.
	while (!c.connected && !c.done && c.result == DOCA_SUCCESS) {
		if (doca_pe_progress(c.pe) == 0)
			sample_nap(0);
	}
	if (!c.connected) {
		DOCA_LOG_ERR("The client stopped before it was connected");
		result = c.result != DOCA_SUCCESS ? c.result : DOCA_ERROR_NOT_CONNECTED;
		goto out;
	}

	result = exchange(&c, text, text_len);

	// Step 5, also after a failure, unless the server already closed the exchange.
	ctrl_link = (struct dp_link){.conn_pe = c.pe};
	if (!c.stop_received && !c.done) {
		if (send_ctrl(&c, DP_STOP_MSG) == DOCA_SUCCESS) {
			c.stop_sent = true;
			if (dp_wait(&ctrl_link, NULL, &c.stop_received, "the server to confirm the end") !=
				    DOCA_SUCCESS &&
			    result == DOCA_SUCCESS)
				result = DOCA_ERROR_TIME_OUT;
		}
	}
	if (result == DOCA_SUCCESS)
		result = c.result;

out:
	teardown(&c);
	return result;
}
