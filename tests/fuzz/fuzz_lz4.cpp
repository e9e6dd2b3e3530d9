// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the LZ4 decoder of DOCA Compress's emulation (src/compress/lz4_codec.hpp), which
// reads whatever a program hands a decompression task. The first input byte chooses the task
// (bit 0: stream, else one block; bit 1: block checksums; bit 2: independent blocks) and the
// destination's room (bits 3-7: 1 to 32 pages); the rest is the source. For any input:
//   - nothing is read or written outside the source and the destination (ASan);
//   - a success reports at most the destination's room;
//   - a refusal of a corrupt input says why.
#include "compress/lz4_codec.hpp"

#include <cstring>
#include <vector>

#include "fuzz_target.hpp"

namespace lz = softcomch::compress;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const uint8_t mode = data[0];
    const size_t room = (size_t(mode >> 3) + 1) * 4096;
    // Exactly the source's bytes and exactly the room: any overrun is a heap overflow.
    std::vector<uint8_t> src(data + 1, data + size);
    std::vector<uint8_t> out(room);
    const char *why = nullptr;
    size_t produced = 0;
    lz::lz4_status st;
    if (mode & 1)
        st = lz::lz4_decode_stream(src.data(), src.size(), (mode & 2) != 0, (mode & 4) != 0,
                                   out.data(), out.size(), &produced, &why);
    else
        st = lz::lz4_decode_block(src.data(), src.size(), out.data(), out.size(), 0, &produced,
                                  &why);
    if (st == lz::lz4_status::ok && produced > room)
        softcomch::fuzz::invariant_failed();
    if (st == lz::lz4_status::corrupt && (why == nullptr || *why == '\0'))
        softcomch::fuzz::invariant_failed();
    return 0;
}

namespace softcomch::fuzz {

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds()
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    auto le32 = [](std::vector<uint8_t> &v, uint32_t x) {
        for (int i = 0; i < 4; ++i)
            v.push_back(uint8_t(x >> (8 * i)));
    };
    // One block: literals "abc", a match of 9 at offset 3, the final literal "d".
    const std::vector<uint8_t> block{0x35, 'a', 'b', 'c', 0x03, 0x00, 0x10, 'd'};
    std::vector<uint8_t> b{0x00}; // mode: block, one page
    b.insert(b.end(), block.begin(), block.end());
    out.emplace_back("block_match", b);
    // A stream of that block with its checksum, a stored block, and the end mark.
    std::vector<uint8_t> s{0x03}; // mode: stream, block checksums
    le32(s, uint32_t(block.size()));
    s.insert(s.end(), block.begin(), block.end());
    le32(s, lz::xxh32(block.data(), block.size(), 0));
    const std::vector<uint8_t> stored{'s', 't', 'o', 'r', 'e', 'd'};
    le32(s, 0x80000000u | uint32_t(stored.size()));
    s.insert(s.end(), stored.begin(), stored.end());
    le32(s, lz::xxh32(stored.data(), stored.size(), 0));
    le32(s, 0);
    out.emplace_back("stream_checksums", s);
    // A long run by a match overlapping its own output, into a small room.
    std::vector<uint8_t> r{0x00, 0x1f, 'x', 0x01, 0x00, 0xff, 0xff, 0x10, 0x10, 'y'};
    out.emplace_back("overlapping_run", r);
    // Broken: an offset before the output, a length past the end, a cut-off size word.
    out.emplace_back("bad_offset", std::vector<uint8_t>{0x00, 0x10, 'a', 0x05, 0x00, 0x00});
    out.emplace_back("long_literals", std::vector<uint8_t>{0x00, 0xf0, 0xff, 0xff, 0x10, 'a'});
    out.emplace_back("cut_size_word", std::vector<uint8_t>{0x01, 0x10, 0x00});
    return out;
}

} // namespace softcomch::fuzz
