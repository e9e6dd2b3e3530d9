// SPDX-License-Identifier: Apache-2.0
//
// peer_iceoryx: iceoryx 2.0 publish/subscribe between two processes pinned to CPU 0 and CPU 1.
// The program runs its own RouDi daemon (iox-roudi) for the run:
//   - iceoryx 2.0 has fixed names (the /tmp/roudi socket, /tmp/iox-unique-roudi.lock,
//     /dev/shm/iceoryx_mgmt and a segment named after the user's group) and no domain id, so two
//     RouDis cannot coexist: peer_iceoryx runs take /tmp/softcomch-iceoryx.lock (waiting, bounded,
//     for another run to finish) and refuse to start when another RouDi holds iceoryx's lock;
//   - RouDi gets a private config (mempools sized for these messages) in a temporary directory,
//     runs in its own process group, and is ready when its socket accepts a connection (polled,
//     bounded); it is stopped (SIGTERM, then SIGKILL of the group) at the end and when the run
//     fails or is interrupted, and the shared memory files it leaves are checked (and removed).
// This coordinating process is no iceoryx application (RouDi signals its applications when it
// stops); it forks the two that are:
//   A (CPU 0) measures: round trip 64 B / 1 KiB / 4080 B over two topics (ping, pong), busy
//     take() polling; one-way rate 64 B; throughput 4 KiB .. 4 MiB over one topic, and over
//     four (4 pairs, round robin, as comch_fastpath's 4-pair streams: peer_iceoryx_tput_4pair_*)
//   B (CPU 1) echoes and streams: each message is a loaned chunk the publisher writes in place
//     (the payload is written once, into shared memory; no other copy), published; the subscriber
//     checks its length and stamps (peer_common.hpp) and releases it.
// Output: records of bench/bench_report.hpp.
#include "peer_common.hpp"

#include <cerrno>
#include <fcntl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include <algorithm>
#include <memory>

#ifdef SOFTCOMCH_HAVE_ICEORYX
#include "iceoryx_hoofs/log/logmanager.hpp"
#include "iceoryx_posh/mepoo/chunk_header.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "iceoryx_posh/popo/untyped_subscriber.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"
#endif

using namespace softcomch::bench;
using namespace softcomch::bench::peers;

namespace {

void report_unavailable(const std::string &why)
{
    std::printf("# peer_iceoryx: %s\n", why.c_str());
    for (size_t s : rtt_sizes())
        unavailable_rtt("peer_iceoryx", "polled", s, why);
    emit_unavailable("peer_iceoryx_rate_64B", why);
    for (size_t s : tput_sizes()) {
        emit_unavailable("peer_iceoryx_tput_" + size_name(s), why);
        emit_unavailable("peer_iceoryx_tput_4pair_" + size_name(s), why);
    }
}

} // namespace

#ifdef SOFTCOMCH_HAVE_ICEORYX

namespace {

constexpr uint64_t k_reply = 1ull << 63;
constexpr const char *k_roudi_socket = "/tmp/roudi";               // iceoryx 2.0's fixed name
constexpr const char *k_roudi_lock = "/tmp/iox-unique-roudi.lock"; // ditto
constexpr const char *k_our_lock = "/tmp/softcomch-iceoryx.lock";
constexpr int k_fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGSEGV, SIGABRT};

void sleep_ms(long ms)
{
    timespec ts{ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, nullptr);
}

// ---- the daemon ----

// Set before RouDi starts; read by the signal handler.
volatile pid_t g_roudi = 0;
volatile pid_t g_apps[2] = {0, 0}; // the two applications, while they run
char g_shm_names[2][128];

std::string group_segment()
{
    const group *g = getgrgid(getegid());
    return g ? g->gr_name : "";
}

// Files of iceoryx 2.0 in /tmp that a killed RouDi or application leaves: RouDi's locks and
// the applications' sockets and locks (named after their pids, filled in when they start).
char g_tmp_names[8][160] = {"/tmp/iox-unique-roudi.lock", "/tmp/roudi.lock"};

char g_tmp_dir[64];

void remove_shm_files()
{
    for (auto &name : g_shm_names)
        if (name[0])
            unlink(name);
    for (auto &name : g_tmp_names)
        if (name[0])
            unlink(name);
    if (g_tmp_dir[0])
        rmdir(g_tmp_dir);
}

