// SPDX-License-Identifier: Apache-2.0
//
// Load (issue 9, part 10): many clients that come and go, with injected faults, beside fast-path
// producer/consumer pairs streaming both ways, all at once on one machine.
//
//   - A control-path server "load" (DPU side, its own process) checks every connection's stream
//     (HELLO, then DATA numbered from 0 with a checksum of the body, then END with the count) and
//     echoes each DATA back; it answers END with the count it received.
//   - SOFTCOMCH_LOAD_CLIENTS client threads (64) in SOFTCOMCH_LOAD_PROCS host processes (4), each
//     with its own device, engine and client, most asleep in epoll, run sessions until the time
//     is up: connect, a random number of messages of random sizes with a window in flight,
//     every echo checked (order, number, checksum), END, then stop; half restart the same
//     context, half destroy it and create a new one. The parent SIGKILLs the last client process
//     at random moments and starts it again: its sessions end without END.
//   - SOFTCOMCH_FAULTS in the client processes (SOFTCOMCH_LOAD_FAULTS replaces the default):
//     every 17th submit returns DOCA_ERROR_AGAIN (retried, as programs do), messages of one
//     connection per process delivered late, one connection per process dropped after its 2nd
//     send (checked: every client process that ran its whole time had a session cut short).
//   - A fast-path pair "load-fp" (two processes): 3 consumers and 2 producers per side, every
//     payload numbered and checksummed (fastpath_stream.hpp).
//
// Checked: in every session that ended with END, nothing lost, duplicated or reordered either
// way; in every session that did not, what arrived was an in-order prefix; the server saw as
// many sessions end as began; at the end the server holds as many descriptors and shared-memory
// mappings as before the first client, and its resident set grew by at most 16 MiB after the
// warm-up; each client process ends with the descriptors it started with.
//
// Label `stress` (make stress). Knobs: SOFTCOMCH_LOAD_SECONDS (60), SOFTCOMCH_LOAD_CLIENTS (64),
// SOFTCOMCH_LOAD_PROCS (4), SOFTCOMCH_LOAD_FAULTS.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "fastpath_stream.hpp"

using namespace sc_test;
using namespace sc_test::fp;

