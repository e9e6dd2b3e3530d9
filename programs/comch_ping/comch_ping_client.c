// SPDX-License-Identifier: Apache-2.0
//
// Client side of comch_ping: once connected, sends message 0, and each time an echo comes
// back checks it, records the round trip and sends the next one. After the last echo it stops
// and prints the round-trip statistics.
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

DOCA_LOG_REGISTER(COMCH_PING::CLIENT);

#define PING_RECV_QUEUE_SIZE   16
#define PING_SEND_TASKS        64
#define PING_MAX_LOGGED_ERRORS 10

struct ping_client {
	const struct ping_config *cfg;
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_comch_client *client;
	struct doca_ctx *ctx;
	struct doca_comch_connection *connection;
	uint64_t *rtt_ns;  // one entry per echo received
	uint64_t sent_at;  // when the outstanding message was submitted
	uint64_t start_ns; // first send
	uint64_t end_ns;   // last echo
	uint32_t replies;  // echoes received so far (= sequence number of the outstanding message)
	uint32_t errors;   // echoes that failed verification
	bool finished;     // every echo arrived
	bool done;         // back in IDLE
	doca_error_t result;
};

static void stop_with(struct ping_client *c, doca_error_t result)
{
	if (c->result == DOCA_SUCCESS)
		c->result = result;
	(void)doca_ctx_stop(c->ctx);
}

static void on_sent(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)ctx_user_data;
	free(task_user_data.ptr);
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
on_send_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ping_client *c = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	free(task_user_data.ptr);
	doca_task_free(doca_comch_task_send_as_task(task));
	DOCA_LOG_ERR("Message %u could not be sent: %s", c->replies, doca_error_get_name(status));
	stop_with(c, status);
}

static doca_error_t send_message(struct ping_client *c, uint32_t seq)
{
	struct doca_comch_task_send *task;
	struct doca_task *as_task;
	union doca_data user_data;
	doca_error_t result;
	uint8_t *msg = malloc(c->cfg->size);

	if (msg == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ping_fill(msg, c->cfg->size, seq, c->cfg->count);
	result = doca_comch_client_task_send_alloc_init(c->client, c->connection, msg, c->cfg->size, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot allocate a send task: %s", doca_error_get_name(result));
		free(msg);
		return result;
	}
	as_task = doca_comch_task_send_as_task(task);
	user_data.ptr = msg;
	doca_task_set_user_data(as_task, user_data);
	c->sent_at = sample_now_ns();
	result = doca_task_submit(as_task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot submit a send task: %s", doca_error_get_name(result));
		doca_task_free(as_task);
		free(msg);
	}
	return result;
}

static void on_message(struct doca_comch_event_msg_recv *event,
		       uint8_t *recv_buffer,
		       uint32_t msg_len,
		       struct doca_comch_connection *connection)
{
	struct ping_client *c = doca_comch_connection_get_user_data(connection).ptr;
	uint64_t now = sample_now_ns();
	struct ping_header hdr;
	const char *problem;
	doca_error_t result;

	(void)event;
	if (c == NULL || c->finished)
		return;
	problem = ping_verify(recv_buffer, msg_len, c->replies, &hdr);
	if (problem == NULL && hdr.size != c->cfg->size)
		problem = "echo has another size than the message sent";
	if (problem != NULL && c->errors++ < PING_MAX_LOGGED_ERRORS)
		DOCA_LOG_ERR("Echo of message %u: %s", c->replies, problem);

	c->rtt_ns[c->replies++] = now - c->sent_at;
	if (c->replies == c->cfg->count) {
		c->end_ns = now;
		c->finished = true;
		stop_with(c, DOCA_SUCCESS);
		return;
	}
	result = send_message(c, c->replies);
	if (result != DOCA_SUCCESS)
		stop_with(c, result);
}

static void on_state_changed(const union doca_data user_data,
			     struct doca_ctx *ctx,
			     enum doca_ctx_states prev_state,
			     enum doca_ctx_states next_state)
{
	struct ping_client *c = user_data.ptr;
	union doca_data conn_data = {.ptr = c};
	doca_error_t result;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		c->done = true;
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("Connected to '%s'; sending %u messages of %u bytes", c->cfg->args.name, c->cfg->count,
			      c->cfg->size);
		result = doca_comch_client_get_connection(c->client, &c->connection);
		if (result == DOCA_SUCCESS)
			result = doca_comch_connection_set_user_data(c->connection, conn_data);
		if (result == DOCA_SUCCESS) {
			c->start_ns = sample_now_ns();
			result = send_message(c, 0);
		}
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot start the exchange: %s", doca_error_get_name(result));
			stop_with(c, result);
		}
		break;
	default:
		break;
	}
}

