// SPDX-License-Identifier: Apache-2.0
//
// Server side of comch_stream (DPU side, receiver). After the client's hello it creates a
// consumer whose mmap holds STREAM_RECV_BUFFERS blocks, posts one receive per block and answers
// "ready". Each completed receive is checked (header, size, checksum, sequence), its delivery
// latency recorded, and the same task is posted again at once. When the client says how many
// blocks it sent, the server lets the last ones land, stops the consumer, prints the figures and
// tells the client its verdict.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "comch_stream.h"
#include "sample_common.h"
#include "sample_memory.h"

DOCA_LOG_REGISTER(COMCH_STREAM::SERVER);

#define STREAM_RECV_QUEUE_SIZE     16
#define STREAM_CTRL_TASKS          16
#define STREAM_MAX_LOGGED_PROBLEMS 10

struct stream_server {
	const struct stream_config *cfg;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *server;
	struct doca_ctx *ctx;
	struct doca_comch_connection *connection; // the client that said hello
	struct stream_driver driver;

	// What the client announced.
	bool hello;
	uint32_t block_size;
	uint32_t interval_us;
	uint32_t duration_ms;
	bool done_received; // "done sent=N" arrived
	uint64_t sent;      // N

	// The consumer and its buffers.
	struct sample_memory memory;
	struct doca_pe *consumer_pe;
	struct doca_comch_consumer *consumer;
	struct doca_ctx *consumer_ctx;
	struct doca_buf *bufs[STREAM_RECV_BUFFERS];
	bool consumer_running;
	bool consumer_idle;
	bool stopping; // receives flushed from now on are expected
	uint32_t posted;

	// What arrived.
	uint64_t received;      // completed receives
	uint64_t delivered;     // intact blocks
	uint64_t corrupt;       // blocks that failed the checks
	uint64_t out_of_order;  // intact blocks older than one already delivered (late or repeated)
	uint64_t recv_errors;   // receives that completed with an error before the end
	uint64_t next_seq;      // one past the highest sequence number delivered
	uint64_t first_sent_ns; // send time of the first intact block
	uint64_t last_delivery_ns;
	struct stream_samples latency_ns;
	bool all_in; // done_received and every announced block has completed

	bool verdict_sent; // the verdict's send completed (or failed)
	bool abort;        // the client left or the server is stopping
	bool idle;         // the server is back in IDLE
	doca_error_t result;
};

static void fail(struct stream_server *s, doca_error_t result)
{
	if (s->result == DOCA_SUCCESS)
		s->result = result;
	s->abort = true;
}

static void update_all_in(struct stream_server *s)
{
	if (s->done_received && s->received >= s->sent)
		s->all_in = true;
}

// ---- control path ----

static doca_error_t send_ctrl(struct stream_server *s, const char *msg, bool is_verdict)
{
	union doca_data user_data = {.u64 = is_verdict};

	return sample_server_send(s->server, s->connection, msg, (uint32_t)strlen(msg), user_data, "a control message");
}

static void
on_ctrl_sent(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct stream_server *s = ctx_user_data.ptr;

	doca_task_free(doca_comch_task_send_as_task(task));
	if (task_user_data.u64)
		s->verdict_sent = true;
}

static void
on_ctrl_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct stream_server *s = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	DOCA_LOG_ERR("A control message could not be sent: %s", doca_error_get_name(status));
	doca_task_free(doca_comch_task_send_as_task(task));
	if (task_user_data.u64)
		s->verdict_sent = true;
	fail(s, status);
}

