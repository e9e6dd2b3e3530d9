// SPDX-License-Identifier: Apache-2.0
//
// DOCA Compress and DOCA SHA through the public headers only (include/doca_compress.h,
// include/doca_sha.h), on a machine of two BlueFields: bf0 a BlueField-3 (deflate and LZ4
// decompression, no compression, no SHA) and bf1 a BlueField-2 (deflate both ways, SHA). Round
// trips of deflate with the checksums zlib defines, LZ4 streams and blocks made by the reference
// lz4 tool (with its content checksum), SHA digests against the FIPS 180 examples, partial
// hashes segment by segment (resubmitted from the completion callback, as NVIDIA's
// sha_partial_create does), and the refusals and failures the headers document.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_compress.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_sha.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "device_lookup.hpp"
#include "dma_fixture.hpp"

inline void PrintTo(doca_error e, std::ostream *os)
{
    *os << doca_error_get_name(e) << " (" << int(e) << ")";
}

namespace {

constexpr const char *k_bf3_dpu = "03:00.0";
constexpr const char *k_bf2_dpu = "04:00.0";

// The machine of this file, written before anything reads the topology.
const int topology_set = [] {
    unsetenv("SOFTCOMCH_SIDE");
    static char path[] = "/tmp/softcomch-test-engines-XXXXXX.json";
    const int fd = mkstemps(path, 5);
    if (fd < 0)
        return 0;
    const char *doc = R"({"version": 1, "bluefields": [
      {"id": "bf0", "model": "BlueField-3", "mode": "dpu",
       "host": [{"pci": "b1:00.0"}],
       "dpu": [{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0"}]}]},
      {"id": "bf1", "model": "BlueField-2", "mode": "dpu",
       "host": [{"pci": "ca:00.0"}],
       "dpu": [{"pci": "04:00.0", "representors": [{"host_function": "ca:00.0"}]}]}]})";
    if (write(fd, doc, std::strlen(doc)) < 0)
        return 0;
    close(fd);
    setenv("SOFTCOMCH_TOPOLOGY", path, 1);
    static const struct remover {
        ~remover() { unlink(path); }
    } remove_at_exit;
    return 1;
}();

// 2870 bytes of text, and what `lz4 -9 -BX` made of it: one compressed block with its checksum
// and the end mark (the frame's header and content checksum removed).
std::vector<uint8_t> lz4_plain()
{
    std::string s;
    char line[96];
    for (int i = 0; i < 60; ++i) {
        std::snprintf(line, sizeof line, "line %d of the softcomch lz4 fixture: abcabcabc\n", i);
        s += line;
    }
    return {s.begin(), s.end()};
}
const uint8_t k_lz4_stream[] = {
    0x57, 0x01, 0x00, 0x00, 0xf2, 0x19, 0x6c, 0x69, 0x6e, 0x65, 0x20, 0x30, 0x20, 0x6f, 0x66, 0x20,
    0x74, 0x68, 0x65, 0x20, 0x73, 0x6f, 0x66, 0x74, 0x63, 0x6f, 0x6d, 0x63, 0x68, 0x20, 0x6c, 0x7a,
    0x34, 0x20, 0x66, 0x69, 0x78, 0x74, 0x75, 0x72, 0x65, 0x3a, 0x20, 0x61, 0x62, 0x63, 0x03, 0x00,
    0x11, 0x0a, 0x2f, 0x00, 0x1f, 0x31, 0x2f, 0x00, 0x1b, 0x1f, 0x32, 0x2f, 0x00, 0x1b, 0x1f, 0x33,
    0x2f, 0x00, 0x1b, 0x1f, 0x34, 0x2f, 0x00, 0x1b, 0x1f, 0x35, 0x2f, 0x00, 0x1b, 0x1f, 0x36, 0x2f,
    0x00, 0x1b, 0x1f, 0x37, 0x2f, 0x00, 0x1b, 0x1f, 0x38, 0x2f, 0x00, 0x1b, 0x1f, 0x39, 0xa7, 0x01,
    0x1c, 0x0f, 0xd7, 0x01, 0x1d, 0x0f, 0xd8, 0x01, 0x1c, 0x1f, 0x31, 0xd9, 0x01, 0x1c, 0x1f, 0x31,
    0xda, 0x01, 0x1c, 0x1f, 0x31, 0xdb, 0x01, 0x1c, 0x1f, 0x31, 0xdc, 0x01, 0x1c, 0x1f, 0x31, 0xdd,
    0x01, 0x1c, 0x1f, 0x31, 0xde, 0x01, 0x1c, 0x1f, 0x31, 0xdf, 0x01, 0x1c, 0x1f, 0x31, 0xe0, 0x01,
    0x1c, 0x1f, 0x32, 0xe0, 0x01, 0x1c, 0x1f, 0x32, 0xb8, 0x03, 0x1d, 0x0f, 0xe0, 0x01, 0x1c, 0x1f,
    0x32, 0xe0, 0x01, 0x1c, 0x1f, 0x32, 0xe0, 0x01, 0x1c, 0x1f, 0x32, 0xe0, 0x01, 0x1c, 0x1f, 0x32,
    0xe0, 0x01, 0x1c, 0x1f, 0x32, 0xe0, 0x01, 0x1c, 0x1f, 0x32, 0xe0, 0x01, 0x1c, 0x1f, 0x32, 0xe0,
    0x01, 0x1c, 0x1f, 0x33, 0xe0, 0x01, 0x1c, 0x1f, 0x33, 0xe0, 0x01, 0x1c, 0x1f, 0x33, 0x99, 0x05,
    0x1d, 0x0f, 0xe0, 0x01, 0x1c, 0x1f, 0x33, 0xe0, 0x01, 0x1c, 0x1f, 0x33, 0xe0, 0x01, 0x1c, 0x1f,
    0x33, 0xe0, 0x01, 0x1c, 0x1f, 0x33, 0xe0, 0x01, 0x1c, 0x1f, 0x33, 0xe0, 0x01, 0x1c, 0x1f, 0x33,
    0xe0, 0x01, 0x1c, 0x1f, 0x34, 0xe0, 0x01, 0x1c, 0x1f, 0x34, 0xe0, 0x01, 0x1c, 0x1f, 0x34, 0xe0,
    0x01, 0x1c, 0x1f, 0x34, 0x7a, 0x07, 0x1d, 0x0f, 0xe0, 0x01, 0x1c, 0x1f, 0x34, 0xe0, 0x01, 0x1c,
    0x1f, 0x34, 0xe0, 0x01, 0x1c, 0x1f, 0x34, 0xe0, 0x01, 0x1c, 0x1f, 0x34, 0xe0, 0x01, 0x1c, 0x1f,
    0x34, 0xe0, 0x01, 0x1c, 0x1f, 0x35, 0xe0, 0x01, 0x1c, 0x1f, 0x35, 0xe0, 0x01, 0x1c, 0x1f, 0x35,
    0xe0, 0x01, 0x1c, 0x1f, 0x35, 0xe0, 0x01, 0x1c, 0x1f, 0x35, 0x5b, 0x09, 0x1d, 0x0f, 0xe0, 0x01,
    0x1c, 0x1f, 0x35, 0xe0, 0x01, 0x1c, 0x1f, 0x35, 0xe0, 0x01, 0x1c, 0x1f, 0x35, 0xe0, 0x01, 0x1c,
    0x1f, 0x35, 0xe0, 0x01, 0x12, 0x50, 0x63, 0x61, 0x62, 0x63, 0x0a, 0x2a, 0x37, 0x34, 0x27, 0x00,
    0x00, 0x00, 0x00,
};
constexpr uint32_t k_lz4_content_checksum = 0x94c2483a; // the frame's field, read little-endian

// A context's completions, and a callback hook.
struct engine_journal {
    std::vector<doca_error_t> statuses;
    std::function<void(doca_task *)> then;
};
engine_journal *g_j = nullptr;

template <typename Task> void record(Task *t, union doca_data, union doca_data)
{
    doca_task *task = reinterpret_cast<doca_task *>(t); // the typed handles are doca_tasks
    g_j->statuses.push_back(doca_task_get_status(task));
    if (g_j->then)
        g_j->then(task);
}

// A progress engine, a device and memory for it.
struct engine_rig {
    engine_journal j;
    doca_dev *dev = nullptr;
    doca_pe *pe = nullptr;
    std::unique_ptr<dma_test::region> mem;

