// SPDX-License-Identifier: Apache-2.0
//
// Programs written the way people write them for a BlueField (tests/programs), run as real
// process pairs over the shared-memory transport:
//   - a secure_channel-shaped pair: producer and consumer threads on their own engines over one
//     connection, teardown that frees posted receives while they are in flight and then stops;
//   - NVIDIA's pe_event loop on both sides of a ping-pong, clearing with handle 0: it must sleep
//     when idle and not wake up for nothing;
//   - 64 client threads in one process, each with its own device, engine and client, sleeping in
//     epoll, against one server (the 512-thread run is the `stress` label and `make bench`);
//   - a file copy shaped like NVIDIA's applications/dma_copy: Comch negotiation, the host's buffer
//     exported, the DPU side's DMA memcpy tasks in chunks, both directions; and the file-carried
//     export of samples/doca_dma dma_copy_host/dma_copy_dpu, imported by a later process while
//     the exporter blocks on stdin, then refused once the exporter has exited;
//   - a DOCA 2.6 program (C, doca_cc: echo, consumer, producer) as a pair, and against a host
//     side written for DOCA 3.0; a DOCA 1.5 - 2.x program of the legacy endpoint API
//     (doca_comm_channel) as a pair (docs/generations.md).
// Each program checks a sequence number and a checksum on every message; SoftComch must not log
// a single warning or error for any of them.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "build_tree.hpp"
#include "child_process.hpp"
#include "process_runner.hpp"

extern char **environ;

namespace {

std::string program(const std::string &name)
{
    return std::string(sc_test::build_tree::programs_dir) + "/" + name;
}

// Our environment with a fabric of this test's own: CTest runs the tests of one binary in
// parallel, and the programs use fixed server names. The diagnostics that report a slow start
// or a peer that does not progress wait 30 s instead of 2 and 5: on a machine loaded enough (a
// sanitizer, a compile beside it) a side can take that long to start, which is worth a line to a
// user but is not a complaint about the pattern (expect_clean); a pattern stuck for 30 s fails
// its counts anyway.
std::vector<std::string> own_fabric_env()
{
    std::vector<std::string> env;
    for (char **e = environ; *e; ++e)
        if (std::strncmp(*e, "SOFTCOMCH_FABRIC=", 17) != 0 &&
            std::strncmp(*e, "SOFTCOMCH_DIAG_DELAY_MS=", 24) != 0 &&
            std::strncmp(*e, "SOFTCOMCH_PEER_STALL_MS=", 24) != 0)
            env.emplace_back(*e);
    env.emplace_back("SOFTCOMCH_DIAG_DELAY_MS=30000");
    env.emplace_back("SOFTCOMCH_PEER_STALL_MS=30000");
    // Short: the fabric name is part of Unix socket paths (108 bytes at most).
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    const size_t tag = std::hash<std::string>{}(info->name()) % 100000;
    env.push_back("SOFTCOMCH_FABRIC=pt" + std::to_string(tag) + "-" + std::to_string(getpid()));
    return env;
}

sc_test::proc_result run(const std::vector<std::string> &argv, double timeout_s)
{
    const std::vector<std::string> env = own_fabric_env();
    return sc_test::run_process(argv, {.timeout_s = timeout_s, .env = &env});
}

// SDK log lines at WARNING or above (the SDK's own format: [time][pid][DOCA][LVL][file:line]).
std::vector<std::string> sdk_complaints(const std::string &text)
{
    std::vector<std::string> out;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(begin, end - begin);
        for (const char *lvl : {"][DOCA][ERR][", "][DOCA][WRN][", "][DOCA][CRT]["})
            if (line.find(lvl) != std::string::npos)
                out.push_back(line);
        begin = end + 1;
    }
    return out;
}

void expect_clean(const sc_test::proc_result &r)
{
    EXPECT_FALSE(r.timed_out) << r.out << r.err;
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    auto lines = sdk_complaints(r.err);
    std::string shown;
    for (size_t i = 0; i < lines.size() && i < 5; ++i)
        shown += lines[i] + "\n";
    EXPECT_TRUE(lines.empty()) << "SoftComch complained (" << lines.size() << " lines):\n"
                               << shown << r.err;
}

