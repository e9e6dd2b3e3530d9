// SPDX-License-Identifier: Apache-2.0
//
// The definitions of fastpath_pattern.hpp.
#include "fastpath_pattern.hpp"

#include <cstring>

namespace sc_test::fp {

uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t pattern_seed(uint64_t size, uint64_t seq, uint64_t salt)
{
    return mix64(size * 0x100000001b3ull ^ mix64(seq) ^ (salt << 17));
}

void fill_pattern(uint8_t *p, size_t len, uint64_t seed)
{
    size_t words = len / 8;
    for (size_t k = 0; k < words; ++k) {
        uint64_t w = mix64(seed + k);
        std::memcpy(p + 8 * k, &w, 8);
    }
    if (len % 8) {
        uint64_t w = mix64(seed + words);
        std::memcpy(p + 8 * words, &w, len % 8);
    }
}

size_t check_pattern(const uint8_t *p, size_t len, uint64_t seed)
{
    size_t words = len / 8;
    for (size_t k = 0; k < words; ++k) {
        uint64_t w = mix64(seed + k), got;
        std::memcpy(&got, p + 8 * k, 8);
        if (got != w) {
            for (size_t i = 0; i < 8; ++i)
                if (p[8 * k + i] != reinterpret_cast<const uint8_t *>(&w)[i])
                    return 8 * k + i;
        }
    }
    if (len % 8) {
        uint64_t w = mix64(seed + words);
        for (size_t i = 0; i < len % 8; ++i)
            if (p[8 * words + i] != reinterpret_cast<const uint8_t *>(&w)[i])
                return 8 * words + i;
    }
    return SIZE_MAX;
}

uint64_t checksum(const uint8_t *p, size_t len, uint64_t h)
{
    size_t words = len / 8;
    for (size_t k = 0; k < words; ++k) {
        uint64_t w;
        std::memcpy(&w, p + 8 * k, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (size_t i = 8 * words; i < len; ++i)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return mix64(h ^ len);
}

} // namespace sc_test::fp
