// SPDX-License-Identifier: Apache-2.0
//
// Shared by the benchmarks: CPU pinning, timing and the spin baseline (spin_baseline.cpp, built
// into each benchmark with SOFTCOMCH_BENCH_NO_MAIN so every figure has its baseline from the
// same run).
#pragma once

#include <sched.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace softcomch::bench {

struct percentiles {
    double p50_us = 0;
    double p99_us = 0;
    double p999_us = 0; // 99.9th percentile (the largest sample when there are < 1000)
};

// How long a benchmark program runs (`--smoke`, `--quick`, nothing = full). The smoke run only
// proves that every metric is reported (CTest); quick is the few-seconds overview.
enum class run_mode { smoke, quick, full };
// Parses argv: accepts exactly `--smoke`, `--quick`, `--full` or nothing; prints the usage and
// exits 2 on anything else.
run_mode parse_mode(int argc, char **argv, const char *prog);
const char *mode_name(run_mode m);
// smoke / quick / full choice of a count.
template <class T> T by_mode(run_mode m, T smoke, T quick, T full)
{
    return m == run_mode::smoke ? smoke : m == run_mode::quick ? quick : full;
}

// CLOCK_MONOTONIC in nanoseconds.
uint64_t mono_ns();
// User + system CPU time of this process so far, nanoseconds (getrusage).
uint64_t cpu_ns_self();

// Bounds a wait loop: call tick() on every pass; after `seconds` of wall time it prints
// `what` and exits 1 (a benchmark that hangs is a failed benchmark). The clock is read every
// 256 passes only, so a tick costs an increment and a branch on the measured paths.
class spin_bound {
public:
    spin_bound(const char *what, double seconds = 30.0);
    explicit spin_bound(double seconds = 20.0) : spin_bound("spin", seconds) {}
    void tick()
    {
        if ((++n_ & 255) == 0) [[unlikely]]
            check();
    }
    // tick() naming what is waited for, which also yields the CPU when both processes share
    // one (pure spinning would give millisecond round trips there).
    void turn(const char *what)
    {
        what_ = what;
        if (single_cpu_) [[unlikely]]
            sched_yield();
        tick();
    }
    // The deadline starts again from now (a new wait).
    void reset();

private:
    void check();
    const char *what_;
    uint64_t budget_ns_;
    uint64_t deadline_ns_;
    uint64_t n_ = 0;
    bool single_cpu_;
};

int online_cpus();
bool pin_to_cpu(int cpu);
uint64_t ticks();
double ticks_per_us();
percentiles summarize(std::vector<uint64_t> &v);
void spin_pause(bool single_cpu);
// Round trips of `payload` bytes between two pinned processes spinning on shared memory.
percentiles spin_rtt(size_t payload, size_t iters, size_t warmup);
// The same round trips with both sides asleep between messages: the payload through the same
// shared mailboxes, each message announced by a write to the peer's eventfd, which the peer waits
// on in a blocking read (the limit for an event-driven round trip: one wake-up each way).
percentiles eventfd_rtt(size_t payload, size_t iters, size_t warmup);
// One-way rate (M messages/s) of 64-byte messages between two pinned processes through a shared
// ring of `queue` one-line slots, copied in and out: the limit for a one-direction message rate.
double spin_rate(uint64_t count, uint32_t queue);
void print_context(const char *name);
// The 1-minute load average (/proc/loadavg), -1 if unreadable. Above ~1.5 on the 2-CPU machine,
// other work shares the pinned CPUs and figures are unreliable.
double load_average();
// Tasks other than this one runnable right now (least of a few samples over 0.1 s).
int other_runnable_tasks();

} // namespace softcomch::bench