TEST(Patterns, SecureChannelShapedPairSmallMessages)
{
    auto r = run({program("comch_sc_pair"), "-s", "1024", "-n", "1000"}, 90);
    expect_clean(r);
    EXPECT_TRUE(sc_test::has_line(
        r.out, "host: producer sent 1000 of 1000, consumer received 1000 of 1000", {"ok"}))
        << r.out;
    EXPECT_TRUE(sc_test::has_line(
        r.out, "dpu: producer sent 1000 of 1000, consumer received 1000 of 1000", {"ok"}))
        << r.out;
}

TEST(Patterns, SecureChannelShapedPairLargeMessages)
{
    auto r = run({program("comch_sc_pair"), "-s", "65535", "-n", "3000"}, 120);
    expect_clean(r);
    EXPECT_TRUE(
        sc_test::has_line(r.out, "host: producer sent 3000 of 3000", {"65535 bytes each", "ok"}))
        << r.out;
    EXPECT_TRUE(
        sc_test::has_line(r.out, "dpu: producer sent 3000 of 3000", {"65535 bytes each", "ok"}))
        << r.out;
}

TEST(Patterns, ConsumerStartsOnItsOwnEngineWhileTheConnectionIsNotProgressed)
{
    // NVIDIA's dpu_gpu_remote_offload waits for RUNNING on the consumer's engine only.
    auto r = run({program("comch_sc_pair"), "-s", "256", "-n", "200", "--hold-connection",
                  "--timeout", "30"},
                 60);
    expect_clean(r);
    EXPECT_TRUE(sc_test::has_line(r.out, "host: producer sent 200 of 200", {"ok"})) << r.out;
    EXPECT_TRUE(sc_test::has_line(r.out, "dpu: producer sent 200 of 200", {"ok"})) << r.out;
}

TEST(Patterns, EventLoopClearingWithHandleZeroSleepsUntilThereIsWork)
{
    auto r = run({program("comch_event_loop"), "--messages", "200", "--idle-ms", "300"}, 90);
    expect_clean(r);
    EXPECT_TRUE(sc_test::has_line(r.out, "client_idle_wakeups,0")) << r.out;
    EXPECT_TRUE(sc_test::has_line(r.out, "result,ok")) << r.out;
}

TEST(Patterns, EventLoopBurstsWakeTheSleepingPeerEveryTime)
{
    // Bursts of sends leave their check for a sleeping peer to the next notification request
    // (docs/design.md, "One barrier per burst"): a check that never came would hang a round
    // until the client's 60 s deadline and fail it.
    auto r =
        run({program("comch_event_loop"), "--messages", "3000", "--burst", "16", "--idle-ms", "50"},
            90);
    expect_clean(r);
    EXPECT_TRUE(sc_test::has_line(r.out, "client_messages,3000")) << r.out;
    EXPECT_TRUE(sc_test::has_line(r.out, "server_messages,3000")) << r.out;
    EXPECT_TRUE(sc_test::has_line(r.out, "client_idle_wakeups,0")) << r.out;
    EXPECT_TRUE(sc_test::has_line(r.out, "result,ok")) << r.out;
}

TEST(Patterns, SixtyFourClientThreadsInOneProcess)
{
    // The published experiment's sizes: receive queue 8192 and 10240 send tasks per context.
    auto r =
        run({program("comch_threads"), "--clients", "64", "--no-baseline", "--timeout", "90"}, 120);
    expect_clean(r);
    for (const char *line : {"clients_connected,64,", "clients_exchanged,64,", "clients_idle,64,",
                             "server_disconnects,64,", "server_echoed,1024,", "result,ok"})
        EXPECT_TRUE(sc_test::has_line(r.out, line)) << line << "\n" << r.out;
}

// ---- applications/dma_copy and samples/doca_dma dma_copy_host / dma_copy_dpu ----

// A directory of this test's own, removed with everything in it.
struct temp_dir {
    std::filesystem::path path;
    temp_dir()
    {
        std::string t = (std::filesystem::temp_directory_path() / "sc-dma-copy-XXXXXX").string();
        if (::mkdtemp(t.data()) != nullptr)
            path = t;
        EXPECT_FALSE(path.empty()) << "mkdtemp " << t << ": " << std::strerror(errno);
    }
    ~temp_dir()
    {
        std::error_code ec;
        if (!path.empty())
            std::filesystem::remove_all(path, ec);
    }
    std::string operator/(const char *name) const { return (path / name).string(); }
};

