// SPDX-License-Identifier: Apache-2.0
//
// Client side of comch_stream (host side, sender). Once connected it says hello, waits until the
// server's consumer exists (new-consumer event) and has its buffers posted ("ready"), then sends
// block k at start + k * interval for every k due within the duration, through a producer with
// STREAM_SEND_SLOTS send buffers. A submission refused with DOCA_ERROR_AGAIN (no buffer posted on
// the server at that moment) is retried; a sender that falls behind its schedule catches up as
// fast as the posted buffers allow (for at most STREAM_CATCH_UP_MS after the duration). The
// next block's payload is prepared as soon as a block has gone out, so that only the header (send
// time, checksum) is written on schedule.
// When every send has completed, the client reports the count and waits for the server's verdict.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "comch_stream.h"
#include "sample_common.h"
#include "sample_memory.h"

DOCA_LOG_REGISTER(COMCH_STREAM::CLIENT);

#define STREAM_RECV_QUEUE_SIZE 16
#define STREAM_CTRL_TASKS      16
#define AGAIN_RETRY_NS         10000ull // epoll mode: how soon to retry a submission refused with AGAIN
#define STREAM_CATCH_UP_MS     1000     // how long a late sender may go on after the duration

struct send_slot {
	struct doca_buf *buf;                        // the slot's whole block, reused for every send
	uint8_t *addr;                               // where the block lives
	struct doca_comch_producer_task_send *retry; // allocated task whose submission said AGAIN
	uint64_t seq;                                // block prepared in the slot
	uint64_t payload_hash;                       // of that block's payload
	bool prepared;                               // payload of `seq` written
	bool in_flight;                              // submitted, not completed
};

struct stream_client {
	const struct stream_config *cfg;
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_comch_client *client;
	struct doca_ctx *ctx;
	struct doca_comch_connection *connection;
	struct stream_driver driver;

	bool connected;
	bool ready;                  // the server said "ready"
	uint32_t remote_consumer_id; // from the new-consumer event
	bool can_start;              // ready and remote_consumer_id known
	bool verdict_received;
	bool verdict_ok;

	struct sample_memory memory;
	struct doca_pe *producer_pe;
	struct doca_comch_producer *producer;
	struct doca_ctx *producer_ctx;
	bool producer_idle;
	struct send_slot slots[STREAM_SEND_SLOTS];
	uint32_t in_flight;
	bool drained;   // in_flight == 0
	bool streaming; // from the first send until every send has completed

	uint64_t scheduled;   // blocks due within the duration (= sent when the interval is 0)
	uint64_t next_seq;    // the next block to send = blocks sent so far
	uint64_t completed;   // sends completed successfully
	uint64_t send_errors; // sends that completed with an error
	uint64_t again;       // blocks whose submission was refused with DOCA_ERROR_AGAIN at least once
	uint64_t retries;     // refused submissions in all
	uint64_t late;        // blocks sent more than one interval after their scheduled time
	uint64_t start_ns;    // first send
	uint64_t last_send_ns;

	bool abort; // the server went away or the client is stopping
	bool idle;  // the client is back in IDLE
	doca_error_t result;
};

static void fail(struct stream_client *c, doca_error_t result)
{
	if (c->result == DOCA_SUCCESS)
		c->result = result;
	c->abort = true;
}

// ---- control path ----

static doca_error_t send_ctrl(struct stream_client *c, const char *msg)
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
	struct stream_client *c = ctx_user_data.ptr;
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
	struct stream_client *c = sample_client_user_data(connection);
	char text[STREAM_CTRL_MSG_MAX];
	size_t len = msg_len < sizeof(text) ? msg_len : sizeof(text) - 1;

	(void)event;
	if (c == NULL)
		return;
	memcpy(text, recv_buffer, len);
	text[len] = '\0';
	if (strcmp(text, "ready") == 0) {
		c->ready = true;
		c->can_start = c->remote_consumer_id != 0;
	} else if (strncmp(text, "verdict ", 8) == 0) {
		c->verdict_ok = strcmp(text + 8, "ok") == 0;
		c->verdict_received = true;
	} else {
		DOCA_LOG_WARN("Unexpected control message ignored: '%s'", text);
	}
}

