// SPDX-License-Identifier: Apache-2.0
//
// This side's caps on what a peer may ask of it (transport::link_params, filled by comch from
// the device's Comch caps), as the shm transport's handshake and slow channel apply them
// (docs/failure-model.md, "Peer input"). The kernel-side checks of descriptors and identity are
// in peer_checks.hpp.
#pragma once

#include "transport/transport.hpp"
#include "transport/wire.hpp"

#include <cstdint>

namespace softcomch::transport::shm {

// `cap`, or `bound` where the cap is 0 (not given) or above the transport's own bound.
uint32_t cap_or(uint32_t cap, uint32_t bound) noexcept;

// Bytes of the largest fast channel an announced consumer may have: one for the device's
// consumer_max_num_tasks (fast_channel.hpp).
uint64_t max_channel_size(const link_params &limits) noexcept;

// What is wrong with a server's ACCEPT, given what the client asked for (nullptr: nothing). The
// client recomputes both rings from the negotiated values (ring_layout::params_for, as the
// server does), so every size is bounded by its own parameters and caps before a byte of the
// segment is mapped.
const char *check_accept(const wire::accept_msg &a, const link_params &mine) noexcept;

} // namespace softcomch::transport::shm
