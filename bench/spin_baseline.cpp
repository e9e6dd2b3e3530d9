// SPDX-License-Identifier: Apache-2.0
//
// The physical limit of a polled round trip on this machine: two processes (fork), pinned to
// CPU 0 and CPU 1, ping-pong through shared memory. Each direction has one mailbox with the
// geometry of a ring slot: a 64-byte line whose first word is the sequence number, the payload
// starting 16 bytes in. The payload is copied in by the sender and out by the receiver (as the
// ring benchmark does), so the difference to ring_bench is the cost of the ring itself.
//
// Output: records (bench/bench_report.hpp), one JSON object per line; '#' lines are comments.
//   first the noise probe: a short 64 B ping-pong, {"context":"probe","noisy":...} saying whether
//   the machine is quiet enough for the figures that follow (other runnable tasks, p99/p50
//   spread), and probe_spin_rtt_64B_p50;
//   then base_spin_rtt_{64B,1KiB,4080B}_{p50,p99,p999} (us).
// Usage: spin_baseline [--smoke | --quick]
//
// This file also serves the other benchmarks (compiled into them with SOFTCOMCH_BENCH_NO_MAIN;
// declarations in bench_util.hpp) so that every figure has its baseline from the same run.
#include "bench_util.hpp"

#include "bench_report.hpp"

#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace softcomch::bench {

// ---- machine helpers ----

// CPUs this process may use, taken once at the first call: later calls come after pin_to_cpu()
// has narrowed our own affinity to one CPU, and must still see the machine.
int online_cpus()
{
    static const int count = [] {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) != 0)
            return 1;
        return CPU_COUNT(&set);
    }();
    return count;
}

// Pins the calling process to `cpu`; false if that is impossible (then it runs unpinned).
bool pin_to_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
}

// A cheap, serialised timestamp: the TSC on x86 (invariant on every machine we run on), the
// monotonic clock elsewhere.
uint64_t ticks()
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_lfence();
    const uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#else
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
#endif
}

uint64_t mono_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// Ticks per microsecond, measured once against CLOCK_MONOTONIC (50 ms).
double ticks_per_us()
{
    static double cached = 0;
    if (cached == 0) {
        const uint64_t n0 = mono_ns(), t0 = ticks();
        timespec req{0, 50 * 1000 * 1000};
        nanosleep(&req, nullptr);
        const uint64_t n1 = mono_ns(), t1 = ticks();
        cached = double(t1 - t0) * 1000.0 / double(n1 - n0);
    }
    return cached;
}

// p50/p99/p99.9 of per-iteration tick counts (sorts `v`).
percentiles summarize(std::vector<uint64_t> &v)
{
    percentiles p;
    if (v.empty())
        return p;
    std::sort(v.begin(), v.end());
    const double tpu = ticks_per_us();
    p.p50_us = double(v[v.size() / 2]) / tpu;
    p.p99_us = double(v[std::min(v.size() - 1, v.size() * 99 / 100)]) / tpu;
    p.p999_us = double(v[std::min(v.size() - 1, v.size() * 999 / 1000)]) / tpu;
    return p;
}

run_mode parse_mode(int argc, char **argv, const char *prog)
{
    run_mode m = run_mode::full;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--smoke") == 0)
            m = run_mode::smoke;
        else if (std::strcmp(argv[i], "--quick") == 0)
            m = run_mode::quick;
        else if (std::strcmp(argv[i], "--full") == 0)
            m = run_mode::full;
        else {
            std::fprintf(stderr,
                         "usage: %s [--smoke | --quick | --full]\n"
                         "  --smoke  tiny counts (checks that every metric is reported)\n"
                         "  --quick  short counts; no option: the full run\n",
                         prog);
            std::exit(2);
        }
    }
    return m;
}

const char *mode_name(run_mode m)
{
    return m == run_mode::smoke ? "smoke" : m == run_mode::quick ? "quick" : "full";
}

uint64_t cpu_ns_self()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    auto ns = [](const timeval &tv) {
        return uint64_t(tv.tv_sec) * 1000000000u + uint64_t(tv.tv_usec) * 1000u;
    };
    return ns(ru.ru_utime) + ns(ru.ru_stime);
}

