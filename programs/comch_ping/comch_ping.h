// SPDX-License-Identifier: Apache-2.0
//
// comch_ping: a control-path ping-pong used by the tests and `softcomch demo`. The client sends
// COUNT messages of SIZE bytes, one at a time; the server echoes each one back. Every message
// carries a sequence number and a checksum, checked by both sides on receipt. The client
// measures the round trip of each message and reports the median and the 99th percentile.
//
// Both sides print one machine-readable line at the end, e.g.
//   RESULT role=client mode=poll count=1000 size=64 errors=0 elapsed_s=0.0123 p50_us=4.10 ...
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

#include "program_common.h"

#define PING_DEFAULT_NAME  "comch_ping"
#define PING_DEFAULT_COUNT 1000
#define PING_DEFAULT_SIZE  64

struct ping_config {
	struct program_args args; // must come first: program_main() and its flag callbacks write into it
	uint32_t count;
	uint32_t size;
};

// On-the-wire header at the start of every message (both sides run on one machine, so host
// byte order). The rest of the message is a pattern derived from the sequence number.
struct ping_header {
	uint32_t magic;    // PING_MAGIC
	uint32_t seq;      // 0 .. count-1
	uint32_t count;    // messages in this run: tells the server when it is done
	uint32_t size;     // whole message size in bytes, header included
	uint64_t checksum; // FNV-1a of the whole message computed with this field set to 0
};

#define PING_MAGIC    0x474e4950u // "PING"
#define PING_MIN_SIZE ((uint32_t)sizeof(struct ping_header))

// Writes message `seq` of a run of `count` into buf (size bytes, size >= PING_MIN_SIZE).
void ping_fill(uint8_t *buf, uint32_t size, uint32_t seq, uint32_t count);

// Checks a received message. Returns NULL if it is intact and is message `expected_seq`,
// otherwise a short description of what is wrong. The header is copied to *hdr when the
// message is at least PING_MIN_SIZE long.
const char *ping_verify(const uint8_t *buf, uint32_t len, uint32_t expected_seq, struct ping_header *hdr);

// The roles (comch_ping_server.c, comch_ping_client.c).
doca_error_t ping_run_server(const struct ping_config *cfg);
doca_error_t ping_run_client(const struct ping_config *cfg);

struct doca_ctx;
struct doca_pe;
struct sample_event_loop;

// Progresses `pe` until *done: busy polling (napping only after 200 us without work), or
// (use_epoll) sleeping on its notification handle; then the wake-up counters are left in
// *loop_stats.
doca_error_t ping_drive(struct doca_pe *pe, bool use_epoll, const bool *done, struct sample_event_loop *loop_stats);
