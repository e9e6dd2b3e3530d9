// SPDX-License-Identifier: Apache-2.0
//
// A hostile server against a real client (docs/failure-model.md, "Peer input: sizes,
// descriptors, identity, protocol violations"). The victim is a client process (hostile_victim,
// tests/integration/hostile/victim.cpp) whose first client connects to the attacker; once that
// one is refused or closed, a second client of the same process must still talk to an honest
// server (another victim process). The attacker listens at the endpoint the client looks for
// and speaks the wire and the ring layout itself (hostile_peer.hpp).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>

#include "child_process.hpp"
#include "hostile/hostile_peer.hpp"
#include "hostile/victim.hpp"
#include "transport/shm/fast_channel.hpp"

namespace {

using namespace hostile;

class HostileVsClient : public ::testing::Test {
protected:
    void SetUp() override
    {
        const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
        tag_ = std::string("hc-") + info->name();
        tag_ = tag_.substr(0, 40);
        sc_test::use_private_fabric(tag_);
        const std::string stem = "/tmp/softcomch-" + tag_ + "-" + std::to_string(::getpid());
        log_ = stem + ".log";
        honest_log_ = stem + "-honest.log";
        ::unlink(log_.c_str());
        ::unlink(honest_log_.c_str());
        honest_ = spawn_server({tag_ + "-honest", honest_log_, false, 0});
        softcomch::transport::endpoint_info ep;
        ASSERT_TRUE(find_endpoint(tag_ + "-honest", ep));
        ASSERT_TRUE(attacker_.listen(tag_));
    }

    void TearDown() override
    {
        if (honest_ > 0) {
            ::kill(honest_, SIGTERM);
            EXPECT_EQ(sc_test::wait_child(honest_, 10000ms), 0) << file_text(honest_log_);
        }
        ::unlink(log_.c_str());
        ::unlink(honest_log_.c_str());
    }

    // Starts the victim client and takes its HELLO.
    void start_victim(client_plan plan)
    {
        victim_ = spawn_client({tag_, tag_ + "-honest", log_, plan});
        ASSERT_GT(victim_, 0);
        ASSERT_TRUE(attacker_.accept_hello()) << log();
        ASSERT_EQ(attacker_.hello_fds.size(), 1u);
        rss0_ = rss_kib(victim_);
    }

    // The victim's memory stayed bounded meanwhile, it finished its plan (its first client
    // refused or closed, its second served), and it logged `why`.
    void expect_victim_well(const std::string &why, size_t max_kib = 16 * 1024)
    {
        const size_t rss = rss_kib(victim_);
        if (rss != 0) {
            EXPECT_LT(rss, rss0_ + max_kib) << "resident set " << rss0_ << " -> " << rss << " KiB";
        }
        EXPECT_EQ(sc_test::wait_child(victim_, 20000ms), 0) << log();
        victim_ = -1;
        if (!why.empty()) {
            EXPECT_NE(file_text(log_).find(why), std::string::npos) << log();
        }
    }

    std::string log() const { return "victim log:\n" + file_text(log_); }