extern "C" void on_fatal_signal(int sig)
{
    for (pid_t app : g_apps)
        if (app > 0)
            kill(app, SIGKILL);
    if (g_roudi > 0)
        kill(-g_roudi, SIGKILL);
    remove_shm_files();
    unlink(k_roudi_socket);
    signal(sig, SIG_DFL);
    raise(sig);
}

bool roudi_socket_ready()
{
    const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", k_roudi_socket);
    const bool ok = connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
    close(fd);
    return ok;
}

// Returns "" when no other RouDi runs, else why not to start one.
std::string other_roudi()
{
    const int fd = open(k_roudi_lock, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        const bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
        if (!held)
            flock(fd, LOCK_UN);
        close(fd);
        if (held)
            return std::string("another iox-roudi is running (it holds ") + k_roudi_lock +
                   "); peer_iceoryx does not disturb it";
    }
    if (roudi_socket_ready())
        return std::string("another iox-roudi answers on ") + k_roudi_socket;
    return "";
}

const char *k_config = R"([general]
version = 1

[[segment]]

[[segment.mempool]]
size = 128
count = 1024

[[segment.mempool]]
size = 1024
count = 64

[[segment.mempool]]
size = 4096
count = 600

[[segment.mempool]]
size = 65536
count = 96

[[segment.mempool]]
size = 1048576
count = 24

[[segment.mempool]]
size = 4194304
count = 16
)";

struct roudi {
    pid_t pid = 0;
    std::string dir;
    std::string log;
};

// Starts RouDi and waits (bounded) until its socket answers; "" or why it failed.
std::string start_roudi(roudi &r)
{
    char dir[] = "/tmp/softcomch-iox-XXXXXX";
    if (mkdtemp(dir) == nullptr)
        return std::string("mkdtemp: ") + std::strerror(errno);
    r.dir = dir;
    const std::string cfg = r.dir + "/roudi.toml";
    r.log = r.dir + "/roudi.log";
    std::snprintf(g_tmp_names[6], sizeof g_tmp_names[0], "%s", cfg.c_str());
    std::snprintf(g_tmp_names[7], sizeof g_tmp_names[0], "%s", r.log.c_str());
    std::snprintf(g_tmp_dir, sizeof g_tmp_dir, "%s", dir);
    if (FILE *f = std::fopen(cfg.c_str(), "w")) {
        std::fputs(k_config, f);
        std::fclose(f);
    } else {
        return "cannot write " + cfg;
    }
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0)
        return std::string("fork: ") + std::strerror(errno);
    if (pid == 0) {
        setpgid(0, 0);
        const int log = open(r.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
            close(log);
        }
        execl(SOFTCOMCH_IOX_ROUDI, SOFTCOMCH_IOX_ROUDI, "-c", cfg.c_str(), "-m", "off", "-l",
              "warning", "-k", "1", static_cast<char *>(nullptr));
        _exit(127);
    }
    setpgid(pid, pid);
    r.pid = pid;
    g_roudi = pid;
    // Ready when the socket answers; bounded (RouDi creates and clears its segments first).
    for (int i = 0; i < 1500; ++i) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            r.pid = 0;
            g_roudi = 0;
            return "iox-roudi exited at start (status " + std::to_string(status) + ", log " +
                   r.log + ")";
        }
        if (roudi_socket_ready())
            return "";
        sleep_ms(10);
    }
    return "iox-roudi did not become ready within 15 s (log " + r.log + ")";
}

