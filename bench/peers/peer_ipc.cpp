// SPDX-License-Identifier: Apache-2.0
//
// peer_ipc: what the kernel gives a user without any library, between two processes pinned to
// CPU 0 and CPU 1 (fork):
//   eventfd  the event-mode limit: a 64 B payload in a shared mailbox with an eventfd as the
//            doorbell each way (blocking read, and a busy-polled nonblocking read)
//   pipe     two pipes, one per direction
//   uds      a Unix domain stream socket pair
//   tcp      TCP over loopback (127.0.0.1), TCP_NODELAY on both ends
// For pipe, uds and tcp: round trip 64 B / 1 KiB / 4080 B (polled = nonblocking descriptors and
// busy reads, blocking = plain blocking reads), one-way message rate 64 B / 4080 B (one write()
// per message; the receiver reads what is there and cuts it into messages), and streaming
// throughput of 4 KiB .. 4 MiB messages (one write of the whole message, the receiver reads
// exactly one message's bytes). Every message received is checked (peer_common.hpp, stamps).
// Output: records of bench/bench_report.hpp, one per line; '#' lines are comments.
#include "peer_common.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <memory>

using namespace softcomch::bench;
using namespace softcomch::bench::peers;

namespace {

enum class kind { pipe, uds, tcp };

const char *kind_name(kind k)
{
    return k == kind::pipe ? "pipe" : k == kind::uds ? "uds" : "tcp";
}

// The descriptors of one channel: the parent writes p_tx and reads p_rx, the child the c_ ones.
struct channel {
    int p_tx = -1, p_rx = -1, c_tx = -1, c_rx = -1;
};

void set_nodelay(int fd)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        die_errno("setsockopt TCP_NODELAY");
}

channel open_channel(kind k)
{
    channel ch;
    if (k == kind::pipe) {
        int down[2], up[2];
        if (pipe(down) != 0 || pipe(up) != 0)
            die_errno("pipe");
        ch.p_tx = down[1];
        ch.c_rx = down[0];
        ch.c_tx = up[1];
        ch.p_rx = up[0];
    } else if (k == kind::uds) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            die_errno("socketpair");
        ch.p_tx = ch.p_rx = sv[0];
        ch.c_tx = ch.c_rx = sv[1];
    } else {
        const int listener = socket(AF_INET, SOCK_STREAM, 0);
        if (listener < 0)
            die_errno("socket");
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        socklen_t len = sizeof addr;
        if (bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
            listen(listener, 1) != 0 ||
            getsockname(listener, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
            die_errno("tcp listen");
        const int client = socket(AF_INET, SOCK_STREAM, 0);
        if (client < 0 || connect(client, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
            die_errno("tcp connect");
        const int server = accept(listener, nullptr, nullptr);
        if (server < 0)
            die_errno("tcp accept");
        close(listener);
        set_nodelay(client);
        set_nodelay(server);
        ch.p_tx = ch.p_rx = server;
        ch.c_tx = ch.c_rx = client;
    }
    return ch;
}

// In each process after fork: close the other side's descriptors.
void keep_parent_side(const channel &ch)
{
    close(ch.c_tx);
    if (ch.c_rx != ch.c_tx)
        close(ch.c_rx);
}
void keep_child_side(const channel &ch)
{
    close(ch.p_tx);
    if (ch.p_rx != ch.p_tx)
        close(ch.p_rx);
}
void close_parent_side(const channel &ch)
{
    close(ch.p_tx);
    if (ch.p_rx != ch.p_tx)
        close(ch.p_rx);
}

void set_nonblocking(int fd, bool on)
{
    const int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK)) != 0)
        die_errno("fcntl O_NONBLOCK");
}

// Writes all `n` bytes; on a nonblocking descriptor it spins (bounded) while the peer is full.
void write_all(int fd, const void *buf, size_t n, spin_bound &bound)
{
    const auto *p = static_cast<const uint8_t *>(buf);
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w > 0) {
            p += w;
            n -= size_t(w);
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            bound.turn("write");
        } else {
            die_errno("write");
        }
    }
}

// Reads exactly `n` bytes (spinning, bounded, on a nonblocking descriptor).
void read_all(int fd, void *buf, size_t n, spin_bound &bound)
{
    auto *p = static_cast<uint8_t *>(buf);
    while (n > 0) {
        const ssize_t r = read(fd, p, n);
        if (r > 0) {
            p += r;
            n -= size_t(r);
        } else if (r == 0) {
            die("peer closed the stream");
        } else if (errno == EAGAIN || errno == EINTR) {
            bound.turn("read");
        } else {
            die_errno("read");
        }
    }
}

constexpr uint64_t k_reply = 1ull << 63; // replies carry the request's sequence with this bit

// ---- round trip over a stream ----

