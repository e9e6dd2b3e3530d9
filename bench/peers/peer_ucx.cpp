// SPDX-License-Identifier: Apache-2.0
//
// peer_ucx: UCX's UCP tag API between two processes pinned to CPU 0 and CPU 1 (fork), forced to
// shared memory (UCX_TLS=sm unless the user set UCX_TLS). Each process creates its own context,
// worker and endpoint after the fork; the worker addresses cross a socketpair. Everything is
// polled (ucp_worker_progress in a bounded busy loop), UCX's natural mode:
//   round trip 64 B / 1 KiB / 4080 B: the client posts the reply's receive, sends, and polls
//   one-way rate 64 B / 4080 B and throughput 4 KiB .. 4 MiB: the sender keeps a window of sends
//   in flight, the receiver a window of posted receives; each received message's length and
//   stamps are checked (peer_common.hpp)
// Output: records of bench/bench_report.hpp.
#include "peer_common.hpp"

#ifdef SOFTCOMCH_HAVE_UCX

#include <sys/socket.h>
#include <ucp/api/ucp.h>

using namespace softcomch::bench;
using namespace softcomch::bench::peers;

namespace {

constexpr ucp_tag_t k_tag_ping = 1, k_tag_pong = 2, k_tag_data = 3, k_tag_ctrl = 9;
constexpr ucp_tag_t k_mask = ~ucp_tag_t(0);
constexpr uint64_t k_reply = 1ull << 63;

struct ucx {
    ucp_context_h ctx = nullptr;
    ucp_worker_h worker = nullptr;
    ucp_ep_h ep = nullptr;
};

void check(ucs_status_t st, const char *what)
{
    if (st != UCS_OK) {
        std::fprintf(stderr, "peer_ucx: %s: %s\n", what, ucs_status_string(st));
        _exit(1);
    }
}

void write_exact(int fd, const void *p, size_t n)
{
    if (write(fd, p, n) != ssize_t(n))
        die_errno("socketpair write");
}
void read_exact(int fd, void *p, size_t n)
{
    auto *b = static_cast<uint8_t *>(p);
    while (n > 0) {
        const ssize_t r = read(fd, b, n);
        if (r <= 0)
            die_errno("socketpair read");
        b += r;
        n -= size_t(r);
    }
}

// Context, worker, and an endpoint to the peer whose worker address comes over `sock`.
ucx open_ucx(int sock)
{
    ucx u;
    ucp_config_t *cfg = nullptr;
    check(ucp_config_read(nullptr, nullptr, &cfg), "ucp_config_read");
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_TAG;
    check(ucp_init(&params, cfg, &u.ctx), "ucp_init");
    ucp_config_release(cfg);
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    check(ucp_worker_create(u.ctx, &wp, &u.worker), "ucp_worker_create");
    ucp_address_t *addr = nullptr;
    size_t len = 0;
    check(ucp_worker_get_address(u.worker, &addr, &len), "ucp_worker_get_address");
    const uint64_t len64 = len;
    write_exact(sock, &len64, sizeof len64);
    write_exact(sock, addr, len);
    ucp_worker_release_address(u.worker, addr);
    uint64_t peer_len = 0;
    read_exact(sock, &peer_len, sizeof peer_len);
    if (peer_len == 0 || peer_len > (1u << 20))
        die("peer_ucx: bad worker address length");
    std::vector<uint8_t> peer(peer_len);
    read_exact(sock, peer.data(), peer_len);
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t *>(peer.data());
    check(ucp_ep_create(u.worker, &ep, &u.ep), "ucp_ep_create");
    return u;
}

void close_ucx(ucx &u)
{
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    void *req = ucp_ep_close_nbx(u.ep, &p);
    if (UCS_PTR_IS_PTR(req)) {
        spin_bound bound(5.0);
        while (ucp_request_check_status(req) == UCS_INPROGRESS) {
            ucp_worker_progress(u.worker);
            bound.turn("ucp_ep_close");
        }
        ucp_request_free(req);
    }
    ucp_worker_destroy(u.worker);
    ucp_cleanup(u.ctx);
}

// A send that may be in flight: null when complete.
void *send_start(ucx &u, const void *buf, size_t len, ucp_tag_t tag)
{
    ucp_request_param_t p{};
    void *req = ucp_tag_send_nbx(u.ep, buf, len, tag, &p);
    if (UCS_PTR_IS_ERR(req))
        check(UCS_PTR_STATUS(req), "ucp_tag_send_nbx");
    return req;
}

void send_wait(ucx &u, void *req, spin_bound &bound)
{
    if (req == nullptr)
        return;
    ucs_status_t st;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        ucp_worker_progress(u.worker);
        bound.turn("ucx send");
    }
    check(st, "ucx send completion");
    ucp_request_free(req);
}

struct recv_op {
    void *req = nullptr;
    ucp_tag_recv_info_t info{};
    bool done = false;
};

