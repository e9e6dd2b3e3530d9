// SPDX-License-Identifier: Apache-2.0
//
// Shared by the peer benchmarks (bench/peers/peer_*.cpp): the run length (--smoke, --quick,
// full), the two pinned processes, bounded spinning, the message stamps every receiver checks,
// and the records (bench/bench_report.hpp) of the three kinds every peer reports:
//   round trip   <prefix>_rtt_<mode>_<size>_{p50,p99,p999}   us, group ctrl_rtt
//   rate         <prefix>_rate_<size>                         Mmsg/s, group ctrl_rate
//   throughput   <prefix>_tput_<size>                         GB/s, group fast_tput
#pragma once

#include "../bench_report.hpp"
#include "../bench_util.hpp"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace softcomch::bench::peers {

// ---- run length ----

enum class run_length { smoke, quick, full };

struct options {
    run_length length = run_length::full;
};

inline options parse_options(int argc, char **argv, const char *name)
{
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--smoke")
            o.length = run_length::smoke;
        else if (a == "--quick")
            o.length = run_length::quick;
        else if (a == "--full")
            o.length = run_length::full;
        else {
            std::fprintf(stderr, "usage: %s [--smoke | --quick | --full]\n", name);
            std::exit(2);
        }
    }
    return o;
}

// `full` scaled to the run length: a tenth for --quick, `smoke` for --smoke.
inline uint64_t count_for(const options &o, uint64_t full, uint64_t smoke)
{
    switch (o.length) {
    case run_length::smoke:
        return smoke;
    case run_length::quick:
        return full / 10 > smoke ? full / 10 : smoke;
    case run_length::full:
        break;
    }
    return full;
}

inline const char *length_name(const options &o)
{
    return o.length == run_length::smoke   ? "smoke"
           : o.length == run_length::quick ? "quick"
                                           : "full";
}

// Sizes of the sweeps (bytes).
inline const std::vector<size_t> &rtt_sizes()
{
    static const std::vector<size_t> v{64, 1024, 4080};
    return v;
}
inline const std::vector<size_t> &rate_sizes()
{
    static const std::vector<size_t> v{64, 4080};
    return v;
}
inline const std::vector<size_t> &tput_sizes()
{
    static const std::vector<size_t> v{4096, 65536, 1u << 20, 4u << 20};
    return v;
}

// Messages of a throughput run of `size` bytes: `full_bytes` in all (at least 8 messages), a
// tenth for --quick, 8 messages or 2 MiB for --smoke.
inline uint64_t tput_messages(const options &o, size_t size, uint64_t full_bytes)
{
    const uint64_t smoke_bytes = 2u << 20;
    const uint64_t bytes = o.length == run_length::smoke   ? smoke_bytes
                           : o.length == run_length::quick ? full_bytes / 10
                                                           : full_bytes;
    const uint64_t n = bytes / size;
    return n < 8 ? 8 : n;
}

// ---- failing ----

[[noreturn]] inline void die(const char *what)
{
    std::fprintf(stderr, "peer benchmark: %s\n", what);
    std::fflush(stderr);
    _exit(1);
}

[[noreturn]] inline void die_errno(const char *what)
{
    std::fprintf(stderr, "peer benchmark: %s: %s\n", what, std::strerror(errno));
    std::fflush(stderr);
    _exit(1);
}

// ---- bounded spinning: bench_util.hpp's spin_bound (turn(what), reset()) ----

// ---- message stamps ----
//
// Every message carries its sequence number and length at the start, a stamp at each 4 KiB
// boundary and a check word at its end; the receiver checks them all, so a lost, torn,
// duplicated or misframed message stops the benchmark instead of giving a fast wrong figure.
// Cost: a few words per 4 KiB on each side.

inline uint64_t stamp_at(uint64_t seq, size_t offset)
{
    return (seq * 0x9e3779b97f4a7c15ull) ^ offset;
}

inline void put64(void *buf, size_t off, uint64_t v)
{
    std::memcpy(static_cast<uint8_t *>(buf) + off, &v, sizeof v);
}
inline uint64_t get64(const void *buf, size_t off)
{
    uint64_t v;
    std::memcpy(&v, static_cast<const uint8_t *>(buf) + off, sizeof v);
    return v;
}

// Messages are at least 16 bytes (sequence, length).
inline void stamp(void *buf, size_t size, uint64_t seq)
{
    put64(buf, 0, seq);
    put64(buf, 8, size);
    for (size_t off = 4096; off + 8 <= size; off += 4096)
        put64(buf, off, stamp_at(seq, off));
    if (size >= 24)
        put64(buf, size - 8, ~stamp_at(seq, size));
}

inline bool stamp_ok(const void *buf, size_t size, uint64_t seq)
{
    if (get64(buf, 0) != seq || get64(buf, 8) != size)
        return false;
    for (size_t off = 4096; off + 8 <= size; off += 4096)
        if (get64(buf, off) != stamp_at(seq, off))
            return false;
    return size < 24 || get64(buf, size - 8) == ~stamp_at(seq, size);
}