// Stops RouDi (SIGTERM, SIGKILL after 5 s) and checks what it left; returns false on leftovers.
bool stop_roudi(roudi &r)
{
    bool clean = true;
    if (r.pid > 0) {
        kill(-r.pid, SIGTERM);
        int status = 0;
        bool gone = false;
        for (int i = 0; i < 500 && !gone; ++i) {
            gone = waitpid(r.pid, &status, WNOHANG) == r.pid;
            if (!gone)
                sleep_ms(10);
        }
        if (!gone) {
            std::printf("# iox-roudi ignored SIGTERM for 5 s: killed\n");
            kill(-r.pid, SIGKILL);
            waitpid(r.pid, &status, 0);
        }
        kill(-r.pid, SIGKILL); // anything else left in its group
        r.pid = 0;
        g_roudi = 0;
    }
    for (auto &name : g_shm_names) {
        if (name[0] && access(name, F_OK) == 0) {
            std::printf("# leftover after iox-roudi stopped: %s (removed)\n", name);
            unlink(name);
            clean = false;
        }
    }
    if (access(k_roudi_socket, F_OK) == 0) {
        std::printf("# leftover after iox-roudi stopped: %s (removed)\n", k_roudi_socket);
        unlink(k_roudi_socket);
        clean = false;
    }
    // Left when a process was killed; no other RouDi ran (we checked, and hold our lock).
    for (int i = 0; i < 6; ++i) {
        const char *name = g_tmp_names[i];
        if (name[0] && access(name, F_OK) == 0) {
            std::printf("# leftover after iox-roudi stopped: %s (removed)\n", name);
            unlink(name);
            clean = false;
        }
    }
    if (clean) {
        std::printf("# iox-roudi stopped; no files left in /dev/shm or /tmp\n");
    } else if (FILE *log = std::fopen(r.log.c_str(), "r")) {
        char line[512];
        std::printf("# iox-roudi's log:\n");
        while (std::fgets(line, sizeof line, log))
            std::printf("#   %s", line);
        std::fclose(log);
    }
    if (!r.dir.empty()) {
        unlink((r.dir + "/roudi.toml").c_str());
        unlink(r.log.c_str());
        rmdir(r.dir.c_str());
    }
    return clean;
}

// ---- the two applications ----

using iox::popo::UntypedPublisher;
using iox::popo::UntypedSubscriber;

// One stream of the run: `count` messages of `size` bytes published round robin over `pairs`
// topics (publishers in B, subscribers in A); the 64 B rate is the first.
struct stream_run {
    size_t size;
    uint64_t count;
    uint32_t pairs;
};

constexpr uint32_t k_pairs = 4; // comch_fastpath's several-pair streams

struct plan {
    uint64_t rtt_iters;
    std::vector<stream_run> streams;
};

plan make_plan(const options &o)
{
    plan p;
    p.rtt_iters = count_for(o, 50000, 100);
    p.streams.push_back({64, count_for(o, 1000000, 500), 1});
    for (uint32_t pairs : {1u, k_pairs})
        for (size_t s : tput_sizes())
            p.streams.push_back({s, tput_messages(o, s, 2ull << 30), pairs});
    return p;
}

iox::capro::ServiceDescription service(const char *topic, const std::string &inst)
{
    return {"softcomch-peer", iox::capro::IdString_t(iox::cxx::TruncateToCapacity, topic),
            iox::capro::IdString_t(iox::cxx::TruncateToCapacity, inst.c_str())};
}

iox::capro::ServiceDescription service(const char *topic, size_t size)
{
    return service(topic, std::to_string(size));
}

// The topic of pair `k` of a stream; one-pair streams keep the instance name "<size>".
iox::capro::ServiceDescription stream_service(const stream_run &r, uint32_t k)
{
    if (r.pairs == 1)
        return service("stream", r.size);
    return service("stream", std::to_string(r.size) + "-" + std::to_string(r.pairs) + "p" +
                                 std::to_string(k));
}

iox::popo::PublisherOptions pub_options()
{
    iox::popo::PublisherOptions o;
    o.historyCapacity = 0;
    o.subscriberTooSlowPolicy = iox::popo::ConsumerTooSlowPolicy::WAIT_FOR_CONSUMER;
    return o;
}

iox::popo::SubscriberOptions sub_options(uint64_t queue)
{
    iox::popo::SubscriberOptions o;
    o.queueCapacity = queue;
    o.historyRequest = 0;
    o.queueFullPolicy = iox::popo::QueueFullPolicy::BLOCK_PRODUCER;
    return o;
}

// A subscriber's queue: the messages in flight of one stream, shared by its pairs (at least 2
// each), so that the several-pair streams keep as many chunks in flight as the one-pair ones.
uint64_t queue_for(size_t size, uint32_t pairs)
{
    const uint64_t total = size <= 4096 ? 256 : size <= 65536 ? 64 : size <= (1u << 20) ? 8 : 4;
    return std::max<uint64_t>(total / pairs, 2);
}

// Messages published before the measured ones of stream `k` (the first is the 64 B rate).
uint64_t warm_up(const stream_run &r, size_t k)
{
    return r.count / 10 + (k == 0 ? 64 : 4 * r.pairs);
}