spin_bound::spin_bound(const char *what, double seconds)
    : what_(what), budget_ns_(uint64_t(seconds * 1e9)), deadline_ns_(mono_ns() + budget_ns_),
      single_cpu_(online_cpus() < 2)
{}

void spin_bound::reset()
{
    deadline_ns_ = mono_ns() + budget_ns_;
    n_ = 0;
}

void spin_bound::check()
{
    if (mono_ns() > deadline_ns_) {
        std::fprintf(stderr, "benchmark: gave up waiting (%s): the peer process is stuck\n", what_);
        std::exit(1);
    }
}

// Spin politely: with both processes on one CPU, pure spinning gives millisecond RTTs.
void spin_pause(bool single_cpu)
{
    if (single_cpu)
        sched_yield();
#if defined(__x86_64__) || defined(__i386__)
    else
        _mm_pause();
#endif
}

// ---- the spin ping-pong ----

namespace {

constexpr size_t k_max_payload = 4080;

// One direction: the geometry of a 4 KiB ring slot (sequence word, then payload at +16).
struct alignas(4096) mailbox {
    std::atomic<uint64_t> seq;
    uint64_t pad;
    uint8_t payload[k_max_payload];
};
static_assert(sizeof(mailbox) == 4096);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

struct shared_area {
    mailbox ping; // parent -> child
    mailbox pong; // child -> parent
    alignas(64) std::atomic<uint32_t> child_ready;
};

// Round trips of `payload` bytes between two pinned processes through the shared mailboxes;
// `iters` measured after `warmup`. `how` says how a side learns that message `seq` is in a
// mailbox: wait(side, box, seq) until it is, signal(side) after publishing one (side 0: the
// parent, which measures; 1: the child, which echoes).
template <class How> percentiles mailbox_rtt(size_t payload, size_t iters, size_t warmup, How &how)
{
    void *mem = mmap(nullptr, sizeof(shared_area), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (mem == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
    }
    auto *sh = new (mem) shared_area();
    const size_t total = warmup + iters;

    const pid_t child = fork();
    if (child < 0) {
        std::perror("fork");
        std::exit(1);
    }
    if (child == 0) {
        pin_to_cpu(online_cpus() < 2 ? 0 : 1);
        uint8_t buf[k_max_payload];
        sh->child_ready.store(1, std::memory_order_release);
        for (uint64_t i = 1; i <= total; ++i) {
            // Wait for ping i, copy it out, copy the reply in, publish it.
            how.wait(1, sh->ping, i);
            std::memcpy(buf, sh->ping.payload, payload);
            buf[0] ^= 1;
            std::memcpy(sh->pong.payload, buf, payload);
            sh->pong.seq.store(i, std::memory_order_release);
            how.signal(1);
        }
        _exit(0);
    }
    if (!pin_to_cpu(0))
        std::printf("# warning: could not pin to CPU 0\n");
    spin_bound bound("mailbox_rtt start");
    while (sh->child_ready.load(std::memory_order_acquire) == 0) {
        spin_pause(online_cpus() < 2);
        bound.tick();
    }
    std::vector<uint64_t> samples;
    samples.reserve(iters);
    uint8_t buf[k_max_payload];
    std::memset(buf, 0x5a, sizeof buf);
    for (uint64_t i = 1; i <= total; ++i) {
        const uint64_t t0 = ticks();
        std::memcpy(sh->ping.payload, buf, payload);
        sh->ping.seq.store(i, std::memory_order_release);
        how.signal(0);
        how.wait(0, sh->pong, i);
        std::memcpy(buf, sh->pong.payload, payload);
        const uint64_t t1 = ticks();
        if (i > warmup)
            samples.push_back(t1 - t0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    munmap(mem, sizeof(shared_area));
    return summarize(samples);
}

// Both sides spin on the sequence word.
struct spin_how {
    bool single = online_cpus() < 2;
    spin_bound bound{"spin_rtt"};
    void wait(int, const mailbox &m, uint64_t seq)
    {
        while (m.seq.load(std::memory_order_acquire) != seq) {
            spin_pause(single);
            bound.tick();
        }
    }
    void signal(int) {}
};

// Each side sleeps in a blocking read of its eventfd; the other writes it after publishing.
struct eventfd_how {
    int fd[2] = {eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC)}; // side 0's, side 1's
    eventfd_how()
    {
        if (fd[0] < 0 || fd[1] < 0) {
            std::perror("eventfd_rtt: eventfd");
            std::exit(1);
        }
    }
    ~eventfd_how()
    {
        close(fd[0]);
        close(fd[1]);
    }
    void wait(int side, const mailbox &m, uint64_t seq)
    {
        // The counter, then the message it announced (checked: the baseline moves what it
        // claims to).
        uint64_t v = 0;
        if (read(fd[side], &v, sizeof v) != sizeof v ||
            m.seq.load(std::memory_order_acquire) != seq) {
            std::fprintf(stderr, "eventfd_rtt: lost message %llu\n", (unsigned long long)seq);
            std::exit(1);
        }
    }
    void signal(int side)
    {
        const uint64_t one = 1;
        if (write(fd[1 - side], &one, sizeof one) != sizeof one) {
            std::perror("eventfd_rtt: write");
            std::exit(1);
        }
    }
};

} // namespace

percentiles spin_rtt(size_t payload, size_t iters, size_t warmup)
{
    spin_how how;
    return mailbox_rtt(payload, iters, warmup, how);
}

percentiles eventfd_rtt(size_t payload, size_t iters, size_t warmup)
{
    eventfd_how how;
    return mailbox_rtt(payload, iters, warmup, how);
}

// Prints the machine context line every benchmark starts with.
// ---- the one-way rate baseline ----

namespace {

// A 64-byte slot: sequence word + 56 payload bytes, one cache line.
struct alignas(64) rate_slot {
    std::atomic<uint64_t> seq;
    uint8_t payload[56];
};
static_assert(sizeof(rate_slot) == 64);

} // namespace

double spin_rate(uint64_t count, uint32_t queue)
{
    const size_t bytes = sizeof(rate_slot) * queue + 64;
    void *mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (mem == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
    }
    auto *slots = new (mem) rate_slot[queue]();
    auto *consumed =
        new (static_cast<uint8_t *>(mem) + sizeof(rate_slot) * queue) std::atomic<uint64_t>(0);
    const bool single = online_cpus() < 2;
    const pid_t child = fork();
    if (child < 0) {
        std::perror("fork");
        std::exit(1);
    }
    if (child == 0) {
        // Producer: copy 56 bytes in, publish the slot's sequence; wait while the ring is full.
        pin_to_cpu(single ? 0 : 1);
        uint8_t buf[56];
        std::memset(buf, 0x33, sizeof buf);
        spin_bound bound("spin_rate producer");
        for (uint64_t i = 0; i < count; ++i) {
            while (i - consumed->load(std::memory_order_acquire) >= queue) {
                spin_pause(single);
                bound.tick();
            }
            rate_slot &sl = slots[i % queue];
            std::memcpy(sl.payload, buf, sizeof buf);
            std::memcpy(sl.payload, &i, sizeof i);
            sl.seq.store(i + 1, std::memory_order_release);
        }
        _exit(0);
    }
    pin_to_cpu(0);
    // Consumer: copy every message out, check its sequence number, hand the slot back.
    uint8_t buf[56];
    uint64_t t0 = 0;
    spin_bound bound("spin_rate consumer");
    for (uint64_t i = 0; i < count; ++i) {
        rate_slot &sl = slots[i % queue];
        while (sl.seq.load(std::memory_order_acquire) != i + 1) {
            spin_pause(single);
            bound.tick();
        }
        if (i == 0)
            t0 = ticks();
        std::memcpy(buf, sl.payload, sizeof buf);
        uint64_t seq;
        std::memcpy(&seq, buf, sizeof seq);
        if (seq != i) {
            std::fprintf(stderr, "spin_rate: sequence error\n");
            std::exit(1);
        }
        consumed->store(i + 1, std::memory_order_release);
    }
    const uint64_t t1 = ticks();
    waitpid(child, nullptr, 0);
    munmap(mem, bytes);
    return double(count - 1) / (double(t1 - t0) / ticks_per_us()); // messages per us = M msg/s
}

double load_average()
{
    double l = -1;
    if (FILE *f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &l) != 1)
            l = -1;
        std::fclose(f);
    }
    return l;
}