    std::string tag_, log_, honest_log_;
    pid_t honest_ = -1, victim_ = -1;
    size_t rss0_ = 0;
    server attacker_;
};

TEST_F(HostileVsClient, UnsealedSegmentIsRefusedAndTruncatingItIsHarmless)
{
    ASSERT_NO_FATAL_FAILURE(start_victim(client_plan::refused));
    const wire::accept_msg a = attacker_.honest_accept();
    unique_fd seg = make_memfd(a.segment_size, false);
    wake_pair w = wake_pair::make();
    ASSERT_TRUE(attacker_.send(a, {seg.get(), w.send_end.get(), attacker_.bells->fd()}));
    ASSERT_EQ(::ftruncate(seg.get(), 0), 0); // SIGBUS in the client before
    expect_victim_well("the server broke the protocol: the memfd is not sealed");
}

TEST_F(HostileVsClient, WakeUpDescriptorMustBeASocket)
{
    ASSERT_NO_FATAL_FAILURE(start_victim(client_plan::refused));
    const wire::accept_msg a = attacker_.honest_accept();
    shm::segment_params sp;
    sp.rings[shm::c2s] = shm::ring_layout::params_for(a.c2s_limit, a.max_msg_size);
    sp.rings[shm::s2c] = shm::ring_layout::params_for(a.s2c_limit, a.max_msg_size);
    shm::segment seg;
    ASSERT_EQ(shm::segment::create(sp, seg), DOCA_SUCCESS);
    int p[2];
    ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
    unique_fd r(p[0]), w(p[1]);
    r.reset(); // a write would raise SIGPIPE
    ASSERT_TRUE(attacker_.send(a, {seg.fd(), w.get(), attacker_.bells->fd()}));
    expect_victim_well("the server broke the protocol: the wake-up descriptor is not a socket");
}

// The doorbell page (src/transport/shm/doorbell.hpp) the client maps and writes into: a
// sealed memfd of one page with this version's header, or the connection is refused.
TEST_F(HostileVsClient, DoorbellMustBeASealedPage)
{
    ASSERT_NO_FATAL_FAILURE(start_victim(client_plan::refused));
    const wire::accept_msg a = attacker_.honest_accept();
    shm::segment_params sp;
    sp.rings[shm::c2s] = shm::ring_layout::params_for(a.c2s_limit, a.max_msg_size);
    sp.rings[shm::s2c] = shm::ring_layout::params_for(a.s2c_limit, a.max_msg_size);
    shm::segment seg;
    ASSERT_EQ(shm::segment::create(sp, seg), DOCA_SUCCESS);
    wake_pair w = wake_pair::make();
    unique_fd bell = make_memfd(shm::k_doorbell_size, false);
    ASSERT_TRUE(attacker_.send(a, {seg.fd(), w.send_end.get(), bell.get()}));
    ASSERT_EQ(::ftruncate(bell.get(), 0), 0); // SIGBUS in the client's ring() if it mapped it
    expect_victim_well("the server broke the protocol: the memfd is not sealed");
}

TEST_F(HostileVsClient, OversizedRingsAreRefusedBeforeMapping)
{
    ASSERT_NO_FATAL_FAILURE(start_victim(client_plan::refused));
    // Rings of 512 MiB each in a sparse, sealed 1 GiB segment: mapped and pre-faulted before.
    wire::accept_msg a = attacker_.honest_accept();
    a.c2s_capacity = a.s2c_capacity = 1u << 29;
    const shm::ring_params big{a.c2s_capacity, a.max_record, a.c2s_limit};
    a.segment_size =
        shm::segment::size_for(big, shm::ring_params{a.s2c_capacity, a.max_record, a.s2c_limit});
    ASSERT_GT(a.segment_size, uint64_t(1) << 30);
    unique_fd seg = make_memfd(a.segment_size);
    wake_pair w = wake_pair::make();
    ASSERT_TRUE(attacker_.send(a, {seg.get(), w.send_end.get(), attacker_.bells->fd()}));
    expect_victim_well("rings or a segment of another size than the negotiated values give");
}

TEST_F(HostileVsClient, CorruptRecordClosesTheConnection)
{
    ASSERT_NO_FATAL_FAILURE(start_victim(client_plan::closed));
    ASSERT_TRUE(attacker_.accept_honestly());
    write_raw_record(attacker_.seg.ring_mem(shm::s2c), 0x7fffffff, 1, 0);
    const char b = 1;
    (void)::send(attacker_.hello_fds[0].get(), &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    std::string text;
    EXPECT_TRUE(attacker_.wait_hangup(5000ms, &text)) << log();
    EXPECT_NE(text.find("a corrupt record in the receive ring"), std::string::npos) << text;
    expect_victim_well("protocol violation: a corrupt record in the receive ring");
}

TEST_F(HostileVsClient, ConsumerMemoryNeighboursAreOutOfReach)
{
    ASSERT_NO_FATAL_FAILURE(start_victim(client_plan::neighbours));
    ASSERT_TRUE(attacker_.accept_honestly());
    // The victim's consumer over a calloc'd buffer between two canaried neighbours.
    datagram d;
    ASSERT_TRUE(attacker_.recv(d, 5000ms)) << log();
    const auto *m = std::get_if<wire::consumer_announce_msg>(&d.msg);
    ASSERT_NE(m, nullptr) << log();
    ASSERT_EQ(m->mechanism, 1u) << "the calloc'd buffer was not shared";
    ASSERT_EQ(d.fds.size(), 3u);
    EXPECT_EQ(m->len, k_neighbour_len);
    shm::fast_channel ch;
    ASSERT_EQ(shm::fast_channel::attach(d.fds[0].get(), m->channel_size, ch), DOCA_SUCCESS);
    shm::fast_producer prod;
    ASSERT_EQ(prod.attach(ch), DOCA_SUCCESS);
    // Everything the memfd holds, written by a peer that ignores the window.
    auto *mem = static_cast<uint8_t *>(::mmap(nullptr, m->map_size, PROT_READ | PROT_WRITE,
                                              MAP_SHARED, d.fds[2].get(), off_t(m->file_offset)));
    ASSERT_NE(mem, MAP_FAILED);
    std::memset(mem, 0xee, m->map_size);
    prod.accept();
    wire::consumer_ack_msg ack;
    ack.consumer_id = m->consumer_id;
    ASSERT_TRUE(attacker_.send(ack));
    // Its posted buffer gets the payload, through the same mapping.
    shm::post_entry e{};
    const auto end = std::chrono::steady_clock::now() + 5s;
    doca_error_t rc = DOCA_ERROR_AGAIN;
    while ((rc = prod.try_claim(0, &e)) == DOCA_ERROR_AGAIN &&
           std::chrono::steady_clock::now() < end)
        std::this_thread::sleep_for(1ms);
    ASSERT_EQ(rc, DOCA_SUCCESS) << log();
    ASSERT_GE(e.addr, m->map_base);
    ASSERT_LE(e.addr - m->map_base + e.capacity, m->map_size);
    std::memset(mem + (e.addr - m->map_base), k_neighbour_payload, e.capacity);
    std::memset(mem, 0xee, e.addr - m->map_base); // and everything before it, again
    shm::fast_completion c{};
    c.task = e.task;
    c.len = e.capacity;
    bool wake = false;
    ASSERT_EQ(prod.complete(c, &wake), DOCA_SUCCESS);
    const char b = 1;
    (void)::send(d.fds[1].get(), &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    // The victim checks its neighbours and the payload, frees everything (malloc would abort
    // on a rewritten chunk header), then talks to the honest server.
    expect_victim_well("", 64 * 1024); // the victim's exit code says it all
    ::munmap(mem, m->map_size);
}

} // namespace
