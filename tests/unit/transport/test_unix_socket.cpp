// SPDX-License-Identifier: Apache-2.0
//
// Unix SEQPACKET helpers: listen/connect/accept, stale sockets, fd passing, error mapping.
#include "transport/unix_socket.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

using namespace softcomch;
using namespace softcomch::transport;

namespace {

class unit_transport_unix_socket : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/sc-us-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        path_ = dir_ + "/srv.sock";
    }
    void TearDown() override
    {
        if (DIR *d = opendir(dir_.c_str())) {
            while (dirent *e = readdir(d)) {
                if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                    unlink((dir_ + "/" + e->d_name).c_str());
            }
            closedir(d);
        }
        rmdir(dir_.c_str());
    }
    // A connected (client, server) pair through a listener at path_.
    void pair(unique_fd &listener, unique_fd &client, unique_fd &server)
    {
        ASSERT_EQ(listen_at(path_, listener), DOCA_SUCCESS);
        ASSERT_EQ(connect_to(path_, client), DOCA_SUCCESS);
        ASSERT_EQ(accept_from(listener.get(), server), DOCA_SUCCESS);
    }
    std::string dir_;
    std::string path_;
};

int count_open_fds()
{
    int n = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (readdir(d) != nullptr)
            ++n;
        closedir(d);
    }
    return n;
}

} // namespace

TEST_F(unit_transport_unix_socket, listen_connect_accept)
{
    unique_fd l, c, s;
    pair(l, c, s);
    // Non-blocking and close-on-exec everywhere.
    for (int fd : {l.get(), c.get(), s.get()}) {
        EXPECT_TRUE(fcntl(fd, F_GETFL) & O_NONBLOCK);
        EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    }
    unique_fd none;
    EXPECT_EQ(accept_from(l.get(), none), DOCA_ERROR_AGAIN);
    pid_t pid = 0;
    ASSERT_EQ(peer_pid(s.get(), &pid), DOCA_SUCCESS);
    EXPECT_EQ(pid, getpid());
    EXPECT_EQ(probe_socket(path_), socket_probe::live);
}

TEST_F(unit_transport_unix_socket, message_boundaries_and_errors)
{
    unique_fd l, c, s;
    pair(l, c, s);
    char buf[64];
    size_t len = 0;
    EXPECT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, nullptr, nullptr, 0), DOCA_ERROR_AGAIN);
    ASSERT_EQ(send_msg(c.get(), "one", 3, nullptr, 0), DOCA_SUCCESS);
    ASSERT_EQ(send_msg(c.get(), "three", 5, nullptr, 0), DOCA_SUCCESS);
    ASSERT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, nullptr, nullptr, 0), DOCA_SUCCESS);
    EXPECT_EQ(len, 3u);
    ASSERT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, nullptr, nullptr, 0), DOCA_SUCCESS);
    EXPECT_EQ(len, 5u);
    EXPECT_EQ(std::memcmp(buf, "three", 5), 0);
    EXPECT_EQ(send_msg(c.get(), buf, 0, nullptr, 0), DOCA_ERROR_INVALID_VALUE);
    int fds[k_max_msg_fds + 1] = {};
    EXPECT_EQ(send_msg(c.get(), buf, 1, fds, k_max_msg_fds + 1), DOCA_ERROR_INVALID_VALUE);

    // Truncated message: rejected and consumed.
    char big[100] = {};
    ASSERT_EQ(send_msg(c.get(), big, sizeof big, nullptr, 0), DOCA_SUCCESS);
    EXPECT_EQ(recv_msg(s.get(), buf, 10, &len, nullptr, nullptr, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, nullptr, nullptr, 0), DOCA_ERROR_AGAIN);

    // Peer closes: EOF on the other side, reset on send.
    c.reset();
    EXPECT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, nullptr, nullptr, 0),
              DOCA_ERROR_CONNECTION_RESET);
    EXPECT_EQ(send_msg(s.get(), "x", 1, nullptr, 0), DOCA_ERROR_CONNECTION_RESET);
}

