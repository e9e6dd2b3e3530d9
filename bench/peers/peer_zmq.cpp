// SPDX-License-Identifier: Apache-2.0
//
// peer_zmq: ZeroMQ between two processes pinned to CPU 0 and CPU 1 (fork), one PAIR socket each
// over the ipc:// transport (a Unix socket in a private temporary directory). Each process makes
// its own context after the fork. ZeroMQ's natural mode is blocking (its I/O thread wakes the
// caller), so:
//   round trip 64 B / 1 KiB / 4080 B: zmq_send then zmq_recv, the child echoes
//   one-way rate 64 B / 4080 B and throughput 4 KiB .. 4 MiB: the child zmq_send()s a stream of
//   messages (the high-water mark blocks it when the receiver lags), the parent zmq_msg_recv()s
//   each and checks its length and stamps (peer_common.hpp)
// Output: records of bench/bench_report.hpp.
#include "peer_common.hpp"

#ifdef SOFTCOMCH_HAVE_ZMQ

#include <zmq.h>

#include <cerrno>

using namespace softcomch::bench;
using namespace softcomch::bench::peers;

namespace {

constexpr uint64_t k_reply = 1ull << 63;

[[noreturn]] void zdie(const char *what)
{
    std::fprintf(stderr, "peer_zmq: %s: %s\n", what, zmq_strerror(zmq_errno()));
    std::fflush(stderr);
    _exit(1);
}

struct zsock {
    void *ctx = nullptr;
    void *sock = nullptr;
};

zsock open_pair(const std::string &endpoint, bool bind)
{
    zsock z;
    z.ctx = zmq_ctx_new();
    if (z.ctx == nullptr)
        zdie("zmq_ctx_new");
    z.sock = zmq_socket(z.ctx, ZMQ_PAIR);
    if (z.sock == nullptr)
        zdie("zmq_socket");
    const int linger = 0;
    zmq_setsockopt(z.sock, ZMQ_LINGER, &linger, sizeof linger);
    if ((bind ? zmq_bind(z.sock, endpoint.c_str()) : zmq_connect(z.sock, endpoint.c_str())) != 0)
        zdie(bind ? "zmq_bind" : "zmq_connect");
    return z;
}

void close_pair(zsock &z)
{
    zmq_close(z.sock);
    zmq_ctx_term(z.ctx);
}

void send_msg(zsock &z, const void *buf, size_t len)
{
    while (zmq_send(z.sock, buf, len, 0) < 0) {
        if (zmq_errno() != EINTR)
            zdie("zmq_send");
    }
}

// Receives one message into `buf` (at most `cap` bytes); returns its full length.
size_t recv_into(zsock &z, void *buf, size_t cap)
{
    int r;
    while ((r = zmq_recv(z.sock, buf, cap, 0)) < 0) {
        if (zmq_errno() != EINTR)
            zdie("zmq_recv");
    }
    return size_t(r);
}

struct plan {
    uint64_t rtt_iters;
    std::vector<std::pair<size_t, uint64_t>> rates;
    std::vector<std::pair<size_t, uint64_t>> tputs;
};

plan make_plan(const options &o)
{
    plan p;
    p.rtt_iters = count_for(o, 20000, 50);
    for (size_t s : rate_sizes())
        p.rates.emplace_back(s, count_for(o, s == 64 ? 1000000 : 300000, 300));
    for (size_t s : tput_sizes())
        p.tputs.emplace_back(s, tput_messages(o, s, 1ull << 30));
    return p;
}

void stream_child(zsock &z, size_t size, uint64_t warm, uint64_t count)
{
    std::vector<uint8_t> buf(size);
    prefault(buf.data(), size);
    uint64_t seq = 0;
    for (; seq < warm; ++seq) {
        stamp(buf.data(), size, seq);
        send_msg(z, buf.data(), size);
    }
    uint8_t go = 0;
    if (recv_into(z, &go, 1) != 1)
        die("peer_zmq: go");
    for (; seq < warm + count; ++seq) {
        stamp(buf.data(), size, seq);
        send_msg(z, buf.data(), size);
    }
}

double stream_parent(zsock &z, size_t size, uint64_t warm, uint64_t count)
{
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    uint64_t t0 = 0;
    for (uint64_t seq = 0; seq < warm + count; ++seq) {
        if (seq == warm) {
            t0 = ticks();
            const uint8_t go = 1;
            send_msg(z, &go, 1);
        }
        while (zmq_msg_recv(&msg, z.sock, 0) < 0) {
            if (zmq_errno() != EINTR)
                zdie("zmq_msg_recv");
        }
        if (zmq_msg_size(&msg) != size)
            die("peer_zmq: message length");
        check_stamp(zmq_msg_data(&msg), size, seq, "zmq stream");
    }
    const uint64_t t1 = ticks();
    zmq_msg_close(&msg);
    return seconds(t1 - t0);
}

int child_main(const std::string &endpoint, const plan &p)
{
    zsock z = open_pair(endpoint, false);
    const uint8_t hello = 1;
    send_msg(z, &hello, 1);
    for (size_t size : rtt_sizes()) {
        std::vector<uint8_t> buf(size);
        prefault(buf.data(), size);
        const uint64_t total = p.rtt_iters + p.rtt_iters / 10 + 10;
        for (uint64_t i = 0; i < total; ++i) {
            if (recv_into(z, buf.data(), size) != size)
                die("peer_zmq: ping length");
            check_stamp(buf.data(), size, i, "zmq echo");
            stamp(buf.data(), size, i | k_reply);
            send_msg(z, buf.data(), size);
        }
    }
    for (auto [size, n] : p.rates)
        stream_child(z, size, n / 10 + 64, n);
    for (auto [size, n] : p.tputs)
        stream_child(z, size, n / 10 + 4, n);
    uint8_t bye = 0;
    if (recv_into(z, &bye, 1) != 1)
        die("peer_zmq: bye");
    close_pair(z);
    return 0;
}

bool parent_main(const std::string &endpoint, const plan &p)
{
    zsock z = open_pair(endpoint, true);
    uint8_t hello = 0;
    if (recv_into(z, &hello, 1) != 1)
        die("peer_zmq: hello");
    for (size_t size : rtt_sizes()) {
        std::vector<uint8_t> out(size), in(size);
        prefault(out.data(), size);
        prefault(in.data(), size);
        const uint64_t warmup = p.rtt_iters / 10 + 10;
        std::vector<uint64_t> samples;
        samples.reserve(p.rtt_iters);
        for (uint64_t i = 0; i < warmup + p.rtt_iters; ++i) {
            stamp(out.data(), size, i);
            const uint64_t t0 = ticks();
            send_msg(z, out.data(), size);
            const size_t got = recv_into(z, in.data(), size);
            const uint64_t t1 = ticks();
            if (got != size)
                die("peer_zmq: pong length");
            check_stamp(in.data(), size, i | k_reply, "zmq reply");
            if (i >= warmup)
                samples.push_back(t1 - t0);
        }
        emit_rtt("peer_zmq", "zmq", "blocking", size, rtt_summary(samples));
    }
    for (auto [size, n] : p.rates) {
        const double s = stream_parent(z, size, n / 10 + 64, n);
        emit_rate("peer_zmq", "zmq", "blocking", size, double(n) / s / 1e6);
    }
    for (auto [size, n] : p.tputs) {
        const double s = stream_parent(z, size, n / 10 + 4, n);
        emit_tput("peer_zmq", "zmq", "blocking", size, double(n) * double(size) / s / 1e9);
    }
    const uint8_t bye = 1;
    send_msg(z, &bye, 1);
    close_pair(z);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    const options opt = parse_options(argc, argv, "peer_zmq");
    online_cpus();
    print_context("peer_zmq");
    int major = 0, minor = 0, patch = 0;
    zmq_version(&major, &minor, &patch);
    std::printf("# ZeroMQ %d.%d.%d, PAIR sockets over ipc://, run length: %s\n", major, minor,
                patch, length_name(opt));
    char dir[] = "/tmp/softcomch-zmq-XXXXXX";
    if (mkdtemp(dir) == nullptr)
        die_errno("mkdtemp");
    const std::string path = std::string(dir) + "/pair";
    const std::string endpoint = "ipc://" + path;
    const plan p = make_plan(opt);
    const bool ok =
        run_pair([&] { return child_main(endpoint, p); }, [&] { return parent_main(endpoint, p); });
    unlink(path.c_str());
    rmdir(dir);
    return ok ? 0 : 1;
}

#else // !SOFTCOMCH_HAVE_ZMQ

int main(int argc, char **argv)
{
    using namespace softcomch::bench::peers;
    parse_options(argc, argv, "peer_zmq");
    std::printf("# peer_zmq: %s\n", SOFTCOMCH_PEER_MISSING);
    unavailable_all("peer_zmq", "blocking", SOFTCOMCH_PEER_MISSING);
    return 0;
}

#endif
