// SPDX-License-Identifier: Apache-2.0
//
// The kernel-side checks of what a peer hands over (src/transport/shm/peer_checks.hpp) and the
// wake-up sockets (wake.hpp): memfds sealed or refused, wake-up descriptors that are what they
// claim, the peer's identity from SO_PEERCRED, pids in messages against the kernel's, a pidfd
// that outlives its process, and a wake-up that never blocks whatever the peer does with its end.
#include "transport/shm/peer_checks.hpp"
#include "transport/shm/wake.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>

using namespace softcomch;
using namespace softcomch::transport::shm;

namespace {

int sealed_memfd(size_t size, unsigned seals)
{
    const int fd = memfd_create("peer-checks", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(ftruncate(fd, off_t(size)), 0);
    if (seals != 0) {
        EXPECT_EQ(fcntl(fd, F_ADD_SEALS, seals), 0);
    }
    return fd;
}

} // namespace

TEST(unit_transport_peer_checks, memfds_must_be_sealed)
{
    uint64_t size = 0;
    {
        unique_fd fd(sealed_memfd(8192, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
        EXPECT_EQ(check_sealed_memfd(fd.get(), &size), nullptr);
        EXPECT_EQ(size, 8192u);
    }
    // Each missing seal is refused: the peer could truncate (SIGBUS), grow, or change the seals.
    for (unsigned seals : {0u, unsigned(F_SEAL_SHRINK), unsigned(F_SEAL_GROW | F_SEAL_SEAL),
                           unsigned(F_SEAL_SHRINK | F_SEAL_GROW)}) {
        unique_fd fd(sealed_memfd(4096, seals));
        EXPECT_NE(check_sealed_memfd(fd.get(), &size), nullptr) << seals;
    }
    // Not sealable at all, not a file, no descriptor.
    unique_fd plain(memfd_create("unsealable", MFD_CLOEXEC));
    EXPECT_NE(check_sealed_memfd(plain.get(), &size), nullptr);
    int p[2];
    ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
    unique_fd r(p[0]), w(p[1]);
    EXPECT_NE(check_sealed_memfd(r.get(), &size), nullptr);
    EXPECT_NE(check_sealed_memfd(-1, &size), nullptr);
    // Our own memfds get the seals the check wants.
    unique_fd mine(sealed_memfd(4096, 0));
    ASSERT_EQ(seal_memfd(mine.get()), DOCA_SUCCESS);
    EXPECT_EQ(check_sealed_memfd(mine.get(), nullptr), nullptr);
    EXPECT_NE(ftruncate(mine.get(), 0), 0);
}

TEST(unit_transport_peer_checks, wake_sockets_must_be_datagram_pairs_of_the_peer)
{
    const pid_t me = getpid();
    wake_listener l;
    unique_fd send_end;
    ASSERT_EQ(wake_listener::create(l, send_end), DOCA_SUCCESS);
    EXPECT_EQ(check_wake_socket(send_end.get(), me), nullptr);
    // Created by another process than the one the kernel says is the peer.
    EXPECT_NE(check_wake_socket(send_end.get(), me + 1), nullptr);
    // An eventfd, a pipe, a stream pair, an unconnected datagram socket.
    unique_fd efd(eventfd(0, EFD_CLOEXEC));
    EXPECT_NE(check_wake_socket(efd.get(), me), nullptr);
    int p[2];
    ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
    unique_fd pr(p[0]), pw(p[1]);
    EXPECT_NE(check_wake_socket(pw.get(), me), nullptr);
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    unique_fd s0(sv[0]), s1(sv[1]);
    EXPECT_NE(check_wake_socket(s0.get(), me), nullptr);
    unique_fd lone(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    EXPECT_NE(check_wake_socket(lone.get(), me), nullptr);

    // A socket pair made by a child: its SO_PEERCRED names the child.
    int ctl[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        wake_listener cl;
        unique_fd end;
        if (wake_listener::create(cl, end) != DOCA_SUCCESS)
            _exit(1);
        char b = 0;
        iovec iov{&b, 1};
        alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int))] = {};
        msghdr m{};
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = buf;
        m.msg_controllen = sizeof buf;
        cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        const int fd = end.get();
        std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
        _exit(sendmsg(ctl[1], &m, 0) == 1 ? 0 : 2);
    }
    char b = 0;
    iovec iov{&b, 1};
    alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int))] = {};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = buf;
    m.msg_controllen = sizeof buf;
    ASSERT_EQ(recvmsg(ctl[0], &m, MSG_CMSG_CLOEXEC), 1);
    int got = -1;
    std::memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof got);
    unique_fd theirs(got);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_EQ(status, 0);
    EXPECT_EQ(check_wake_socket(theirs.get(), child), nullptr);
    EXPECT_NE(check_wake_socket(theirs.get(), me), nullptr);
    close(ctl[0]);
    close(ctl[1]);
}

