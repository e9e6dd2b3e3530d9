// SPDX-License-Identifier: Apache-2.0
#include "compress/lz4_codec.hpp"

#include <cstring>

namespace softcomch::compress {

namespace {

constexpr uint32_t k_prime1 = 2654435761u;
constexpr uint32_t k_prime2 = 2246822519u;
constexpr uint32_t k_prime3 = 3266489917u;
constexpr uint32_t k_prime4 = 668265263u;
constexpr uint32_t k_prime5 = 374761393u;

uint32_t rotl(uint32_t v, int r) noexcept
{
    return (v << r) | (v >> (32 - r));
}
uint32_t read_le32(const uint8_t *p) noexcept
{
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint32_t round32(uint32_t acc, uint32_t lane) noexcept
{
    return rotl(acc + lane * k_prime2, 13) * k_prime1;
}

// The shortest match and the bytes a block's last sequence must leave as literals.
constexpr size_t k_min_match = 4;

} // namespace

uint32_t xxh32(const uint8_t *p, size_t len, uint32_t seed) noexcept
{
    const uint8_t *const end = p + len;
    uint32_t h;
    if (len >= 16) {
        uint32_t v1 = seed + k_prime1 + k_prime2, v2 = seed + k_prime2, v3 = seed,
                 v4 = seed - k_prime1;
        for (; end - p >= 16; p += 16) {
            v1 = round32(v1, read_le32(p));
            v2 = round32(v2, read_le32(p + 4));
            v3 = round32(v3, read_le32(p + 8));
            v4 = round32(v4, read_le32(p + 12));
        }
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    } else {
        h = seed + k_prime5;
    }
    h += uint32_t(len);
    for (; end - p >= 4; p += 4)
        h = rotl(h + read_le32(p) * k_prime3, 17) * k_prime4;
    for (; p < end; ++p)
        h = rotl(h + *p * k_prime5, 11) * k_prime1;
    h ^= h >> 15;
    h *= k_prime2;
    h ^= h >> 13;
    h *= k_prime3;
    h ^= h >> 16;
    return h;
}

lz4_status lz4_decode_block(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                            size_t window_start, size_t *out_pos, const char **why) noexcept
{
    size_t ip = 0, op = *out_pos;
    // A length: the 4-bit field, then while 15 (or 255) more bytes add to it.
    auto length = [&](size_t field, size_t *len) -> bool {
        *len = field;
        if (field != 15)
            return true;
        for (;;) {
            if (ip >= in_len)
                return false;
            const uint8_t b = in[ip++];
            if (*len > SIZE_MAX - 255)
                return false;
            *len += b;
            if (b != 255)
                return true;
        }
    };
    if (in_len == 0) {
        *why = "an empty LZ4 block";
        return lz4_status::corrupt;
    }
    for (;;) {
        if (ip >= in_len) {
            *why = "the LZ4 block ends inside a sequence";
            return lz4_status::corrupt;
        }
        const uint8_t token = in[ip++];
        size_t lit = 0;
        if (!length(token >> 4, &lit) || lit > in_len - ip) {
            *why = "an LZ4 literal run goes past the end of the block";
            return lz4_status::corrupt;
        }
        if (lit > out_len - op)
            return lz4_status::out_of_room;
        std::memcpy(out + op, in + ip, lit);
        ip += lit;
        op += lit;
        if (ip == in_len)
            break; // the last sequence: literals only
        if (in_len - ip < 2) {
            *why = "an LZ4 match offset is cut off";
            return lz4_status::corrupt;
        }
        const size_t offset = size_t(in[ip]) | size_t(in[ip + 1]) << 8;
        ip += 2;
        if (offset == 0 || offset > op - window_start) {
            *why = "an LZ4 match refers to data before the start of its window";
            return lz4_status::corrupt;
        }
        size_t match = 0;
        if (!length(token & 15, &match)) {
            *why = "an LZ4 match length goes past the end of the block";
            return lz4_status::corrupt;
        }
        match += k_min_match;
        if (match > out_len - op)
            return lz4_status::out_of_room;
        // Byte by byte: a match may overlap its own output (offset < length repeats a pattern).
        const uint8_t *from = out + op - offset;
        for (size_t i = 0; i < match; ++i)
            out[op + i] = from[i];
        op += match;
    }
    *out_pos = op;
    return lz4_status::ok;
}

lz4_status lz4_decode_stream(const uint8_t *in, size_t in_len, bool has_block_checksum,
                             bool blocks_independent, uint8_t *out, size_t out_len,
                             size_t *produced, const char **why) noexcept
{
    size_t ip = 0, op = 0;
    const size_t checksum_len = has_block_checksum ? 4 : 0;
    while (ip < in_len) {
        if (in_len - ip < 4) {
            *why = "an LZ4 block size word is cut off";
            return lz4_status::corrupt;
        }
        const uint32_t word = read_le32(in + ip);
        ip += 4;
        if (word == 0)
            break; // the end mark
        const bool stored = (word & 0x80000000u) != 0;
        const size_t size = word & 0x7fffffffu;
        if (size > in_len - ip || checksum_len > in_len - ip - size) {
            *why = "an LZ4 block goes past the end of the input";
            return lz4_status::corrupt;
        }
        const uint8_t *block = in + ip;
        if (has_block_checksum && xxh32(block, size, 0) != read_le32(block + size)) {
            *why = "an LZ4 block's checksum does not match its data";
            return lz4_status::corrupt;
        }
        if (stored) {
            if (size > out_len - op)
                return lz4_status::out_of_room;
            std::memcpy(out + op, block, size);
            op += size;
        } else {
            const lz4_status st =
                lz4_decode_block(block, size, out, out_len, blocks_independent ? op : 0, &op, why);
            if (st != lz4_status::ok)
                return st;
        }
        ip += size + checksum_len;
    }
    *produced = op;
    return lz4_status::ok;
}

} // namespace softcomch::compress