static void on_hello(struct stream_server *s, struct doca_comch_connection *connection, const char *text)
{
	unsigned int block_size, interval_us, duration_ms;

	if (s->hello) {
		DOCA_LOG_WARN("A second hello was ignored");
		return;
	}
	if (sscanf(text, "hello block_size=%u interval_us=%u duration_ms=%u", &block_size, &interval_us,
		   &duration_ms) != 3 ||
	    block_size < STREAM_MIN_BLOCK_SIZE || block_size > STREAM_MAX_BLOCK_SIZE) {
		DOCA_LOG_ERR("Malformed hello: '%s'", text);
		s->connection = connection;
		fail(s, DOCA_ERROR_INVALID_VALUE);
		return;
	}
	s->connection = connection;
	s->block_size = block_size;
	s->interval_us = interval_us;
	s->duration_ms = duration_ms;
	s->hello = true;
	DOCA_LOG_INFO("The client will stream %u-byte blocks every %u us for %u ms", block_size, interval_us,
		      duration_ms);
}

static void on_message(struct doca_comch_event_msg_recv *event,
		       uint8_t *recv_buffer,
		       uint32_t msg_len,
		       struct doca_comch_connection *connection)
{
	struct stream_server *s = sample_server_user_data(connection);
	char text[STREAM_CTRL_MSG_MAX];
	unsigned long long sent;
	size_t len = msg_len < sizeof(text) ? msg_len : sizeof(text) - 1;

	(void)event;
	if (s == NULL)
		return;
	if (s->connection != NULL && connection != s->connection) {
		DOCA_LOG_WARN("A second client sent a message; only one client is served");
		return;
	}
	memcpy(text, recv_buffer, len);
	text[len] = '\0';
	if (strncmp(text, "hello ", 6) == 0) {
		on_hello(s, connection, text);
	} else if (sscanf(text, "done sent=%llu", &sent) == 1 && s->hello) {
		s->sent = sent;
		s->done_received = true;
		update_all_in(s);
	} else {
		DOCA_LOG_WARN("Unexpected control message ignored: '%s'", text);
	}
}

static void on_connect(struct doca_comch_event_connection_status_changed *event,
		       struct doca_comch_connection *connection,
		       uint8_t change_successful)
{
	(void)event;
	(void)connection;
	if (change_successful)
		DOCA_LOG_INFO("Client connected");
	else
		DOCA_LOG_WARN("A client failed to connect");
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *event,
			  struct doca_comch_connection *connection,
			  uint8_t change_successful)
{
	struct stream_server *s = sample_server_user_data(connection);

	(void)event;
	(void)change_successful;
	if (s == NULL || connection != s->connection)
		return;
	s->connection = NULL;
	if (s->verdict_sent)
		return;
	DOCA_LOG_ERR("The client left before the end of the run");
	fail(s, DOCA_ERROR_CONNECTION_ABORTED);
}

static void on_server_state(const union doca_data user_data,
			    struct doca_ctx *ctx,
			    enum doca_ctx_states prev_state,
			    enum doca_ctx_states next_state)
{
	struct stream_server *s = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	if (next_state == DOCA_CTX_STATE_RUNNING) {
		DOCA_LOG_INFO("Server '%s' is listening", s->cfg->args.name);
	} else if (next_state == DOCA_CTX_STATE_STOPPING) {
		s->abort = true;
	} else if (next_state == DOCA_CTX_STATE_IDLE) {
		s->abort = true;
		s->idle = true;
	}
}

// ---- fast path ----

static doca_error_t post(struct stream_server *s, struct doca_comch_consumer_task_post_recv *task)
{
	doca_error_t result = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));

	if (result == DOCA_SUCCESS)
		s->posted++;
	return result;
}

static void check_block(struct stream_server *s, const uint8_t *data, size_t len, uint64_t now)
{
	struct stream_block_header hdr;
	const char *problem = stream_block_verify(data, len, s->block_size, &hdr);

	if (problem != NULL) {
		if (s->corrupt++ < STREAM_MAX_LOGGED_PROBLEMS)
			DOCA_LOG_ERR("Receive #%" PRIu64 " (%zu bytes): %s", s->received, len, problem);
		return;
	}
	// A gap is not counted here: its blocks end up lost or corrupt, or arrive late below.
	if (hdr.seq < s->next_seq) {
		if (s->out_of_order++ < STREAM_MAX_LOGGED_PROBLEMS)
			DOCA_LOG_ERR("Block %" PRIu64 " arrived after block %" PRIu64, hdr.seq, s->next_seq - 1);
	} else {
		s->next_seq = hdr.seq + 1;
	}
	if (s->delivered++ == 0)
		s->first_sent_ns = hdr.sent_ns;
	s->last_delivery_ns = now;
	stream_samples_add(&s->latency_ns, now > hdr.sent_ns ? now - hdr.sent_ns : 0);
}

