// SPDX-License-Identifier: Apache-2.0
//
// Shared-memory segment: create/attach, header validation against corruption, and a
// cross-process exchange over fork() in both directions with sequence numbers and checksums.
#include "transport/shm/segment.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace softcomch::transport::shm;

namespace {

segment_params small_params()
{
    segment_params p;
    p.rings[c2s] = ring_layout::params_for(16, 4080);
    p.rings[s2c] = ring_layout::params_for(10, 4080);
    p.generation = 0x1122334455667788ull;
    return p;
}

uint32_t fnv32(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

// [u64 seq][u32 checksum][u32 len][payload...]
uint32_t make_msg(uint8_t *p, uint64_t seq, uint32_t max)
{
    const uint32_t len = 16 + uint32_t((seq * 2654435761u) % (max - 16 + 1));
    for (uint32_t i = 16; i < len; ++i)
        p[i] = uint8_t(seq + i * 31);
    const uint32_t sum = fnv32(p + 16, len - 16);
    std::memcpy(p, &seq, 8);
    std::memcpy(p + 8, &sum, 4);
    std::memcpy(p + 12, &len, 4);
    return len;
}

bool check_msg(const record_view &v, uint64_t seq)
{
    if (v.len < 16)
        return false;
    const auto *p = static_cast<const uint8_t *>(v.data);
    uint64_t s;
    uint32_t sum, len;
    std::memcpy(&s, p, 8);
    std::memcpy(&sum, p + 8, 4);
    std::memcpy(&len, p + 12, 4);
    return s == seq && len == v.len && v.type == 5 && sum == fnv32(p + 16, v.len - 16);
}

// Runs one side of the exchange: sends `n` messages on `out` while receiving `n` on `in`.
// Returns 0 on success, a small error code otherwise (3: stalled or out of time).
//
// Two bounds, so that a slow run passes and a wedged one still ends: nothing moved in either
// direction for 20 s (a lost message or a dead peer), or 100 s in all (below the 120 s CTest
// timeout, so the test reports instead of being killed with the child left behind). A healthy
// run takes under a second (0.9 s even under ASan); under ThreadSanitizer, with every payload
// byte instrumented, about 17 s on an idle 2-core machine and 29 s while other tests run.
int exchange(ring_producer &out, ring_consumer &in, uint64_t n)
{
    uint64_t sent = 0, got = 0;
    uint32_t idle = 0;
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::seconds(100);
    auto stall_deadline = start + std::chrono::seconds(20);
    uint64_t moved_at_check = 0;
    while (sent < n || got < n) {
        bool progress = false;
        if (sent < n) {
            if (void *p = out.try_claim(out.max_payload())) {
                const uint32_t len = make_msg(static_cast<uint8_t *>(p), sent, 600);
                out.commit(5, len);
                ++sent;
                progress = true;
            }
        }
        if (const record_view *v = in.peek()) {
            if (!check_msg(*v, got))
                return 2;
            in.release();
            ++got;
            progress = true;
        }
        if (!progress && ++idle > 128) {
            idle = 0;
            // A short sleep, not sched_yield(): under the EEVDF scheduler (Linux 6.6) each yield
            // is charged a whole time slice, so a loop that yields next to busy processes (a
            // parallel build, other tests) gets a tiny share of the CPU and runs out of time.
            std::this_thread::sleep_for(std::chrono::microseconds(20));
            const auto now = std::chrono::steady_clock::now();
            if (sent + got != moved_at_check) {
                moved_at_check = sent + got;
                stall_deadline = now + std::chrono::seconds(20);
            }
            if (now > stall_deadline || now > deadline)
                return 3;
        }
    }
    return in.corrupted() ? 4 : 0;
}

} // namespace

TEST(unit_transport_segment, layout_constants)
{
    EXPECT_EQ(sizeof(segment_header), 384u);
    const segment_params p = small_params();
    const uint64_t sz = segment::size_for(p.rings[c2s], p.rings[s2c]);
    // c2s: 16 maximal records, 64 KiB of data; s2c: 10, rounded up to 64 KiB too. Each ring adds
    // its 512-byte control block, rounded up to a page.
    EXPECT_EQ(sz, 4096u + (65536u + 4096u) + (65536u + 4096u));
    EXPECT_EQ(segment::size_for({3, 64, 1}, p.rings[s2c]), 0u);
    // Whatever the queue sizes, a connection of maximal messages stays near 1 MiB (issue: at
    // most 2 MiB per connection; layout 1 needed 64 MiB for two queues of 8192).
    const uint64_t big =
        segment::size_for(ring_layout::params_for(8192, 4080), ring_layout::params_for(8192, 4080));
    EXPECT_EQ(big, 4096u + 2 * (uint64_t(k_ring_default_budget) + 4096u));
    EXPECT_LE(big, uint64_t(2) << 20);
}

TEST(unit_transport_segment, create_and_attach)
{
    segment srv;
    ASSERT_EQ(segment::create(small_params(), srv), DOCA_SUCCESS);
    ASSERT_TRUE(srv.valid());
    ASSERT_GE(srv.fd(), 0);
    EXPECT_EQ(srv.size() % 4096, 0u);
    EXPECT_EQ(srv.layout().generation, 0x1122334455667788ull);
    EXPECT_EQ(srv.layout().rings[c2s].offset, 4096u);
    EXPECT_EQ(srv.layout().rings[c2s].limit, 16u);
    EXPECT_EQ(srv.layout().rings[s2c].capacity, 65536u);
    EXPECT_EQ(srv.layout().rings[s2c].limit, 10u);
    EXPECT_EQ(srv.pid(server_side), uint32_t(getpid()));

    // Wrong expected sizes are refused before mapping.
    segment cli;
    EXPECT_EQ(segment::attach(srv.fd(), srv.size() + 4096, cli), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(segment::attach(srv.fd(), srv.size() - 4096, cli), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(segment::attach(srv.fd(), 100, cli), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(segment::attach(-1, srv.size(), cli), DOCA_ERROR_INVALID_VALUE);
    EXPECT_FALSE(cli.valid());

    ASSERT_EQ(segment::attach(srv.fd(), srv.size(), cli), DOCA_SUCCESS);
    EXPECT_NE(cli.base(), srv.base()); // a second mapping of the same file
    EXPECT_EQ(cli.fd(), -1);
    EXPECT_EQ(cli.pid(client_side), uint32_t(getpid()));
    EXPECT_EQ(srv.pid(client_side), uint32_t(getpid()));

    // client -> server through the two mappings.
    ring_producer cp;
    ring_consumer sc;
    ASSERT_EQ(cli.producer(c2s, cp), DOCA_SUCCESS);
    ASSERT_EQ(srv.consumer(c2s, sc), DOCA_SUCCESS);
    EXPECT_EQ(cp.max_payload(), 4080u);
    EXPECT_EQ(cp.limit(), 16u);
    bool wake;
    ASSERT_EQ(cp.send(9, "ping", 4, &wake), DOCA_SUCCESS);
    const record_view *v = sc.peek();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->type, 9u);
    EXPECT_EQ(std::memcmp(v->data, "ping", 4), 0);
    sc.release();

    // Heartbeats are visible across mappings.
    srv.beat(server_side, 42);
    EXPECT_EQ(cli.heartbeat(server_side), 42u);
    EXPECT_EQ(cli.heartbeat(client_side), 0u);

    // Moving keeps the mapping; release_fd hands the fd over.
    segment moved(std::move(srv));
    EXPECT_FALSE(srv.valid());
    EXPECT_TRUE(moved.valid());
    auto fd = moved.release_fd();
    EXPECT_TRUE(bool(fd));
    EXPECT_EQ(moved.fd(), -1);
}

TEST(unit_transport_segment, create_rejects_bad_params)
{
    segment s;
    segment_params p = small_params();
    p.rings[s2c].limit = 0;
    EXPECT_EQ(segment::create(p, s), DOCA_ERROR_INVALID_VALUE);
    p = small_params();
    p.rings[c2s].capacity = 12;
    EXPECT_EQ(segment::create(p, s), DOCA_ERROR_INVALID_VALUE);
    EXPECT_FALSE(s.valid());
}

TEST(unit_transport_segment, attach_rejects_non_segment_files)
{
    // A memfd of the right size full of zeros (version 0 -> magic check fails first).
    const int fd = memfd_create("not-a-segment", MFD_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, 3 * 4096), 0);
    segment s;
    EXPECT_EQ(segment::attach(fd, 3 * 4096, s), DOCA_ERROR_INVALID_VALUE);
    close(fd);
}

TEST(unit_transport_segment, validate_header_rejects_corruption)
{
    segment srv;
    segment_params p = small_params();
    p.prefault = false;
    ASSERT_EQ(segment::create(p, srv), DOCA_SUCCESS);
    // Work on a private copy of the image.
    const uint64_t n = srv.size();
    auto *img = static_cast<uint8_t *>(std::aligned_alloc(4096, n));
    std::memcpy(img, srv.base(), n);
    segment_layout lay;
    ASSERT_EQ(segment::validate_header(img, n, &lay), DOCA_SUCCESS);
    EXPECT_EQ(lay.total_size, n);

    // Truncated or misaligned images.
    EXPECT_NE(segment::validate_header(img, n - 4096, nullptr), DOCA_SUCCESS);
    EXPECT_NE(segment::validate_header(img, 4095, nullptr), DOCA_SUCCESS);
    EXPECT_NE(segment::validate_header(img + 1, n - 1, nullptr), DOCA_SUCCESS);
    EXPECT_NE(segment::validate_header(nullptr, n, nullptr), DOCA_SUCCESS);

    // Unpublished version -> AGAIN; another version -> UNSUPPORTED_VERSION.
    img[8] = 0;
    EXPECT_EQ(segment::validate_header(img, n, nullptr), DOCA_ERROR_AGAIN);
    img[8] = 1; // layout 1: fixed slots
    EXPECT_EQ(segment::validate_header(img, n, nullptr), DOCA_ERROR_UNSUPPORTED_VERSION);
    img[8] = 3;
    EXPECT_EQ(segment::validate_header(img, n, nullptr), DOCA_ERROR_UNSUPPORTED_VERSION);
    img[8] = uint8_t(k_segment_layout_version);

    // Every immutable header byte except generation (24..31) and creator_pid (32..35), which
    // are free-form, must be checked.
    for (uint32_t i = 0; i < 128; ++i) {
        if ((i >= 24 && i < 36))
            continue;
        for (uint8_t x : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
            img[i] ^= x;
            EXPECT_NE(segment::validate_header(img, n, nullptr), DOCA_SUCCESS)
                << "byte " << i << " ^ " << int(x);
            img[i] ^= x;
        }
    }
    // Each ring's config block is cross-checked against the header.
    for (uint32_t d = 0; d < 2; ++d) {
        uint8_t *ring = img + lay.rings[d].offset;
        for (uint32_t i = 0; i < 128; ++i) {
            ring[i] ^= 0x10;
            EXPECT_NE(segment::validate_header(img, n, nullptr), DOCA_SUCCESS)
                << "ring " << d << " byte " << i;
            ring[i] ^= 0x10;
        }
    }
    // Run-time words (heartbeats, ring positions, records) are not part of validation.
    img[128] ^= 0xff;
    img[lay.rings[0].offset + 128] ^= 0xff;
    EXPECT_EQ(segment::validate_header(img, n, nullptr), DOCA_SUCCESS);
    std::free(img);
}

TEST(unit_transport_segment, cross_process_both_directions)
{
    segment srv;
    ASSERT_EQ(segment::create(small_params(), srv), DOCA_SUCCESS);
    constexpr uint64_t n = 200000;
    const int fd = srv.fd();
    const uint64_t size = srv.size();

    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // Client: a fresh mapping through the fd, as after SCM_RIGHTS.
        segment cli;
        if (segment::attach(fd, size, cli) != DOCA_SUCCESS)
            _exit(10);
        ring_producer out;
        ring_consumer in;
        if (cli.producer(c2s, out) != DOCA_SUCCESS || cli.consumer(s2c, in) != DOCA_SUCCESS)
            _exit(11);
        _exit(exchange(out, in, n));
    }
    ring_producer out;
    ring_consumer in;
    ASSERT_EQ(srv.producer(s2c, out), DOCA_SUCCESS);
    ASSERT_EQ(srv.consumer(c2s, in), DOCA_SUCCESS);
    const int rc = exchange(out, in, n);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_EQ(rc, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(srv.pid(client_side), uint32_t(child));
}
