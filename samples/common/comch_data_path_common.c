// SPDX-License-Identifier: Apache-2.0
#include "comch_data_path_common.h"

#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "sample_common.h"
#include "sample_memory.h"

DOCA_LOG_REGISTER(DATA_PATH::FAST_PATH);

bool dp_is_msg(const uint8_t *buf, uint32_t len, const char *msg)
{
	return len == strlen(msg) && memcmp(buf, msg, len) == 0;
}

void dp_peer_consumer_created(struct dp_peer *peer, uint32_t id)
{
	DOCA_LOG_INFO("The peer created consumer %u", id);
	peer->remote_consumer_id = id;
	peer->consumers_seen++;
}

void dp_peer_consumer_expired(struct dp_peer *peer, uint32_t id)
{
	DOCA_LOG_INFO("The peer's consumer %u expired", id);
	if (peer->remote_consumer_id == id)
		peer->remote_consumer_id = 0;
	peer->consumers_expired++;
}

// The engines a wait progresses: the connection's and one more (either may be NULL).
struct wait_pes {
	struct doca_pe *conn_pe;
	struct doca_pe *other_pe;
};

static doca_error_t progress_step(void *arg, uint64_t deadline_ns)
{
	const struct wait_pes *pes = arg;
	uint8_t busy = 0;

	(void)deadline_ns;
	if (pes->conn_pe != NULL)
		busy |= doca_pe_progress(pes->conn_pe);
	if (pes->other_pe != NULL)
		busy |= doca_pe_progress(pes->other_pe);
	if (!busy)
		sample_nap(0);
	return DOCA_SUCCESS;
}

// Waits, progressing the connection's PE and `other_pe`, until cond(arg) holds. Fails with
// DOCA_ERROR_CONNECTION_ABORTED when the control path raised *link->abort, and with
// DOCA_ERROR_TIME_OUT after DP_WAIT_TIMEOUT_S.
static doca_error_t wait_until(const struct dp_link *link,
			       struct doca_pe *other_pe,
			       bool (*cond)(const void *arg),
			       const void *arg,
			       const char *what)
{
	struct wait_pes pes = {.conn_pe = link->conn_pe, .other_pe = other_pe};
	doca_error_t result;

	result = sample_wait_until(cond, arg, link->abort, sample_deadline_ms(DP_WAIT_TIMEOUT_S * 1000ull),
				   progress_step, &pes);
	if (result == DOCA_ERROR_CONNECTION_ABORTED)
		DOCA_LOG_ERR("Gave up waiting for %s: the peer ended the exchange", what);
	else if (result == DOCA_ERROR_TIME_OUT)
		DOCA_LOG_ERR("Gave up waiting for %s after %d s", what, DP_WAIT_TIMEOUT_S);
	return result;
}

// The same link, deaf to the control path's abort: for waits that end on their own (a stop, the
// completion of a task already submitted).
static struct dp_link without_abort(const struct dp_link *link)
{
	struct dp_link copy = *link;

	copy.abort = NULL;
	return copy;
}

doca_error_t dp_wait(const struct dp_link *link, struct doca_pe *other_pe, const bool *flag, const char *what)
{
	return wait_until(link, other_pe, sample_flag_is_set, flag, what);
}

static bool ctx_is_idle(const void *arg)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

	return doca_ctx_get_state((const struct doca_ctx *)arg, &state) != DOCA_SUCCESS || state == DOCA_CTX_STATE_IDLE;
}

// Stops a consumer or producer context and progresses until it is IDLE. Stopping waits for the
// context's own tasks only, so it ignores link->abort.
static doca_error_t
stop_and_wait(const struct dp_link *link, struct doca_ctx *ctx, struct doca_pe *pe, const char *what)
{
	struct dp_link no_abort = without_abort(link);
	doca_error_t result;

	if (ctx_is_idle(ctx))
		return DOCA_SUCCESS;
	result = doca_ctx_stop(ctx);
	if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Cannot stop the %s: %s", what, doca_error_get_name(result));
		return result;
	}
	return wait_until(&no_abort, pe, ctx_is_idle, ctx, what);
}

static void release_buf(struct doca_buf **buf)
{
	if (*buf != NULL)
		(void)doca_buf_dec_refcount(*buf, NULL);
	*buf = NULL;
}

// ---- receive side: one consumer, one posted buffer ----