namespace {

const char *const k_default_faults = "submit-again,every=17,server=load;"
                                     "delay,ms=2,server=load,conn=3;"
                                     "disconnect,after=2,server=load,conn=5";

struct load_cfg {
    long seconds = env_long("SOFTCOMCH_LOAD_SECONDS", 60);
    long clients = env_long("SOFTCOMCH_LOAD_CLIENTS", 64);
    long procs = env_long("SOFTCOMCH_LOAD_PROCS", 4);
};

enum kind : uint8_t { k_hello = 1, k_data, k_end, k_echo, k_end_ack };

struct wire_hdr {
    uint32_t magic;
    uint8_t kind;
    uint8_t pad[3];
    uint32_t client;
    uint32_t session;
    uint64_t seq; // DATA/ECHO: the number; END/END_ACK: the count
    uint32_t len; // body bytes after the header
    uint32_t pad2;
    uint64_t sum; // checksum of the body
};
constexpr uint32_t k_magic = 0x4c4f4144; // "LOAD"
constexpr size_t k_max_body = 3000;      // the message stays under the 4080-byte default

std::string encode(kind k, uint32_t client, uint32_t session, uint64_t seq, size_t len)
{
    std::string m(sizeof(wire_hdr) + len, '\0');
    auto *body = reinterpret_cast<uint8_t *>(m.data() + sizeof(wire_hdr));
    fill_pattern(body, len, pattern_seed(len, seq, (uint64_t(client) << 32) | session));
    wire_hdr h{k_magic, k, {}, client, session, seq, uint32_t(len), 0, checksum(body, len)};
    std::memcpy(m.data(), &h, sizeof h);
    return m;
}

// The header of `m`, if its framing and checksum hold.
bool decode(const std::string &m, wire_hdr &h)
{
    if (m.size() < sizeof h)
        return false;
    std::memcpy(&h, m.data(), sizeof h);
    const auto *body = reinterpret_cast<const uint8_t *>(m.data() + sizeof h);
    return h.magic == k_magic && m.size() == sizeof h + h.len && checksum(body, h.len) == h.sum;
}

size_t count_fds()
{
    size_t n = 0;
    if (DIR *d = ::opendir("/proc/self/fd")) {
        while (dirent *e = ::readdir(d))
            n += e->d_name[0] != '.';
        ::closedir(d);
    }
    return n - 1; // the directory's own descriptor
}

// Mappings of shared memory files (segments, channels, consumer memory).
size_t count_shared_maps()
{
    std::ifstream in("/proc/self/maps");
    size_t n = 0;
    for (std::string line; std::getline(in, line);)
        n += line.find("/memfd:") != std::string::npos ||
             line.find("/dev/shm/") != std::string::npos;
    return n;
}

size_t rss_kib()
{
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stoul(line.substr(6));
    return 0;
}

// Reports one summary line through `fd` (a pipe the parent reads; one write, so lines from
// several children never interleave).
void report_line(int fd, const std::string &line)
{
    const std::string l = line + "\n";
    (void)!::write(fd, l.data(), l.size());
}

bool quit_requested(int fd)
{
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1; // readable: the parent closed its end
}

// ---- the control-path server ----

struct conn_state {
    uint32_t client = 0, session = 0;
    uint64_t next = 0;
    bool hello = false, ended = false;
};

int run_server(int quit_fd, int report_fd, long warmup_s)
{
    server s("load", server_options{.recv_queue_size = 256, .send_tasks = 4096});
    CHILD_CHECK(s.ok());
    CHILD_CHECK(s.start() == DOCA_SUCCESS);
    std::map<doca_comch_connection *, conn_state> conns;
    std::deque<std::pair<doca_comch_connection *, std::string>> replies;
    std::vector<std::string> errors;
    uint64_t sessions = 0, completed = 0, aborted = 0, messages = 0;
    auto error = [&](const std::string &e) {
        if (errors.size() < 20)
            errors.push_back(e);
        std::fprintf(stderr, "[load server] %s\n", e.c_str());
    };
    // Inside progress: record and queue the reply (sending needs progress of its own).
    s.on_recv = [&](side &, doca_comch_connection *c, const uint8_t *d, uint32_t len) {
        const std::string m(reinterpret_cast<const char *>(d), len);
        wire_hdr h;
        if (!decode(m, h)) {
            error("a message with a bad header or checksum");
            return;
        }
        conn_state &st = conns[c];
        if (h.kind == k_hello) {
            if (st.hello && !st.ended)
                ++aborted; // a reused handle: the old session's disconnect came first
            st = conn_state{h.client, h.session, 0, true, false};
            ++sessions;
            return;
        }
        if (!st.hello || st.ended || h.client != st.client || h.session != st.session) {
            error(strf("client %u session %u: kind %u out of place", h.client, h.session,
                       unsigned(h.kind)));
            return;
        }
        if (h.kind == k_data) {
            if (h.seq != st.next)
                error(strf("client %u session %u: DATA %" PRIu64 ", expected %" PRIu64, h.client,
                           h.session, h.seq, st.next));
            st.next = h.seq + 1;
            ++messages;
            std::string echo = m;
            echo[offsetof(wire_hdr, kind)] = char(k_echo);
            replies.emplace_back(c, std::move(echo));
        } else if (h.kind == k_end) {
            if (h.seq != st.next)
                error(strf("client %u session %u: END says %" PRIu64 " sent, %" PRIu64 " arrived",
                           h.client, h.session, h.seq, st.next));
            st.ended = true;
            ++completed;
            replies.emplace_back(c, encode(k_end_ack, h.client, h.session, st.next, 0));
        } else {
            error(strf("unexpected kind %u", unsigned(h.kind)));
        }
    };
    // Baselines once the server runs and before any client: descriptors and shared mappings.
    const size_t fds0 = count_fds(), maps0 = count_shared_maps();
    size_t rss_warm = 0, seen_disc = 0, maps_peak = 0, fds_peak = 0;
    const auto t0 = clock::now();
    auto next_sample = t0;
    while (!quit_requested(quit_fd)) {
        s.progress_for(1ms);
        while (seen_disc < s.disconnected.size()) {
            auto it = conns.find(s.disconnected[seen_disc++]);
            if (it != conns.end()) {
                if (it->second.hello && !it->second.ended)
                    ++aborted;
                conns.erase(it);
            }
        }
        for (size_t n = replies.size(); n-- > 0;) { // each reply once per round
            auto [c, m] = std::move(replies.front());
            replies.pop_front();
            if (!conns.count(c))
                continue; // gone meanwhile
            const doca_error_t rc = s.send(c, m);
            if (rc == DOCA_ERROR_NO_MEMORY || rc == DOCA_ERROR_AGAIN) {
                replies.emplace_front(c, std::move(m)); // after more progress, still in order
                break;
            }
            if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_NOT_CONNECTED &&
                rc != DOCA_ERROR_CONNECTION_ABORTED)
                error(strf("reply: %s", err_name(rc).c_str()));
        }
        if (!rss_warm && clock::now() - t0 > std::chrono::seconds(warmup_s))
            rss_warm = rss_kib();
        if (clock::now() >= next_sample) { // what the leak checks below compare with
            maps_peak = std::max(maps_peak, count_shared_maps());
            fds_peak = std::max(fds_peak, count_fds());
            next_sample = clock::now() + 1s;
        }
    }
    // Every client is gone: the last disconnects, then the reclaim.
    // (server::connections holds the open ones, server::disconnected every one that ended.)
    if (!s.progress_until([&] { return s.connections.empty(); }, 20000ms)) {
        std::string open;
        for (auto *c : s.connections) {
            const auto it = conns.find(c);
            open += strf(" (client %u session %u next %" PRIu64 "%s)",
                         it == conns.end() ? 0 : it->second.client,
                         it == conns.end() ? 0 : it->second.session,
                         it == conns.end() ? 0 : it->second.next,
                         it != conns.end() && it->second.ended ? " ended" : "");
        }
        report_line(report_fd, strf("server: %zu connections still open:%s", s.connections.size(),
                                    open.c_str()));
        return 39;
    }
    s.progress_for(300ms);
    const size_t fds1 = count_fds(), maps1 = count_shared_maps(), rss1 = rss_kib();
    report_line(report_fd,
                strf("server: sessions %" PRIu64 " completed %" PRIu64 " aborted %" PRIu64
                     " messages %" PRIu64 " disconnects %zu fds %zu->%zu (peak %zu) shared-maps "
                     "%zu->%zu (peak %zu) rss-kib %zu->%zu errors %zu",
                     sessions, completed, aborted, messages, s.disconnected.size(), fds0, fds1,
                     fds_peak, maps0, maps1, maps_peak, rss_warm, rss1, errors.size()));
    CHILD_CHECK(errors.empty());
    CHILD_CHECK(completed + aborted == sessions);
    CHILD_CHECK(fds1 == fds0);
    CHILD_CHECK(maps1 == maps0);
    CHILD_CHECK(rss_warm == 0 || rss1 <= rss_warm + 16 * 1024);
    return s.stop_and_wait(5000ms) == DOCA_SUCCESS ? 0 : 90;
}