static doca_error_t create_client(struct ping_client *c, uint32_t max_msg_size)
{
	union doca_data user_data = {.ptr = c};
	doca_error_t result;

	result = doca_pe_create(&c->pe);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_comch_client_create(c->dev, c->cfg->args.name, &c->client);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a client for '%s': %s", c->cfg->args.name, doca_error_get_name(result));
		c->client = NULL;
		return result;
	}
	c->ctx = doca_comch_client_as_ctx(c->client);
	result = doca_pe_connect_ctx(c->pe, c->ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(c->ctx, on_state_changed);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_task_send_set_conf(c->client, on_sent, on_send_failed, PING_SEND_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_event_msg_recv_register(c->client, on_message);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_set_max_msg_size(c->client, max_msg_size);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_set_recv_queue_size(c->client, PING_RECV_QUEUE_SIZE);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(c->ctx, user_data);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot configure the client: %s", doca_error_get_name(result));
	return result;
}

static void teardown(struct ping_client *c)
{
	if (c->client != NULL) {
		sample_stop_ctx(c->ctx, c->pe, &c->done);
		if (doca_comch_client_destroy(c->client) != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the client");
	}
	sample_close(c->pe, NULL, c->dev);
	free(c->rtt_ns);
	c->rtt_ns = NULL;
}

// Nearest-rank percentile of n sorted values, in microseconds.
static double percentile_us(const uint64_t *sorted, uint32_t n, unsigned int pct)
{
	return (double)program_percentile(sorted, n, pct) / 1000.0;
}

static void report(const struct ping_client *c, const struct sample_event_loop *loop_stats)
{
	uint32_t n = c->replies;
	double elapsed_s = c->end_ns > c->start_ns ? (double)(c->end_ns - c->start_ns) / 1e9 : 0.0;
	double rate = elapsed_s > 0 ? (double)n / elapsed_s : 0.0;
	double p50 = 0, p99 = 0, min = 0, max = 0;

	if (n > 0) {
		program_sort_u64(c->rtt_ns, n);
		p50 = percentile_us(c->rtt_ns, n, 50);
		p99 = percentile_us(c->rtt_ns, n, 99);
		min = (double)c->rtt_ns[0] / 1000.0;
		max = (double)c->rtt_ns[n - 1] / 1000.0;
	}
	printf("comch_ping client: %u of %u messages of %u bytes echoed in %.4f s (%.0f round trips/s), %u errors\n", n,
	       c->cfg->count, c->cfg->size, elapsed_s, rate, c->errors);
	if (n > 0)
		printf("comch_ping client: round trip p50 %.2f us, p99 %.2f us (min %.2f us, max %.2f us)\n", p50, p99,
		       min, max);
	printf("RESULT role=client mode=%s count=%u size=%u replies=%u errors=%u elapsed_s=%.6f"
	       " p50_us=%.2f p99_us=%.2f min_us=%.2f max_us=%.2f rtt_per_s=%.0f"
	       " wakeups=%llu timeouts=%llu late_wakeups=%llu\n",
	       program_mode_name(&c->cfg->args), c->cfg->count, c->cfg->size, n, c->errors, elapsed_s, p50, p99, min,
	       max, rate, (unsigned long long)loop_stats->wakeups, (unsigned long long)loop_stats->timeouts,
	       (unsigned long long)loop_stats->late_wakeups);
	fflush(stdout);
}

doca_error_t ping_run_client(const struct ping_config *cfg)
{
	struct ping_client c;
	struct sample_event_loop loop_stats;
	uint32_t max_msg_size = 0;
	doca_error_t result;

	memset(&c, 0, sizeof(c));
	memset(&loop_stats, 0, sizeof(loop_stats));
	c.cfg = cfg;
	c.result = DOCA_SUCCESS;
	c.rtt_ns = calloc(cfg->count, sizeof(c.rtt_ns[0]));
	if (c.rtt_ns == NULL)
		return DOCA_ERROR_NO_MEMORY;

	result = sample_open_dev_by_pci(cfg->args.comch.pci_addr, &c.dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_check_msg_len(c.dev, cfg->size, &max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;
	result = create_client(&c, max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_start_async(c.ctx, "client");
	if (result != DOCA_SUCCESS)
		goto out;

	result = ping_drive(c.pe, cfg->args.use_epoll, &c.done, &loop_stats);
	if (result == DOCA_SUCCESS)
		result = c.result;
	if (result == DOCA_SUCCESS && !c.finished) {
		DOCA_LOG_ERR("The connection ended after %u of %u echoes", c.replies, cfg->count);
		result = DOCA_ERROR_CONNECTION_ABORTED;
	}
	if (result == DOCA_SUCCESS && c.errors != 0)
		result = DOCA_ERROR_UNEXPECTED;
	report(&c, &loop_stats);

out:
	teardown(&c);
	return result;
}
