// SPDX-License-Identifier: Apache-2.0
//
// One side of a checked fast-path stream on one Comch connection, shared by the stress tests
// (test_fastpath_stress.cpp, test_load.cpp). The side runs `consumers` consumers and `producers`
// producers, each on its own thread with its own progress engine; every producer streams to
// every consumer of the peer for `seconds`. Every message carries a header (sequence number per
// producer/consumer pair, lengths, checksum of the body) and, every few messages, immediate data;
// the receiver checks all of it, and exactly-once in-order delivery per pair, through to an end
// marker that carries the number of messages sent. The calling thread drives the connection and
// exchanges numbered control messages ("ping N") meanwhile. Definitions in fastpath_stream.cpp.
#pragma once

#include <cstddef>
#include <string>

#include "fastpath_harness.hpp"

namespace sc_test::fp {

struct stream_cfg {
    long seconds = 150;
    long consumers = 3;
    long producers = 2;
    size_t max_msg = 65536; // largest message body in bytes
};

// "" when every check held, else what failed (fastpath_checks.hpp conventions).
std::string stream_side(side &s, consumer_events &ev, doca_comch_connection *conn, doca_dev *dev,
                        bool epoll, const stream_cfg &cfg, const char *who);

} // namespace sc_test::fp