void write_random_file(const std::string &path, size_t size, uint64_t seed)
{
    std::mt19937_64 gen(seed);
    std::vector<uint8_t> data(size);
    for (size_t i = 0; i < size; i += 8) {
        const uint64_t v = gen();
        std::memcpy(data.data() + i, &v, std::min<size_t>(8, size - i));
    }
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char *>(data.data()), std::streamsize(size));
    ASSERT_TRUE(f.good()) << path;
}

std::vector<uint8_t> file_bytes(const std::string &path)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    std::vector<uint8_t> data(ec ? 0 : size_t(size));
    std::ifstream f(path, std::ios::binary);
    f.read(reinterpret_cast<char *>(data.data()), std::streamsize(data.size()));
    EXPECT_FALSE(ec) << path << ": " << ec.message();
    EXPECT_TRUE(f.good() || data.empty()) << path;
    return data;
}

void expect_same_file(const std::string &expected, const std::string &got)
{
    const std::vector<uint8_t> a = file_bytes(expected), b = file_bytes(got);
    ASSERT_EQ(a.size(), b.size()) << got;
    const auto diff = std::mismatch(a.begin(), a.end(), b.begin());
    EXPECT_TRUE(diff.first == a.end())
        << got << " differs from " << expected << " at byte " << (diff.first - a.begin());
}

// A program started with pipes on stdin, stdout and stderr, read while it runs (process_runner
// runs a program to completion with our stdin).
class piped_process {
public:
    explicit piped_process(const std::vector<std::string> &argv)
    {
        const std::vector<std::string> env = own_fabric_env();
        int in_pipe[2], out_pipe[2], err_pipe[2];
        if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
            ::pipe2(err_pipe, O_CLOEXEC) != 0) {
            ADD_FAILURE() << "pipe: " << std::strerror(errno);
            return;
        }
        std::vector<char *> args, envp;
        for (const auto &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        for (const auto &e : env)
            envp.push_back(const_cast<char *>(e.c_str()));
        envp.push_back(nullptr);
        const pid_t parent = ::getpid();
        pid_ = ::fork();
        if (pid_ == 0) {
            sc_test::die_with_parent(parent);
            ::dup2(in_pipe[0], STDIN_FILENO);
            ::dup2(out_pipe[1], STDOUT_FILENO);
            ::dup2(err_pipe[1], STDERR_FILENO);
            ::execve(args[0], args.data(), envp.data());
            std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
            ::_exit(127);
        }
        ::close(in_pipe[0]);
        ::close(out_pipe[1]);
        ::close(err_pipe[1]);
        stdin_ = in_pipe[1];
        fds_[0] = out_pipe[0];
        fds_[1] = err_pipe[0];
        EXPECT_GT(pid_, 0) << "fork: " << std::strerror(errno);
    }
    ~piped_process()
    {
        close_stdin();
        if (pid_ > 0 && !reaped_) {
            ::kill(pid_, SIGKILL);
            int st = 0;
            ::waitpid(pid_, &st, 0);
        }
        for (int fd : fds_)
            if (fd >= 0)
                ::close(fd);
    }
    piped_process(const piped_process &) = delete;
    piped_process &operator=(const piped_process &) = delete;