bool stream_rtt(kind k, bool polled, size_t size, uint64_t iters)
{
    const uint64_t warmup = iters / 10 + 10;
    const uint64_t total = warmup + iters;
    const channel ch = open_channel(k);
    std::vector<uint64_t> samples;
    samples.reserve(iters);
    const bool ok = run_pair(
        [&] {
            keep_child_side(ch);
            set_nonblocking(ch.c_rx, polled);
            set_nonblocking(ch.c_tx, polled);
            std::vector<uint8_t> buf(size);
            prefault(buf.data(), size);
            spin_bound bound;
            for (uint64_t i = 0; i < total; ++i) {
                read_all(ch.c_rx, buf.data(), size, bound);
                check_stamp(buf.data(), size, i, "rtt echo");
                stamp(buf.data(), size, i | k_reply);
                write_all(ch.c_tx, buf.data(), size, bound);
                bound.reset();
            }
            return 0;
        },
        [&] {
            keep_parent_side(ch);
            set_nonblocking(ch.p_rx, polled);
            set_nonblocking(ch.p_tx, polled);
            std::vector<uint8_t> out(size), in(size);
            prefault(out.data(), size);
            prefault(in.data(), size);
            spin_bound bound;
            for (uint64_t i = 0; i < total; ++i) {
                stamp(out.data(), size, i);
                const uint64_t t0 = ticks();
                write_all(ch.p_tx, out.data(), size, bound);
                read_all(ch.p_rx, in.data(), size, bound);
                const uint64_t t1 = ticks();
                check_stamp(in.data(), size, i | k_reply, "rtt reply");
                if (i >= warmup)
                    samples.push_back(t1 - t0);
                bound.reset();
            }
            return true;
        });
    close_parent_side(ch);
    if (!ok)
        return false;
    emit_rtt(std::string("peer_") + kind_name(k), kind_name(k), polled ? "polled" : "blocking",
             size, rtt_summary(samples));
    return true;
}

// ---- one-way rate over a stream ----

// The sending child of stream_rate and stream_tput: `warm` stamped messages of `size` bytes, one
// write() each, then (after the parent's go byte) `count` more.
int send_stream(const channel &ch, size_t size, uint64_t warm, uint64_t count)
{
    keep_child_side(ch);
    std::vector<uint8_t> buf(size);
    prefault(buf.data(), size);
    spin_bound bound;
    uint64_t seq = 0;
    for (; seq < warm; ++seq) {
        stamp(buf.data(), size, seq);
        write_all(ch.c_tx, buf.data(), size, bound);
    }
    uint8_t go = 0;
    read_all(ch.c_rx, &go, 1, bound);
    for (; seq < warm + count; ++seq) {
        stamp(buf.data(), size, seq);
        write_all(ch.c_tx, buf.data(), size, bound);
    }
    return 0;
}

// The child sends `warm` then (after the parent's go byte) `count` messages of `size` bytes, one
// write() each; the parent reads whatever is there into a 256 KiB buffer and cuts it into
// messages, checking each. Rate = count / (go .. last message received).
bool stream_rate(kind k, size_t size, uint64_t count)
{
    const uint64_t warm = count / 10 + 16;
    const channel ch = open_channel(k);
    double rate = 0;
    const bool ok = run_pair([&] { return send_stream(ch, size, warm, count); },
                             [&] {
                                 keep_parent_side(ch);
                                 const size_t cap = 256 * 1024;
                                 std::vector<uint8_t> buf(cap + size);
                                 prefault(buf.data(), buf.size());
                                 size_t have = 0;
                                 uint64_t expect = 0;
                                 uint64_t t0 = 0;
                                 spin_bound bound;
                                 while (expect < warm + count) {
                                     if (expect == warm && t0 == 0) {
                                         t0 = ticks();
                                         const uint8_t go = 1;
                                         write_all(ch.p_tx, &go, 1, bound);
                                     }
                                     const ssize_t r = read(ch.p_rx, buf.data() + have, cap - have);
                                     if (r == 0)
                                         die("sender closed early");
                                     if (r < 0) {
                                         if (errno == EINTR)
                                             continue;
                                         die_errno("read");
                                     }
                                     have += size_t(r);
                                     size_t off = 0;
                                     while (have - off >= size && expect < warm + count) {
                                         check_stamp(buf.data() + off, size, expect, "rate");
                                         off += size;
                                         ++expect;
                                         if (expect == warm)
                                             break; // start the clock before taking more
                                     }
                                     std::memmove(buf.data(), buf.data() + off, have - off);
                                     have -= off;
                                 }
                                 const uint64_t t1 = ticks();
                                 rate = double(count) / (double(t1 - t0) / ticks_per_us());
                                 return have == 0;
                             });
    close_parent_side(ch);
    if (!ok)
        return false;
    emit_rate(std::string("peer_") + kind_name(k), kind_name(k), "blocking", size, rate);
    return true;
}

// ---- streaming throughput ----