// ---- the client processes ----

struct client_stats {
    std::atomic<uint64_t> completed{0}, aborted{0}, messages{0}, failed_starts{0};
    std::mutex mu;
    std::vector<std::string> errors;
    void error(const std::string &e)
    {
        std::lock_guard<std::mutex> g(mu);
        if (errors.size() < 20)
            errors.push_back(e);
        std::fprintf(stderr, "[load client] %s\n", e.c_str());
    }
};

enum class outcome { completed, aborted, failed };

// One session on a RUNNING client: HELLO, `n` DATA with up to 16 in flight, each echo checked,
// END and its count.
outcome session(client &c, uint32_t id, uint32_t sess, std::mt19937_64 &rng, client_stats &st)
{
    doca_comch_connection *conn = c.connection();
    auto lost = [&] {
        return c.state() != DOCA_CTX_STATE_RUNNING;
    };
    auto send = [&](const std::string &m) {
        const doca_error_t rc = c.send(conn, m);
        if (rc != DOCA_SUCCESS && !lost())
            st.error(strf("client %u session %u: send %s", id, sess, err_name(rc).c_str()));
        return rc == DOCA_SUCCESS;
    };
    if (!send(encode(k_hello, id, sess, 0, 0)))
        return lost() ? outcome::aborted : outcome::failed;
    const uint64_t n = 1 + rng() % 300;
    uint64_t sent = 0, echoed = 0;
    while (echoed < n) {
        while (sent < n && sent - echoed < 16)
            if (send(encode(k_data, id, sess, sent, size_t(rng() % k_max_body))))
                ++sent;
            else
                return lost() ? outcome::aborted : outcome::failed;
        if (!c.progress_until([&] { return !c.received.empty() || lost(); }, 10000ms)) {
            st.error(strf("client %u session %u: no echo for 10 s (%" PRIu64 " of %" PRIu64 ")", id,
                          sess, echoed, n));
            return outcome::failed;
        }
        while (!c.received.empty()) {
            wire_hdr h;
            const bool ok = decode(c.received.front().data, h);
            c.received.pop_front();
            if (!ok || h.kind != k_echo || h.client != id || h.session != sess || h.seq != echoed) {
                st.error(strf("client %u session %u: echo %" PRIu64 " expected, got kind %u "
                              "seq %" PRIu64 "%s",
                              id, sess, echoed, unsigned(h.kind), h.seq, ok ? "" : " (corrupt)"));
                return outcome::failed;
            }
            ++echoed;
            st.messages.fetch_add(1, std::memory_order_relaxed);
        }
        if (lost())
            return outcome::aborted;
    }
    if (!send(encode(k_end, id, sess, n, 0)))
        return lost() ? outcome::aborted : outcome::failed;
    if (!c.progress_until([&] { return !c.received.empty() || lost(); }, 10000ms))
        return outcome::failed;
    if (c.received.empty())
        return outcome::aborted;
    wire_hdr h;
    if (!decode(c.received.front().data, h) || h.kind != k_end_ack || h.seq != n) {
        st.error(strf("client %u session %u: END not acknowledged with %" PRIu64, id, sess, n));
        return outcome::failed;
    }
    c.received.pop_front();
    return outcome::completed;
}