static void
on_new_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *connection, uint32_t id)
{
	struct stream_client *c = sample_client_user_data(connection);

	(void)event;
	if (c == NULL)
		return;
	DOCA_LOG_INFO("The server created consumer %u", id);
	c->remote_consumer_id = id;
	c->can_start = c->ready;
}

static void
on_expired_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *connection, uint32_t id)
{
	struct stream_client *c = sample_client_user_data(connection);

	(void)event;
	if (c == NULL || id != c->remote_consumer_id)
		return;
	c->remote_consumer_id = 0;
	c->can_start = false;
	// Normal once the run is over; before that, the server gave up.
	if (c->streaming) {
		DOCA_LOG_ERR("The server's consumer %u expired in the middle of the run", id);
		fail(c, DOCA_ERROR_NOT_FOUND);
	}
}

static void on_client_state(const union doca_data user_data,
			    struct doca_ctx *ctx,
			    enum doca_ctx_states prev_state,
			    enum doca_ctx_states next_state)
{
	struct stream_client *c = user_data.ptr;
	doca_error_t result;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_RUNNING:
		result = doca_comch_client_get_connection(c->client, &c->connection);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot get the connection: %s", doca_error_get_name(result));
			fail(c, result);
			break;
		}
		c->connected = true;
		break;
	case DOCA_CTX_STATE_STOPPING:
		c->abort = true;
		break;
	case DOCA_CTX_STATE_IDLE:
		c->abort = true;
		c->idle = true;
		break;
	default:
		break;
	}
}

// ---- fast path ----

static void
send_finished(struct stream_client *c, struct doca_comch_producer_task_send *task, union doca_data task_user_data)
{
	struct send_slot *slot = &c->slots[task_user_data.u64];

	doca_task_free(doca_comch_producer_task_send_as_task(task));
	slot->in_flight = false;
	slot->prepared = false;
	c->in_flight--;
	c->drained = c->in_flight == 0;
}

static void
on_block_sent(struct doca_comch_producer_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct stream_client *c = ctx_user_data.ptr;

	c->completed++;
	send_finished(c, task, task_user_data);
}

static void on_block_failed(struct doca_comch_producer_task_send *task,
			    union doca_data task_user_data,
			    union doca_data ctx_user_data)
{
	struct stream_client *c = ctx_user_data.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_producer_task_send_as_task(task));

	if (c->send_errors++ < 10)
		DOCA_LOG_ERR("Block %" PRIu64 " could not be sent: %s", c->slots[task_user_data.u64].seq,
			     doca_error_get_name(status));
	send_finished(c, task, task_user_data);
	fail(c, status);
}

static void on_producer_state(const union doca_data user_data,
			      struct doca_ctx *ctx,
			      enum doca_ctx_states prev_state,
			      enum doca_ctx_states next_state)
{
	struct stream_client *c = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	if (next_state == DOCA_CTX_STATE_IDLE)
		c->producer_idle = true;
}

