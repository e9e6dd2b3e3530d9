// SPDX-License-Identifier: Apache-2.0
//
// The shm ring against the spin baseline, in the same run. Two processes (fork) pinned to CPU 0
// and CPU 1 share one connection segment (segment::create on the "server", segment::attach
// through the fd on the "client"), as SoftComch connections do:
//   ring_rtt      ping-pong through the c2s and s2c rings (full ring API: try_claim, copy in,
//                 commit with its wake check; peek, copy out, release), 64 B and 4080 B, in a
//                 DOCA-shaped segment (max message 4080 -> 4 KiB slots, queue size 16)
//   ring_tput     one direction, 64 B messages, copy in + copy out, messages per second:
//                 per-message commit(), and bursts (publish() x n + one wake_needed())
// Each ratio line compares with spin_rtt measured just before.
//
// Output: records (bench/bench_report.hpp):
//   transport_ring_rtt_{64B,4080B}_{p50,p99}  us, against base_spin_rtt_<size>_<stat> (its value
//                                             from the spin ping-pong measured here just before)
//   transport_ring_rate_64B_{q16_slot4096_commit,q1024_slot128_commit,q1024_slot128_burst32}
//                                             Mmsg/s, named against base_spin_rate_64B
// Usage: ring_bench [--smoke | --quick]
#include "bench_report.hpp"
#include "bench_util.hpp"
#include "transport/shm/segment.hpp"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace softcomch::bench;
using namespace softcomch::transport::shm;

namespace {

[[noreturn]] void die(const char *what, doca_error_t err)
{
    std::fprintf(stderr, "ring_bench: %s failed (doca_error %d)\n", what, int(err));
    std::exit(1);
}

segment make_segment(uint32_t queue, uint32_t max_payload)
{
    segment_params sp;
    sp.rings[c2s] = ring_layout::params_for(queue, max_payload);
    sp.rings[s2c] = ring_layout::params_for(queue, max_payload);
    segment s;
    const doca_error_t err = segment::create(sp, s);
    if (err != DOCA_SUCCESS)
        die("segment::create", err);
    return s;
}

// Child side helper: attach to the server's segment through its fd, as a client would after
// receiving it with SCM_RIGHTS.
segment attach_child(const segment &srv)
{
    segment cli;
    const doca_error_t err = segment::attach(srv.fd(), srv.size(), cli);
    if (err != DOCA_SUCCESS)
        die("segment::attach", err);
    return cli;
}

// Ping-pong of `payload` bytes. Parent = client (produces c2s, consumes s2c), child = server.
percentiles ring_rtt(size_t payload, size_t iters, size_t warmup)
{
    segment srv = make_segment(16, 4080);
    const bool single = online_cpus() < 2;
    const size_t total = warmup + iters;
    const pid_t child = fork();
    if (child < 0)
        std::exit(1);
    if (child == 0) {
        // Server: echo every message back (copy out, reply with a copy in, then release).
        pin_to_cpu(single ? 0 : 1);
        ring_consumer in;
        ring_producer out;
        if (srv.consumer(c2s, in) != DOCA_SUCCESS || srv.producer(s2c, out) != DOCA_SUCCESS)
            _exit(2);
        uint8_t buf[4080];
        spin_bound bound("ring_rtt echo");
        for (size_t i = 0; i < total; ++i) {
            const record_view *v;
            while ((v = in.peek()) == nullptr) {
                spin_pause(single);
                bound.tick();
            }
            const uint32_t len = v->len;
            std::memcpy(buf, v->data, len);
            buf[0] ^= 1;
            void *p;
            while ((p = out.try_claim(len)) == nullptr) {
                spin_pause(single);
                bound.tick();
            }
            std::memcpy(p, buf, len);
            if (out.commit(1, len)) {
                // Nobody arms in this benchmark: a wake request would be a bug.
                _exit(3);
            }
            in.release();
        }
        _exit(0);
    }
    pin_to_cpu(0);
    segment cli = attach_child(srv);
    ring_producer out;
    ring_consumer in;
    if (cli.producer(c2s, out) != DOCA_SUCCESS || cli.consumer(s2c, in) != DOCA_SUCCESS)
        std::exit(1);
    std::vector<uint64_t> samples;
    samples.reserve(iters);
    uint8_t buf[4080];
    std::memset(buf, 0x5a, sizeof buf);
    spin_bound bound("ring_rtt client");
    for (size_t i = 0; i < total; ++i) {
        const uint64_t t0 = ticks();
        void *p;
        while ((p = out.try_claim(uint32_t(payload))) == nullptr) {
            spin_pause(single);
            bound.tick();
        }
        std::memcpy(p, buf, payload);
        (void)out.commit(1, uint32_t(payload));
        const record_view *v;
        while ((v = in.peek()) == nullptr) {
            spin_pause(single);
            bound.tick();
        }
        std::memcpy(buf, v->data, v->len);
        in.release();
        const uint64_t t1 = ticks();
        if (i >= warmup)
            samples.push_back(t1 - t0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "ring_bench: echo process failed (status %d)\n", status);
        std::exit(1);
    }
    return summarize(samples);
}

// One-direction rate of 64-byte messages through a ring of `queue` slots of `max_payload`.
// burst == 0: commit() per message; burst > 0: publish() per message, wake_needed() per burst.
double ring_tput(uint32_t queue, uint32_t max_payload, uint64_t count, uint32_t burst)
{
    constexpr uint32_t k_len = 64;
    segment srv = make_segment(queue, max_payload);
    const bool single = online_cpus() < 2;
    const pid_t child = fork();
    if (child < 0)
        std::exit(1);
    if (child == 0) {
        // Producer (client side).
        pin_to_cpu(single ? 0 : 1);
        segment cli = attach_child(srv);
        ring_producer out;
        if (cli.producer(c2s, out) != DOCA_SUCCESS)
            _exit(2);
        uint8_t buf[k_len];
        std::memset(buf, 0x33, sizeof buf);
        uint64_t sent = 0;
        spin_bound bound("ring_tput producer");
        while (sent < count) {
            if (burst == 0) {
                void *p;
                while ((p = out.try_claim(k_len)) == nullptr) {
                    spin_pause(single);
                    bound.tick();
                }
                std::memcpy(p, buf, k_len);
                std::memcpy(p, &sent, sizeof sent);
                (void)out.commit(1, k_len);
                ++sent;
            } else {
                uint32_t n = 0;
                void *p;
                while (n < burst && sent < count && (p = out.try_claim(k_len)) != nullptr) {
                    std::memcpy(p, buf, k_len);
                    std::memcpy(p, &sent, sizeof sent);
                    out.publish(1, k_len);
                    ++sent;
                    ++n;
                }
                if (n == 0) {
                    spin_pause(single);
                    bound.tick();
                } else
                    (void)out.wake_needed();
            }
        }
        _exit(0);
    }
    // Consumer (server side): copy every message out and check its sequence number.
    pin_to_cpu(0);
    ring_consumer in;
    if (srv.consumer(c2s, in) != DOCA_SUCCESS)
        std::exit(1);
    uint8_t buf[k_len];
    uint64_t got = 0, t0 = 0;
    spin_bound bound("ring_tput consumer");
    while (got < count) {
        const record_view *v = in.peek();
        if (v == nullptr) {
            spin_pause(single);
            bound.tick();
            continue;
        }
        if (got == 0)
            t0 = ticks();
        std::memcpy(buf, v->data, v->len);
        uint64_t seq;
        std::memcpy(&seq, buf, sizeof seq);
        if (seq != got) {
            using ull = unsigned long long;
            std::fprintf(stderr, "ring_bench: sequence error %llu != %llu\n", ull(seq), ull(got));
            std::exit(1);
        }
        in.release();
        ++got;
    }
    const uint64_t t1 = ticks();
    int status = 0;
    waitpid(child, &status, 0);
    const double us = double(t1 - t0) / ticks_per_us();
    return double(count - 1) / us; // messages per microsecond = M msg/s
}

} // namespace