    explicit engine_rig(const char *pci)
    {
        g_j = &j;
        dev = sc_devices::open_dev(pci);
        EXPECT_NE(dev, nullptr) << pci;
        EXPECT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        mem = std::make_unique<dma_test::region>(dev, 1 << 20);
    }
    ~engine_rig()
    {
        mem.reset();
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
        g_j = nullptr;
    }
    const doca_devinfo *info() const { return doca_dev_as_devinfo(dev); }
    bool progress_until(size_t n)
    {
        for (int i = 0; i < 100000 && j.statuses.size() < n; ++i)
            (void)doca_pe_progress(pe);
        return j.statuses.size() >= n;
    }
    void stop(doca_ctx *ctx)
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        (void)doca_ctx_get_state(ctx, &s);
        if (s == DOCA_CTX_STATE_IDLE)
            return;
        (void)doca_ctx_stop(ctx);
        for (int i = 0; i < 100000 && s != DOCA_CTX_STATE_IDLE; ++i) {
            (void)doca_pe_progress(pe);
            (void)doca_ctx_get_state(ctx, &s);
        }
        EXPECT_EQ(s, DOCA_CTX_STATE_IDLE);
    }
    // A buffer holding `bytes` at `off`, and an empty one of `room` bytes at `dst_off`.
    doca_buf *source(size_t off, const std::vector<uint8_t> &bytes)
    {
        std::memcpy(mem->mem + off, bytes.data(), bytes.size());
        return mem->buf(off, bytes.size(), bytes.size());
    }
    std::vector<uint8_t> data_of(doca_buf *b)
    {
        void *p = nullptr;
        size_t n = 0;
        EXPECT_EQ(doca_buf_get_data(b, &p), DOCA_SUCCESS);
        EXPECT_EQ(doca_buf_get_data_len(b, &n), DOCA_SUCCESS);
        auto *c = static_cast<uint8_t *>(p);
        return {c, c + n};
    }
};