static void
on_block(struct doca_comch_consumer_task_post_recv *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct stream_server *s = ctx_user_data.ptr;
	uint64_t now = sample_now_ns();
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
	void *data = NULL;
	void *head = NULL;
	size_t len = 0;
	doca_error_t result;

	(void)task_user_data;
	s->posted--;
	s->received++;
	if (doca_buf_get_data(buf, &data) == DOCA_SUCCESS && doca_buf_get_data_len(buf, &len) == DOCA_SUCCESS)
		check_block(s, data, len, now);
	else if (s->corrupt++ < STREAM_MAX_LOGGED_PROBLEMS)
		DOCA_LOG_ERR("Cannot read the buffer of receive #%" PRIu64, s->received);
	update_all_in(s);

	if (s->stopping) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		return;
	}
	// The block has been checked: empty the buffer and post it again.
	result = doca_buf_get_head(buf, &head);
	if (result == DOCA_SUCCESS)
		result = doca_buf_set_data(buf, head, 0);
	if (result == DOCA_SUCCESS) {
		doca_comch_consumer_task_post_recv_set_buf(task, buf);
		result = post(s, task);
	}
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot post a receive buffer again: %s", doca_error_get_name(result));
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		fail(s, result);
	}
}

static void on_block_failed(struct doca_comch_consumer_task_post_recv *task,
			    union doca_data task_user_data,
			    union doca_data ctx_user_data)
{
	struct stream_server *s = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task));

	(void)task_user_data;
	s->posted--;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
	if (s->stopping)
		return; // flushed by our own stop (DOCA_ERROR_SHUTDOWN)
	s->recv_errors++;
	DOCA_LOG_ERR("A posted receive failed: %s", doca_error_get_name(status));
	fail(s, status);
}

static void on_consumer_state(const union doca_data user_data,
			      struct doca_ctx *ctx,
			      enum doca_ctx_states prev_state,
			      enum doca_ctx_states next_state)
{
	struct stream_server *s = user_data.ptr;

	(void)ctx;
	if (next_state == DOCA_CTX_STATE_RUNNING) {
		s->consumer_running = true;
	} else if (next_state == DOCA_CTX_STATE_IDLE) {
		s->consumer_idle = true;
		if (prev_state == DOCA_CTX_STATE_STARTING) {
			DOCA_LOG_ERR("The consumer stopped before it was running");
			fail(s, DOCA_ERROR_UNEXPECTED);
		}
	}
}