int other_runnable_tasks()
{
    // /proc/loadavg: "0.52 0.58 0.59 2/467 12345"; the 4th field's numerator counts the
    // runnable tasks, this one included. Sampled a few times: one sample catches daemons.
    int least = -1;
    for (int i = 0; i < 5; ++i) {
        double l1, l5, l15;
        int running = 0, total = 0;
        if (FILE *f = std::fopen("/proc/loadavg", "r")) {
            if (std::fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) == 5)
                least = least < 0 ? running - 1 : std::min(least, running - 1);
            std::fclose(f);
        }
        usleep(20000);
    }
    return least < 0 ? 0 : least;
}

void print_context(const char *name)
{
    const int cpus = online_cpus();
    std::printf("# %s: %d usable CPU(s), %.0f ticks/us%s\n", name, cpus, ticks_per_us(),
                cpus < 2 ? "; ONLY ONE CPU: both processes share it, results are not meaningful"
                         : "; processes pinned to CPU 0 and CPU 1");
    // The load average lags by a minute and counts this suite's own earlier spinning runs
    // (two pinned spinners are a load of 2), so the warning goes by what else is runnable now.
    const int others = other_runnable_tasks();
    std::printf("# load average %.2f; %d other runnable task(s) now%s\n", load_average(), others,
                others > 0 ? ": other work shares the CPUs, figures from this run are unreliable"
                           : "");
}

} // namespace softcomch::bench