TEST_F(unit_transport_unix_socket, passes_an_eventfd)
{
    unique_fd l, c, s;
    pair(l, c, s);
    unique_fd efd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    ASSERT_TRUE(bool(efd));
    const int send_fds[1] = {efd.get()};
    ASSERT_EQ(send_msg(c.get(), "hello", 5, send_fds, 1), DOCA_SUCCESS);

    char buf[16];
    size_t len = 0, n = 0;
    int got[k_max_msg_fds];
    ASSERT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, got, &n, k_max_msg_fds), DOCA_SUCCESS);
    ASSERT_EQ(len, 5u);
    ASSERT_EQ(n, 1u);
    unique_fd received(got[0]);
    EXPECT_NE(received.get(), efd.get());
    EXPECT_TRUE(fcntl(received.get(), F_GETFD) & FD_CLOEXEC);
    // Signal through the received copy; the original sees it.
    const uint64_t one = 1;
    ASSERT_EQ(write(received.get(), &one, 8), 8);
    uint64_t v = 0;
    ASSERT_EQ(read(efd.get(), &v, 8), 8);
    EXPECT_EQ(v, 1u);

    // A message without fds reports zero fds.
    ASSERT_EQ(send_msg(c.get(), "x", 1, nullptr, 0), DOCA_SUCCESS);
    ASSERT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, got, &n, k_max_msg_fds), DOCA_SUCCESS);
    EXPECT_EQ(n, 0u);
}

TEST_F(unit_transport_unix_socket, unexpected_fds_are_closed)
{
    unique_fd l, c, s;
    pair(l, c, s);
    unique_fd e1(eventfd(0, EFD_CLOEXEC)), e2(eventfd(0, EFD_CLOEXEC));
    const int two[2] = {e1.get(), e2.get()};
    char buf[16];
    size_t len = 0, n = 0;
    int got[k_max_msg_fds];
    const int before = count_open_fds();
    // More fds than the caller accepts.
    ASSERT_EQ(send_msg(c.get(), "ab", 2, two, 2), DOCA_SUCCESS);
    EXPECT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, got, &n, 1), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(count_open_fds(), before);
    // Fds with a truncated message.
    ASSERT_EQ(send_msg(c.get(), "abcdefgh", 8, two, 2), DOCA_SUCCESS);
    EXPECT_EQ(recv_msg(s.get(), buf, 4, &len, got, &n, k_max_msg_fds), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(count_open_fds(), before);
    // Fds when the caller accepts none.
    ASSERT_EQ(send_msg(c.get(), "ab", 2, two, 1), DOCA_SUCCESS);
    EXPECT_EQ(recv_msg(s.get(), buf, sizeof buf, &len, nullptr, nullptr, 0),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(count_open_fds(), before);
}

TEST_F(unit_transport_unix_socket, stale_and_live_paths)
{
    unique_fd none;
    EXPECT_EQ(connect_to(path_, none), DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(probe_socket(path_), socket_probe::absent);
    {
        unique_fd l;
        ASSERT_EQ(listen_at(path_, l), DOCA_SUCCESS);
        // A second server at the same path is refused while the first lives.
        unique_fd l2;
        EXPECT_EQ(listen_at(path_, l2), DOCA_ERROR_ALREADY_EXIST);
        EXPECT_FALSE(bool(l2));
    } // listener closed, socket file left behind: stale
    EXPECT_EQ(probe_socket(path_), socket_probe::stale);
    EXPECT_EQ(connect_to(path_, none), DOCA_ERROR_NOT_FOUND);
    unique_fd l3;
    ASSERT_EQ(listen_at(path_, l3), DOCA_SUCCESS);
    unique_fd c;
    EXPECT_EQ(connect_to(path_, c), DOCA_SUCCESS);
}

TEST_F(unit_transport_unix_socket, never_replaces_a_non_socket)
{
    const std::string file = dir_ + "/file.sock";
    {
        unique_fd f(open(file.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
        ASSERT_TRUE(bool(f));
    }
    unique_fd l;
    EXPECT_EQ(listen_at(file, l), DOCA_ERROR_ALREADY_EXIST);
    struct stat st;
    ASSERT_EQ(stat(file.c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(probe_socket(file), socket_probe::not_socket);
}

TEST_F(unit_transport_unix_socket, path_limits)
{
    unique_fd l;
    EXPECT_EQ(listen_at("", l), DOCA_ERROR_INVALID_VALUE);
    const std::string longp = dir_ + "/" + std::string(max_socket_path(), 'a');
    EXPECT_EQ(listen_at(longp, l), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(connect_to(longp, l), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(listen_at("/nonexistent-dir-sc/x.sock", l), DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(max_socket_path(), 107u);
}

TEST_F(unit_transport_unix_socket, directory_lock)
{
    unique_fd lk = lock_directory(dir_);
    ASSERT_TRUE(bool(lk));
    // A second open file description cannot take it while we hold it (LOCK_NB probe).
    unique_fd other(open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    EXPECT_NE(flock(other.get(), LOCK_EX | LOCK_NB), 0);
    lk.reset();
    EXPECT_EQ(flock(other.get(), LOCK_EX | LOCK_NB), 0);
    EXPECT_FALSE(bool(lock_directory(dir_ + "/missing")));
}