struct dp_receiver {
	const struct dp_link *link;
	struct sample_memory memory;
	struct doca_pe *pe;
	struct doca_comch_consumer *consumer;
	struct doca_ctx *ctx;
	struct doca_buf *buf;
	char *out;
	size_t out_size;
	size_t out_len;
	bool running;      // reached RUNNING at least once
	bool finished;     // the message arrived, or receiving failed
	bool tearing_down; // receives flushed from now on are expected
	doca_error_t result;
};

static void receiver_fail(struct dp_receiver *r, doca_error_t result)
{
	if (r->result == DOCA_SUCCESS)
		r->result = result;
	r->finished = true;
	(void)doca_ctx_stop(r->ctx);
}

static void on_recv_done(struct doca_comch_consumer_task_post_recv *task,
			 union doca_data task_user_data,
			 union doca_data ctx_user_data)
{
	struct dp_receiver *r = ctx_user_data.ptr;
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
	void *data = NULL;
	size_t len = 0;
	size_t copy;

	(void)task_user_data;
	if (doca_buf_get_data(buf, &data) != DOCA_SUCCESS || doca_buf_get_data_len(buf, &len) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot read the received buffer");
		r->result = DOCA_ERROR_UNEXPECTED;
	} else {
		copy = len < r->out_size ? len : r->out_size - 1;
		memcpy(r->out, data, copy);
		r->out[copy] = '\0';
		r->out_len = len;
		DOCA_LOG_INFO("Received %zu bytes from producer %u through the fast path", len,
			      doca_comch_consumer_task_post_recv_get_producer_id(task));
	}
	release_buf(&r->buf);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
	r->finished = true;
	(void)doca_ctx_stop(r->ctx);
}

static void on_recv_failed(struct doca_comch_consumer_task_post_recv *task,
			   union doca_data task_user_data,
			   union doca_data ctx_user_data)
{
	struct dp_receiver *r = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task));

	(void)task_user_data;
	release_buf(&r->buf);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
	if (r->tearing_down) {
		DOCA_LOG_INFO("The posted receive was flushed: %s", doca_error_get_name(status));
		return;
	}
	DOCA_LOG_ERR("The posted receive ended without a message: %s", doca_error_get_name(status));
	receiver_fail(r, status);
}

static doca_error_t post_receive(struct dp_receiver *r)
{
	struct doca_comch_consumer_task_post_recv *task;
	doca_error_t result;

	// An empty buffer spanning the whole area: all of it is available to the message.
	result = doca_buf_inventory_buf_get_by_addr(r->memory.inventory, r->memory.mmap, r->memory.addr, r->memory.len,
						    &r->buf);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot get a receive buffer: %s", doca_error_get_name(result));
		return result;
	}
	result = doca_comch_consumer_task_post_recv_alloc_init(r->consumer, r->buf, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot allocate a post-receive task: %s", doca_error_get_name(result));
		release_buf(&r->buf);
		return result;
	}
	result = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot post the receive buffer: %s", doca_error_get_name(result));
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		release_buf(&r->buf);
	}
	return result;
}

static void on_consumer_state(const union doca_data user_data,
			      struct doca_ctx *ctx,
			      enum doca_ctx_states prev_state,
			      enum doca_ctx_states next_state)
{
	struct dp_receiver *r = user_data.ptr;
	doca_error_t result;

	(void)ctx;
	switch (next_state) {
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_INFO("Consumer is starting: announcing it to the peer");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("Consumer is running; posting a %zu-byte buffer", r->memory.len);
		r->running = true;
		result = post_receive(r);
		if (result != DOCA_SUCCESS)
			receiver_fail(r, result);
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("Consumer is stopping");
		break;
	case DOCA_CTX_STATE_IDLE:
		// From STARTING: the announcement failed; anything but RUNNING/STOPPING is unexpected.
		if (prev_state != DOCA_CTX_STATE_RUNNING && prev_state != DOCA_CTX_STATE_STOPPING) {
			DOCA_LOG_ERR("Consumer stopped before it was running");
			if (r->result == DOCA_SUCCESS)
				r->result = DOCA_ERROR_UNEXPECTED;
		}
		r->finished = true;
		break;
	default:
		break;
	}
}

