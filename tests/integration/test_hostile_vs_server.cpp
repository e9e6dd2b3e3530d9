// SPDX-License-Identifier: Apache-2.0
//
// A hostile client against a real server (docs/failure-model.md, "Peer input: sizes,
// descriptors, identity, protocol violations"). The victim is a Comch server in a child process
// (the hostile_victim program, tests/integration/hostile/victim.cpp) that echoes messages and
// writes one fast-path payload into every consumer announced to it; the attacker speaks the wire
// and the ring layout itself (hostile_peer.hpp). Every test checks that the victim stays alive, that its resident memory
// stays bounded, that it keeps serving an honest client, and that the bad connection is closed
// with a log line (or the bad value clamped, with one).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "child_process.hpp"
#include "hostile/hostile_peer.hpp"
#include "hostile/victim.hpp"
#include "transport/fabric.hpp"
#include "transport/live_publisher.hpp"
#include "transport/shm/fast_channel.hpp"
#include "transport/unix_socket.hpp"

namespace {

using namespace hostile;
using softcomch::transport::endpoint_info;

// A consumer address the attacker makes up (it never has to exist anywhere).
constexpr uint64_t k_fake_base = uint64_t(1) << 40;

class HostileVsServer : public ::testing::Test {
protected:
    void SetUp() override
    {
        const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
        name_ = std::string("hv-") + info->name();
        name_ = name_.substr(0, 40);
        sc_test::use_private_fabric(name_);
        log_ = "/tmp/softcomch-" + name_ + "-" + std::to_string(::getpid()) + ".log";
        ::unlink(log_.c_str());
    }

    void TearDown() override
    {
        if (victim_ > 0) {
            ::kill(victim_, SIGTERM);
            EXPECT_EQ(sc_test::wait_child(victim_, 10000ms), 0) << log();
        }
        ::unlink(log_.c_str());
        if (!runtime_dir_.empty()) {
            ::unsetenv("XDG_RUNTIME_DIR");
            std::error_code ec;
            std::filesystem::remove_all(runtime_dir_, ec);
        }
    }

    // A runtime directory of this test's own ($XDG_RUNTIME_DIR, for the victim and every client
    // the test spawns), that other users may traverse. The shared /tmp/softcomch-<uid> would not
    // do: every other test that makes a fabric there tightens it back to 0700 (a test running
    // at the same time under ctest -j), which raced the chmod of a test that opens it.
    void use_traversable_runtime_dir()
    {
        char dir[] = "/tmp/sc-xdg-XXXXXX";
        ASSERT_NE(::mkdtemp(dir), nullptr);
        runtime_dir_ = dir;
        ASSERT_EQ(::chmod(dir, 0711), 0);
        ASSERT_EQ(::setenv("XDG_RUNTIME_DIR", dir, 1), 0);
        // Alone in it: a short fabric name keeps the socket path within sun_path.
        ASSERT_EQ(::setenv("SOFTCOMCH_FABRIC", "t", 1), 0);
    }

    void start_victim(bool produce = true)
    {
        victim_ = spawn_server({name_, log_, produce, 4096});
        ASSERT_GT(victim_, 0);
        ASSERT_TRUE(find_endpoint(name_, ep_)) << log();
        rss0_ = rss_kib(victim_);
    }

    std::string log() const { return "victim log:\n" + file_text(log_); }

    // The victim is alive, its resident set grew by less than `max_kib`, and an honest client
    // still gets its echo.
    void expect_victim_well(size_t max_kib = 16 * 1024)
    {
        ASSERT_EQ(::waitpid(victim_, nullptr, WNOHANG), 0) << "the victim died\n" << log();
        const size_t rss = rss_kib(victim_);
        EXPECT_LT(rss, rss0_ + max_kib) << "resident set " << rss0_ << " -> " << rss << " KiB";
        EXPECT_EQ(honest_echo(name_), "") << log();
    }