    // Reads its output until stdout has a line starting with `prefix`; false if it closed its
    // stdout first or `timeout_s` passed.
    bool wait_for_line(const std::string &prefix, double timeout_s)
    {
        const auto end = deadline(timeout_s);
        while (!sc_test::has_line(out, prefix)) {
            if (fds_[0] < 0 || std::chrono::steady_clock::now() > end)
                return false;
            pump();
        }
        return true;
    }
    // Whether it still runs.
    bool running()
    {
        int st = 0;
        if (pid_ <= 0 || reaped_ || ::waitpid(pid_, &st, WNOHANG) == 0)
            return pid_ > 0 && !reaped_;
        reaped_ = true;
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        return false;
    }
    void close_stdin()
    {
        if (stdin_ >= 0)
            ::close(stdin_);
        stdin_ = -1;
    }
    // Reads the rest of its output and waits for its exit (SIGKILL after `timeout_s`): its exit
    // status, or 128 + signal.
    int finish(double timeout_s)
    {
        const auto end = deadline(timeout_s);
        while ((fds_[0] >= 0 || fds_[1] >= 0) && std::chrono::steady_clock::now() <= end)
            pump();
        while (running() && std::chrono::steady_clock::now() <= end)
            pump(); // its pipes are closed: this waits 10 ms at a time
        if (running()) {
            timed_out = true;
            ::kill(pid_, SIGKILL);
            int st = 0;
            ::waitpid(pid_, &st, 0);
            reaped_ = true;
            status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        return status_;
    }

    std::string out, err;
    bool timed_out = false;

private:
    static std::chrono::steady_clock::time_point deadline(double s)
    {
        return std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(s));
    }
    // One poll (at most 10 ms) over the open pipes.
    void pump()
    {
        pollfd p[2];
        int which[2];
        nfds_t n = 0;
        for (int i = 0; i < 2; ++i)
            if (fds_[i] >= 0) {
                p[n] = {fds_[i], POLLIN, 0};
                which[n++] = i;
            }
        if (n == 0) {
            ::poll(nullptr, 0, 10);
            return;
        }
        if (::poll(p, n, 10) <= 0)
            return;
        for (nfds_t k = 0; k < n; ++k) {
            if (p[k].revents == 0)
                continue;
            char buf[4096];
            const ssize_t got = ::read(p[k].fd, buf, sizeof buf);
            if (got > 0) {
                (which[k] == 0 ? out : err).append(buf, size_t(got));
            } else if (got == 0 || errno != EINTR) {
                ::close(fds_[which[k]]);
                fds_[which[k]] = -1;
            }
        }
    }

    pid_t pid_ = -1;
    bool reaped_ = false;
    int status_ = -1;
    int stdin_ = -1;
    int fds_[2] = {-1, -1};
};

// applications/dma_copy: the host tells the direction, exports its buffer over Comch, the DPU
// side copies with DMA memcpy tasks of at most 4 MiB (several in flight) and reports; the file
// that comes out is the file that went in.
void dma_copy_pair(const char *direction, size_t size, int tasks)
{
    temp_dir dir;
    const std::string in = dir / "in", out = dir / "out";
    write_random_file(in, size, 0x5eed0000u + size);
    auto r =
        run({program("comch_dma_copy"), "--direction", direction, "--in", in, "--out", out}, 150);
    expect_clean(r);
    const std::string n = std::to_string(size);
    const bool to_dpu = std::strcmp(direction, "host-to-dpu") == 0;
    EXPECT_TRUE(sc_test::has_line(r.out, "dpu: copied " + n + " bytes " + direction + " in " +
                                             std::to_string(tasks) + " tasks, ok"))
        << r.out;
    EXPECT_TRUE(sc_test::has_line(
        r.out, std::string("host: ") + (to_dpu ? "sent " : "received ") + n + " bytes " + direction,
        {to_dpu ? "read-only export" : "read-write export", "ok"}))
        << r.out;
    expect_same_file(in, out);
}

constexpr size_t k_24_mib = size_t(24) << 20;
constexpr size_t k_odd_size = (size_t(5) << 20) + 123; // not a multiple of 4 KiB

TEST(Patterns, DmaCopyShapedPairHostToDpu24MiB)
{
    dma_copy_pair("host-to-dpu", k_24_mib, 6);
}

TEST(Patterns, DmaCopyShapedPairDpuToHost24MiB)
{
    dma_copy_pair("dpu-to-host", k_24_mib, 6);
}

TEST(Patterns, DmaCopyShapedPairHostToDpuOddSize)
{
    dma_copy_pair("host-to-dpu", k_odd_size, 2);
}

TEST(Patterns, DmaCopyShapedPairDpuToHostOddSize)
{
    dma_copy_pair("dpu-to-host", k_odd_size, 2);
}