static doca_error_t create_producer(struct stream_client *c)
{
	union doca_data user_data = {.ptr = c};
	uint32_t max_buf_size = 0;
	doca_error_t result;
	uint32_t i;

	result = doca_comch_producer_cap_get_max_buf_size(doca_dev_as_devinfo(c->dev), &max_buf_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("This device cannot run producers: %s", doca_error_get_name(result));
		return result;
	}
	if (c->cfg->block_size > max_buf_size) {
		DOCA_LOG_ERR("Blocks of %u bytes exceed the producer's limit of %u bytes", c->cfg->block_size,
			     max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}

	result = sample_memory_init(&c->memory, c->dev, (size_t)c->cfg->block_size * STREAM_SEND_SLOTS,
				    STREAM_SEND_SLOTS);
	if (result != DOCA_SUCCESS)
		return result;
	for (i = 0; i < STREAM_SEND_SLOTS; i++) {
		c->slots[i].addr = c->memory.addr + (size_t)i * c->cfg->block_size;
		result = doca_buf_inventory_buf_get_by_data(c->memory.inventory, c->memory.mmap, c->slots[i].addr,
							    c->cfg->block_size, &c->slots[i].buf);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot get send buffer %u: %s", i, doca_error_get_name(result));
			return result;
		}
	}

	result = doca_pe_create(&c->producer_pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the producer's progress engine: %s", doca_error_get_name(result));
		c->producer_pe = NULL;
		return result;
	}
	result = doca_comch_producer_create(c->connection, &c->producer);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a producer: %s", doca_error_get_name(result));
		c->producer = NULL;
		return result;
	}
	c->producer_ctx = doca_comch_producer_as_ctx(c->producer);
	result = doca_pe_connect_ctx(c->producer_pe, c->producer_ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(c->producer_ctx, on_producer_state);
	if (result == DOCA_SUCCESS)
		result = doca_comch_producer_task_send_set_conf(c->producer, on_block_sent, on_block_failed,
								STREAM_SEND_SLOTS);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(c->producer_ctx, user_data);
	if (result == DOCA_SUCCESS)
		result = stream_driver_add_pe(&c->driver, c->producer_pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot configure the producer: %s", doca_error_get_name(result));
		return result;
	}
	result = doca_ctx_start(c->producer_ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot start the producer: %s (expected DOCA_SUCCESS)", doca_error_get_name(result));
		return result;
	}
	c->drained = true;
	return DOCA_SUCCESS;
}

static void destroy_producer(struct stream_client *c)
{
	doca_error_t result;
	uint32_t i;

	for (i = 0; i < STREAM_SEND_SLOTS; i++) {
		if (c->slots[i].retry != NULL)
			doca_task_free(doca_comch_producer_task_send_as_task(c->slots[i].retry));
		c->slots[i].retry = NULL;
	}
	if (c->producer != NULL) {
		result = stream_stop_ctx(&c->driver, c->producer_ctx, &c->producer_idle);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot stop the producer: %s", doca_error_get_name(result));
		result = doca_comch_producer_destroy(c->producer);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the producer: %s", doca_error_get_name(result));
		c->producer = NULL;
	}
	if (c->producer_pe != NULL) {
		stream_driver_remove_pe(&c->driver, c->producer_pe);
		result = doca_pe_destroy(c->producer_pe);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the producer's progress engine: %s", doca_error_get_name(result));
		c->producer_pe = NULL;
	}
	for (i = 0; i < STREAM_SEND_SLOTS; i++) {
		if (c->slots[i].buf != NULL)
			(void)doca_buf_dec_refcount(c->slots[i].buf, NULL);
		c->slots[i].buf = NULL;
	}
	sample_memory_fini(&c->memory);
}

static struct send_slot *slot_of(struct stream_client *c, uint64_t seq)
{
	return &c->slots[seq % STREAM_SEND_SLOTS];
}

// Writes the payload of block `seq` into its slot ahead of time, if the slot is free.
static void prepare(struct stream_client *c, uint64_t seq)
{
	struct send_slot *slot = slot_of(c, seq);

	if (slot->in_flight || (slot->prepared && slot->seq == seq))
		return;
	slot->payload_hash = stream_block_fill_payload(slot->addr, c->cfg->block_size, seq);
	slot->seq = seq;
	slot->prepared = true;
}