// Publishes `size` bytes stamped with `seq` in a loaned chunk (retrying, bounded, while the
// pool is exhausted); the payload is written into the chunk from `src` (when given), as a
// producer would, then stamped.
void publish(UntypedPublisher &pub, size_t size, uint64_t seq, const uint8_t *src, spin_bound &b)
{
    for (;;) {
        auto loaned = pub.loan(uint32_t(size), 8);
        if (!loaned.has_error()) {
            void *chunk = loaned.value();
            if (src)
                std::memcpy(chunk, src, size);
            stamp(chunk, size, seq);
            pub.publish(chunk);
            return;
        }
        b.turn("iceoryx loan");
    }
}

// Takes the next message (busy polling, bounded), checks it in place, releases it.
void take_checked(UntypedSubscriber &sub, size_t size, uint64_t seq, const char *who, spin_bound &b)
{
    for (;;) {
        auto taken = sub.take();
        if (!taken.has_error()) {
            const void *chunk = taken.value();
            const auto *hdr = iox::mepoo::ChunkHeader::fromUserPayload(chunk);
            if (hdr->userPayloadSize() != size)
                die("peer_iceoryx: message length");
            check_stamp(chunk, size, seq, who);
            sub.release(chunk);
            return;
        }
        b.turn(who);
    }
}

struct ports {
    std::vector<std::unique_ptr<UntypedPublisher>> pubs;
    std::vector<std::unique_ptr<UntypedSubscriber>> subs;
};

// Waits (bounded) until every subscriber is subscribed and every publisher has its subscriber.
void wait_matched(const ports &p)
{
    for (int i = 0; i < 10000; ++i) {
        bool all = true;
        for (const auto &s : p.subs)
            all = all && s->getSubscriptionState() == iox::SubscribeState::SUBSCRIBED;
        for (const auto &pb : p.pubs)
            all = all && pb->hasSubscribers();
        if (all)
            return;
        sleep_ms(1);
    }
    die("peer_iceoryx: publishers and subscribers did not match within 10 s");
}

void init_runtime(const char *role)
{
    const std::string name = std::string("softcomch-peer-") + role + "-" + std::to_string(getpid());
    // iceoryx logs every registration to stderr at its default level.
    iox::log::LogManager::GetLogManager().SetDefaultLogLevel(
        iox::log::LogLevel::kWarn, iox::log::LogLevelOutput::kHideLogLevel);
    iox::runtime::PoshRuntime::initRuntime(
        iox::RuntimeName_t(iox::cxx::TruncateToCapacity, name.c_str()));
}

// Application B: echoes the pings, then streams.
int app_b(const plan &p)
{
    init_runtime("b");
    ports pt;
    std::vector<UntypedSubscriber *> ping;
    std::vector<UntypedPublisher *> pong;
    std::vector<std::vector<UntypedPublisher *>> stream; // [run][pair]
    for (size_t s : rtt_sizes()) {
        pt.subs.push_back(std::make_unique<UntypedSubscriber>(service("ping", s), sub_options(4)));
        ping.push_back(pt.subs.back().get());
        pt.pubs.push_back(std::make_unique<UntypedPublisher>(service("pong", s), pub_options()));
        pong.push_back(pt.pubs.back().get());
    }
    for (const stream_run &r : p.streams) {
        stream.emplace_back();
        for (uint32_t k = 0; k < r.pairs; ++k) {
            pt.pubs.push_back(
                std::make_unique<UntypedPublisher>(stream_service(r, k), pub_options()));
            stream.back().push_back(pt.pubs.back().get());
        }
    }
    pt.subs.push_back(std::make_unique<UntypedSubscriber>(service("ctrl", 0), sub_options(16)));
    UntypedSubscriber &ctrl = *pt.subs.back();
    wait_matched(pt);

    spin_bound bound(30.0);
    for (size_t k = 0; k < rtt_sizes().size(); ++k) {
        const size_t size = rtt_sizes()[k];
        const uint64_t total = p.rtt_iters + p.rtt_iters / 10 + 10;
        std::vector<uint8_t> src(size);
        prefault(src.data(), size);
        for (uint64_t i = 0; i < total; ++i) {
            take_checked(*ping[k], size, i, "iceoryx echo", bound);
            publish(*pong[k], size, i | k_reply, src.data(), bound);
            bound.reset();
        }
    }
    uint64_t ctrl_seq = 0;
    for (size_t k = 0; k < p.streams.size(); ++k) {
        const stream_run &r = p.streams[k];
        const uint64_t warm = warm_up(r, k);
        std::vector<uint8_t> src(r.size);
        prefault(src.data(), r.size);
        const uint8_t *fill = src.data();
        for (uint64_t seq = 0; seq < warm; ++seq) {
            publish(*stream[k][seq % r.pairs], r.size, seq, fill, bound);
            bound.reset();
        }
        take_checked(ctrl, 16, ctrl_seq++, "iceoryx go", bound);
        bound.reset();
        for (uint64_t seq = warm; seq < warm + r.count; ++seq) {
            publish(*stream[k][seq % r.pairs], r.size, seq, fill, bound);
            bound.reset();
        }
    }
    take_checked(ctrl, 16, ctrl_seq, "iceoryx bye", bound);
    return 0;
}

