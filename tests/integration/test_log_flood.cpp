// SPDX-License-Identifier: Apache-2.0
//
// Logging under attack (docs/failure-model.md): a peer that floods a server with garbage, and a
// program that repeats a wrong call 100000 times, leave a small SDK log, the first line of each
// kind in it, and the victim serving. The SDK lines are captured in a file through a descriptor
// backend (doca_log_backend_create_with_fd_sdk), as a program logging to disk would.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_log.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>

#include "comch_harness.hpp"

using namespace sc_test;

namespace {

// Lines of one kind per second before suppression (docs/logging_and_argp.md).
constexpr size_t k_burst = 10;

class LogFlood : public ::testing::Test {
protected:
    void SetUp() override
    {
        // The default limits are under test: SOFTCOMCH_LOG_BURST (read at start-up) must be unset.
        use_private_fabric(::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
};

// The SDK lines of this process go to a fresh file (and nowhere else).
struct sdk_log_file {
    std::string path;
    int fd = -1;
    explicit sdk_log_file(const std::string &tag)
    {
        path = "/tmp/softcomch-logflood-" + tag + "-" + std::to_string(::getpid());
        fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_APPEND | O_CLOEXEC, 0600);
        doca_log_backend *b = nullptr;
        if (fd >= 0 && doca_log_backend_create_with_fd_sdk(fd, &b) == DOCA_SUCCESS)
            (void)doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_WARNING);
    }
    ~sdk_log_file() { ::unlink(path.c_str()); }
    std::string text() const
    {
        std::ifstream in(path);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
};

size_t count_of(const std::string &text, const std::string &needle)
{
    size_t n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1))
        ++n;
    return n;
}

// The bound for a run of `seconds`: `burst` lines plus one summary per site and window.
size_t line_bound(double seconds, size_t sites)
{
    return sites * (k_burst + 1) * (size_t(seconds) + 2);
}

// The endpoint socket of the one server in this test's fabric (docs/design.md, "Fabric").
std::string server_socket()
{
    const char *fabric = std::getenv("SOFTCOMCH_FABRIC");
    const char *xdg = std::getenv("XDG_RUNTIME_DIR");
    struct stat st;
    std::string dir = xdg && xdg[0] == '/' && ::stat(xdg, &st) == 0 && S_ISDIR(st.st_mode)
                          ? std::string(xdg) + "/softcomch/"
                          : "/tmp/softcomch-" + std::to_string(::getuid()) + "/";
    dir += fabric;
    DIR *d = ::opendir(dir.c_str());
    if (!d)
        return "";
    std::string found;
    while (dirent *e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 5 && n.compare(n.size() - 5, 5, ".sock") == 0)
            found = dir + "/" + n;
    }
    ::closedir(d);
    return found;
}

} // namespace

TEST_F(LogFlood, AGarbageSpewingPeerLeavesASmallLogAndTheServerServes)
{
    sdk_log_file log("garbage");
    server s("flooded");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    const std::string sock = server_socket();
    ASSERT_FALSE(sock.empty());

    // The hostile peer: connects and sends a datagram that is no handshake, over and over.
    constexpr int k_attacks = 3000;
    const auto t0 = clock::now();
    pid_t peer = spawn([&] {
        for (int i = 0; i < k_attacks; ++i) {
            int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
            CHILD_CHECK(fd >= 0);
            sockaddr_un sa{};
            sa.sun_family = AF_UNIX;
            std::snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock.c_str());
            if (::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0) {
                const char junk[] = "\x7f not a hello, just noise \x01\x02\x03";
                (void)::send(fd, junk, sizeof junk, MSG_NOSIGNAL);
            }
            ::close(fd);
        }
        return 0;
    });
    int st = -1;
    ASSERT_TRUE(s.progress_until(
        [&] {
            int r = 0;
            if (::waitpid(peer, &r, WNOHANG) == peer)
                st = WIFEXITED(r) ? WEXITSTATUS(r) : 128;
            return st >= 0;
        },
        60000ms));
    EXPECT_EQ(st, 0);
    s.progress_for(100ms); // the last handshakes
    const double seconds = std::chrono::duration<double>(clock::now() - t0).count();

    const std::string text = log.text();
    const size_t warnings = count_of(text, "[WRN]");
    EXPECT_GE(warnings, 1u) << "the first occurrence is always logged";
    // Without the limit: one warning per attack (about 400 KB).
    EXPECT_LE(warnings, line_bound(seconds, 3)) << seconds << " s\n" << text.substr(0, 4000);
    EXPECT_LE(text.size(), line_bound(seconds, 3) * 300) << seconds << " s";
    if (seconds > 1.1) {
        EXPECT_NE(text.find("similar lines suppressed)"), std::string::npos) << text;
    }

    // Still serving: a real client connects and is answered.
    s.on_recv = [](side &self, doca_comch_connection *c, const uint8_t *b, uint32_t n) {
        (void)self.send(c, b, n);
    };
    pid_t good = spawn([] {
        client c("flooded");
        CHILD_CHECK(c.ok());
        CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
        CHILD_CHECK(c.wait_running());
        CHILD_CHECK(c.send(c.connection(), "still there?") == DOCA_SUCCESS);
        CHILD_CHECK(c.progress_until([&] { return !c.received.empty(); }));
        CHILD_CHECK(c.received.front().data == "still there?");
        CHILD_CHECK(c.stop_and_wait() == DOCA_SUCCESS);
        return 0;
    });
    st = -1;
    ASSERT_TRUE(s.progress_until(
        [&] {
            int r = 0;
            if (::waitpid(good, &r, WNOHANG) == good)
                st = WIFEXITED(r) ? WEXITSTATUS(r) : 128;
            return st >= 0;
        },
        20000ms));
    EXPECT_EQ(st, 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

TEST_F(LogFlood, AWrongCallInALoopLeavesASmallLog)
{
    // The program submits a task it already freed, 100000 times, on a real connection.
    pid_t srv = spawn([] {
        server s("wrong-call");
        CHILD_CHECK(s.ok());
        CHILD_CHECK(s.start() == DOCA_SUCCESS);
        CHILD_CHECK(s.progress_until([&] { return !s.disconnected.empty(); }, 60000ms));
        CHILD_CHECK(s.stop_and_wait() == DOCA_SUCCESS);
        return 0;
    });
    {
        sdk_log_file log("wrong-call");
        client c("wrong-call");
        ASSERT_TRUE(c.ok());
        ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
        ASSERT_TRUE(c.wait_running());
        doca_comch_task_send *task = nullptr;
        ASSERT_EQ(doca_comch_client_task_send_alloc_init(c.handle(), c.connection(), "x", 1, &task),
                  DOCA_SUCCESS);
        doca_task *t = doca_comch_task_send_as_task(task);
        doca_task_free(t);
        constexpr int k_calls = 100000;
        const auto t0 = clock::now();
        for (int i = 0; i < k_calls; ++i)
            ASSERT_EQ(doca_task_submit(t), DOCA_ERROR_INVALID_VALUE);
        const double seconds = std::chrono::duration<double>(clock::now() - t0).count();
        const std::string text = log.text();
        const size_t lines = count_of(text, "doca_task_submit: the task is free");
        EXPECT_GE(lines, 1u) << "the first refusal is logged";
        EXPECT_LE(lines, line_bound(seconds, 1)) << seconds << " s";
        EXPECT_LE(text.size(), line_bound(seconds, 1) * 200)
            << "without the limit: about 9 MB; " << seconds << " s";
        EXPECT_EQ(c.stop_and_wait(), DOCA_SUCCESS);
    }
    EXPECT_EQ(wait_child(srv), 0);
}