// Tries to send block c->next_seq now. Returns DOCA_SUCCESS when it went out, DOCA_ERROR_AGAIN
// when it has to wait (slot still in flight, or no buffer posted on the server), or an error.
static doca_error_t try_send(struct stream_client *c, uint64_t scheduled_ns)
{
	uint64_t seq = c->next_seq;
	struct send_slot *slot = slot_of(c, seq);
	union doca_data user_data = {.u64 = seq % STREAM_SEND_SLOTS};
	struct doca_comch_producer_task_send *task = slot->retry;
	uint64_t now;
	doca_error_t result;

	if (slot->in_flight)
		return DOCA_ERROR_AGAIN;
	prepare(c, seq);
	if (task == NULL) {
		result = doca_comch_producer_task_send_alloc_init(c->producer, slot->buf, NULL, 0,
								  c->remote_consumer_id, &task);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot allocate a send task: %s", doca_error_get_name(result));
			return result;
		}
		doca_task_set_user_data(doca_comch_producer_task_send_as_task(task), user_data);
	}
	now = sample_now_ns();
	stream_block_seal(slot->addr, c->cfg->block_size, seq, now, slot->payload_hash);
	result = doca_task_submit(doca_comch_producer_task_send_as_task(task));
	if (result == DOCA_ERROR_AGAIN) {
		if (slot->retry == NULL)
			c->again++;
		c->retries++;
		slot->retry = task;
		return result;
	}
	slot->retry = NULL;
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot submit block %" PRIu64 ": %s", seq, doca_error_get_name(result));
		doca_task_free(doca_comch_producer_task_send_as_task(task));
		return result;
	}
	slot->in_flight = true;
	c->in_flight++;
	c->drained = false;
	if (c->next_seq++ == 0)
		c->start_ns = now;
	c->last_send_ns = now;
	if (c->cfg->interval_us != 0 && now - scheduled_ns > (uint64_t)c->cfg->interval_us * 1000)
		c->late++;
	prepare(c, c->next_seq); // off the critical path: the next block waits ready
	return DOCA_SUCCESS;
}

// Sends block k at start + k * interval for every k due within the duration. A sender that fell
// behind catches up, for at most STREAM_CATCH_UP_MS after the end; with interval 0 it sends as fast
// as it can until the end.
static doca_error_t stream_blocks(struct stream_client *c)
{
	uint64_t interval_ns = (uint64_t)c->cfg->interval_us * 1000;
	uint64_t start = sample_now_ns();
	uint64_t end = start + (uint64_t)c->cfg->duration_ms * 1000000ull;
	uint64_t give_up = interval_ns ? end + STREAM_CATCH_UP_MS * 1000000ull : end;
	uint64_t next_at = start;
	uint64_t now, wake_at;
	doca_error_t result;
	bool sent;

	c->scheduled =
		interval_ns ? ((uint64_t)c->cfg->duration_ms * 1000000ull + interval_ns - 1) / interval_ns : UINT64_MAX;
	prepare(c, 0);
	while (c->next_seq < c->scheduled) {
		now = sample_now_ns();
		if (now >= give_up)
			break;
		if (c->abort)
			return c->result != DOCA_SUCCESS ? c->result : DOCA_ERROR_CONNECTION_ABORTED;
		sent = false;
		wake_at = next_at < give_up ? next_at : give_up;
		if (now >= next_at) {
			result = try_send(c, next_at);
			if (result == DOCA_SUCCESS) {
				sent = true;
				next_at = interval_ns ? next_at + interval_ns : now;
			} else if (result == DOCA_ERROR_AGAIN) {
				// Waiting for a completion wakes us through the PE; a refused submission
				// clears without one, so look again soon.
				wake_at = slot_of(c, c->next_seq)->in_flight ? give_up : now + AGAIN_RETRY_NS;
			} else {
				return result;
			}
		}
		if (stream_driver_progress(&c->driver) == 0 && !sent) {
			result = stream_driver_idle(&c->driver, wake_at);
			if (result != DOCA_SUCCESS)
				return result;
		}
	}
	if (interval_ns == 0)
		c->scheduled = c->next_seq;
	else if (c->next_seq < c->scheduled)
		DOCA_LOG_WARN("Sent %" PRIu64 " of %" PRIu64 " scheduled blocks: the sender could not keep up",
			      c->next_seq, c->scheduled);
	return DOCA_SUCCESS;
}

