// SPDX-License-Identifier: Apache-2.0
#include <stddef.h>
#include <string.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "comch_ping.h"
#include "sample_common.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME  0x100000001b3ull

_Static_assert(sizeof(struct ping_header) == 24, "the ping header layout is part of the wire format");

static uint64_t fnv1a(uint64_t hash, const uint8_t *data, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		hash ^= data[i];
		hash *= FNV_PRIME;
	}
	return hash;
}

static uint8_t pattern_byte(uint32_t seq, uint32_t offset)
{
	return (uint8_t)(seq * 31u + offset * 7u + 1u);
}

static uint64_t message_checksum(const uint8_t *buf, uint32_t size)
{
	struct ping_header hdr;

	memcpy(&hdr, buf, sizeof(hdr));
	hdr.checksum = 0;
	return fnv1a(fnv1a(FNV_OFFSET, (const uint8_t *)&hdr, sizeof(hdr)), buf + sizeof(hdr), size - sizeof(hdr));
}

void ping_fill(uint8_t *buf, uint32_t size, uint32_t seq, uint32_t count)
{
	struct ping_header hdr = {.magic = PING_MAGIC, .seq = seq, .count = count, .size = size, .checksum = 0};
	uint32_t i;

	for (i = 0; i < size - PING_MIN_SIZE; i++)
		buf[PING_MIN_SIZE + i] = pattern_byte(seq, i);
	memcpy(buf, &hdr, sizeof(hdr));
	hdr.checksum = message_checksum(buf, size);
	memcpy(buf, &hdr, sizeof(hdr));
}

const char *ping_verify(const uint8_t *buf, uint32_t len, uint32_t expected_seq, struct ping_header *hdr)
{
	uint32_t i;

	if (len < PING_MIN_SIZE)
		return "message shorter than the ping header";
	memcpy(hdr, buf, sizeof(*hdr));
	if (hdr->magic != PING_MAGIC)
		return "bad magic";
	if (hdr->size != len)
		return "length differs from the size in the header";
	if (hdr->checksum != message_checksum(buf, len))
		return "checksum mismatch";
	if (hdr->seq != expected_seq)
		return "unexpected sequence number";
	for (i = 0; i < len - PING_MIN_SIZE; i++) {
		if (buf[PING_MIN_SIZE + i] != pattern_byte(hdr->seq, i))
			return "payload differs from the pattern of its sequence number";
	}
	return NULL;
}

// Busy polling for a latency tool: spin while messages flow, nap once they stop
// (program_poll_idle()).
static void spin_until(struct doca_pe *pe, const bool *done)
{
	uint64_t last_work = sample_now_ns();

	while (!*done) {
		if (doca_pe_progress(pe) != 0) {
			last_work = sample_now_ns();
			continue;
		}
		program_poll_idle(last_work, 0);
	}
}

doca_error_t ping_drive(struct doca_pe *pe, bool use_epoll, const bool *done, struct sample_event_loop *loop_stats)
{
	doca_error_t result;

	memset(loop_stats, 0, sizeof(*loop_stats));
	loop_stats->epoll_fd = -1;
	if (!use_epoll) {
		spin_until(pe, done);
		return DOCA_SUCCESS;
	}
	result = sample_event_loop_init(loop_stats, pe);
	if (result == DOCA_SUCCESS)
		result = sample_event_loop_run(loop_stats, done);
	sample_event_loop_fini(loop_stats);
	return result;
}
