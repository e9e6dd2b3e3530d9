// SPDX-License-Identifier: Apache-2.0
//
// Programs written the way people write them for a BlueField (tests/programs), run as real
// process pairs over the shared-memory transport:
//   - a secure_channel-shaped pair: producer and consumer threads on their own engines over one
//     connection, teardown that frees posted receives while they are in flight and then stops;
//   - NVIDIA's pe_event loop on both sides of a ping-pong, clearing with handle 0: it must sleep
//     when idle and not wake up for nothing;
//   - 64 client threads in one process, each with its own device, engine and client, sleeping in
//     epoll, against one server (the 512-thread run is the `stress` label and `make bench`).
// Each program checks a sequence number and a checksum on every message; SoftComch must not log
// a single warning or error for any of them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "build_tree.hpp"
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

} // namespace