void client_thread(uint32_t id, clock::time_point end, client_stats &st)
{
    std::mt19937_64 rng(0x10ad0000u + id);
    uint32_t sess = 0;
    std::unique_ptr<client> c;
    while (clock::now() < end) {
        if (!c || rng() % 2 == 0) { // a new context, or the same one started again
            c.reset();
            c = std::make_unique<client>("load", client_options{.recv_queue_size = 64});
            if (!c->ok()) {
                st.error(strf("client %u: create failed", id));
                return;
            }
            c->set_epoll_mode(id % 8 != 0);
            c->retry_again = true;
        }
        c->received.clear();
        const doca_error_t rc = c->start();
        if (rc != DOCA_ERROR_IN_PROGRESS) {
            st.error(strf("client %u: start %s", id, err_name(rc).c_str()));
            return;
        }
        if (!c->wait_running(10000ms)) {
            st.failed_starts.fetch_add(1);
            (void)c->stop_and_wait(5000ms);
            continue;
        }
        switch (session(*c, id, ++sess, rng, st)) {
        case outcome::completed:
            st.completed.fetch_add(1);
            break;
        case outcome::aborted:
            st.aborted.fetch_add(1);
            break;
        case outcome::failed:
            return;
        }
        // Lost (a fault, the server): it stops by itself; else this side stops it.
        const bool ended =
            c->state() == DOCA_CTX_STATE_IDLE ||
            (c->state() == DOCA_CTX_STATE_STOPPING
                 ? c->progress_until([&] { return c->state() == DOCA_CTX_STATE_IDLE; }, 10000ms)
                 : c->stop_and_wait(10000ms) == DOCA_SUCCESS);
        if (!ended) {
            st.error(strf("client %u: stop did not end", id));
            return;
        }
    }
}

int run_clients(uint32_t first_id, long threads, long seconds, int report_fd, int proc)
{
    // The baseline after one context came and went (the library's lazy state: topology, log).
    {
        client warm("load-none");
        CHILD_CHECK(warm.ok());
    }
    const size_t fds0 = count_fds();
    client_stats st;
    const auto end = clock::now() + std::chrono::seconds(seconds);
    {
        std::vector<std::thread> ts;
        for (long i = 0; i < threads; ++i)
            ts.emplace_back([&, i] { client_thread(first_id + uint32_t(i), end, st); });
        for (auto &t : ts)
            t.join();
    }
    const size_t fds1 = count_fds();
    report_line(report_fd,
                strf("clients %d: completed %" PRIu64 " aborted %" PRIu64 " messages %" PRIu64
                     " failed-starts %" PRIu64 " fds %zu->%zu errors %zu",
                     proc, st.completed.load(), st.aborted.load(), st.messages.load(),
                     st.failed_starts.load(), fds0, fds1, st.errors.size()));
    CHILD_CHECK(st.errors.empty());
    CHILD_CHECK(st.completed.load() > 0);
    CHILD_CHECK(fds1 == fds0);
    return 0;
}

std::string read_all(int fd)
{
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        out.append(buf, size_t(n));
    return out;
}

} // namespace

