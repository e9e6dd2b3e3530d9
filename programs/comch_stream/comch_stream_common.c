// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_log.h>

#include "comch_stream.h"
#include "sample_common.h"

DOCA_LOG_REGISTER(COMCH_STREAM::COMMON);

_Static_assert(sizeof(struct stream_block_header) == 32, "the block header layout is part of the wire format");

#define EPOLL_SAFETY_MS 1000       // epoll_wait() gives up after this long and progresses anyway
#define TIMER_TAG       UINT32_MAX // epoll data of the timerfd (PEs use their index)
#define HASH_PRIME      0x9e3779b97f4a7c15ull

// ---- block format ----

static uint64_t rotl(uint64_t x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t avalanche(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

// Not cryptographic, only meant to catch damaged, stale or misplaced bytes. Four independent
// lanes, 32 bytes per round, so that a 64 KiB block hashes in a few microseconds. The state is
// exposed so that stream_block_fill_payload() can hash the words as it writes them.
struct hash_state {
	uint64_t lane[4];
};

static void hash_init(struct hash_state *h)
{
	h->lane[0] = 0x243f6a8885a308d3ull;
	h->lane[1] = 0x13198a2e03707344ull;
	h->lane[2] = 0xa4093822299f31d0ull;
	h->lane[3] = 0x082efa98ec4e6c89ull;
}

static void hash_round(struct hash_state *h, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3)
{
	h->lane[0] = rotl((h->lane[0] ^ w0) * HASH_PRIME, 29);
	h->lane[1] = rotl((h->lane[1] ^ w1) * HASH_PRIME, 29);
	h->lane[2] = rotl((h->lane[2] ^ w2) * HASH_PRIME, 29);
	h->lane[3] = rotl((h->lane[3] ^ w3) * HASH_PRIME, 29);
}

// Absorbs the last len % 32 bytes at `rest` and returns the hash of all `len` bytes.
static uint64_t hash_finish(struct hash_state *h, const uint8_t *rest, size_t len)
{
	size_t left = len % 32;
	uint64_t tail = 0;
	size_t i = 0;

	for (; i + 8 <= left; i += 8)
		h->lane[0] = rotl((h->lane[0] ^ load64(rest + i)) * HASH_PRIME, 29);
	if (i < left) {
		memcpy(&tail, rest + i, left - i);
		h->lane[1] = rotl((h->lane[1] ^ tail) * HASH_PRIME, 29);
	}
	return avalanche(h->lane[0] ^ rotl(h->lane[1], 17) ^ rotl(h->lane[2], 31) ^ rotl(h->lane[3], 47) ^
			 (uint64_t)len);
}

static uint64_t hash_bytes(const uint8_t *p, size_t len)
{
	struct hash_state h;
	size_t i;

	hash_init(&h);
	for (i = 0; i + 32 <= len; i += 32)
		hash_round(&h, load64(p + i), load64(p + i + 8), load64(p + i + 16), load64(p + i + 24));
	return hash_finish(&h, p + i, len);
}

// Word i of block seq: cheap, different for every block and position (one multiply per word).
static uint64_t pattern_word(uint64_t seed, size_t i)
{
	uint64_t w = (seed ^ (uint64_t)i) * HASH_PRIME;

	return w ^ (w >> 32);
}

static void store64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

uint64_t stream_block_fill_payload(uint8_t *block, uint32_t size, uint64_t seq)
{
	uint8_t *payload = block + STREAM_MIN_BLOCK_SIZE;
	size_t len = size - STREAM_MIN_BLOCK_SIZE;
	uint64_t seed = avalanche(seq + 1);
	uint64_t w0, w1, w2, w3;
	struct hash_state h, lanes;
	size_t i;

	// Same result as hash_bytes() over the written payload, in one pass. The lanes live in a
	// copy that the byte stores below cannot alias, so they stay in registers.
	hash_init(&h);
	lanes = h;
	for (i = 0; i + 32 <= len; i += 32) {
		w0 = pattern_word(seed, i);
		w1 = pattern_word(seed, i + 8);
		w2 = pattern_word(seed, i + 16);
		w3 = pattern_word(seed, i + 24);
		hash_round(&lanes, w0, w1, w2, w3);
		store64(payload + i, w0);
		store64(payload + i + 8, w1);
		store64(payload + i + 16, w2);
		store64(payload + i + 24, w3);
	}
	h = lanes;
	for (; i + 8 <= len; i += 8)
		store64(payload + i, pattern_word(seed, i));
	if (i < len) {
		w0 = pattern_word(seed, i);
		memcpy(payload + i, &w0, len - i);
	}
	return hash_finish(&h, payload + len - len % 32, len);
}

static uint64_t block_checksum(const struct stream_block_header *hdr, uint64_t payload_hash)
{
	uint64_t h = payload_hash;

	h = avalanche(h ^ ((uint64_t)hdr->magic << 32 | hdr->size));
	h = avalanche(h ^ hdr->seq);
	return avalanche(h ^ hdr->sent_ns);
}

void stream_block_seal(uint8_t *block, uint32_t size, uint64_t seq, uint64_t sent_ns, uint64_t payload_hash)
{
	struct stream_block_header hdr = {.magic = STREAM_MAGIC, .size = size, .seq = seq, .sent_ns = sent_ns};

	hdr.checksum = block_checksum(&hdr, payload_hash);
	memcpy(block, &hdr, sizeof(hdr));
}

const char *
stream_block_verify(const uint8_t *block, size_t len, uint32_t expected_size, struct stream_block_header *hdr)
{
	if (len < STREAM_MIN_BLOCK_SIZE)
		return "shorter than the block header";
	memcpy(hdr, block, sizeof(*hdr));
	if (hdr->magic != STREAM_MAGIC)
		return "bad magic";
	if (hdr->size != len)
		return "length differs from the size in the header";
	if (len != expected_size)
		return "not the announced block size";
	if (hdr->checksum !=
	    block_checksum(hdr, hash_bytes(block + STREAM_MIN_BLOCK_SIZE, len - STREAM_MIN_BLOCK_SIZE)))
		return "checksum mismatch";
	return NULL;
}

// ---- statistics ----

doca_error_t stream_samples_reserve(struct stream_samples *s, size_t cap)
{
	uint64_t *v;

	if (cap <= s->cap)
		return DOCA_SUCCESS;
	v = realloc(s->v, cap * sizeof(*v));
	if (v == NULL)
		return DOCA_ERROR_NO_MEMORY;
	s->v = v;
	s->cap = cap;
	return DOCA_SUCCESS;
}

void stream_samples_add(struct stream_samples *s, uint64_t value)
{
	if (s->n == s->cap && stream_samples_reserve(s, s->cap ? s->cap * 2 : 1024) != DOCA_SUCCESS)
		return;
	s->v[s->n++] = value;
}

void stream_samples_free(struct stream_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

// ---- driver ----

doca_error_t stream_driver_init(struct stream_driver *d, bool use_epoll)
{
	struct epoll_event ev;

	memset(d, 0, sizeof(*d));
	d->use_epoll = use_epoll;
	d->epoll_fd = -1;
	d->timer_fd = -1;
	d->last_work_ns = sample_now_ns();
	if (!use_epoll)
		return DOCA_SUCCESS;

	d->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->epoll_fd < 0 || d->timer_fd < 0) {
		DOCA_LOG_ERR("Cannot set up epoll: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u32 = TIMER_TAG;
	if (epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, d->timer_fd, &ev) != 0) {
		DOCA_LOG_ERR("Cannot watch the timer: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return DOCA_SUCCESS;
}

// The epoll data of a PE's handle is its slot index; rewritten whenever the slots move.
static doca_error_t watch_slot(struct stream_driver *d, int i, int op)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u32 = (uint32_t)i;
	if (epoll_ctl(d->epoll_fd, op, d->handles[i], &ev) != 0) {
		DOCA_LOG_ERR("Cannot watch a progress engine's notification handle: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return DOCA_SUCCESS;
}

doca_error_t stream_driver_add_pe(struct stream_driver *d, struct doca_pe *pe)
{
	doca_error_t result;
	int i = d->num_pes;

	if (i == STREAM_MAX_PES)
		return DOCA_ERROR_FULL;
	if (d->use_epoll) {
		result = doca_pe_get_notification_handle(pe, &d->handles[i]);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot get a notification handle: %s", doca_error_get_name(result));
			return result;
		}
		result = watch_slot(d, i, EPOLL_CTL_ADD);
		if (result != DOCA_SUCCESS)
			return result;
	}
	d->pes[i] = pe;
	d->num_pes++;
	return DOCA_SUCCESS;
}

void stream_driver_remove_pe(struct stream_driver *d, struct doca_pe *pe)
{
	int i;

	for (i = 0; i < d->num_pes && d->pes[i] != pe; i++)
		;
	if (i == d->num_pes)
		return;
	if (d->use_epoll)
		(void)epoll_ctl(d->epoll_fd, EPOLL_CTL_DEL, d->handles[i], NULL);
	for (; i + 1 < d->num_pes; i++) {
		d->pes[i] = d->pes[i + 1];
		d->handles[i] = d->handles[i + 1];
		if (d->use_epoll)
			(void)watch_slot(d, i, EPOLL_CTL_MOD);
	}
	d->num_pes--;
}

void stream_driver_fini(struct stream_driver *d)
{
	if (d->epoll_fd >= 0)
		close(d->epoll_fd);
	if (d->timer_fd >= 0)
		close(d->timer_fd);
	d->epoll_fd = -1;
	d->timer_fd = -1;
	d->num_pes = 0;
}

unsigned stream_driver_progress(struct stream_driver *d)
{
	unsigned busy = 0;
	int i;

	for (i = 0; i < d->num_pes; i++) {
		if (doca_pe_progress(d->pes[i]) != 0)
			busy++;
	}
	if (busy != 0) {
		d->last_work_ns = sample_now_ns();
		if (d->after_timeout)
			d->late_wakeups++;
		d->after_timeout = false;
	}
	return busy;
}

static doca_error_t epoll_idle(struct stream_driver *d, uint64_t wake_at_ns)
{
	struct epoll_event events[STREAM_MAX_PES + 1];
	struct itimerspec when;
	uint64_t expirations;
	doca_error_t result;
	int i, n;

	if (wake_at_ns != 0 && wake_at_ns <= sample_now_ns())
		return DOCA_SUCCESS;

	// Arming leaves a handle readable when work is already pending, so nothing that arrived
	// since the last progress call is slept through.
	for (i = 0; i < d->num_pes; i++) {
		result = doca_pe_request_notification(d->pes[i]);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot arm a notification handle: %s", doca_error_get_name(result));
			return result;
		}
	}
	memset(&when, 0, sizeof(when)); // all zero disarms
	if (wake_at_ns != 0) {
		when.it_value.tv_sec = (time_t)(wake_at_ns / 1000000000ull);
		when.it_value.tv_nsec = (long)(wake_at_ns % 1000000000ull);
	}
	if (timerfd_settime(d->timer_fd, TFD_TIMER_ABSTIME, &when, NULL) != 0) {
		DOCA_LOG_ERR("Cannot set the timer: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}

	n = epoll_wait(d->epoll_fd, events, STREAM_MAX_PES + 1, EPOLL_SAFETY_MS);
	if (n < 0 && errno != EINTR) {
		DOCA_LOG_ERR("epoll_wait failed: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	if (n == 0) {
		d->timeouts++;
		d->after_timeout = true;
	}
	for (i = 0; i < n; i++) {
		if (events[i].data.u32 == TIMER_TAG) {
			d->timer_wakeups++;
			if (read(d->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
				DOCA_LOG_WARN("Cannot read the timer: %s", strerror(errno));
		} else {
			d->wakeups++;
		}
	}
	for (i = 0; i < d->num_pes; i++) {
		result = doca_pe_clear_notification(d->pes[i], d->handles[i]);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot clear a notification: %s", doca_error_get_name(result));
			return result;
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t stream_driver_idle(struct stream_driver *d, uint64_t wake_at_ns)
{
	if (!d->use_epoll) {
		program_poll_idle(d->last_work_ns, wake_at_ns);
		return DOCA_SUCCESS;
	}
	return epoll_idle(d, wake_at_ns);
}

// One round of a wait: progress every engine; idle when none had anything to do.
static doca_error_t driver_step(void *arg, uint64_t deadline_ns)
{
	struct stream_driver *d = arg;

	if (stream_driver_progress(d) != 0)
		return DOCA_SUCCESS;
	return stream_driver_idle(d, deadline_ns);
}

doca_error_t stream_driver_run_until(struct stream_driver *d, const bool *flag, const bool *abort, uint64_t timeout_ms)
{
	return sample_wait_until(sample_flag_is_set, flag, abort, sample_deadline_ms(timeout_ms), driver_step, d);
}

doca_error_t stream_stop_ctx(struct stream_driver *d, struct doca_ctx *ctx, bool *idle)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;
	doca_error_t result;

	if (doca_ctx_get_state(ctx, &state) != DOCA_SUCCESS || state == DOCA_CTX_STATE_IDLE)
		return DOCA_SUCCESS;
	*idle = false;
	result = doca_ctx_stop(ctx);
	if (result == DOCA_ERROR_IN_PROGRESS)
		result = stream_driver_run_until(d, idle, NULL, STREAM_WAIT_TIMEOUT_S * 1000ull);
	return result;
}