inline void check_stamp(const void *buf, size_t size, uint64_t seq, const char *who)
{
    if (!stamp_ok(buf, size, seq)) {
        std::fprintf(stderr,
                     "peer benchmark: %s: message %llu of %zu bytes is wrong (got sequence %llu, "
                     "length %llu)\n",
                     who, (unsigned long long)seq, size, (unsigned long long)get64(buf, 0),
                     (unsigned long long)get64(buf, 8));
        std::fflush(stderr);
        _exit(1);
    }
}

// Touches every page of `buf` (pre-fault) and gives it a known content.
inline void prefault(void *buf, size_t size)
{
    std::memset(buf, 0xa5, size);
}

// ---- two pinned processes ----

// Runs `child` in a forked process pinned to CPU 1 (CPU 0 with one usable CPU) and `parent` in
// this process pinned to CPU 0; returns false (after a '#' line) when either failed. The child's
// exit code is its function's return value. A watchdog alarm bounds both.
inline bool run_pair(const std::function<int()> &child, const std::function<bool()> &parent,
                     unsigned watchdog_seconds = 120)
{
    const bool single = online_cpus() < 2;
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0)
        die_errno("fork");
    if (pid == 0) {
        pin_to_cpu(single ? 0 : 1);
        alarm(watchdog_seconds);
        _exit(child());
    }
    pin_to_cpu(0);
    alarm(watchdog_seconds);
    const bool ok = parent();
    int status = 0;
    if (!ok)
        kill(pid, SIGKILL);
    if (waitpid(pid, &status, 0) < 0)
        die_errno("waitpid");
    alarm(0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::printf("# child process failed (status %d)\n", status);
        return false;
    }
    return ok;
}

// ---- records ----

struct rtt_result {
    double p50 = 0, p99 = 0, p999 = 0;
};

inline rtt_result rtt_summary(std::vector<uint64_t> &samples)
{
    const percentiles p = summarize(samples);
    return {p.p50_us, p.p99_us, p.p999_us};
}

inline std::string rtt_metric(const std::string &prefix, const std::string &mode, size_t size,
                              const char *stat)
{
    return prefix + "_rtt_" + mode + "_" + size_name(size) + "_" + stat;
}

inline void emit_rtt(const std::string &prefix, const char *subject, const std::string &mode,
                     size_t size, const rtt_result &r)
{
    const struct {
        const char *stat;
        double v;
    } stats[] = {{"p50", r.p50}, {"p99", r.p99}, {"p999", r.p999}};
    for (const auto &s : stats) {
        record rec;
        rec.metric = rtt_metric(prefix, mode, size, s.stat);
        rec.value = s.v;
        rec.unit = "us";
        rec.better = "lower";
        rec.subject = subject;
        rec.group = "ctrl_rtt";
        rec.size = size;
        rec.mode = mode;
        emit(rec);
    }
}

inline void unavailable_rtt(const std::string &prefix, const std::string &mode, size_t size,
                            const std::string &why)
{
    for (const char *stat : {"p50", "p99", "p999"})
        emit_unavailable(rtt_metric(prefix, mode, size, stat), why);
}

inline void emit_rate(const std::string &prefix, const char *subject, const std::string &mode,
                      size_t size, double mmsg_per_s)
{
    record rec;
    rec.metric = prefix + "_rate_" + size_name(size);
    rec.value = mmsg_per_s;
    rec.unit = "Mmsg/s";
    rec.better = "higher";
    rec.subject = subject;
    rec.group = "ctrl_rate";
    rec.size = size;
    rec.mode = mode;
    emit(rec);
}

// A throughput record, named prefix + infix + size ("peer_uds" "_tput_" "64KiB").
inline void emit_tput(const std::string &prefix, const char *subject, const std::string &mode,
                      size_t size, double gb_per_s, const std::string &infix = "_tput_")
{
    record rec;
    rec.metric = prefix + infix + size_name(size);
    rec.value = gb_per_s;
    rec.unit = "GB/s";
    rec.better = "higher";
    rec.subject = subject;
    rec.group = "fast_tput";
    rec.size = size;
    rec.mode = mode;
    emit(rec);
}

// Every metric of a peer that has the usual sweep, reported unavailable with `why`.
inline void unavailable_all(const std::string &prefix, const std::string &rtt_mode,
                            const std::string &why)
{
    for (size_t s : rtt_sizes())
        unavailable_rtt(prefix, rtt_mode, s, why);
    for (size_t s : rate_sizes())
        emit_unavailable(prefix + "_rate_" + size_name(s), why);
    for (size_t s : tput_sizes())
        emit_unavailable(prefix + "_tput_" + size_name(s), why);
}

// Ticks to seconds.
inline double seconds(uint64_t t)
{
    return double(t) / (ticks_per_us() * 1e6);
}

} // namespace softcomch::bench::peers