static doca_error_t create_consumer(struct dp_receiver *r)
{
	union doca_data user_data = {.ptr = r};
	doca_error_t result;

	result = doca_pe_create(&r->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the consumer's progress engine: %s", doca_error_get_name(result));
		return result;
	}
	result = doca_comch_consumer_create(r->link->connection, r->memory.mmap, &r->consumer);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a consumer: %s", doca_error_get_name(result));
		r->consumer = NULL;
		return result;
	}
	r->ctx = doca_comch_consumer_as_ctx(r->consumer);
	result = doca_pe_connect_ctx(r->pe, r->ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(r->ctx, on_consumer_state);
	if (result == DOCA_SUCCESS)
		result = doca_comch_consumer_task_post_recv_set_conf(r->consumer, on_recv_done, on_recv_failed,
								     DP_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(r->ctx, user_data);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot configure the consumer: %s", doca_error_get_name(result));
	return result;
}

static void receiver_teardown(struct dp_receiver *r)
{
	doca_error_t result;

	r->tearing_down = true;
	if (r->consumer != NULL) {
		(void)stop_and_wait(r->link, r->ctx, r->pe, "consumer to stop");
		result = doca_comch_consumer_destroy(r->consumer);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the consumer: %s", doca_error_get_name(result));
	}
	if (r->pe != NULL) {
		result = doca_pe_destroy(r->pe);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the consumer's progress engine: %s", doca_error_get_name(result));
	}
	release_buf(&r->buf);
	sample_memory_fini(&r->memory);
}

doca_error_t dp_receive_one(const struct dp_link *link, char *out, size_t out_size, size_t *out_len)
{
	struct dp_receiver r;
	uint32_t id = 0;
	doca_error_t result;

	memset(&r, 0, sizeof(r));
	r.link = link;
	r.out = out;
	r.out_size = out_size;
	r.result = DOCA_SUCCESS;
	if (out == NULL || out_size == 0)
		return DOCA_ERROR_INVALID_VALUE;
	out[0] = '\0';

	result = sample_memory_init(&r.memory, link->dev, DP_RECV_BUF_SIZE, 1);
	if (result == DOCA_SUCCESS)
		result = create_consumer(&r);
	if (result != DOCA_SUCCESS)
		goto out;

	// A consumer starts asynchronously: it is RUNNING once the peer knows its id.
	result = sample_start_async(r.ctx, "consumer");
	if (result != DOCA_SUCCESS)
		goto out;
	if (doca_comch_consumer_get_id(r.consumer, &id) == DOCA_SUCCESS)
		DOCA_LOG_INFO("Consumer %u created; waiting for a message", id);

	result = wait_until(link, r.pe, sample_flag_is_set, &r.finished, "a message on the fast path");
	if (result == DOCA_SUCCESS)
		result = r.result;
	if (result == DOCA_SUCCESS && out_len != NULL)
		*out_len = r.out_len;

out:
	receiver_teardown(&r);
	return result;
}

// ---- send side: one producer, one send ----

struct dp_sender {
	const struct dp_link *link;
	struct sample_memory memory;
	struct doca_pe *pe;
	struct doca_comch_producer *producer;
	struct doca_ctx *ctx;
	struct doca_buf *buf;
	bool finished; // the send completed or failed
	doca_error_t result;
};

static void
on_send_done(struct doca_comch_producer_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct dp_sender *s = ctx_user_data.ptr;

	(void)task_user_data;
	DOCA_LOG_INFO("The message is in the peer's buffer");
	doca_task_free(doca_comch_producer_task_send_as_task(task));
	release_buf(&s->buf);
	s->finished = true;
}

static void on_send_failed(struct doca_comch_producer_task_send *task,
			   union doca_data task_user_data,
			   union doca_data ctx_user_data)
{
	struct dp_sender *s = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_producer_task_send_as_task(task));

	(void)task_user_data;
	DOCA_LOG_ERR("The fast-path send failed: %s", doca_error_get_name(status));
	doca_task_free(doca_comch_producer_task_send_as_task(task));
	release_buf(&s->buf);
	s->result = status;
	s->finished = true;
}

static void on_producer_state(const union doca_data user_data,
			      struct doca_ctx *ctx,
			      enum doca_ctx_states prev_state,
			      enum doca_ctx_states next_state)
{
	(void)user_data;
	(void)ctx;
	(void)prev_state;
	if (next_state == DOCA_CTX_STATE_RUNNING)
		DOCA_LOG_INFO("Producer is running");
	else if (next_state == DOCA_CTX_STATE_IDLE)
		DOCA_LOG_INFO("Producer stopped");
}

