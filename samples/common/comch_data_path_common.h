// SPDX-License-Identifier: Apache-2.0
//
// The fast-path half shared by the data-path samples (compiled into both the server and the
// client): send one message through a producer to the peer's consumer, and receive one message
// through a consumer of our own. Both run on an established control connection and keep its
// progress engine turning while they wait, so that consumer announcements and control messages
// keep flowing.
//
// The consumer/producer ids of the peer arrive through the server's or client's consumer events;
// the samples record them in a struct dp_peer, which dp_send_one() waits on.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DP_START_MSG      "start_data_path_test" // control message that opens the exchange
#define DP_STOP_MSG       "stop_data_path_test"  // control message that closes it
#define DP_RECV_BUF_SIZE  (1024 * 1024)          // each side's receive buffer: 1 MiB
#define DP_TASKS          2                      // post-receive / send task pool size
#define DP_WAIT_TIMEOUT_S 10                     // limit for each fast-path wait

// What the control path has learned about the peer's fast path, written by the consumer events.
struct dp_peer {
	uint32_t remote_consumer_id; // the peer's consumer, 0 while there is none
	uint32_t consumers_seen;     // new-consumer events so far
	uint32_t consumers_expired;  // expired-consumer events so far
};

// Whether a control message of `len` bytes at `buf` is the text `msg` (DP_START_MSG, DP_STOP_MSG).
bool dp_is_msg(const uint8_t *buf, uint32_t len, const char *msg);

// Records the events of a new / expired remote consumer in `peer`.
void dp_peer_consumer_created(struct dp_peer *peer, uint32_t id);
void dp_peer_consumer_expired(struct dp_peer *peer, uint32_t id);

// The fast path is attached to one control connection.
struct dp_link {
	struct doca_dev *dev;                     // opened device (its mmaps must include it)
	struct doca_pe *conn_pe;                  // the PE of the server or client context
	struct doca_comch_connection *connection; // the established connection
	const struct dp_peer *peer;               // updated by the consumer events
	const bool *abort;                        // set by the control path when the peer gave up
};

// Creates a consumer with a DP_RECV_BUF_SIZE buffer, posts the buffer, waits for one message and
// copies it (NUL-terminated, truncated to out_size - 1) to `out`. The consumer is stopped and
// destroyed before returning, which the peer sees as an expired consumer.
doca_error_t dp_receive_one(const struct dp_link *link, char *out, size_t out_size, size_t *out_len);

// Waits for the peer's consumer, creates a producer and sends `len` bytes of `msg` (1 .. the
// control path's maximum) to it, retrying while the submission says DOCA_ERROR_AGAIN. The
// producer is stopped and destroyed before returning.
doca_error_t dp_send_one(const struct dp_link *link, const char *msg, size_t len);

// Progresses both engines (either may be NULL) until *flag or *link->abort is set, or
// DP_WAIT_TIMEOUT_S passes. `what` names the wait in the error log.
doca_error_t dp_wait(const struct dp_link *link, struct doca_pe *other_pe, const bool *flag, const char *what);

#ifdef __cplusplus
}
#endif