// Application A: measures and prints the records.
int app_a(const plan &p)
{
    init_runtime("a");
    ports pt;
    std::vector<UntypedPublisher *> ping;
    std::vector<UntypedSubscriber *> pong;
    std::vector<std::vector<UntypedSubscriber *>> stream; // [run][pair]
    for (size_t s : rtt_sizes()) {
        pt.pubs.push_back(std::make_unique<UntypedPublisher>(service("ping", s), pub_options()));
        ping.push_back(pt.pubs.back().get());
        pt.subs.push_back(std::make_unique<UntypedSubscriber>(service("pong", s), sub_options(4)));
        pong.push_back(pt.subs.back().get());
    }
    for (const stream_run &r : p.streams) {
        stream.emplace_back();
        for (uint32_t k = 0; k < r.pairs; ++k) {
            pt.subs.push_back(std::make_unique<UntypedSubscriber>(
                stream_service(r, k), sub_options(queue_for(r.size, r.pairs))));
            stream.back().push_back(pt.subs.back().get());
        }
    }
    pt.pubs.push_back(std::make_unique<UntypedPublisher>(service("ctrl", 0), pub_options()));
    UntypedPublisher &ctrl = *pt.pubs.back();
    wait_matched(pt);

    spin_bound bound(30.0);
    for (size_t k = 0; k < rtt_sizes().size(); ++k) {
        const size_t size = rtt_sizes()[k];
        const uint64_t warmup = p.rtt_iters / 10 + 10;
        std::vector<uint64_t> samples;
        samples.reserve(p.rtt_iters);
        std::vector<uint8_t> src(size);
        prefault(src.data(), size);
        for (uint64_t i = 0; i < warmup + p.rtt_iters; ++i) {
            const uint64_t t0 = ticks();
            publish(*ping[k], size, i, src.data(), bound);
            take_checked(*pong[k], size, i | k_reply, "iceoryx reply", bound);
            const uint64_t t1 = ticks();
            if (i >= warmup)
                samples.push_back(t1 - t0);
            bound.reset();
        }
        emit_rtt("peer_iceoryx", "iceoryx", "polled", size, rtt_summary(samples));
    }
    uint64_t ctrl_seq = 0;
    for (size_t k = 0; k < p.streams.size(); ++k) {
        const stream_run &r = p.streams[k];
        const uint64_t warm = warm_up(r, k);
        for (uint64_t seq = 0; seq < warm; ++seq) {
            take_checked(*stream[k][seq % r.pairs], r.size, seq, "iceoryx stream warm-up", bound);
            bound.reset();
        }
        const uint64_t t0 = ticks();
        publish(ctrl, 16, ctrl_seq++, nullptr, bound);
        for (uint64_t seq = warm; seq < warm + r.count; ++seq) {
            take_checked(*stream[k][seq % r.pairs], r.size, seq, "iceoryx stream", bound);
            bound.reset();
        }
        const double s = seconds(ticks() - t0);
        if (k == 0) {
            emit_rate("peer_iceoryx", "iceoryx", "polled", r.size, double(r.count) / s / 1e6);
            continue;
        }
        // "4pair" in the mode and the name of a several-pair figure (what softcomch bench
        // matches pairs by); the one-pair names stay as they were.
        const std::string pairs = r.pairs == 1 ? "" : std::to_string(r.pairs) + "pair";
        emit_tput("peer_iceoryx", "iceoryx",
                  pairs.empty() ? "polled/loan+fill" : "polled/loan+fill/" + pairs, r.size,
                  double(r.count) * double(r.size) / s / 1e9,
                  pairs.empty() ? "_tput_" : "_tput_" + pairs + "_");
    }
    publish(ctrl, 16, ctrl_seq, nullptr, bound);
    return 0;
}

