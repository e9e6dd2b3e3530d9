// SPDX-License-Identifier: Apache-2.0
//
// Payload patterns and checksums of the fast-path tests (both sides compute them from the message
// size and sequence number). Definitions in fastpath_pattern.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sc_test::fp {

uint64_t mix64(uint64_t x);

// Seed of the pattern of message `seq` of `size` bytes (tests use it on both sides).
uint64_t pattern_seed(uint64_t size, uint64_t seq, uint64_t salt = 0);

void fill_pattern(uint8_t *p, size_t len, uint64_t seed);

// Index of the first byte that differs from the pattern, or SIZE_MAX if all match.
size_t check_pattern(const uint8_t *p, size_t len, uint64_t seed);

uint64_t checksum(const uint8_t *p, size_t len, uint64_t h = 0xcbf29ce484222325ull);

} // namespace sc_test::fp