bool stream_tput(kind k, size_t size, uint64_t count)
{
    const uint64_t warm = count / 10 + 2;
    const channel ch = open_channel(k);
    double gbps = 0;
    const bool ok = run_pair([&] { return send_stream(ch, size, warm, count); },
                             [&] {
                                 keep_parent_side(ch);
                                 std::vector<uint8_t> buf(size);
                                 prefault(buf.data(), size);
                                 spin_bound bound;
                                 uint64_t seq = 0;
                                 for (; seq < warm; ++seq) {
                                     read_all(ch.p_rx, buf.data(), size, bound);
                                     check_stamp(buf.data(), size, seq, "tput warm-up");
                                 }
                                 const uint64_t t0 = ticks();
                                 const uint8_t go = 1;
                                 write_all(ch.p_tx, &go, 1, bound);
                                 for (; seq < warm + count; ++seq) {
                                     read_all(ch.p_rx, buf.data(), size, bound);
                                     check_stamp(buf.data(), size, seq, "tput");
                                 }
                                 const uint64_t t1 = ticks();
                                 gbps = double(count) * double(size) / seconds(t1 - t0) / 1e9;
                                 return true;
                             });
    close_parent_side(ch);
    if (!ok)
        return false;
    emit_tput(std::string("peer_") + kind_name(k), kind_name(k), "blocking", size, gbps);
    return true;
}

// ---- eventfd ping-pong ----

struct alignas(64) mailbox {
    std::atomic<uint64_t> seq;
    uint64_t pad[7];
    uint8_t payload[64];
};

struct eventfd_area {
    mailbox ping; // parent -> child
    mailbox pong; // child -> parent
};

// Waits for one doorbell ring: a blocking read, or busy nonblocking reads (bounded).
void ring_wait(int efd, spin_bound &bound)
{
    uint64_t v = 0;
    for (;;) {
        const ssize_t r = read(efd, &v, sizeof v);
        if (r == sizeof v)
            break;
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            bound.turn("eventfd read");
            continue;
        }
        die_errno("eventfd read");
    }
    if (v != 1)
        die("eventfd: more than one doorbell pending");
}

void ring(int efd)
{
    const uint64_t one = 1;
    if (write(efd, &one, sizeof one) != sizeof one)
        die_errno("eventfd write");
}

bool eventfd_rtt(bool polled, uint64_t iters)
{
    constexpr size_t size = 64;
    const uint64_t warmup = iters / 10 + 10;
    const uint64_t total = warmup + iters;
    void *mem = mmap(nullptr, sizeof(eventfd_area), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (mem == MAP_FAILED)
        die_errno("mmap");
    auto *area = new (mem) eventfd_area();
    const int flags = polled ? EFD_NONBLOCK : 0;
    const int to_child = eventfd(0, flags), to_parent = eventfd(0, flags);
    if (to_child < 0 || to_parent < 0)
        die_errno("eventfd");
    std::vector<uint64_t> samples;
    samples.reserve(iters);
    const bool ok = run_pair(
        [&] {
            uint8_t buf[size];
            spin_bound bound;
            for (uint64_t i = 0; i < total; ++i) {
                ring_wait(to_child, bound);
                if (area->ping.seq.load(std::memory_order_acquire) != i)
                    die("eventfd: ping sequence");
                std::memcpy(buf, area->ping.payload, size);
                check_stamp(buf, size, i, "eventfd echo");
                stamp(buf, size, i | k_reply);
                std::memcpy(area->pong.payload, buf, size);
                area->pong.seq.store(i, std::memory_order_release);
                ring(to_parent);
                bound.reset();
            }
            return 0;
        },
        [&] {
            uint8_t out[size], in[size];
            spin_bound bound;
            for (uint64_t i = 0; i < total; ++i) {
                stamp(out, size, i);
                const uint64_t t0 = ticks();
                std::memcpy(area->ping.payload, out, size);
                area->ping.seq.store(i, std::memory_order_release);
                ring(to_child);
                ring_wait(to_parent, bound);
                if (area->pong.seq.load(std::memory_order_acquire) != i)
                    die("eventfd: pong sequence");
                std::memcpy(in, area->pong.payload, size);
                const uint64_t t1 = ticks();
                check_stamp(in, size, i | k_reply, "eventfd reply");
                if (i >= warmup)
                    samples.push_back(t1 - t0);
                bound.reset();
            }
            return true;
        });
    close(to_child);
    close(to_parent);
    munmap(mem, sizeof(eventfd_area));
    if (!ok)
        return false;
    emit_rtt("base_eventfd", "eventfd", polled ? "polled" : "blocking", size, rtt_summary(samples));
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    const options opt = parse_options(argc, argv, "peer_ipc");
    online_cpus(); // before any pinning narrows our affinity
    print_context("peer_ipc");
    std::printf("# run length: %s\n", length_name(opt));
    const uint64_t rtt_iters = count_for(opt, 20000, 50);
    bool ok = true;

    for (bool polled : {false, true})
        ok = eventfd_rtt(polled, rtt_iters) && ok;

    for (kind k : {kind::pipe, kind::uds, kind::tcp}) {
        for (bool polled : {true, false})
            for (size_t size : rtt_sizes())
                ok = stream_rtt(k, polled, size, rtt_iters) && ok;
        for (size_t size : rate_sizes())
            ok = stream_rate(k, size, count_for(opt, size == 64 ? 500000 : 200000, 200)) && ok;
        for (size_t size : tput_sizes())
            ok = stream_tput(k, size, tput_messages(opt, size, 1ull << 30)) && ok;
    }
    return ok ? 0 : 1;
}