// ---- set-up, run, report ----

static doca_error_t create_client(struct stream_client *c, uint32_t max_msg_size)
{
	union doca_data user_data = {.ptr = c};
	doca_error_t result;

	result = doca_pe_create(&c->pe);
	if (result != DOCA_SUCCESS) {
		c->pe = NULL;
		return result;
	}
	result = doca_comch_client_create(c->dev, c->cfg->args.name, &c->client);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create a client for '%s': %s", c->cfg->args.name, doca_error_get_name(result));
		c->client = NULL;
		return result;
	}
	c->ctx = doca_comch_client_as_ctx(c->client);
	result = doca_pe_connect_ctx(c->pe, c->ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(c->ctx, on_client_state);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_task_send_set_conf(c->client, on_ctrl_sent, on_ctrl_failed,
							      STREAM_CTRL_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_event_msg_recv_register(c->client, on_message);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_event_consumer_register(c->client, on_new_consumer, on_expired_consumer);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_set_max_msg_size(c->client, max_msg_size);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_set_recv_queue_size(c->client, STREAM_RECV_QUEUE_SIZE);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(c->ctx, user_data);
	if (result == DOCA_SUCCESS)
		result = stream_driver_add_pe(&c->driver, c->pe);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot configure the client: %s", doca_error_get_name(result));
	return result;
}

static void teardown(struct stream_client *c)
{
	destroy_producer(c);
	if (c->client != NULL) {
		(void)stream_stop_ctx(&c->driver, c->ctx, &c->idle);
		if (doca_comch_client_destroy(c->client) != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot destroy the client");
	}
	if (c->pe != NULL)
		stream_driver_remove_pe(&c->driver, c->pe);
	sample_close(c->pe, NULL, c->dev);
	stream_driver_fini(&c->driver);
}

static void report(const struct stream_client *c)
{
	double elapsed_s = c->last_send_ns > c->start_ns ? (double)(c->last_send_ns - c->start_ns) / 1e9 : 0.0;
	double blocks_per_s = elapsed_s > 0 ? (double)c->next_seq / elapsed_s : 0.0;
	double mb_per_s = blocks_per_s * c->cfg->block_size / 1e6;
	const char *verdict = c->verdict_received ? (c->verdict_ok ? "ok" : "fail") : "none";

	printf("comch_stream client: sent %" PRIu64 " of %" PRIu64 " scheduled blocks of %u bytes in %.3f s"
	       " (%.0f blocks/s, %.1f MB/s), %" PRIu64 " completed, %" PRIu64 " failed\n",
	       c->next_seq, c->scheduled, c->cfg->block_size, elapsed_s, blocks_per_s, mb_per_s, c->completed,
	       c->send_errors);
	printf("comch_stream client: %" PRIu64 " blocks waited for a posted buffer (DOCA_ERROR_AGAIN, %" PRIu64
	       " retries), %" PRIu64 " blocks sent late; server verdict: %s\n",
	       c->again, c->retries, c->late, verdict);
	printf("RESULT role=client mode=%s block_size=%u interval_us=%u duration_ms=%u scheduled=%" PRIu64
	       " sent=%" PRIu64 " completed=%" PRIu64 " send_errors=%" PRIu64 " again=%" PRIu64 " retries=%" PRIu64
	       " late=%" PRIu64
	       " elapsed_s=%.6f blocks_per_s=%.0f mb_per_s=%.1f verdict=%s wakeups=%llu timer_wakeups=%llu"
	       " timeouts=%llu late_wakeups=%llu\n",
	       program_mode_name(&c->cfg->args), c->cfg->block_size, c->cfg->interval_us, c->cfg->duration_ms,
	       c->scheduled, c->next_seq, c->completed, c->send_errors, c->again, c->retries, c->late, elapsed_s,
	       blocks_per_s, mb_per_s, verdict, (unsigned long long)c->driver.wakeups,
	       (unsigned long long)c->driver.timer_wakeups, (unsigned long long)c->driver.timeouts,
	       (unsigned long long)c->driver.late_wakeups);
	fflush(stdout);
}

// Connected: hello, wait for the consumer, stream, drain, tell the count, wait for the verdict.
static doca_error_t run_stream(struct stream_client *c)
{
	char msg[STREAM_CTRL_MSG_MAX];
	doca_error_t result;

	snprintf(msg, sizeof(msg), "hello block_size=%u interval_us=%u duration_ms=%u", c->cfg->block_size,
		 c->cfg->interval_us, c->cfg->duration_ms);
	result = send_ctrl(c, msg);
	if (result != DOCA_SUCCESS)
		return result;
	result = stream_driver_run_until(&c->driver, &c->can_start, &c->abort, STREAM_WAIT_TIMEOUT_S * 1000ull);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The server's consumer did not get ready: %s", doca_error_get_name(result));
		return result;
	}
	result = create_producer(c);
	if (result != DOCA_SUCCESS)
		return result;
	DOCA_LOG_INFO("Streaming %u-byte blocks every %u us for %u ms to consumer %u", c->cfg->block_size,
		      c->cfg->interval_us, c->cfg->duration_ms, c->remote_consumer_id);

	c->streaming = true;
	result = stream_blocks(c);
	if (result != DOCA_SUCCESS)
		return result;
	result = stream_driver_run_until(&c->driver, &c->drained, NULL, STREAM_WAIT_TIMEOUT_S * 1000ull);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%u sends did not complete: %s", c->in_flight, doca_error_get_name(result));
		return result;
	}
	c->streaming = false;
	if (c->result != DOCA_SUCCESS)
		return c->result;
	destroy_producer(c);

	snprintf(msg, sizeof(msg), "done sent=%" PRIu64, c->next_seq);
	result = send_ctrl(c, msg);
	if (result != DOCA_SUCCESS)
		return result;
	result = stream_driver_run_until(&c->driver, &c->verdict_received, &c->abort,
					 STREAM_WAIT_TIMEOUT_S * 1000ull + STREAM_DRAIN_TIMEOUT_MS);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("No verdict from the server: %s", doca_error_get_name(result));
	return result;
}

