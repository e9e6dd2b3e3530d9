// SPDX-License-Identifier: Apache-2.0
//
// The bounds a peer cannot push past (docs/failure-model.md, "Bounds: handshakes, descriptors,
// stop, liveness"): each is a documented default that an environment variable may override, so
// that tests (and users with unusual needs) can shorten or lengthen it. The library reads them
// when a Comch server or client starts; the doctor (tools/softcomch/doctor) checks them with the
// same table.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/visibility.hpp"

namespace softcomch::bounds {

struct knob {
    const char *env;     // the variable
    uint64_t fallback;   // its default
    uint64_t min;        // smallest accepted value other than 0 (when zero_off)
    uint64_t max;        // largest accepted value
    bool zero_off;       // 0 is accepted too and means "off"
    const char *unit;    // for messages ("ms", "handshakes")
    const char *meaning; // one line, for messages
};

// A connection that has not completed its HELLO this long after accept is closed.
inline constexpr knob handshake_timeout{.env = "SOFTCOMCH_HANDSHAKE_TIMEOUT_MS",
                                        .fallback = 5000,
                                        .min = 1,
                                        .max = 3'600'000,
                                        .zero_off = false,
                                        .unit = "ms",
                                        .meaning = "deadline of a client's handshake"};
// Handshakes (accepted connections that have not completed their HELLO) one server holds at
// once; further connections are refused at once with "busy" (the client retries).
inline constexpr knob max_handshakes{.env = "SOFTCOMCH_MAX_HANDSHAKES",
                                     .fallback = 128,
                                     .min = 1,
                                     .max = 65536,
                                     .zero_off = false,
                                     .unit = "handshakes",
                                     .meaning = "cap on half-open connections per server"};
// How long a stopping server or client waits for its peer to take the sends still queued
// (and the disconnect notice); then those sends fail with DOCA_ERROR_CONNECTION_ABORTED.
inline constexpr knob stop_linger{.env = "SOFTCOMCH_STOP_LINGER_MS",
                                  .fallback = 5000,
                                  .min = 0,
                                  .max = 3'600'000,
                                  .zero_off = false,
                                  .unit = "ms",
                                  .meaning = "linger of a stop whose peer does not drain"};
// A peer that neither progressed nor waited for a wake-up this long is reported (0: never).
inline constexpr knob peer_stall{.env = "SOFTCOMCH_PEER_STALL_MS",
                                 .fallback = 5000,
                                 .min = 50,
                                 .max = 86'400'000,
                                 .zero_off = true,
                                 .unit = "ms",
                                 .meaning =
                                     "time before a peer that does not progress is reported"};
// A peer stalled this long is disconnected (0, the default: never, as on hardware).
inline constexpr knob peer_timeout{.env = "SOFTCOMCH_PEER_TIMEOUT_MS",
                                   .fallback = 0,
                                   .min = 50,
                                   .max = 86'400'000,
                                   .zero_off = true,
                                   .unit = "ms",
                                   .meaning = "time before a peer that does not progress is "
                                              "disconnected"};

// A connection that does not form is explained this long after the start, once (a client still
// STARTING: what it waits for and what the fabric has instead; src/comch/diagnostics.hpp). 0: never.
inline constexpr knob diag_delay{.env = "SOFTCOMCH_DIAG_DELAY_MS",
                                 .fallback = 2000,
                                 .min = 1,
                                 .max = 3'600'000,
                                 .zero_off = true,
                                 .unit = "ms",
                                 .meaning = "delay before a connection that does not form is "
                                            "explained"};

inline constexpr std::array<const knob *, 6> all{&handshake_timeout, &max_handshakes, &stop_linger,
                                                 &peer_stall,        &peer_timeout,   &diag_delay};

// The value of `k`: its default when the variable is unset or empty, else the decimal number it
// holds. false (and `why`, one sentence naming the variable) for anything else: not a number,
// out of range.
SOFTCOMCH_API bool read(const knob &k, uint64_t &out, std::string &why); // also the doctor's

} // namespace softcomch::bounds