TEST(Load, ManyClientsWithRestartsAndFaultsBesideFastPathPairs)
{
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    use_private_fabric("load");
    const load_cfg cfg;
    ASSERT_GE(cfg.procs, 2);
    ASSERT_GE(cfg.clients, cfg.procs);
    const char *faults = std::getenv("SOFTCOMCH_LOAD_FAULTS");
    const std::string plan = faults ? faults : k_default_faults;
    std::fprintf(stderr, "load: %ld s, %ld clients in %ld processes, faults '%s'\n", cfg.seconds,
                 cfg.clients, cfg.procs, plan.c_str());
    int quit[2], rep[2];
    ASSERT_EQ(::pipe2(quit, O_CLOEXEC), 0);
    ASSERT_EQ(::pipe2(rep, O_CLOEXEC), 0);

    child_guard srv(spawn([&] {
        ::close(quit[1]);
        return run_server(quit[0], rep[1], std::min(10L, cfg.seconds / 3));
    }));
    ::close(quit[0]);
    // The fast-path pair: 3 consumers and 2 producers per side, both ways.
    stream_cfg fp;
    fp.seconds = cfg.seconds;
    fp.max_msg = 16384;
    child_guard fps(spawn([&] {
        return run_side<fp_server>("load-fp", false, [&](fp_server &s, doca_comch_connection *c) {
            return stream_side(s, s, c, s.dev(), false, fp, "fp dpu");
        });
    }));
    child_guard fpc(spawn([&] {
        return run_side<fp_client>("load-fp", true, [&](fp_client &c, doca_comch_connection *k) {
            return stream_side(c, c, k, c.dev(), true, fp, "fp host");
        });
    }));
    // The client processes, with the faults; the last one is killed and started again.
    setenv("SOFTCOMCH_FAULTS", plan.c_str(), 1);
    const long per = cfg.clients / cfg.procs;
    auto start_clients = [&](int p, long seconds) {
        const long n = p == cfg.procs - 1 ? cfg.clients - per * (cfg.procs - 1) : per;
        return spawn(
            [&, p, n, seconds] { return run_clients(uint32_t(p * 1000), n, seconds, rep[1], p); });
    };
    std::vector<std::unique_ptr<child_guard>> cls;
    for (int p = 0; p + 1 < cfg.procs; ++p)
        cls.push_back(std::make_unique<child_guard>(start_clients(p, cfg.seconds)));
    unsetenv("SOFTCOMCH_FAULTS");

    const auto end = clock::now() + std::chrono::seconds(cfg.seconds);
    std::mt19937 rng(7);
    int kills = 0;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::seconds>(end - clock::now());
        setenv("SOFTCOMCH_FAULTS", plan.c_str(), 1);
        child_guard victim(start_clients(int(cfg.procs - 1), std::max<long>(1, left.count())));
        unsetenv("SOFTCOMCH_FAULTS");
        const auto kill_at = clock::now() + std::chrono::milliseconds(2000 + rng() % 4000);
        if (left.count() <= 8 || kill_at >= end - 5s) {
            EXPECT_EQ(victim.wait(std::chrono::seconds(left.count() + 120)), 0)
                << "the last client process";
            break;
        }
        std::this_thread::sleep_until(kill_at); // a moment to kill at, not a synchronisation
        victim.kill_and_wait();
        ++kills;
    }
    for (size_t p = 0; p < cls.size(); ++p)
        EXPECT_EQ(cls[p]->wait(120000ms), 0) << "client process " << p;
    EXPECT_EQ(fpc.wait(180000ms), 0) << "fast-path host side";
    EXPECT_EQ(fps.wait(180000ms), 0) << "fast-path DPU side";
    ::close(quit[1]); // every client is gone: the server checks its leaks and ends
    EXPECT_EQ(srv.wait(60000ms), 0) << "control-path server";
    ::close(rep[1]);
    const std::string summary = read_all(rep[0]);
    ::close(rep[0]);
    std::fprintf(stderr, "load: client process killed and restarted %d times\n%s", kills,
                 summary.c_str());
    EXPECT_NE(summary.find("server: "), std::string::npos) << summary;
    if (!faults) {
        // The default plan drops connection 5 of every client process after 2 sends: each
        // process that ran its whole time saw at least that session end without END.
        for (int p = 0; p + 1 < cfg.procs; ++p) {
            const std::string tag = "clients " + std::to_string(p) + ": completed ";
            const size_t at = summary.find(tag);
            ASSERT_NE(at, std::string::npos) << summary;
            const size_t ab = summary.find(" aborted ", at);
            ASSERT_NE(ab, std::string::npos) << summary;
            EXPECT_GE(std::stoul(summary.substr(ab + 9)), 1u)
                << "the disconnect fault did not fire in client process " << p;
        }
    }
}