void recv_start(ucx &u, recv_op &op, void *buf, size_t cap, ucp_tag_t tag)
{
    // Always a request (no immediate completion): its length then comes from
    // ucp_tag_recv_request_test, one path for every receive.
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
    op.info = {};
    void *req = ucp_tag_recv_nbx(u.worker, buf, cap, tag, k_mask, &p);
    if (UCS_PTR_IS_ERR(req))
        check(UCS_PTR_STATUS(req), "ucp_tag_recv_nbx");
    if (req == nullptr)
        die("peer_ucx: ucp_tag_recv_nbx completed immediately");
    op.req = req;
    op.done = false;
}

// Waits for the receive; returns the received length.
size_t recv_wait(ucx &u, recv_op &op, spin_bound &bound)
{
    if (!op.done) {
        ucs_status_t st;
        while ((st = ucp_tag_recv_request_test(op.req, &op.info)) == UCS_INPROGRESS) {
            ucp_worker_progress(u.worker);
            bound.turn("ucx receive");
        }
        check(st, "ucx receive completion");
        ucp_request_free(op.req);
        op.req = nullptr;
        op.done = true;
    }
    return op.info.length;
}

void send_blocking(ucx &u, const void *buf, size_t len, ucp_tag_t tag, spin_bound &bound)
{
    send_wait(u, send_start(u, buf, len, tag), bound);
}

size_t recv_blocking(ucx &u, void *buf, size_t cap, ucp_tag_t tag, spin_bound &bound)
{
    recv_op op;
    recv_start(u, op, buf, cap, tag);
    return recv_wait(u, op, bound);
}

// A one-byte control message each way: both sides have reached the same point.
void barrier(ucx &u)
{
    spin_bound bound;
    uint8_t out = 1, in = 0;
    recv_op op;
    recv_start(u, op, &in, 1, k_tag_ctrl);
    send_blocking(u, &out, 1, k_tag_ctrl, bound);
    if (recv_wait(u, op, bound) != 1)
        die("peer_ucx: barrier");
}

// ---- the plan both processes follow ----

struct plan {
    uint64_t rtt_iters;
    std::vector<std::pair<size_t, uint64_t>> rates; // size, messages
    std::vector<std::pair<size_t, uint64_t>> tputs;
};

plan make_plan(const options &o)
{
    plan p;
    p.rtt_iters = count_for(o, 50000, 100);
    for (size_t s : rate_sizes())
        p.rates.emplace_back(s, count_for(o, s == 64 ? 2000000 : 500000, 500));
    for (size_t s : tput_sizes())
        p.tputs.emplace_back(s, tput_messages(o, s, 4ull << 30));
    return p;
}

size_t window_for(size_t size)
{
    return size <= 4096 ? 64 : size <= 65536 ? 16 : 4;
}

// Round trips: the child echoes.
void rtt_child(ucx &u, size_t size, uint64_t total)
{
    std::vector<uint8_t> buf(size);
    prefault(buf.data(), size);
    spin_bound bound;
    for (uint64_t i = 0; i < total; ++i) {
        const size_t got = recv_blocking(u, buf.data(), size, k_tag_ping, bound);
        if (got != size) {
            std::fprintf(stderr, "peer_ucx: ping %llu of %zu bytes has %zu\n",
                         (unsigned long long)i, size, got);
            _exit(1);
        }
        check_stamp(buf.data(), size, i, "ucx echo");
        stamp(buf.data(), size, i | k_reply);
        send_blocking(u, buf.data(), size, k_tag_pong, bound);
        bound.reset();
    }
}

rtt_result rtt_parent(ucx &u, size_t size, uint64_t warmup, uint64_t total)
{
    std::vector<uint8_t> out(size), in(size);
    prefault(out.data(), size);
    prefault(in.data(), size);
    std::vector<uint64_t> samples;
    samples.reserve(total - warmup);
    spin_bound bound;
    for (uint64_t i = 0; i < total; ++i) {
        stamp(out.data(), size, i);
        const uint64_t t0 = ticks();
        recv_op op;
        recv_start(u, op, in.data(), size, k_tag_pong);
        send_blocking(u, out.data(), size, k_tag_ping, bound);
        const size_t got = recv_wait(u, op, bound);
        const uint64_t t1 = ticks();
        if (got != size)
            die("peer_ucx: pong length");
        check_stamp(in.data(), size, i | k_reply, "ucx reply");
        if (i >= warmup)
            samples.push_back(t1 - t0);
        bound.reset();
    }
    return rtt_summary(samples);
}

