// SPDX-License-Identifier: Apache-2.0
//
// The client's life: open the host device, create a Comch client on a progress engine and
// start it. A client starts asynchronously (doca_ctx_start returns DOCA_ERROR_IN_PROGRESS and
// the context waits in STARTING until the server accepts it). Then, from the callbacks:
//   RUNNING -> send the text -> the server's answer arrives -> stop -> IDLE ends the loop.
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

DOCA_LOG_REGISTER(CTRL_PATH_CLIENT::SAMPLE);

#define CLIENT_RECV_QUEUE_SIZE 10   // messages the client can hold before the server must wait
#define CLIENT_SEND_TASKS      1024 // size of the send task pool

struct ctrl_client {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_comch_client *client;
	struct doca_ctx *ctx;
	const char *text; // what the client sends
	uint32_t text_len;
	bool sent;           // the send task completed successfully
	bool answered;       // the server's answer arrived
	bool done;           // the client is back in IDLE: the loop may end
	doca_error_t result; // first failure seen, DOCA_SUCCESS otherwise
};

static void fail(struct ctrl_client *c, doca_error_t result)
{
	if (c->result == DOCA_SUCCESS)
		c->result = result;
	(void)doca_ctx_stop(c->ctx);
}

static void on_sent(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ctrl_client *c = ctx_user_data.ptr;

	(void)task_user_data;
	DOCA_LOG_INFO("Message sent");
	c->sent = true;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
on_send_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ctrl_client *c = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	(void)task_user_data;
	DOCA_LOG_ERR("The message could not be sent: %s", doca_error_get_name(status));
	doca_task_free(doca_comch_task_send_as_task(task));
	fail(c, status);
}

static void on_message(struct doca_comch_event_msg_recv *event,
		       uint8_t *recv_buffer,
		       uint32_t msg_len,
		       struct doca_comch_connection *connection)
{
	struct ctrl_client *c = doca_comch_connection_get_user_data(connection).ptr;

	(void)event;
	if (c == NULL)
		return;
	DOCA_LOG_INFO("Server replied: '%.*s'", (int)msg_len, (const char *)recv_buffer);
	c->answered = true;
	(void)doca_ctx_stop(c->ctx);
}

// Called once the client is RUNNING, i.e. connected.
static doca_error_t send_text(struct ctrl_client *c)
{
	struct doca_comch_connection *connection;
	union doca_data user_data = {.ptr = c};
	union doca_data no_user_data = {.u64 = 0};
	doca_error_t result;

	result = doca_comch_client_get_connection(c->client, &connection);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot get the connection: %s", doca_error_get_name(result));
		return result;
	}
	// The receive callback finds the sample state through the connection.
	result = doca_comch_connection_set_user_data(connection, user_data);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot set the connection user data: %s", doca_error_get_name(result));
		return result;
	}
	return sample_client_send(c->client, connection, c->text, c->text_len, no_user_data, "the send task");
}

static void on_state_changed(const union doca_data user_data,
			     struct doca_ctx *ctx,
			     enum doca_ctx_states prev_state,
			     enum doca_ctx_states next_state)
{
	struct ctrl_client *c = user_data.ptr;
	doca_error_t result;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("Client stopped");
		c->done = true;
		break;
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_INFO("Client is starting; waiting for the server to accept the connection");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("Client is connected; sending the message");
		result = send_text(c);
		if (result != DOCA_SUCCESS)
			fail(c, result);
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("Client is stopping; closing the connection");
		break;
	default:
		break;
	}
}

static void teardown(struct ctrl_client *c)
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

// Creates and configures the client; it is left IDLE.
static doca_error_t create_client(struct ctrl_client *c, const char *server_name, uint32_t max_msg_size)
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
		result = doca_comch_client_task_send_set_conf(c->client, on_sent, on_send_failed, CLIENT_SEND_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_event_msg_recv_register(c->client, on_message);
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

doca_error_t run_ctrl_path_client(const char *server_name, const char *pci_addr, const char *text, uint32_t text_len)
{
	struct ctrl_client c;
	uint32_t max_msg_size = 0;
	doca_error_t result;

	memset(&c, 0, sizeof(c));
	c.text = text;
	c.text_len = text_len;
	c.result = DOCA_SUCCESS;

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

	sample_poll_until(c.pe, &c.done);

	result = c.result;
	if (result == DOCA_SUCCESS && !(c.sent && c.answered)) {
		DOCA_LOG_ERR("The client stopped before %s", c.sent ? "the server answered" : "its message was sent");
		result = DOCA_ERROR_NOT_CONNECTED;
	}

out:
	teardown(&c);
	return result;
}