static doca_error_t create_producer(struct dp_sender *s)
{
	union doca_data user_data = {.ptr = s};
	doca_error_t result;

	result = doca_pe_create(&s->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the producer's progress engine: %s", doca_error_get_name(result));
		return result;
	}
	result = doca_comch_producer_create(s->link->connection, &s->producer);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a producer: %s", doca_error_get_name(result));
		s->producer = NULL;
		return result;
	}
	s->ctx = doca_comch_producer_as_ctx(s->producer);
	result = doca_pe_connect_ctx(s->pe, s->ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(s->ctx, on_producer_state);
	if (result == DOCA_SUCCESS)
		result = doca_comch_producer_task_send_set_conf(s->producer, on_send_done, on_send_failed, DP_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(s->ctx, user_data);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot configure the producer: %s", doca_error_get_name(result));
	return result;
}

// Submits, retrying while the peer's consumer has no buffer posted. Like NVIDIA's sample, the
// retry loop only sleeps: the condition must clear without progress on this side.
static doca_error_t submit_with_retry(struct doca_task *task)
{
	uint64_t deadline = sample_deadline_ms(DP_WAIT_TIMEOUT_S * 1000ull);
	uint64_t retries = 0;
	doca_error_t result;

	for (;;) {
		result = doca_task_submit(task);
		if (result != DOCA_ERROR_AGAIN)
			break;
		if (sample_now_ns() > deadline) {
			DOCA_LOG_ERR("The peer's consumer posted no buffer within %d s", DP_WAIT_TIMEOUT_S);
			return DOCA_ERROR_TIME_OUT;
		}
		retries++;
		sample_nap(0);
	}
	if (retries > 0)
		DOCA_LOG_INFO("Send accepted after %llu retries (DOCA_ERROR_AGAIN: no buffer posted yet)",
			      (unsigned long long)retries);
	return result;
}

static bool has_remote_consumer(const void *arg)
{
	return ((const struct dp_peer *)arg)->remote_consumer_id != 0;
}

static void sender_teardown(struct dp_sender *s)
{
	doca_error_t result;

	if (s->producer != NULL) {
		(void)stop_and_wait(s->link, s->ctx, s->pe, "producer to stop");
		result = doca_comch_producer_destroy(s->producer);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the producer: %s", doca_error_get_name(result));
	}
	if (s->pe != NULL) {
		result = doca_pe_destroy(s->pe);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the producer's progress engine: %s", doca_error_get_name(result));
	}
	release_buf(&s->buf);
	sample_memory_fini(&s->memory);
}

doca_error_t dp_send_one(const struct dp_link *link, const char *msg, size_t len)
{
	struct doca_comch_producer_task_send *task;
	struct doca_task *as_task;
	struct dp_link no_abort;
	struct dp_sender s;
	uint32_t consumer_id;
	doca_error_t result;

	memset(&s, 0, sizeof(s));
	s.link = link;
	s.result = DOCA_SUCCESS;
	if (msg == NULL || len == 0)
		return DOCA_ERROR_INVALID_VALUE;

	// The peer's consumer announces itself through the connection's consumer event.
	result = wait_until(link, NULL, has_remote_consumer, link->peer, "the peer's consumer");
	if (result != DOCA_SUCCESS)
		return result;
	consumer_id = link->peer->remote_consumer_id;

	result = sample_memory_init(&s.memory, link->dev, len, 1);
	if (result == DOCA_SUCCESS)
		result = create_producer(&s);
	if (result != DOCA_SUCCESS)
		goto out;

	// A producer starts synchronously.
	result = doca_ctx_start(s.ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot start the producer: %s (expected DOCA_SUCCESS)", doca_error_get_name(result));
		goto out;
	}

	memcpy(s.memory.addr, msg, len);
	result = doca_buf_inventory_buf_get_by_data(s.memory.inventory, s.memory.mmap, s.memory.addr, len, &s.buf);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot get a send buffer: %s", doca_error_get_name(result));
		goto out;
	}
	result = doca_comch_producer_task_send_alloc_init(s.producer, s.buf, NULL, 0, consumer_id, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot allocate a send task: %s", doca_error_get_name(result));
		goto out;
	}
	as_task = doca_comch_producer_task_send_as_task(task);
	DOCA_LOG_INFO("Sending %zu bytes to consumer %u", len, consumer_id);
	result = submit_with_retry(as_task);
	if (result != DOCA_SUCCESS) {
		if (result != DOCA_ERROR_TIME_OUT)
			DOCA_LOG_ERR("Cannot submit the send task: %s", doca_error_get_name(result));
		doca_task_free(as_task);
		goto out;
	}

	// A submitted send always completes, one way or the other: this wait ignores link->abort (a
	// peer that got the message may already have said goodbye on the control path).
	no_abort = without_abort(link);
	result = wait_until(&no_abort, s.pe, sample_flag_is_set, &s.finished, "the send to complete");
	if (result == DOCA_SUCCESS)
		result = s.result;

out:
	sender_teardown(&s);
	return result;
}
