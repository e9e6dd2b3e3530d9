// SPDX-License-Identifier: Apache-2.0
//
// Shared by the benchmarks: CPU pinning, timing and the spin baseline (spin_baseline.cpp, built
// into each benchmark with SOFTCOMCH_BENCH_NO_MAIN so every figure has its baseline from the
// same run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace softcomch::bench {

struct percentiles {
    double p50_us = 0;
    double p99_us = 0;
    double p999_us = 0; // p99.9 (the peers' benchmarks report it)
};

int online_cpus();
bool pin_to_cpu(int cpu);
uint64_t ticks();
double ticks_per_us();
percentiles summarize(std::vector<uint64_t> &v);
void spin_pause(bool single_cpu);
// Round trips of `payload` bytes between two pinned processes spinning on shared memory.
percentiles spin_rtt(size_t payload, size_t iters, size_t warmup);
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