TEST(unit_transport_peer_checks, a_wake_up_never_blocks_whatever_the_peer_does)
{
    // The sleeper created the pair and holds both the socket and its send end: it may clear
    // O_NONBLOCK on the shared file and never drain. The waker's signals still return at once.
    wake_listener l;
    unique_fd send_end;
    ASSERT_EQ(wake_listener::create(l, send_end), DOCA_SUCCESS);
    const int flags = fcntl(send_end.get(), F_GETFL);
    ASSERT_EQ(fcntl(send_end.get(), F_SETFL, flags & ~O_NONBLOCK), 0);
    ASSERT_EQ(fcntl(l.fd(), F_SETFL, fcntl(l.fd(), F_GETFL) & ~O_NONBLOCK), 0);
    wake_target t;
    ASSERT_EQ(wake_target::adopt(unique_fd(fcntl(send_end.get(), F_DUPFD_CLOEXEC, 0)), getpid(), t),
              nullptr);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 10000; ++i)
        t.signal(); // the socket fills after a few hundred: EAGAIN, not a wait
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    // The sleeper's drain is bounded and never blocks either (its own end, MSG_DONTWAIT).
    EXPECT_TRUE(l.drain());
    while (l.drain()) {
    }
    EXPECT_FALSE(l.drain());
    // The sleeper closed its end: no SIGPIPE (the test would die), nothing to report.
    l.reset();
    t.signal();
    // A refused descriptor leaves the target empty.
    wake_target bad;
    unique_fd efd(eventfd(0, EFD_CLOEXEC));
    EXPECT_NE(wake_target::adopt(std::move(efd), getpid(), bad), nullptr);
    EXPECT_FALSE(bad);
}

TEST(unit_transport_peer_checks, identity_comes_from_the_kernel)
{
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    unique_fd a(sv[0]), b(sv[1]);
    peer_identity id;
    ASSERT_EQ(identify_peer(a.get(), id), DOCA_SUCCESS);
    EXPECT_EQ(id.pid, getpid());
    EXPECT_EQ(id.uid, geteuid());
    const unique_fd pidfd_of_peer = peer_pidfd(a.get(), id.pid);
    EXPECT_TRUE(pidfd_of_peer);
    EXPECT_TRUE(peer_running(pidfd_of_peer.get()));
    EXPECT_TRUE(peer_uid_allowed(geteuid()));
    EXPECT_TRUE(peer_uid_allowed(0));
    EXPECT_FALSE(peer_uid_allowed(geteuid() == 12345 ? 12346 : 12345));
    unique_fd efd(eventfd(0, EFD_CLOEXEC));
    EXPECT_NE(identify_peer(efd.get(), id), DOCA_SUCCESS);

    // Pids in messages: ours matches, anything else does not.
    EXPECT_TRUE(claimed_pid_matches(getpid(), uint32_t(getpid())));
    EXPECT_FALSE(claimed_pid_matches(getpid(), uint32_t(getpid()) + 1));
    EXPECT_FALSE(claimed_pid_matches(getpid(), 0));
    EXPECT_FALSE(claimed_pid_matches(0, uint32_t(getpid())));

    // A pidfd outlives its process and then says so: no write to a reused pid.
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0)
        _exit(0);
    const int pfd = int(syscall(SYS_pidfd_open, child, 0));
    ASSERT_GE(pfd, 0);
    unique_fd pidfd(pfd);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_FALSE(peer_running(pidfd.get()));
    EXPECT_TRUE(peer_running(-1)); // no pidfd: nothing better is known
}
