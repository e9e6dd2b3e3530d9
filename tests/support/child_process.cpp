// SPDX-License-Identifier: Apache-2.0
#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <thread>

namespace sc_test {

using clock = std::chrono::steady_clock;

// ---- child processes ----

void die_with_parent(pid_t parent) noexcept
{
    // A test killed by its timeout must not leave children behind: one blocked on a pipe for
    // ever held the build lock of everyone on the machine. Kept across exec.
    (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) // the parent died before the prctl
        ::_exit(97);
}

pid_t spawn(const std::function<int()> &body)
{
    fflush(stdout);
    fflush(stderr);
    const pid_t parent = ::getpid();
    pid_t pid = fork();
    if (pid == 0) {
        die_with_parent(parent);
        int rc = 99;
        try {
            rc = body();
        } catch (...) {
            rc = 98;
        }
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    return pid;
}

int wait_child(pid_t pid, std::chrono::milliseconds timeout)
{
    return wait_child(
        pid, [] { std::this_thread::sleep_for(1ms); }, timeout);
}

int wait_child(pid_t pid, const std::function<void()> &meanwhile, std::chrono::milliseconds timeout)
{
    auto end = clock::now() + timeout;
    for (;;) {
        int st = 0;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (clock::now() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        meanwhile();
    }
}

gate::gate()
{
    if (::pipe2(fd_, O_CLOEXEC) != 0)
        fd_[0] = fd_[1] = -1;
}

gate::~gate()
{
    for (int f : fd_)
        if (f >= 0)
            ::close(f);
}

void gate::open()
{
    (void)!::write(fd_[1], "g", 1);
}

bool gate::opened() const
{
    return wait(0ms);
}

bool gate::wait(std::chrono::milliseconds timeout) const
{
    pollfd p{fd_[0], POLLIN, 0};
    return ::poll(&p, 1, int(timeout.count())) == 1;
}

void use_private_fabric(const std::string &tag)
{
    std::string clean;
    for (char ch : tag)
        clean += (isalnum((unsigned char)ch) || ch == '.' || ch == '_' || ch == '-') ? ch : '-';
    std::string name = "t-" + clean.substr(0, 40) + "-" + std::to_string(getpid());
    setenv("SOFTCOMCH_FABRIC", name.c_str(), 1);
}

} // namespace sc_test