std::string hex(const std::vector<uint8_t> &v)
{
    std::string s;
    char b[3];
    for (uint8_t c : v) {
        std::snprintf(b, sizeof b, "%02x", c);
        s += b;
    }
    return s;
}

// ---- compress ----

TEST(Compress, CapabilitiesFollowTheBlueFieldModel)
{
    engine_rig bf3(k_bf3_dpu);
    EXPECT_EQ(doca_compress_cap_task_compress_deflate_is_supported(bf3.info()),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_compress_cap_task_decompress_deflate_is_supported(bf3.info()), DOCA_SUCCESS);
    EXPECT_EQ(doca_compress_cap_task_decompress_lz4_stream_is_supported(bf3.info()), DOCA_SUCCESS);
    EXPECT_EQ(doca_compress_cap_task_decompress_lz4_block_is_supported(bf3.info()), DOCA_SUCCESS);
    EXPECT_EQ(doca_sha_cap_task_hash_get_supported(bf3.info(), DOCA_SHA_ALGORITHM_SHA256),
              DOCA_ERROR_NOT_SUPPORTED);
    doca_sha *sha = nullptr;
    EXPECT_EQ(doca_sha_create(bf3.dev, &sha), DOCA_ERROR_NOT_SUPPORTED);
    // A BlueField-3 compress context refuses the compression task kind.
    doca_compress *c = nullptr;
    ASSERT_EQ(doca_compress_create(bf3.dev, &c), DOCA_SUCCESS);
    EXPECT_EQ(doca_compress_task_compress_deflate_set_conf(c, record, record, 1),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_compress_task_decompress_deflate_set_conf(c, record, record, 1), DOCA_SUCCESS);
    EXPECT_EQ(doca_compress_destroy(c), DOCA_SUCCESS);
    uint64_t max = 0;
    uint32_t list = 0;
    EXPECT_EQ(doca_compress_cap_task_decompress_deflate_get_max_buf_size(bf3.info(), &max),
              DOCA_SUCCESS);
    EXPECT_GE(max, uint64_t(64) << 20);
    EXPECT_EQ(doca_compress_cap_task_decompress_deflate_get_max_buf_list_len(bf3.info(), &list),
              DOCA_SUCCESS);
    EXPECT_EQ(list, 1u);

    engine_rig bf2(k_bf2_dpu);
    EXPECT_EQ(doca_compress_cap_task_compress_deflate_is_supported(bf2.info()), DOCA_SUCCESS);
    EXPECT_EQ(doca_compress_cap_task_decompress_lz4_block_is_supported(bf2.info()),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_sha_cap_task_partial_hash_get_supported(bf2.info(), DOCA_SHA_ALGORITHM_SHA512),
              DOCA_SUCCESS);
    // Algorithms outside the enum: tests/api/test_headers_c.c (C can pass any int; C++ cannot form
    // such a value).
}