static doca_error_t check_block_size(struct stream_server *s)
{
	uint32_t max_buf_size = 0;
	doca_error_t result = doca_comch_consumer_cap_get_max_buf_size(doca_dev_as_devinfo(s->dev), &max_buf_size);

	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("This device cannot run consumers: %s", doca_error_get_name(result));
		return result;
	}
	if (s->block_size > max_buf_size) {
		DOCA_LOG_ERR("Blocks of %u bytes exceed the consumer's limit of %u bytes", s->block_size, max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t create_consumer(struct stream_server *s)
{
	union doca_data user_data = {.ptr = s};
	doca_error_t result;
	uint32_t i, id = 0;

	result = sample_memory_init(&s->memory, s->dev, (size_t)s->block_size * STREAM_RECV_BUFFERS,
				    STREAM_RECV_BUFFERS);
	if (result != DOCA_SUCCESS)
		return result;
	for (i = 0; i < STREAM_RECV_BUFFERS; i++) {
		result = doca_buf_inventory_buf_get_by_addr(s->memory.inventory, s->memory.mmap,
							    s->memory.addr + (size_t)i * s->block_size, s->block_size,
							    &s->bufs[i]);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot get receive buffer %u: %s", i, doca_error_get_name(result));
			return result;
		}
	}

	result = doca_pe_create(&s->consumer_pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the consumer's progress engine: %s", doca_error_get_name(result));
		s->consumer_pe = NULL;
		return result;
	}
	result = doca_comch_consumer_create(s->connection, s->memory.mmap, &s->consumer);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a consumer: %s", doca_error_get_name(result));
		s->consumer = NULL;
		return result;
	}
	s->consumer_ctx = doca_comch_consumer_as_ctx(s->consumer);
	result = doca_pe_connect_ctx(s->consumer_pe, s->consumer_ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(s->consumer_ctx, on_consumer_state);
	if (result == DOCA_SUCCESS)
		result = doca_comch_consumer_task_post_recv_set_conf(s->consumer, on_block, on_block_failed,
								     STREAM_RECV_BUFFERS);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(s->consumer_ctx, user_data);
	if (result == DOCA_SUCCESS)
		result = stream_driver_add_pe(&s->driver, s->consumer_pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot configure the consumer: %s", doca_error_get_name(result));
		return result;
	}

	result = sample_start_async(s->consumer_ctx, "consumer");
	if (result != DOCA_SUCCESS)
		return result;
	(void)doca_comch_consumer_get_id(s->consumer, &id);
	result = stream_driver_run_until(&s->driver, &s->consumer_running, &s->abort, STREAM_WAIT_TIMEOUT_S * 1000ull);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Consumer %u did not start: %s", id, doca_error_get_name(result));
		return result;
	}

	for (i = 0; i < STREAM_RECV_BUFFERS; i++) {
		struct doca_comch_consumer_task_post_recv *task;

		result = doca_comch_consumer_task_post_recv_alloc_init(s->consumer, s->bufs[i], &task);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot allocate a post-receive task: %s", doca_error_get_name(result));
			return result;
		}
		result = post(s, task);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot post receive buffer %u: %s", i, doca_error_get_name(result));
			doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
			return result;
		}
	}
	DOCA_LOG_INFO("Consumer %u is running with %u buffers of %u bytes posted", id, STREAM_RECV_BUFFERS,
		      s->block_size);
	return DOCA_SUCCESS;
}

// Stops the consumer (flushing the posted receives) and releases everything of the fast path.
static void destroy_consumer(struct stream_server *s)
{
	doca_error_t result;
	uint32_t i;

	s->stopping = true;
	if (s->consumer != NULL) {
		result = stream_stop_ctx(&s->driver, s->consumer_ctx, &s->consumer_idle);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot stop the consumer: %s", doca_error_get_name(result));
		result = doca_comch_consumer_destroy(s->consumer);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the consumer: %s", doca_error_get_name(result));
		s->consumer = NULL;
	}
	if (s->consumer_pe != NULL) {
		stream_driver_remove_pe(&s->driver, s->consumer_pe);
		result = doca_pe_destroy(s->consumer_pe);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the consumer's progress engine: %s", doca_error_get_name(result));
		s->consumer_pe = NULL;
	}
	for (i = 0; i < STREAM_RECV_BUFFERS; i++) {
		if (s->bufs[i] != NULL)
			(void)doca_buf_dec_refcount(s->bufs[i], NULL);
		s->bufs[i] = NULL;
	}
	sample_memory_fini(&s->memory);
}

// ---- set-up, run, report ----