// Forks A (CPU 0) and B (CPU 1) and waits for both, bounded; false if either failed.
bool run_apps(const plan &p)
{
    const bool single = online_cpus() < 2;
    std::fflush(stdout);
    pid_t pids[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        pids[k] = fork();
        if (pids[k] < 0)
            die_errno("fork");
        std::snprintf(g_tmp_names[2 + 2 * k], sizeof g_tmp_names[0], "/tmp/softcomch-peer-%s-%d",
                      k == 0 ? "a" : "b", int(pids[k]));
        std::snprintf(g_tmp_names[3 + 2 * k], sizeof g_tmp_names[0],
                      "/tmp/softcomch-peer-%s-%d.lock", k == 0 ? "a" : "b", int(pids[k]));
        g_apps[k] = pids[k];
        if (pids[k] == 0) {
            for (int sig : k_fatal_signals)
                signal(sig, SIG_DFL); // the coordinator's handler is for the coordinator
            pin_to_cpu(k == 0 || single ? 0 : 1);
            alarm(150);
            const int rc = k == 0 ? app_a(p) : app_b(p);
            std::fflush(stdout);
            exit(rc); // runs the runtime's destructors: the applications deregister from RouDi
        }
    }
    bool ok = true;
    int left = 2;
    for (int i = 0; i < 160 * 100 && left > 0; ++i) {
        for (pid_t &pid : pids) {
            int status = 0;
            if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                    std::printf("# iceoryx application %d failed (status %d)\n", int(pid), status);
                    ok = false;
                }
                pid = 0;
                --left;
            }
        }
        if (!ok)
            break;
        if (left > 0)
            sleep_ms(10);
    }
    for (pid_t pid : pids)
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
            ok = false;
        }
    g_apps[0] = 0;
    g_apps[1] = 0;
    return ok;
}

} // namespace

int main(int argc, char **argv)
{
    const options opt = parse_options(argc, argv, "peer_iceoryx");
    online_cpus();
    print_context("peer_iceoryx");
    std::printf("# iceoryx 2.0 (RouDi %s), publish/subscribe over loaned chunks, run length: %s\n",
                SOFTCOMCH_IOX_ROUDI, length_name(opt));

    // One peer_iceoryx at a time on the machine: wait (bounded) for another run to finish.
    const int lock = open(k_our_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    bool locked = false;
    for (int i = 0; lock >= 0 && i < 600 && !locked; ++i) {
        locked = flock(lock, LOCK_EX | LOCK_NB) == 0;
        if (!locked)
            sleep_ms(100);
    }
    if (!locked) {
        report_unavailable(std::string("another peer_iceoryx run held ") + k_our_lock +
                           " for 60 s");
        return 0;
    }
    const std::string other = other_roudi();
    if (!other.empty()) {
        report_unavailable(other);
        return 0;
    }
    std::snprintf(g_shm_names[0], sizeof g_shm_names[0], "/dev/shm/iceoryx_mgmt");
    const std::string seg = group_segment();
    if (!seg.empty())
        std::snprintf(g_shm_names[1], sizeof g_shm_names[1], "/dev/shm/%s", seg.c_str());
    for (int sig : k_fatal_signals)
        signal(sig, on_fatal_signal);

    roudi r;
    const std::string failed = start_roudi(r);
    if (!failed.empty()) {
        stop_roudi(r);
        report_unavailable(failed);
        return 1;
    }
    std::printf("# iox-roudi %d ready (private config, process group %d)\n", int(r.pid),
                int(r.pid));
    const bool ok = run_apps(make_plan(opt));
    const bool clean = stop_roudi(r);
    return ok && clean ? 0 : 1;
}

#else // !SOFTCOMCH_HAVE_ICEORYX

int main(int argc, char **argv)
{
    parse_options(argc, argv, "peer_iceoryx");
    report_unavailable(SOFTCOMCH_PEER_MISSING);
    return 0;
}

#endif