TEST(Compress, DeflateRoundTripWithZlibChecksumsOverSeveralProgressCalls)
{
    engine_rig r(k_bf2_dpu);
    doca_compress *c = nullptr;
    ASSERT_EQ(doca_compress_create(r.dev, &c), DOCA_SUCCESS);
    doca_ctx *ctx = doca_compress_as_ctx(c);
    ASSERT_EQ(doca_pe_connect_ctx(r.pe, ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_compress_task_compress_deflate_set_conf(c, record, record, 2), DOCA_SUCCESS);
    ASSERT_EQ(doca_compress_task_decompress_deflate_set_conf(c, record, record, 2), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    // 300 KiB of mixed text and noise: more than one poll's slice is not needed for the
    // round trip, but the plain side must survive exactly.
    std::vector<uint8_t> plain(300 * 1024);
    uint32_t x = 12345;
    for (size_t i = 0; i < plain.size(); ++i) {
        x = x * 1103515245 + 12345;
        plain[i] = (i / 64) % 3 == 0 ? uint8_t(x >> 24) : uint8_t('a' + i % 26);
    }
    doca_buf *src = r.source(0, plain);
    doca_buf *packed = r.mem->buf(320 * 1024, 320 * 1024, 0);
    doca_buf *back = r.mem->buf(640 * 1024, 320 * 1024, 0);
    union doca_data ud {};
    doca_compress_task_compress_deflate *ct = nullptr;
    ASSERT_EQ(doca_compress_task_compress_deflate_alloc_init(c, src, packed, ud, &ct),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_compress_task_compress_deflate_as_task(ct)), DOCA_SUCCESS);
    EXPECT_TRUE(r.j.statuses.empty());
    ASSERT_TRUE(r.progress_until(1));
    ASSERT_EQ(r.j.statuses[0], DOCA_SUCCESS);
    const std::vector<uint8_t> z = r.data_of(packed);
    EXPECT_GT(z.size(), 0u);
    EXPECT_LT(z.size(), plain.size());
    doca_compress_task_decompress_deflate *dt = nullptr;
    ASSERT_EQ(doca_compress_task_decompress_deflate_alloc_init(c, packed, back, ud, &dt),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_compress_task_decompress_deflate_as_task(dt)), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(2));
    ASSERT_EQ(r.j.statuses[1], DOCA_SUCCESS);
    EXPECT_EQ(r.data_of(back), plain);
    // Both directions report the checksums of the uncompressed data.
    EXPECT_EQ(doca_compress_task_compress_deflate_get_crc_cs(ct),
              doca_compress_task_decompress_deflate_get_crc_cs(dt));
    EXPECT_EQ(doca_compress_task_compress_deflate_get_adler_cs(ct),
              doca_compress_task_decompress_deflate_get_adler_cs(dt));
    EXPECT_NE(doca_compress_task_compress_deflate_get_adler_cs(ct), 1u);

    // A corrupt stream fails its task and the context stops by itself.
    std::vector<uint8_t> junk(64, 0xff);
    doca_buf *bad = r.source(960 * 1024, junk);
    ASSERT_EQ(doca_buf_reset_data_len(back), DOCA_SUCCESS);
    doca_compress_task_decompress_deflate_set_src(dt, bad);
    ASSERT_EQ(doca_task_submit(doca_compress_task_decompress_deflate_as_task(dt)), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(3));
    EXPECT_EQ(r.j.statuses[2], DOCA_ERROR_INVALID_VALUE);
    doca_ctx_states s = DOCA_CTX_STATE_RUNNING;
    for (int i = 0; i < 1000 && s != DOCA_CTX_STATE_IDLE; ++i) {
        (void)doca_pe_progress(r.pe);
        ASSERT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
    }
    EXPECT_EQ(s, DOCA_CTX_STATE_IDLE);
    doca_task_free(doca_compress_task_compress_deflate_as_task(ct));
    doca_task_free(doca_compress_task_decompress_deflate_as_task(dt));
    for (auto *b : {src, packed, back, bad})
        (void)doca_buf_dec_refcount(b, nullptr);
    EXPECT_EQ(doca_compress_destroy(c), DOCA_SUCCESS);
}