#ifndef SOFTCOMCH_BENCH_NO_MAIN
int main(int argc, char **argv)
{
    using namespace softcomch::bench;
    const run_mode mode = parse_mode(argc, argv, "spin_baseline");
    print_context("spin_baseline");
    std::printf("# mode %s\n", mode_name(mode));

    // The noise probe: a short ping-pong and what else wants the CPUs right now. A quiet
    // machine gives p99 within ~2x of p50; a time-sliced pinned process shows up as a long tail.
    const size_t probe_iters = by_mode<size_t>(mode, 2000, 20000, 50000);
    const percentiles probe = spin_rtt(64, probe_iters, probe_iters / 10);
    const int others = other_runnable_tasks();
    const double spread = probe.p50_us > 0 ? probe.p99_us / probe.p50_us : 0;
    const int cpus = online_cpus();
    std::string why;
    if (cpus < 2)
        why = "only one usable CPU: both processes share it";
    else if (others > 0)
        why = std::to_string(others) + " other runnable task(s) share the CPUs";
    else if (spread > 4)
        why = "spin p99 is " + std::to_string(int(spread)) + "x its p50 (time-slicing)";
    const bool noisy = !why.empty();
    if (!noisy)
        why = "no other runnable task, spin p99/p50 within 4x";
    std::printf("{\"context\":\"probe\",\"noisy\":%s,\"why\":", noisy ? "true" : "false");
    json_string(stdout, why);
    std::printf(",\"cpus\":%d,\"other_runnable_tasks\":%d,\"load_average\":%.2f,"
                "\"spin_p50_us\":%.4g,\"spin_p99_us\":%.4g}\n",
                cpus, others, load_average(), probe.p50_us, probe.p99_us);
    record r;
    r.metric = "probe_spin_rtt_64B_p50";
    r.value = probe.p50_us;
    r.unit = "us";
    r.subject = "spin";
    r.group = "probe";
    r.size = 64;
    r.mode = "probe";
    emit(r);

    for (size_t payload : {size_t(64), size_t(1024), size_t(4080)}) {
        const size_t iters = by_mode<size_t>(mode, 2000, 50000, 200000) / (payload == 64 ? 1 : 2);
        const percentiles p = spin_rtt(payload, iters, iters / 10);
        const std::pair<const char *, double> stats[] = {
            {"p50", p.p50_us}, {"p99", p.p99_us}, {"p999", p.p999_us}};
        for (const auto &[stat, value] : stats) {
            record b;
            b.metric = "base_spin_rtt_" + size_name(payload) + "_" + stat;
            b.value = value;
            b.unit = "us";
            b.subject = "spin";
            b.group = "ctrl_rtt";
            b.size = payload;
            b.mode = "polled";
            emit(b);
        }
    }
    return 0;
}
#endif