int main(int argc, char **argv)
{
    const run_mode mode = parse_mode(argc, argv, "ring_bench");
    print_context("ring_bench");
    std::printf("# mode %s\n", mode_name(mode));
    const size_t sizes[2] = {64, 4080};
    for (int i = 0; i < 2; ++i) {
        const size_t iters = by_mode<size_t>(mode, 2000, 50000, 200000) / (sizes[i] == 64 ? 1 : 4);
        const percentiles spin = spin_rtt(sizes[i], iters, iters / 10);
        const percentiles ring = ring_rtt(sizes[i], iters, iters / 10);
        const std::pair<const char *, double> stats[] = {{"p50", ring.p50_us},
                                                         {"p99", ring.p99_us}};
        const double base[] = {spin.p50_us, spin.p99_us};
        for (int s = 0; s < 2; ++s) {
            record r;
            r.metric = "transport_ring_rtt_" + size_name(sizes[i]) + "_" + stats[s].first;
            r.value = stats[s].second;
            r.unit = "us";
            r.group = "ctrl_rtt";
            r.size = sizes[i];
            r.mode = "ring alone";
            r.baseline = "base_spin_rtt_" + size_name(sizes[i]) + "_" + stats[s].first;
            r.baseline_value = base[s];
            emit(r);
        }
    }
    const uint64_t n = by_mode<uint64_t>(mode, 100000, 4000000, 20000000);
    struct variant {
        const char *name;
        uint32_t queue, slot, burst;
        uint64_t count;
    };
    const variant variants[] = {{"q16_slot4096_commit", 16, 4080, 0, n / 4},
                                {"q1024_slot128_commit", 1024, 64, 0, n},
                                {"q1024_slot128_burst32", 1024, 64, 32, n}};
    for (const variant &v : variants) {
        record r;
        r.metric = std::string("transport_ring_rate_64B_") + v.name;
        r.value = ring_tput(v.queue, v.slot, v.count, v.burst);
        r.unit = "Mmsg/s";
        r.better = "higher";
        r.group = "ctrl_rate";
        r.size = 64;
        r.mode = v.name;
        r.baseline = "base_spin_rate_64B";
        emit(r);
    }
    return 0;
}
