// SPDX-License-Identifier: Apache-2.0
//
// What a blocking wake-up costs on this machine, outside SoftComch (docs/performance.md,
// "Where the event-mode round trip waits"). Not built by the project; by hand:
//
//   gcc -O2 -o /tmp/wake_probe docs/experiments/wake_probe.c
//   /tmp/wake_probe MODE ROUND_TRIPS [LINGER_NS]
//
// Two processes pinned to CPU 0 and CPU 1 ping-pong ROUND_TRIPS times, each side sleeping until
// the other wakes it; prints the round trip's p10 / p50 / p90. MODE:
//   eventfd   blocking read() and write() on two eventfds (bench/peers/peer_ipc's baseline)
//   dgram     what SoftComch's event mode does: a one-byte datagram on an AF_UNIX SOCK_DGRAM
//             pair (MSG_DONTWAIT), received through two nested epoll sets (the program's, holding
//             the progress engine's, holding the socket), then drained with recv(MSG_DONTWAIT)
// LINGER_NS (eventfd only): after each wake-up it sends, the waker spins this long before it
// sleeps. With 0 the round trip pays two wake-ups of a halted vCPU; once the linger covers the
// other side's wake-up and answer, nobody halts and the round trip is the linger itself.
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int dgram;
static uint64_t linger_ns;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s) != 0)
        die("sched_setaffinity");
}

struct side {
    int rx, tx, ep;
};

static struct side make_side(int rx, int tx)
{
    struct side s = {rx, tx, -1};
    if (dgram) {
        struct epoll_event e = {.events = EPOLLIN};
        const int inner = epoll_create1(0);
        s.ep = epoll_create1(0);
        if (inner < 0 || s.ep < 0 || epoll_ctl(inner, EPOLL_CTL_ADD, rx, &e) != 0 ||
            epoll_ctl(s.ep, EPOLL_CTL_ADD, inner, &e) != 0)
            die("epoll");
    }
    return s;
}

static void sleep_until_woken(const struct side *s)
{
    if (dgram) {
        struct epoll_event e;
        char b[16];
        if (epoll_wait(s->ep, &e, 1, -1) != 1 || recv(s->rx, b, sizeof b, MSG_DONTWAIT) != 1)
            die("dgram wait");
    } else {
        uint64_t v;
        if (read(s->rx, &v, sizeof v) != sizeof v)
            die("eventfd read");
    }
}

static void wake_peer(const struct side *s)
{
    if (dgram) {
        const char c = 1;
        if (send(s->tx, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
            die("send");
    } else {
        const uint64_t v = 1;
        if (write(s->tx, &v, sizeof v) != sizeof v)
            die("eventfd write");
    }
    const uint64_t end = now_ns() + linger_ns;
    while (linger_ns && now_ns() < end) {
    }
}

static int by_value(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "eventfd") != 0 && strcmp(argv[1], "dgram") != 0)) {
        fprintf(stderr, "usage: %s eventfd|dgram ROUND_TRIPS [LINGER_NS]\n", argv[0]);
        return 2;
    }
    dgram = strcmp(argv[1], "dgram") == 0;
    const int n = atoi(argv[2]);
    linger_ns = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
    if (n < 10 || (dgram && linger_ns)) {
        fprintf(stderr, "%s: ROUND_TRIPS >= 10; LINGER_NS with eventfd only\n", argv[0]);
        return 2;
    }
    int ping[2], pong[2];
    if (dgram) {
        if (socketpair(AF_UNIX, SOCK_DGRAM, 0, ping) != 0 ||
            socketpair(AF_UNIX, SOCK_DGRAM, 0, pong) != 0)
            die("socketpair");
    } else {
        ping[0] = ping[1] = eventfd(0, 0);
        pong[0] = pong[1] = eventfd(0, 0);
        if (ping[0] < 0 || pong[0] < 0)
            die("eventfd");
    }
    const pid_t child = fork();
    if (child < 0)
        die("fork");
    if (child == 0) {
        pin(1);
        const struct side s = make_side(ping[0], pong[1]);
        for (int i = 0; i < n; ++i) {
            sleep_until_woken(&s);
            wake_peer(&s);
        }
        _exit(0);
    }
    pin(0);
    const struct side s = make_side(pong[0], ping[1]);
    uint64_t *rtt = malloc(sizeof *rtt * (size_t)n);
    if (rtt == NULL)
        die("malloc");
    for (int i = 0; i < n; ++i) {
        const uint64_t t0 = now_ns();
        wake_peer(&s);
        sleep_until_woken(&s);
        rtt[i] = now_ns() - t0;
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("child");
    qsort(rtt, (size_t)n, sizeof *rtt, by_value);
    printf("%s linger %llu ns: round trip p10 %.1f  p50 %.1f  p90 %.1f us\n", argv[1],
           (unsigned long long)linger_ns, rtt[n / 10] / 1e3, rtt[n / 2] / 1e3,
           rtt[n * 9 / 10] / 1e3);
    free(rtt);
    return 0;
}
