// SPDX-License-Identifier: Apache-2.0
#include "child_process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/posix.hpp"

namespace softcomch::tools {

namespace {

std::vector<char *> c_strings(std::vector<std::string> &v)
{
    std::vector<char *> out;
    out.reserve(v.size() + 1);
    for (auto &s : v)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

} // namespace

signal_scope::signal_scope()
{
    sigset_t handled;
    sigemptyset(&handled);
    for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP})
        sigaddset(&handled, s);
    if (sigprocmask(SIG_BLOCK, &handled, &old_mask_) != 0)
        return;
    blocked_ = true;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    pipe_changed_ = sigaction(SIGPIPE, &ignore, &old_pipe_) == 0;
    fd_.reset(signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC));
}

signal_scope::~signal_scope()
{
    fd_.reset();
    if (pipe_changed_)
        sigaction(SIGPIPE, &old_pipe_, nullptr);
    if (blocked_) {
        // Discard what is still pending for us (SIGCHLD of reaped children) before unblocking;
        // a pending SIGINT/SIGTERM was already forwarded and acted upon.
        sigset_t pending;
        sigpending(&pending);
        for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) {
            if (sigismember(&pending, s) == 1 && sigismember(&old_mask_, s) != 1) {
                struct timespec zero {};
                sigset_t one;
                sigemptyset(&one);
                sigaddset(&one, s);
                sigtimedwait(&one, nullptr, &zero);
            }
        }
        sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
    }
}

std::string spawn(child &c, std::vector<std::string> argv, std::vector<std::string> env,
                  const sigset_t &child_mask)
{
    if (argv.empty())
        return "no command";
    int out_pipe[2];
    int err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0)
        return std::string("pipe: ") + std::strerror(errno);
    unique_fd out_r(out_pipe[0]), out_w(out_pipe[1]);
    if (pipe2(err_pipe, O_CLOEXEC) != 0)
        return std::string("pipe: ") + std::strerror(errno);
    unique_fd err_r(err_pipe[0]), err_w(err_pipe[1]);
    unique_fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!null_in)
        return std::string("/dev/null: ") + std::strerror(errno);

    std::vector<char *> argv_c = c_strings(argv);
    std::vector<char *> env_c = c_strings(env);
    pid_t parent = getpid();

    pid_t pid = fork();
    if (pid < 0)
        return std::string("fork: ") + std::strerror(errno);
    if (pid == 0) {
        // Child. The parent is single-threaded, so anything goes until exec.
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        dup2(null_in.get(), STDIN_FILENO);
        dup2(out_w.get(), STDOUT_FILENO);
        dup2(err_w.get(), STDERR_FILENO);
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(SIGPIPE, &dfl, nullptr);
        sigprocmask(SIG_SETMASK, &child_mask, nullptr);
        execve(argv_c[0], argv_c.data(), env_c.data());
        std::string msg =
            "softcomch: cannot execute " + argv[0] + ": " + std::strerror(errno) + "\n";
        (void)softcomch::write_all(STDERR_FILENO, msg);
        _exit(127);
    }
    // Parent. Setting the group here as well closes the race with the child's own setpgid().
    setpgid(pid, pid);
    c.pid = pid;
    c.status.started = true;
    c.out.fd = std::move(out_r);
    c.out.kind = stream_kind::out;
    c.err.fd = std::move(err_r);
    c.err.kind = stream_kind::err;
    for (int fd : {c.out.fd.get(), c.err.fd.get()})
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return {};
}

void signal_child(const child &c, int sig)
{
    if (!c.running())
        return;
    if (kill(-c.pid, sig) != 0)
        kill(c.pid, sig);
}

void reap(child &c)
{
    if (!c.running())
        return;
    int status = 0;
    pid_t r = waitpid(c.pid, &status, WNOHANG);
    if (r == c.pid) {
        c.status.exited = true;
        c.status.wait_status = status;
    }
}

} // namespace softcomch::tools
