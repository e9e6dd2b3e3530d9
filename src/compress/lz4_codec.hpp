// SPDX-License-Identifier: Apache-2.0
//
// LZ4 decoding as DOCA's LZ4 decompress tasks take it (no frame): one raw block, or a stream of
// blocks each led by its 4-byte little-endian size word (high bit: stored uncompressed; 0: the
// end mark) and optionally followed by its 4-byte XXH32 checksum. Written from the LZ4 format
// descriptions (lz4_Block_format.md, lz4_Frame_format.md); every input is untrusted: each read
// and write is bounds-checked and a malformed input is an error, never an overrun.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softcomch::compress {

// XXH32 of `len` bytes with `seed`.
uint32_t xxh32(const uint8_t *p, size_t len, uint32_t seed) noexcept;

enum class lz4_status : uint8_t {
    ok,
    corrupt,     // not a valid block or stream (the reason in *why)
    out_of_room, // the output does not fit
};

// Decodes one block from [in, in + in_len) into out[out_pos...out_len), where out[0, out_pos)
// holds earlier output a match may refer to back to out[window_start] (the start of the output
// of blocks this one may depend on). On ok, *out_pos is advanced past the block's output.
lz4_status lz4_decode_block(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                            size_t window_start, size_t *out_pos, const char **why) noexcept;

// Decodes a stream of blocks (see above) into out[0, out_len); *produced gets the output size.
lz4_status lz4_decode_stream(const uint8_t *in, size_t in_len, bool has_block_checksum,
                             bool blocks_independent, uint8_t *out, size_t out_len,
                             size_t *produced, const char **why) noexcept;

} // namespace softcomch::compress