// samples/doca_dma: dma_copy_host exports and writes the descriptor to a file, then sits in
// getchar() progressing nothing; dma_copy_dpu, a later process, imports and reads everything.
TEST(Patterns, DmaCopyFileCarriedExportReadWhileTheExporterBlocksOnStdin)
{
    temp_dir dir;
    const std::string in = dir / "in", out = dir / "out", desc = dir / "export_desc";
    write_random_file(in, k_24_mib, 0xd11a);
    piped_process exporter(
        {program("comch_dma_copy"), "--role", "export", "--desc-file", desc, "--in", in});
    ASSERT_TRUE(exporter.wait_for_line("exported " + std::to_string(k_24_mib) + " bytes", 60))
        << exporter.out << exporter.err;
    auto r =
        run({program("comch_dma_copy"), "--role", "import", "--desc-file", desc, "--out", out}, 90);
    expect_clean(r);
    EXPECT_TRUE(sc_test::has_line(r.out, "imported " + std::to_string(k_24_mib) + " bytes, ok"))
        << r.out;
    expect_same_file(in, out);
    EXPECT_TRUE(exporter.running()) << "the exporter did not wait for its stdin to close";
    exporter.close_stdin();
    EXPECT_EQ(exporter.finish(60), 0) << exporter.out << exporter.err;
    EXPECT_FALSE(exporter.timed_out);
    EXPECT_TRUE(sdk_complaints(exporter.err).empty()) << exporter.err;
}

// The descriptor outlives its exporter: the import is refused, with the reason on stderr.
TEST(Patterns, DmaCopyImportAfterTheExporterExitedIsRefused)
{
    temp_dir dir;
    const std::string in = dir / "in", out = dir / "out", desc = dir / "export_desc";
    write_random_file(in, k_odd_size, 0xdead);
    {
        piped_process exporter(
            {program("comch_dma_copy"), "--role", "export", "--desc-file", desc, "--in", in});
        ASSERT_TRUE(exporter.wait_for_line("exported ", 60)) << exporter.out << exporter.err;
        exporter.close_stdin();
        ASSERT_EQ(exporter.finish(60), 0) << exporter.out << exporter.err;
    }
    auto r =
        run({program("comch_dma_copy"), "--role", "import", "--desc-file", desc, "--out", out}, 90);
    EXPECT_FALSE(r.timed_out) << r.out << r.err;
    EXPECT_NE(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(sc_test::has_line(r.err, "comch_dma_copy[import]: doca_mmap_create_from_export",
                                  {"DOCA_ERROR_NOT_FOUND"}))
        << r.err;
    EXPECT_FALSE(sc_test::contains(r.out, "imported")) << r.out;
    EXPECT_FALSE(std::filesystem::exists(out));
}

// ---- programs of older DOCA generations (docs/generations.md) ----

TEST(Patterns, DocaCc26PairControlAndFastPath)
{
    auto r = run({program("cc_pair"), "--messages", "300"}, 90);
    expect_clean(r);
    EXPECT_TRUE(sc_test::has_line(r.out, "dpu: echoed 300 messages, received 300 fast-path buffers",
                                  {"ok"}))
        << r.out;
    EXPECT_TRUE(
        sc_test::has_line(r.out, "host: 300 of 300 echoes intact, 300 buffers sent", {"ok"}))
        << r.out;
}

// The same server, a host side written for DOCA 3.0: the generations talk to each other.
TEST(Patterns, DocaCc26ServerWithADoca30Client)
{
    auto r = run({program("cc_pair"), "--messages", "300", "--host-api", "comch"}, 90);
    expect_clean(r);
    EXPECT_TRUE(sc_test::has_line(r.out, "dpu: echoed 300 messages, received 300 fast-path buffers",
                                  {"ok"}))
        << r.out;
    EXPECT_TRUE(
        sc_test::has_line(r.out, "host: 300 of 300 echoes intact, 300 buffers sent", {"ok"}))
        << r.out;
}

// A DOCA 1.5 - 2.x program of the legacy endpoint API, service and client in two processes.
TEST(Patterns, LegacyCommChannelPair)
{
    auto r = run({program("legacy_cc_pair"), "--messages", "500"}, 90);
    expect_clean(r);
    EXPECT_TRUE(sc_test::has_line(r.out, "service: echoed 500 messages from 1 client", {"ok"}))
        << r.out;
    EXPECT_TRUE(
        sc_test::has_line(r.out, "client: 500 of 500 echoes intact, sent 500 messages", {"ok"}))
        << r.out;
}

} // namespace