static doca_error_t create_server(struct stream_server *s, uint32_t max_msg_size)
{
	union doca_data user_data = {.ptr = s};
	doca_error_t result;

	result = doca_pe_create(&s->pe);
	if (result != DOCA_SUCCESS) {
		s->pe = NULL;
		return result;
	}
	result = doca_comch_server_create(s->dev, s->rep, s->cfg->args.name, &s->server);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the server '%s': %s", s->cfg->args.name, doca_error_get_name(result));
		s->server = NULL;
		return result;
	}
	s->ctx = doca_comch_server_as_ctx(s->server);
	result = doca_pe_connect_ctx(s->pe, s->ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(s->ctx, on_server_state);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_task_send_set_conf(s->server, on_ctrl_sent, on_ctrl_failed,
							      STREAM_CTRL_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_msg_recv_register(s->server, on_message);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_connection_status_changed_register(s->server, on_connect,
										    on_disconnect);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_set_max_msg_size(s->server, max_msg_size);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_set_recv_queue_size(s->server, STREAM_RECV_QUEUE_SIZE);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(s->ctx, user_data);
	if (result == DOCA_SUCCESS)
		result = stream_driver_add_pe(&s->driver, s->pe);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot configure the server: %s", doca_error_get_name(result));
	return result;
}

static void teardown(struct stream_server *s)
{
	destroy_consumer(s);
	if (s->server != NULL) {
		(void)stream_stop_ctx(&s->driver, s->ctx, &s->idle);
		if (doca_comch_server_destroy(s->server) != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the server");
	}
	if (s->pe != NULL)
		stream_driver_remove_pe(&s->driver, s->pe);
	sample_close(s->pe, s->rep, s->dev);
	stream_driver_fini(&s->driver);
	stream_samples_free(&s->latency_ns);
}

static bool verdict_ok(const struct stream_server *s)
{
	return s->result == DOCA_SUCCESS && s->done_received && s->sent > 0 && s->delivered == s->sent &&
	       s->received == s->sent && s->corrupt == 0 && s->out_of_order == 0 && s->recv_errors == 0;
}

static void report(struct stream_server *s, bool ok)
{
	uint64_t lost = s->sent > s->received ? s->sent - s->received : 0; // never arrived at all
	double elapsed_s = 0, mb_per_s = 0, blocks_per_s = 0;
	double p50 = 0, p99 = 0, min = 0, max = 0;
	size_t n = s->latency_ns.n;

	if (s->delivered > 0 && s->last_delivery_ns > s->first_sent_ns)
		elapsed_s = (double)(s->last_delivery_ns - s->first_sent_ns) / 1e9;
	if (elapsed_s > 0) {
		mb_per_s = (double)s->delivered * s->block_size / elapsed_s / 1e6;
		blocks_per_s = (double)s->delivered / elapsed_s;
	}
	if (n > 0) {
		program_sort_u64(s->latency_ns.v, n);
		p50 = (double)program_percentile(s->latency_ns.v, n, 50) / 1000.0;
		p99 = (double)program_percentile(s->latency_ns.v, n, 99) / 1000.0;
		min = (double)s->latency_ns.v[0] / 1000.0;
		max = (double)s->latency_ns.v[n - 1] / 1000.0;
	}

	printf("comch_stream server: %" PRIu64 " of %" PRIu64 " blocks of %u bytes delivered intact in %.3f s"
	       " (%.1f MB/s, %.0f blocks/s)\n",
	       s->delivered, s->sent, s->block_size, elapsed_s, mb_per_s, blocks_per_s);
	printf("comch_stream server: lost %" PRIu64 ", out of order %" PRIu64 ", corrupt %" PRIu64
	       ", receive errors %" PRIu64 "\n",
	       lost, s->out_of_order, s->corrupt, s->recv_errors);
	if (n > 0)
		printf("comch_stream server: delivery latency p50 %.2f us, p99 %.2f us (min %.2f us, max %.2f us)\n",
		       p50, p99, min, max);
	printf("RESULT role=server mode=%s block_size=%u interval_us=%u duration_ms=%u sent=%" PRIu64
	       " delivered=%" PRIu64 " lost=%" PRIu64 " out_of_order=%" PRIu64 " corrupt=%" PRIu64
	       " recv_errors=%" PRIu64 " elapsed_s=%.6f mb_per_s=%.1f blocks_per_s=%.0f p50_us=%.2f p99_us=%.2f"
	       " min_us=%.2f max_us=%.2f verdict=%s wakeups=%llu timeouts=%llu late_wakeups=%llu\n",
	       program_mode_name(&s->cfg->args), s->block_size, s->interval_us, s->duration_ms, s->sent, s->delivered,
	       lost, s->out_of_order, s->corrupt, s->recv_errors, elapsed_s, mb_per_s, blocks_per_s, p50, p99, min, max,
	       ok ? "ok" : "fail", (unsigned long long)s->driver.wakeups, (unsigned long long)s->driver.timeouts,
	       (unsigned long long)s->driver.late_wakeups);
	fflush(stdout);
}

// After the hello: receive until the client says how many blocks it sent, then let them land.
static doca_error_t receive_stream(struct stream_server *s)
{
	uint64_t run_limit_ms = (uint64_t)s->duration_ms + STREAM_WAIT_TIMEOUT_S * 1000ull;
	size_t expected_blocks;
	doca_error_t result;

	result = check_block_size(s);
	if (result != DOCA_SUCCESS)
		return result;
	expected_blocks = s->interval_us ? (size_t)s->duration_ms * 1000 / s->interval_us + STREAM_SEND_SLOTS : 0;
	if (expected_blocks > (1u << 24))
		expected_blocks = 1u << 24;
	if (stream_samples_reserve(&s->latency_ns, expected_blocks ? expected_blocks : 1024) != DOCA_SUCCESS)
		return DOCA_ERROR_NO_MEMORY;

	result = create_consumer(s);
	if (result != DOCA_SUCCESS)
		return result;
	result = send_ctrl(s, "ready", false);
	if (result != DOCA_SUCCESS)
		return result;

	result = stream_driver_run_until(&s->driver, &s->done_received, &s->abort, run_limit_ms);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The client did not finish its run: %s", doca_error_get_name(result));
		return result;
	}
	result = stream_driver_run_until(&s->driver, &s->all_in, &s->abort, STREAM_DRAIN_TIMEOUT_MS);
	if (result == DOCA_ERROR_TIME_OUT) {
		DOCA_LOG_ERR("Only %" PRIu64 " of %" PRIu64 " blocks arrived within %d ms of the end", s->received,
			     s->sent, STREAM_DRAIN_TIMEOUT_MS);
		result = DOCA_SUCCESS; // reported as lost blocks
	}
	return result;
}

doca_error_t stream_run_server(const struct stream_config *cfg)
{
	struct stream_server s;
	uint32_t max_msg_size = 0;
	doca_error_t result;
	bool ok;

	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	s.result = DOCA_SUCCESS;

	result = stream_driver_init(&s.driver, cfg->args.use_epoll);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_open_dev_by_pci(cfg->args.comch.pci_addr, &s.dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_open_rep_by_pci(s.dev, cfg->args.comch.rep_pci_addr, &s.rep);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_check_msg_len(s.dev, STREAM_CTRL_MSG_MAX, &max_msg_size);
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

	// However long it takes a client to come and say hello.
	result = stream_driver_run_until(&s.driver, &s.hello, &s.abort, 0);
	if (result == DOCA_SUCCESS)
		result = receive_stream(&s);
	if (result != DOCA_SUCCESS)
		fail(&s, result);

	destroy_consumer(&s);
	ok = verdict_ok(&s);
	if (s.hello || s.connection != NULL)
		report(&s, ok);

	if (s.connection != NULL) {
		if (send_ctrl(&s, ok ? "verdict ok" : "verdict fail", true) == DOCA_SUCCESS)
			(void)stream_driver_run_until(&s.driver, &s.verdict_sent, NULL,
						      STREAM_WAIT_TIMEOUT_S * 1000ull);
	}
	result = s.result;
	if (result == DOCA_SUCCESS && !ok)
		result = DOCA_ERROR_UNEXPECTED;

out:
	teardown(&s);
	return result;
}