doca_error_t stream_run_client(const struct stream_config *cfg)
{
	struct stream_client c;
	uint32_t max_msg_size = 0;
	doca_error_t result;

	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.result = DOCA_SUCCESS;

	result = stream_driver_init(&c.driver, cfg->args.use_epoll);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_open_dev_by_pci(cfg->args.comch.pci_addr, &c.dev);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_check_msg_len(c.dev, STREAM_CTRL_MSG_MAX, &max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;
	result = create_client(&c, max_msg_size);
	if (result != DOCA_SUCCESS)
		goto out;
	result = sample_start_async(c.ctx, "client");
	if (result != DOCA_SUCCESS)
		goto out;
	// However long the server takes to accept us.
	result = stream_driver_run_until(&c.driver, &c.connected, &c.abort, 0);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The client stopped before it was connected");
		goto out;
	}

	result = run_stream(&c);
	if (result == DOCA_SUCCESS)
		result = c.result;
	report(&c);
	if (result == DOCA_SUCCESS && (c.send_errors != 0 || c.completed != c.next_seq))
		result = DOCA_ERROR_IO_FAILED;
	if (result == DOCA_SUCCESS && !c.verdict_ok) {
		DOCA_LOG_ERR("The server found the stream incomplete or damaged");
		result = DOCA_ERROR_UNEXPECTED;
	}

out:
	teardown(&c);
	return result;
}
