// SPDX-License-Identifier: Apache-2.0
//
// comch_stream: a fast-path streaming check used by the tests and `softcomch demo`. The client
// (host side) streams blocks through a producer to a consumer on the server (DPU side): one block
// of BLOCK_SIZE bytes every INTERVAL microseconds for DURATION milliseconds. The server keeps
// STREAM_RECV_BUFFERS buffers posted, reposting each one as soon as its block has been checked.
//
// Every block starts with a header (sequence number, CLOCK_MONOTONIC send time, checksum over the
// whole block); the rest is a pattern derived from the sequence number. Both processes run on one
// machine, so the server computes each block's delivery latency from the send time.
//
// Control messages (all on the Comch control path, plain text):
//   client -> server  "hello block_size=B interval_us=I duration_ms=D"
//   server -> client  "ready"                    consumer running, every buffer posted
//   client -> server  "done sent=N"              all N sends have completed
//   server -> client  "verdict ok" | "verdict fail"
// Both sides end with one human summary and one machine-readable line on stdout, e.g.
//   RESULT role=server mode=poll block_size=65536 ... delivered=30000 lost=0 ... p50_us=9.10 ...
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>
#include <doca_pe.h>

#include "program_common.h"

#define STREAM_DEFAULT_NAME        "comch_stream"
#define STREAM_DEFAULT_BLOCK_SIZE  65536
#define STREAM_DEFAULT_INTERVAL_US 100
#define STREAM_DEFAULT_DURATION_MS 3000
#define STREAM_MAX_BLOCK_SIZE      (16u * 1024 * 1024)
#define STREAM_MAX_DURATION_MS     (3600u * 1000)

#define STREAM_RECV_BUFFERS     16 // receive buffers the server keeps posted
#define STREAM_SEND_SLOTS       16 // sends the client may have in flight
#define STREAM_WAIT_TIMEOUT_S   10
#define STREAM_DRAIN_TIMEOUT_MS 2000 // after "done", how long the server waits for stragglers
#define STREAM_CTRL_MSG_MAX     256

struct stream_config {
	struct program_args args; // must come first: program_main() and its flag callbacks write into it
	uint32_t block_size;
	uint32_t interval_us; // 0: as fast as the posted buffers allow
	uint32_t duration_ms;
};

// ---- the block format ----

// At the start of every block, host byte order (both sides run on one machine).
struct stream_block_header {
	uint32_t magic;    // STREAM_MAGIC
	uint32_t size;     // the whole block, header included
	uint64_t seq;      // 0, 1, 2, ...
	uint64_t sent_ns;  // CLOCK_MONOTONIC when the send was submitted
	uint64_t checksum; // see stream_block_seal()
};

#define STREAM_MAGIC          0x4d525453u // "STRM"
#define STREAM_MIN_BLOCK_SIZE ((uint32_t)sizeof(struct stream_block_header))

// Writes the payload of block `seq` after the header and returns its hash (pass it to
// stream_block_seal()). The header itself is left alone.
uint64_t stream_block_fill_payload(uint8_t *block, uint32_t size, uint64_t seq);

// Writes the header of block `seq` with send time `sent_ns` and the checksum that combines the
// header fields with `payload_hash`. Cheap: called right before each submission.
void stream_block_seal(uint8_t *block, uint32_t size, uint64_t seq, uint64_t sent_ns, uint64_t payload_hash);

// Checks a received block of `len` bytes. Returns NULL if it is intact (header copied to *hdr),
// otherwise a short description of the damage.
const char *
stream_block_verify(const uint8_t *block, size_t len, uint32_t expected_size, struct stream_block_header *hdr);

// ---- statistics ----

// A growable array of latencies in nanoseconds.
struct stream_samples {
	uint64_t *v;
	size_t n;
	size_t cap;
};
doca_error_t stream_samples_reserve(struct stream_samples *s, size_t cap);
void stream_samples_add(struct stream_samples *s, uint64_t value); // dropped if it cannot grow
void stream_samples_free(struct stream_samples *s);

// ---- driving several progress engines ----
//
// Polling (default): progress every engine in turn; while work came in the last 200 us, yield the
// CPU between rounds, otherwise nap 10 us. With --epoll: progress until nothing is left, arm every
// engine's notification handle, and sleep in epoll_wait() on all of them (plus a timerfd when the
// caller has a deadline, e.g. the client's next send).

#define STREAM_MAX_PES 2

struct stream_driver {
	bool use_epoll;
	struct doca_pe *pes[STREAM_MAX_PES];
	doca_notification_handle_t handles[STREAM_MAX_PES];
	int num_pes;
	int epoll_fd;
	int timer_fd;
	uint64_t last_work_ns;
	uint64_t wakeups;       // epoll_wait() woken by a notification handle
	uint64_t timer_wakeups; // ... by the deadline timer
	uint64_t timeouts;      // ... by its 1 s safety timeout
	uint64_t late_wakeups;  // a safety timeout after which there was work (a missed notification)
	bool after_timeout;
};

doca_error_t stream_driver_init(struct stream_driver *d, bool use_epoll);
doca_error_t stream_driver_add_pe(struct stream_driver *d, struct doca_pe *pe);
void stream_driver_remove_pe(struct stream_driver *d, struct doca_pe *pe); // before destroying it
void stream_driver_fini(struct stream_driver *d);

// Progresses every engine once; returns how many had something to do.
unsigned stream_driver_progress(struct stream_driver *d);

// Called after a round in which nothing happened: yields, naps or sleeps on the handles, but not
// past `wake_at_ns` (0: no deadline).
doca_error_t stream_driver_idle(struct stream_driver *d, uint64_t wake_at_ns);

// Drives the engines until *flag (or *abort, when not NULL) is set. DOCA_ERROR_TIME_OUT after
// `timeout_ms` (0: no limit), DOCA_ERROR_CONNECTION_ABORTED if *abort was raised first.
doca_error_t stream_driver_run_until(struct stream_driver *d, const bool *flag, const bool *abort, uint64_t timeout_ms);

struct doca_ctx;

// Stops `ctx` unless it is IDLE and drives the engines until *idle, which its state callback sets
// in IDLE (for at most STREAM_WAIT_TIMEOUT_S). DOCA_SUCCESS when the context is IDLE.
doca_error_t stream_stop_ctx(struct stream_driver *d, struct doca_ctx *ctx, bool *idle);

// ---- the two roles ----

doca_error_t stream_run_server(const struct stream_config *cfg);
doca_error_t stream_run_client(const struct stream_config *cfg);