    // The victim closed `c`, with a REJECT saying `why`, and logged the violation.
    void expect_closed(channel &c, const std::string &why)
    {
        std::string text;
        ASSERT_TRUE(c.wait_hangup(10000ms, &text)) << "the victim kept the connection\n" << log();
        EXPECT_NE(text.find(why), std::string::npos) << "REJECT: " << text;
        EXPECT_TRUE(file_contains(log_, why)) << log();
    }

    std::string name_, log_;
    std::string runtime_dir_; // use_traversable_runtime_dir(): removed by TearDown
    pid_t victim_ = -1;
    endpoint_info ep_;
    size_t rss0_ = 0;
};

// A connection's ring still works: a message there comes back echoed.
bool echoes(client &h)
{
    void *slot = h.tx.try_claim(4);
    if (slot == nullptr)
        return false;
    std::memcpy(slot, "ping", 4);
    if (h.tx.commit(1, 4)) {
        const char b = 1;
        (void)::send(h.peer_wake.get(), &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    const auto end = std::chrono::steady_clock::now() + 3s;
    while (std::chrono::steady_clock::now() < end) {
        if (const auto *m = h.rx.peek()) {
            const bool ok = std::string(static_cast<const char *>(m->data), m->len) == "echo:ping";
            h.rx.release();
            return ok;
        }
        std::this_thread::sleep_for(1ms);
    }
    return false;
}

// The next CONSUMER_ACK on `h`, or nullopt.
std::optional<wire::consumer_ack_msg> next_ack(client &h)
{
    for (int i = 0; i < 10; ++i) {
        datagram d;
        if (!h.recv(d))
            return std::nullopt;
        if (auto *a = std::get_if<wire::consumer_ack_msg>(&d.msg))
            return *a;
    }
    return std::nullopt;
}

// A channel image in a memfd that is not sealed (fast_channel::create would seal it).
unique_fd unsealed_channel(uint64_t *size)
{
    shm::fast_channel_params p;
    p.num_tasks = 4;
    *size = shm::fast_channel::size_for(p.num_tasks);
    unique_fd fd = make_memfd(*size, false);
    void *m = ::mmap(nullptr, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (m == MAP_FAILED || shm::fast_channel::init(m, *size, p) != DOCA_SUCCESS)
        return unique_fd();
    ::munmap(m, *size);
    return fd;
}

TEST_F(HostileVsServer, UnsealedMemfdsAreRefusedAndTruncatingThemIsHarmless)
{
    start_victim();
    {
        // Consumer memory the victim's producer would write (a buffer is posted) in a memfd
        // that is not sealed, truncated right after the announce: SIGBUS in the victim before.
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        fake_consumer fc;
        ASSERT_TRUE(fc.make());
        ASSERT_EQ(fc.q.post(0, k_fake_base, 4096), DOCA_SUCCESS);
        unique_fd mem = make_memfd(1 << 20, false);
        ASSERT_TRUE(h.send(fc.shared(1, k_fake_base, 1 << 20, k_fake_base, 1 << 20),
                           {fc.ch.fd(), fc.wake.send_end.get(), mem.get()}));
        ASSERT_EQ(::ftruncate(mem.get(), 0), 0);
        expect_closed(h, "the memfd is not sealed against shrinking and growing");
    }
    {
        // The channel itself unsealed.
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        fake_consumer fc;
        ASSERT_TRUE(fc.make());
        uint64_t size = 0;
        unique_fd chan = unsealed_channel(&size);
        ASSERT_TRUE(chan);
        unique_fd mem = make_memfd(4096);
        auto m = fc.shared(2, k_fake_base, 4096, k_fake_base, 4096);
        m.channel_size = size;
        ASSERT_TRUE(h.send(m, {chan.get(), fc.wake.send_end.get(), mem.get()}));
        ASSERT_EQ(::ftruncate(chan.get(), 0), 0);
        expect_closed(h, "not sealed");
    }
    expect_victim_well();
}

TEST_F(HostileVsServer, WakeUpDescriptorsMustBeWhatTheyClaim)
{
    start_victim();
    {
        // A full pipe whose read end is closed as the client's wake-up descriptor: a write
        // raised SIGPIPE (or blocked) in the victim before.
        int p[2];
        ASSERT_EQ(::pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        unique_fd r(p[0]), w(p[1]);
        r.reset();
        client h;
        ASSERT_TRUE(h.connect(ep_));
        ASSERT_TRUE(h.send(h.hello(), {w.get()}));
        expect_closed(h, "the wake-up descriptor is not a socket");
    }
    {
        // A blocking eventfd parked at its maximum: the next write blocks for ever.
        unique_fd efd(::eventfd(0, EFD_CLOEXEC));
        const uint64_t max = 0xfffffffffffffffeull;
        ASSERT_EQ(::write(efd.get(), &max, sizeof max), ssize_t(sizeof max));
        client h;
        ASSERT_TRUE(h.connect(ep_));
        ASSERT_TRUE(h.send(h.hello(), {efd.get()}));
        expect_closed(h, "not a socket");
    }
    {
        // The same lie in a consumer announce on an established connection.
        int p[2];
        ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
        unique_fd r(p[0]), w(p[1]);
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        fake_consumer fc;
        ASSERT_TRUE(fc.make());
        unique_fd mem = make_memfd(4096);
        ASSERT_TRUE(h.send(fc.shared(1, k_fake_base, 4096, k_fake_base, 4096),
                           {fc.ch.fd(), w.get(), mem.get()}));
        expect_closed(h, "the wake-up descriptor is not a socket");
    }
    expect_victim_well();
}

TEST_F(HostileVsServer, OversizedReceiveQueuesAreClamped)
{
    start_victim();
    for (const uint32_t queue : {262144u, (1u << 24) + 5}) {
        SCOPED_TRACE(queue);
        client h;
        ASSERT_TRUE(h.connect(ep_));
        h.wake = wake_pair::make();
        ASSERT_TRUE(h.send(h.hello(queue), {h.wake.send_end.get()}));
        datagram d;
        ASSERT_TRUE(h.recv(d)) << log();
        const auto *a = std::get_if<wire::accept_msg>(&d.msg);
        ASSERT_NE(a, nullptr) << log();
        EXPECT_EQ(a->s2c_limit, 8192u); // the device's max_recv_queue_size
        EXPECT_LE(a->segment_size, uint64_t(2) << 20);
        EXPECT_TRUE(file_contains(log_, "asked for a receive queue of " + std::to_string(queue) +
                                            " messages; using the maximum, 8192"))
            << log();
    }
    expect_victim_well();
}

TEST_F(HostileVsServer, HugeSparseConsumerMemoryIsNotPrefaulted)
{
    start_victim();
    client h;
    ASSERT_TRUE(h.handshake(ep_)) << log();
    // 2 GiB, sealed, sparse: a MAP_POPULATE in the victim allocated all of it before.
    const uint64_t two_gib = uint64_t(2) << 30;
    fake_consumer fc;
    ASSERT_TRUE(fc.make());
    ASSERT_EQ(fc.q.post(0, k_fake_base, 4096), DOCA_SUCCESS);
    unique_fd mem = make_memfd(two_gib);
    ASSERT_TRUE(mem);
    ASSERT_TRUE(h.send(fc.shared(1, k_fake_base, two_gib, k_fake_base, two_gib),
                       {fc.ch.fd(), fc.wake.send_end.get(), mem.get()}));
    auto ack = next_ack(h);
    ASSERT_TRUE(ack) << log();
    EXPECT_EQ(ack->status, 0u);
    // The victim's producer writes its payload into the posted buffer: one page is touched.
    const auto end = std::chrono::steady_clock::now() + 5s;
    const shm::fast_completion *c = nullptr;
    while (c == nullptr && std::chrono::steady_clock::now() < end) {
        c = fc.q.peek();
        if (c == nullptr)
            std::this_thread::sleep_for(1ms);
    }
    ASSERT_NE(c, nullptr) << log();
    EXPECT_EQ(c->len, 4096u);
    void *view = ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, mem.get(), 0);
    ASSERT_NE(view, MAP_FAILED);
    EXPECT_EQ(static_cast<const uint8_t *>(view)[4095], 0xab);
    ::munmap(view, 4096);
    fc.q.release();
    // Beyond the per-connection budget of peer memory: refused, the connection stays.
    fake_consumer big;
    ASSERT_TRUE(big.make());
    const uint64_t huge = uint64_t(128) << 30;
    unique_fd hmem = make_memfd(huge);
    ASSERT_TRUE(hmem);
    ASSERT_TRUE(h.send(big.shared(2, k_fake_base, huge, k_fake_base, huge),
                       {big.ch.fd(), big.wake.send_end.get(), hmem.get()}));
    ack = next_ack(h);
    ASSERT_TRUE(ack) << log();
    EXPECT_EQ(ack->consumer_id, 2u);
    EXPECT_EQ(ack->status, uint32_t(DOCA_ERROR_NO_MEMORY));
    EXPECT_TRUE(echoes(h)) << log();
    expect_victim_well();
}

TEST_F(HostileVsServer, ConsumersPerConnectionAreBoundedAndIdsUnique)
{
    start_victim(false);
    const uint32_t max = 512; // the device's max_consumers
    {
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        for (uint32_t id = 1; id <= max + 1; ++id) {
            fake_consumer fc; // our copies go once sent: the victim holds its own
            ASSERT_TRUE(fc.make(1));
            unique_fd mem = make_memfd(4096);
            ASSERT_TRUE(h.send(fc.shared(id, k_fake_base, 4096, k_fake_base, 4096),
                               {fc.ch.fd(), fc.wake.send_end.get(), mem.get()}))
                << id;
            if (id <= max) {
                auto ack = next_ack(h);
                ASSERT_TRUE(ack) << id << "\n" << log();
                ASSERT_EQ(ack->status, 0u) << id;
            }
        }
        expect_closed(h, "more consumers announced than the device maximum");
    }
    {
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        for (int i = 0; i < 2; ++i) {
            fake_consumer fc;
            ASSERT_TRUE(fc.make());
            unique_fd mem = make_memfd(4096);
            ASSERT_TRUE(h.send(fc.shared(7, k_fake_base, 4096, k_fake_base, 4096),
                               {fc.ch.fd(), fc.wake.send_end.get(), mem.get()}));
            if (i == 0) {
                auto ack = next_ack(h);
                ASSERT_TRUE(ack) << log();
            }
        }
        expect_closed(h, "a consumer announce with the id of a live consumer");
    }
    {
        // A channel for 65536 tasks: more than the device's consumer_max_num_tasks (8192) need.
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        fake_consumer fc;
        ASSERT_TRUE(fc.make(65536));
        unique_fd mem = make_memfd(4096);
        ASSERT_TRUE(h.send(fc.shared(1, k_fake_base, 4096, k_fake_base, 4096),
                           {fc.ch.fd(), fc.wake.send_end.get(), mem.get()}));
        expect_closed(h, "a consumer channel larger than the device's maximum number of tasks");
    }
    expect_victim_well();
}

TEST_F(HostileVsServer, LyingPidsAreRefusedAndNoOtherProcessIsWritten)
{
    start_victim();
    // A bystander: an unrelated process of our uid with a canary at an address it reports.
    int to_parent[2], to_child[2];
    ASSERT_EQ(::pipe(to_parent), 0);
    ASSERT_EQ(::pipe(to_child), 0);
    const pid_t bystander = ::fork();
    ASSERT_GE(bystander, 0);
    if (bystander == 0) {
        static uint8_t canary[4096] __attribute__((aligned(4096)));
        std::memset(canary, 0x77, sizeof canary);
        const uint64_t a = reinterpret_cast<uint64_t>(canary);
        (void)!::write(to_parent[1], &a, sizeof a);
        char go = 0;
        (void)!::read(to_child[0], &go, 1);
        for (uint8_t b : canary)
            if (b != 0x77)
                _exit(1);
        _exit(0);
    }
    uint64_t addr = 0;
    ASSERT_EQ(::read(to_parent[0], &addr, sizeof addr), ssize_t(sizeof addr));
    {
        // A process_vm_writev consumer "in" the bystander, with a buffer posted at its canary.
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        fake_consumer fc;
        ASSERT_TRUE(fc.make());
        ASSERT_EQ(fc.q.post(0, addr, 4096), DOCA_SUCCESS);
        ASSERT_TRUE(h.send(fc.pvw(1, uint32_t(bystander), addr, 4096),
                           {fc.ch.fd(), fc.wake.send_end.get()}));
        expect_closed(h, "a process_vm_writev consumer in another process than the peer");
    }
    {
        // A HELLO naming the bystander.
        client h;
        ASSERT_TRUE(h.connect(ep_));
        h.wake = wake_pair::make();
        auto hello = h.hello();
        hello.client_pid = uint32_t(bystander);
        ASSERT_TRUE(h.send(hello, {h.wake.send_end.get()}));
        expect_closed(h, "the pid in the HELLO is not the connecting process's");
    }
    ASSERT_EQ(::write(to_child[1], "c", 1), 1);
    EXPECT_EQ(sc_test::wait_child(bystander, 5000ms), 0) << "the bystander's canary was written";
    for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]})
        ::close(fd);
    expect_victim_well();
}

TEST_F(HostileVsServer, ProtocolViolationsCloseOnlyThatConnection)
{
    start_victim();
    // An honest client connected throughout: it must not notice anything.
    honest_session honest;
    ASSERT_TRUE(honest.start(name_)) << log();
    {
        // A corrupt slot length: the connection used to die silently, later messages lost.
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        write_raw_record(h.seg.ring_mem(shm::c2s), 0x7fffffff, 1, 0);
        expect_closed(h, "a corrupt record in the receive ring");
        EXPECT_TRUE(file_contains(log_, "disconnected the client (pid " +
                                            std::to_string(::getpid()) + "): protocol violation"))
            << log();
    }
    {
        // A ring message of a type the protocol does not have.
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        void *slot = h.tx.try_claim(4);
        ASSERT_NE(slot, nullptr);
        std::memcpy(slot, "junk", 4);
        h.tx.commit(7, 4);
        expect_closed(h, "a ring message of an unknown type");
    }
    {
        // A slow-channel message of an unknown wire type (answered with a REJECT).
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        uint8_t raw[16] = {};
        const uint32_t magic = wire::k_magic;
        std::memcpy(raw, &magic, 4);
        raw[4] = uint8_t(wire::k_wire_version);
        raw[6] = 99;
        raw[8] = 16;
        ASSERT_TRUE(h.send_bytes(raw, sizeof raw));
        expect_closed(h, "a message of an unknown type");
    }
    {
        // A handshake message on an established connection.
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        wake_pair again = wake_pair::make();
        ASSERT_TRUE(h.send(h.hello(), {again.send_end.get()}));
        expect_closed(h, "a handshake message on an established connection");
    }
    {
        // The peer says it found a violation of ours and hangs up: logged, connection ended.
        client h;
        ASSERT_TRUE(h.handshake(ep_)) << log();
        wire::reject_msg r;
        r.reason = DOCA_ERROR_INVALID_VALUE;
        r.text = "protocol violation: made up by the test";
        ASSERT_TRUE(h.send(r));
        EXPECT_TRUE(h.wait_hangup(10000ms)) << log();
        EXPECT_TRUE(file_contains(log_, "closes the connection: protocol violation: made up by "
                                        "the test"))
            << log();
    }
    EXPECT_EQ(honest.finish(), "") << log();
    expect_victim_well();
}

TEST_F(HostileVsServer, ClientsOfAnotherUidAreRefusedAtAccept)
{
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root to run a client as another uid";
    use_traversable_runtime_dir();
    start_victim();
    // The victim's set-up ends with its live-figures file, whose creation makes the fabric
    // directory private again: only after that may the test open it up.
    namespace tp = softcomch::transport;
    const std::string live = tp::live_file_path(tp::fabric_name(), victim_);
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (::access(live.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(1ms);
    ASSERT_EQ(::access(live.c_str(), F_OK), 0) << live << "\n" << log();
    // Let uid 65534 reach the socket (the fabric directory is private to its owner).
    const std::string dir = ep_.socket_path.substr(0, ep_.socket_path.rfind('/'));
    const std::string top = dir.substr(0, dir.rfind('/'));
    struct stat sd {
    }, st{};
    ASSERT_EQ(::stat(dir.c_str(), &sd), 0);
    ASSERT_EQ(::stat(top.c_str(), &st), 0);
    ASSERT_EQ(::chmod(dir.c_str(), 0711), 0);
    ASSERT_EQ(::chmod(top.c_str(), 0711), 0);
    ASSERT_EQ(::chmod(ep_.socket_path.c_str(), 0777), 0);
    const pid_t other = sc_test::spawn([&] {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0)
            return 10;
        client h;
        if (!h.connect(ep_))
            return 11;
        h.wake = wake_pair::make();
        // The server may have refused and closed already: the REJECT is queued either way.
        (void)h.send(h.hello(), {h.wake.send_end.get()});
        std::string text;
        if (!h.wait_hangup(10000ms, &text))
            return 13;
        return text.find("another user") != std::string::npos ? 0 : 14;
    });
    EXPECT_EQ(sc_test::wait_child(other, 10000ms), 0) << log();
    ::chmod(dir.c_str(), sd.st_mode & 07777);
    ::chmod(top.c_str(), st.st_mode & 07777);
    EXPECT_TRUE(file_contains(log_, "refused a client of uid 65534")) << log();
    expect_victim_well();
}

} // namespace

// Every client maps the server's doorbell page (src/transport/shm/doorbell.hpp), so a client can
// clear the bells of the others. The page is a hint: a parked connection whose bell was
// silenced is still served, at the server's next tick. The attacker clears every bell
// continuously while an honest client, connected and idle long enough to be parked, sends its
// message: the echo must come back (it used to be stranded for ever without the tick's check).
// It also sets every bell: that costs the server visits, not correctness.
TEST_F(HostileVsServer, SilencedBellsDelayParkedConnectionsOnlyUntilTheTick)
{
    start_victim();
    client h;
    ASSERT_TRUE(h.handshake(ep_)) << log();
    ASSERT_TRUE(h.bell_page) << "no doorbell page in ACCEPT";
    void *m = ::mmap(nullptr, shm::k_doorbell_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                     h.bell_page.get(), 0);
    ASSERT_NE(m, MAP_FAILED);
    auto *page = static_cast<shm::doorbell_page *>(m);
    EXPECT_EQ(page->magic, shm::k_doorbell_magic);
    EXPECT_EQ(page->bits, shm::k_doorbell_bits);

    honest_session honest;
    ASSERT_TRUE(honest.start(name_)) << log();
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> rounds{0};
    std::thread silencer([&] {
        while (!stop.load(std::memory_order_relaxed)) {
            page->summary.store(0, std::memory_order_relaxed);
            for (auto &w : page->words)
                w.store(0, std::memory_order_relaxed);
            rounds.fetch_add(1, std::memory_order_relaxed);
        }
    });
    // Long enough for several ticks (10 ms each): the idle honest connection is parked.
    const auto until = std::chrono::steady_clock::now() + 200ms;
    while (std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(10ms);
    EXPECT_EQ(honest.finish(), "") << log();
    stop = true;
    silencer.join();
    EXPECT_GT(rounds.load(), 0u);

    // Ringing every bell: spurious visits only; the attacker's own connection still echoes.
    page->summary.store(~uint64_t(0));
    for (auto &w : page->words)
        w.store(~uint64_t(0));
    EXPECT_TRUE(echoes(h)) << log();
    ::munmap(m, shm::k_doorbell_size);
    expect_victim_well();
}