// One-way stream: the child sends `warm` messages, waits for the go, sends `count` more.
void stream_child(ucx &u, size_t size, uint64_t warm, uint64_t count)
{
    const size_t w = window_for(size);
    std::vector<uint8_t> bufs(w * size);
    prefault(bufs.data(), bufs.size());
    std::vector<void *> reqs(w, nullptr);
    spin_bound bound;
    auto send_range = [&](uint64_t from, uint64_t to) {
        for (uint64_t seq = from; seq < to; ++seq) {
            const size_t slot = seq % w;
            send_wait(u, reqs[slot], bound);
            uint8_t *b = bufs.data() + slot * size;
            stamp(b, size, seq);
            reqs[slot] = send_start(u, b, size, k_tag_data);
            bound.reset();
        }
        for (auto &r : reqs) {
            send_wait(u, r, bound);
            r = nullptr;
        }
    };
    send_range(0, warm);
    uint8_t go = 0;
    if (recv_blocking(u, &go, 1, k_tag_ctrl, bound) != 1)
        die("peer_ucx: go");
    send_range(warm, warm + count);
}

// Returns the seconds from the go to the last message received and checked.
double stream_parent(ucx &u, size_t size, uint64_t warm, uint64_t count)
{
    const size_t w = window_for(size);
    const uint64_t total = warm + count;
    std::vector<uint8_t> bufs(w * size);
    prefault(bufs.data(), bufs.size());
    std::vector<recv_op> ops(w);
    spin_bound bound;
    for (uint64_t seq = 0; seq < w && seq < total; ++seq)
        recv_start(u, ops[seq], bufs.data() + seq * size, size, k_tag_data);
    uint64_t t0 = 0;
    for (uint64_t seq = 0; seq < total; ++seq) {
        if (seq == warm) {
            t0 = ticks();
            const uint8_t go = 1;
            send_blocking(u, &go, 1, k_tag_ctrl, bound);
        }
        const size_t slot = seq % w;
        uint8_t *b = bufs.data() + slot * size;
        if (recv_wait(u, ops[slot], bound) != size)
            die("peer_ucx: message length");
        check_stamp(b, size, seq, "ucx stream");
        if (seq + w < total)
            recv_start(u, ops[slot], b, size, k_tag_data);
        bound.reset();
    }
    return seconds(ticks() - t0);
}

int child_main(int sock, const plan &p)
{
    ucx u = open_ucx(sock);
    barrier(u);
    for (size_t size : rtt_sizes())
        rtt_child(u, size, p.rtt_iters + p.rtt_iters / 10 + 10);
    for (auto [size, n] : p.rates)
        stream_child(u, size, n / 10 + 64, n);
    for (auto [size, n] : p.tputs)
        stream_child(u, size, n / 10 + 4, n);
    barrier(u);
    close_ucx(u);
    return 0;
}

bool parent_main(int sock, const plan &p)
{
    ucx u = open_ucx(sock);
    barrier(u);
    for (size_t size : rtt_sizes()) {
        const uint64_t warmup = p.rtt_iters / 10 + 10;
        emit_rtt("peer_ucx", "ucx", "polled", size,
                 rtt_parent(u, size, warmup, warmup + p.rtt_iters));
    }
    for (auto [size, n] : p.rates) {
        const double s = stream_parent(u, size, n / 10 + 64, n);
        emit_rate("peer_ucx", "ucx", "polled", size, double(n) / s / 1e6);
    }
    for (auto [size, n] : p.tputs) {
        const double s = stream_parent(u, size, n / 10 + 4, n);
        emit_tput("peer_ucx", "ucx", "polled", size, double(n) * double(size) / s / 1e9);
    }
    barrier(u);
    close_ucx(u);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    const options opt = parse_options(argc, argv, "peer_ucx");
    online_cpus();
    // Shared memory only, unless the user chose the transports.
    if (std::getenv("UCX_TLS") == nullptr)
        setenv("UCX_TLS", "sm", 1);
    print_context("peer_ucx");
    unsigned major = 0, minor = 0, release = 0;
    ucp_get_version(&major, &minor, &release);
    std::printf("# UCX %u.%u.%u, UCX_TLS=%s, run length: %s\n", major, minor, release,
                std::getenv("UCX_TLS"), length_name(opt));
    const plan p = make_plan(opt);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        die_errno("socketpair");
    const bool ok = run_pair(
        [&] {
            close(sv[0]);
            return child_main(sv[1], p);
        },
        [&] {
            close(sv[1]); // a child that dies gives end-of-file, not a hang
            const bool r = parent_main(sv[0], p);
            close(sv[0]);
            return r;
        });
    return ok ? 0 : 1;
}

#else // !SOFTCOMCH_HAVE_UCX

int main(int argc, char **argv)
{
    using namespace softcomch::bench::peers;
    parse_options(argc, argv, "peer_ucx");
    std::printf("# peer_ucx: %s\n", SOFTCOMCH_PEER_MISSING);
    unavailable_all("peer_ucx", "polled", SOFTCOMCH_PEER_MISSING);
    return 0;
}

#endif