TEST(Compress, DestinationTooSmallFailsTheTask)
{
    engine_rig r(k_bf2_dpu);
    doca_compress *c = nullptr;
    ASSERT_EQ(doca_compress_create(r.dev, &c), DOCA_SUCCESS);
    doca_ctx *ctx = doca_compress_as_ctx(c);
    ASSERT_EQ(doca_pe_connect_ctx(r.pe, ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_compress_task_compress_deflate_set_conf(c, record, record, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    std::vector<uint8_t> plain(4096);
    uint32_t x = 7;
    for (auto &b : plain) {
        x = x * 1664525 + 1013904223;
        b = uint8_t(x >> 24); // incompressible
    }
    doca_buf *src = r.source(0, plain);
    doca_buf *tiny = r.mem->buf(8192, 100, 0);
    union doca_data ud {};
    doca_compress_task_compress_deflate *t = nullptr;
    ASSERT_EQ(doca_compress_task_compress_deflate_alloc_init(c, src, tiny, ud, &t), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_compress_task_compress_deflate_as_task(t)), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(1));
    EXPECT_EQ(r.j.statuses[0], DOCA_ERROR_INVALID_VALUE);
    size_t n = 99;
    EXPECT_EQ(doca_buf_get_data_len(tiny, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 0u); // nothing committed
    r.stop(ctx);
    doca_task_free(doca_compress_task_compress_deflate_as_task(t));
    (void)doca_buf_dec_refcount(src, nullptr);
    (void)doca_buf_dec_refcount(tiny, nullptr);
    EXPECT_EQ(doca_compress_destroy(c), DOCA_SUCCESS);
}

TEST(Compress, Lz4StreamAndBlockMatchTheReferenceTool)
{
    engine_rig r(k_bf3_dpu);
    doca_compress *c = nullptr;
    ASSERT_EQ(doca_compress_create(r.dev, &c), DOCA_SUCCESS);
    doca_ctx *ctx = doca_compress_as_ctx(c);
    ASSERT_EQ(doca_pe_connect_ctx(r.pe, ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_compress_task_decompress_lz4_stream_set_conf(c, record, record, 1),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_compress_task_decompress_lz4_block_set_conf(c, record, record, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    const std::vector<uint8_t> plain = lz4_plain();
    const std::vector<uint8_t> stream(std::begin(k_lz4_stream), std::end(k_lz4_stream));
    doca_buf *src = r.source(0, stream);
    doca_buf *out = r.mem->buf(4096, 8192, 0);
    union doca_data ud {};
    doca_compress_task_decompress_lz4_stream *st = nullptr;
    ASSERT_EQ(doca_compress_task_decompress_lz4_stream_alloc_init(c, 1, 1, src, out, ud, &st),
              DOCA_SUCCESS);
    EXPECT_EQ(doca_compress_task_decompress_lz4_stream_get_has_block_checksum(st), 1);
    ASSERT_EQ(doca_task_submit(doca_compress_task_decompress_lz4_stream_as_task(st)), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(1));
    ASSERT_EQ(r.j.statuses[0], DOCA_SUCCESS);
    EXPECT_EQ(r.data_of(out), plain);
    // As NVIDIA's LZ4 sample checks it: htobe32 of the frame's little-endian field.
    EXPECT_EQ(doca_compress_task_decompress_lz4_stream_get_xxh_cs(st),
              __builtin_bswap32(k_lz4_content_checksum));

    // The block alone: after the 4-byte size word, before its checksum and the end mark.
    const size_t block_len = stream.size() - 4 - 4 - 4;
    doca_buf *block = r.mem->buf(16384, block_len, block_len);
    std::memcpy(r.mem->mem + 16384, stream.data() + 4, block_len);
    doca_buf *out2 = r.mem->buf(20480, 8192, 0);
    doca_compress_task_decompress_lz4_block *bt = nullptr;
    ASSERT_EQ(doca_compress_task_decompress_lz4_block_alloc_init(c, block, out2, ud, &bt),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_compress_task_decompress_lz4_block_as_task(bt)), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(2));
    ASSERT_EQ(r.j.statuses[1], DOCA_SUCCESS);
    EXPECT_EQ(r.data_of(out2), plain);
    EXPECT_EQ(doca_compress_task_decompress_lz4_block_get_crc_cs(bt),
              doca_compress_task_decompress_lz4_stream_get_crc_cs(st));

    // A flipped byte under a block checksum: the stream task fails.
    r.mem->mem[100] ^= 0x40;
    ASSERT_EQ(doca_buf_reset_data_len(out), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_compress_task_decompress_lz4_stream_as_task(st)), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(3));
    EXPECT_EQ(r.j.statuses[2], DOCA_ERROR_INVALID_VALUE);
    r.stop(ctx);
    doca_task_free(doca_compress_task_decompress_lz4_stream_as_task(st));
    doca_task_free(doca_compress_task_decompress_lz4_block_as_task(bt));
    for (auto *b : {src, out, block, out2})
        (void)doca_buf_dec_refcount(b, nullptr);
    EXPECT_EQ(doca_compress_destroy(c), DOCA_SUCCESS);
}

// ---- SHA ----

struct sha_rig : engine_rig {
    doca_sha *sha = nullptr;
    doca_ctx *ctx = nullptr;
    sha_rig() : engine_rig(k_bf2_dpu)
    {
        EXPECT_EQ(doca_sha_create(dev, &sha), DOCA_SUCCESS);
        ctx = doca_sha_as_ctx(sha);
        EXPECT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
        EXPECT_EQ(doca_sha_task_hash_set_conf(sha, record, record, 1), DOCA_SUCCESS);
        EXPECT_EQ(doca_sha_task_partial_hash_set_conf(sha, record, record, 0), DOCA_SUCCESS);
        EXPECT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    }
    ~sha_rig()
    {
        stop(ctx);
        EXPECT_EQ(doca_sha_destroy(sha), DOCA_SUCCESS);
    }
};

std::vector<uint8_t> bytes_of(const std::string &s)
{
    return {s.begin(), s.end()};
}

TEST(Sha, HashMatchesTheFipsExamples)
{
    sha_rig r;
    uint32_t min_dst = 0, block = 0;
    EXPECT_EQ(doca_sha_cap_get_min_dst_buf_size(r.info(), DOCA_SHA_ALGORITHM_SHA256, &min_dst),
              DOCA_SUCCESS);
    EXPECT_EQ(min_dst, 32u);
    EXPECT_EQ(doca_sha_cap_get_partial_hash_block_size(r.info(), DOCA_SHA_ALGORITHM_SHA512, &block),
              DOCA_SUCCESS);
    EXPECT_EQ(block, 128u);
    doca_buf *src = r.source(0, bytes_of("abc"));
    const struct {
        doca_sha_algorithm alg;
        const char *digest;
    } cases[] = {
        {DOCA_SHA_ALGORITHM_SHA1, "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {DOCA_SHA_ALGORITHM_SHA256,
         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {DOCA_SHA_ALGORITHM_SHA512,
         "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a"
         "3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
    };
    size_t at = 4096;
    for (const auto &k : cases) {
        doca_buf *dst = r.mem->buf(at, 64, 0);
        at += 4096;
        union doca_data ud {};
        doca_sha_task_hash *t = nullptr;
        ASSERT_EQ(doca_sha_task_hash_alloc_init(r.sha, k.alg, src, dst, ud, &t), DOCA_SUCCESS);
        ASSERT_EQ(doca_task_submit(doca_sha_task_hash_as_task(t)), DOCA_SUCCESS);
        const size_t before = r.j.statuses.size();
        ASSERT_TRUE(r.progress_until(before + 1));
        EXPECT_EQ(r.j.statuses.back(), DOCA_SUCCESS);
        EXPECT_EQ(hex(r.data_of(dst)), k.digest);
        doca_task_free(doca_sha_task_hash_as_task(t));
        (void)doca_buf_dec_refcount(dst, nullptr);
    }
    (void)doca_buf_dec_refcount(src, nullptr);
}

TEST(Sha, PartialHashResubmittedFromItsCallbackEqualsTheWholeHash)
{
    sha_rig r;
    // The FIPS 180 "abcdbcdecdef..." message, 896 bits, hashed 64 bytes at a time.
    const std::string msg = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                            "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    std::memcpy(r.mem->mem, msg.data(), msg.size());
    doca_buf *src = r.mem->buf(0, msg.size(), 64);
    doca_buf *dst = r.mem->buf(4096, 32, 0);
    union doca_data ud {};
    doca_sha_task_partial_hash *t = nullptr;
    ASSERT_EQ(
        doca_sha_task_partial_hash_alloc_init(r.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &t),
        DOCA_SUCCESS);
    size_t off = 64;
    r.j.then = [&](doca_task *task) {
        if (doca_task_get_status(task) != DOCA_SUCCESS || off >= msg.size())
            return;
        // Another segment is under way: the destination may not change.
        EXPECT_EQ(doca_sha_task_partial_hash_set_dst(t, dst), DOCA_ERROR_BAD_STATE);
        EXPECT_EQ(doca_sha_task_partial_hash_get_has_result(t), 0);
        const size_t n = std::min<size_t>(64, msg.size() - off);
        ASSERT_EQ(doca_buf_set_data(src, r.mem->mem + off, n), DOCA_SUCCESS);
        ASSERT_EQ(doca_sha_task_partial_hash_set_src(t, src), DOCA_SUCCESS);
        if (off + n == msg.size()) {
            ASSERT_EQ(doca_sha_task_partial_hash_set_is_final_buf(t), DOCA_SUCCESS);
        }
        off += n;
        ASSERT_EQ(doca_task_submit(task), DOCA_SUCCESS);
    };
    ASSERT_EQ(doca_task_submit(doca_sha_task_partial_hash_as_task(t)), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(2));
    EXPECT_EQ(r.j.statuses, (std::vector<doca_error_t>{DOCA_SUCCESS, DOCA_SUCCESS}));
    EXPECT_EQ(doca_sha_task_partial_hash_get_has_result(t), 1);
    EXPECT_EQ(doca_sha_task_partial_hash_get_is_final(t), 1);
    EXPECT_EQ(hex(r.data_of(dst)),
              "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    r.j.then = nullptr;
    // A non-final segment that is not a multiple of the block size fails the task.
    ASSERT_EQ(doca_sha_task_partial_hash_reset(t), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_reset_data_len(dst), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_set_data(src, r.mem->mem, 50), DOCA_SUCCESS);
    EXPECT_EQ(doca_task_try_submit(doca_sha_task_partial_hash_as_task(t)),
              DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_task_submit(doca_sha_task_partial_hash_as_task(t)), DOCA_SUCCESS);
    ASSERT_TRUE(r.progress_until(3));
    EXPECT_EQ(r.j.statuses[2], DOCA_ERROR_INVALID_VALUE);
    doca_task_free(doca_sha_task_partial_hash_as_task(t));
    (void)doca_buf_dec_refcount(src, nullptr);
    (void)doca_buf_dec_refcount(dst, nullptr);
}

TEST(Sha, RefusalsAreTheDocumentedCodes)
{
    sha_rig r;
    doca_buf *src = r.source(0, bytes_of("x"));
    doca_buf *dst = r.mem->buf(4096, 16, 0); // too small for SHA-256
    union doca_data ud {};
    doca_sha_task_hash *t = nullptr;
    ASSERT_EQ(doca_sha_task_hash_alloc_init(r.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &t),
              DOCA_SUCCESS);
    doca_sha_task_hash *t2 = nullptr, *t3 = nullptr;
    ASSERT_EQ(doca_sha_task_hash_alloc_init(r.sha, DOCA_SHA_ALGORITHM_SHA1, src, dst, ud, &t2),
              DOCA_SUCCESS); // 2^1 tasks
    EXPECT_EQ(doca_sha_task_hash_alloc_init(r.sha, DOCA_SHA_ALGORITHM_SHA1, src, dst, ud, &t3),
              DOCA_ERROR_NO_MEMORY);
    EXPECT_EQ(doca_sha_task_hash_get_algorithm(t2), DOCA_SHA_ALGORITHM_SHA1);
    EXPECT_EQ(doca_task_try_submit(doca_sha_task_hash_as_task(t)), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sha_task_hash_set_conf(r.sha, record, record, 0), DOCA_ERROR_BAD_STATE);
    doca_task_free(doca_sha_task_hash_as_task(t));
    doca_task_free(doca_sha_task_hash_as_task(t2));
    (void)doca_buf_dec_refcount(src, nullptr);
    (void)doca_buf_dec_refcount(dst, nullptr);
}

} // namespace
