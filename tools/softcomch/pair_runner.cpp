// SPDX-License-Identifier: Apache-2.0
#include "pair_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <random>

#include "command.hpp"
#include "common/clock.hpp"
#include "common/posix.hpp"
#include "common/unique_fd.hpp"
#include "transport/fabric.hpp"

extern char **environ;

namespace softcomch::tools {

namespace {

constexpr uint64_t ms = 1000000;              // nanoseconds
constexpr uint64_t kill_grace_ns = 2000 * ms; // SIGTERM, then SIGKILL after this long
constexpr uint64_t ready_poll_ns = 5 * ms;    // how often the fabric is checked for a server
constexpr uint64_t drain_grace_ns = 200 * ms; // output still arriving after both exited
constexpr size_t max_line = 64 * 1024;        // longer "lines" are cut into pieces

uint64_t seconds_to_ns(double s)
{
    return uint64_t(s * 1e9);
}

std::string format_seconds(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3g s", s);
    return buf;
}

void default_sink(side s, stream_kind k, std::string_view line)
{
    std::string buf;
    buf.reserve(line.size() + 8);
    buf += '[';
    buf += side_name(s);
    buf += "] ";
    buf += line;
    buf += '\n';
    (void)softcomch::write_all(k == stream_kind::out ? STDOUT_FILENO : STDERR_FILENO,
                               buf); // a closed stdout: nothing to do
}

// One output stream of a child, split into lines.
struct output_pipe {
    unique_fd fd;
    stream_kind kind = stream_kind::out;
    std::string pending;
};

struct child {
    side who;
    pid_t pid = -1;
    child_status status;
    output_pipe out;
    output_pipe err;

    bool running() const noexcept { return status.started && !status.exited; }
};

// Blocks the signals the loop handles, routes them to a signalfd and ignores SIGPIPE (a
// relayed line written to a closed stdout must not kill us); everything is undone on exit.
class signal_scope {
public:
    signal_scope()
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
    ~signal_scope()
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
    signal_scope(const signal_scope &) = delete;
    signal_scope &operator=(const signal_scope &) = delete;

    bool ok() const noexcept { return blocked_ && bool(fd_); }
    int fd() const noexcept { return fd_.get(); }
    const sigset_t &child_mask() const noexcept { return old_mask_; }

private:
    sigset_t old_mask_{};
    struct sigaction old_pipe_ {};
    bool blocked_ = false;
    bool pipe_changed_ = false;
    unique_fd fd_;
};

std::string private_fabric_name()
{
    std::random_device rd;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "run-%d-%08x", int(getpid()), unsigned(rd()));
    return buf;
}

// The parent's environment minus SOFTCOMCH_FABRIC, SOFTCOMCH_SIDE and cfg.unset_env, plus
// the run's values of the first two.
std::vector<std::string> child_environment(const pair_config &cfg, const std::string &fabric,
                                           side who)
{
    auto dropped = [&](std::string_view entry) {
        std::string_view name = entry.substr(0, entry.find('='));
        if (name == "SOFTCOMCH_FABRIC" || name == "SOFTCOMCH_SIDE")
            return true;
        return std::find(cfg.unset_env.begin(), cfg.unset_env.end(), name) != cfg.unset_env.end();
    };
    std::vector<std::string> env;
    for (char **e = environ; e && *e; ++e)
        if (!dropped(*e))
            env.emplace_back(*e);
    env.push_back("SOFTCOMCH_FABRIC=" + fabric);
    env.push_back("SOFTCOMCH_SIDE=" + std::string(side_name(who)));
    return env;
}

std::vector<char *> c_strings(std::vector<std::string> &v)
{
    std::vector<char *> out;
    out.reserve(v.size() + 1);
    for (auto &s : v)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// Forks and execs one side. Returns an empty string or why it could not.
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

// Sends `sig` to the child's process group (the child itself if the group is gone).
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

class relay {
public:
    explicit relay(const pair_config &cfg)
        : sink_(cfg.on_line ? cfg.on_line : line_sink(default_sink))
    {}

    // Reads what is available; closes the pipe at end of file. Returns whether it is still open.
    bool pump(side who, output_pipe &p)
    {
        char buf[16384];
        for (;;) {
            ssize_t n = ::read(p.fd.get(), buf, sizeof(buf));
            if (n > 0) {
                p.pending.append(buf, size_t(n));
                emit_lines(who, p);
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return true;
            close(who, p); // end of file or error
            return false;
        }
    }

    // Flushes a partial last line and closes.
    void close(side who, output_pipe &p)
    {
        if (!p.pending.empty())
            sink_(who, p.kind, p.pending);
        p.pending.clear();
        p.fd.reset();
    }

private:
    void emit_lines(side who, output_pipe &p)
    {
        size_t start = 0;
        for (;;) {
            size_t nl = p.pending.find('\n', start);
            if (nl == std::string::npos)
                break;
            sink_(who, p.kind, std::string_view(p.pending).substr(start, nl - start));
            start = nl + 1;
        }
        p.pending.erase(0, start);
        while (p.pending.size() >= max_line) {
            sink_(who, p.kind, std::string_view(p.pending).substr(0, max_line));
            p.pending.erase(0, max_line);
        }
    }

    line_sink sink_;
};

const char *signal_abbrev(int sig)
{
    const char *name = sigabbrev_np(sig);
    return name ? name : "?";
}

} // namespace

std::string_view side_name(side s) noexcept
{
    return s == side::dpu ? "dpu" : "host";
}

std::vector<std::string> shell_command(const std::string &command)
{
    return {"/bin/sh", "-c", command};
}

bool child_status::success() const noexcept
{
    return started && exited && WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

std::string child_status::describe() const
{
    if (!started)
        return "not started";
    if (!exited)
        return "still running";
    if (WIFEXITED(wait_status))
        return "exited " + std::to_string(WEXITSTATUS(wait_status));
    if (WIFSIGNALED(wait_status))
        return std::string("killed by SIG") + signal_abbrev(WTERMSIG(wait_status));
    return "ended";
}

int pair_result::exit_code() const noexcept
{
    switch (outcome) {
    case pair_outcome::completed:
        return success() ? exit_ok : exit_failure;
    case pair_outcome::not_ready:
        return exit_not_ready;
    case pair_outcome::timed_out:
        return exit_timeout;
    case pair_outcome::interrupted:
        return 128 + signal;
    case pair_outcome::setup_failed:
        break;
    }
    return exit_failure;
}

std::string pair_result::summary() const
{
    char elapsed[32];
    std::snprintf(elapsed, sizeof(elapsed), "%.2f s", elapsed_s);
    return "dpu " + dpu.describe() + ", host " + host.describe() + " (" + elapsed + ")";
}

pair_result run_pair(const pair_config &cfg)
{
    pair_result r;
    const uint64_t t0 = now_ns();
    auto elapsed_s = [&] {
        return double(now_ns() - t0) / 1e9;
    };
    auto say = [&](const std::string &msg) {
        std::fprintf(stderr, "%s: %s\n", cfg.tag.c_str(), msg.c_str());
    };

    // ---- the fabric ----
    const bool private_fabric = cfg.fabric.empty();
    r.fabric = private_fabric ? private_fabric_name() : cfg.fabric;
    if (!transport::valid_fabric_name(r.fabric)) {
        r.detail = "invalid fabric name '" + r.fabric + "' (allowed: 1 to 64 of A-Z a-z 0-9 . _ -)";
        return r;
    }
    std::string dir;
    try {
        dir = transport::fabric_dir(r.fabric);
    } catch (const std::exception &e) {
        r.detail = "cannot create the fabric directory: " + std::string(e.what());
        return r;
    }
    struct fabric_remover {
        const std::string &path;
        bool active;
        ~fabric_remover()
        {
            std::error_code ec;
            if (active)
                std::filesystem::remove_all(path, ec);
        }
    } remover{dir, private_fabric};
    if (cfg.verbose)
        say("fabric " + r.fabric + " (" + dir + ")");

    signal_scope signals;
    if (!signals.ok()) {
        r.detail = std::string("cannot set up signal handling: ") + std::strerror(errno);
        return r;
    }

    child dpu{side::dpu};
    child host{side::host};
    relay out(cfg);

    std::string error =
        spawn(dpu, cfg.dpu_argv, child_environment(cfg, r.fabric, side::dpu), signals.child_mask());
    if (!error.empty()) {
        r.detail = "cannot start the DPU side: " + error;
        return r;
    }
    if (cfg.verbose)
        say("DPU side started (pid " + std::to_string(dpu.pid) + "); waiting for its server");

    // ---- the loop ----
    const uint64_t overall_deadline = t0 + seconds_to_ns(cfg.timeout_s);
    const uint64_t ready_deadline = t0 + seconds_to_ns(cfg.ready_timeout_s);
    bool waiting_ready = true;
    bool outcome_set = false;
    bool terminating = false;
    uint64_t kill_at = 0;     // 0: no SIGKILL scheduled
    uint64_t drain_until = 0; // 0: children not all gone yet
    uint64_t next_ready_check = 0;
    std::string endpoint_error;

    auto set_outcome = [&](pair_outcome o, std::string detail) {
        if (outcome_set)
            return;
        outcome_set = true;
        r.outcome = o;
        r.detail = std::move(detail);
        if (cfg.report)
            say(r.detail);
    };
    auto terminate_all = [&](int sig) {
        terminating = true;
        for (child *c : {&dpu, &host})
            signal_child(*c, sig);
        if (kill_at == 0)
            kill_at = now_ns() + kill_grace_ns;
    };
    auto still_running = [&] {
        std::string s;
        for (child *c : {&dpu, &host}) {
            if (c->running())
                s += (s.empty() ? "" : ", ") + std::string(side_name(c->who));
        }
        if (!host.status.started)
            s += " (host not started)";
        return s.empty() ? std::string("nothing") : s;
    };

    for (;;) {
        reap(dpu);
        reap(host);
        uint64_t now = now_ns();

        // Readiness: the DPU side has a server endpoint in the fabric.
        if (waiting_ready && !terminating && now >= next_ready_check) {
            next_ready_check = now + ready_poll_ns;
            bool ready = false;
            try {
                ready = !transport::list_endpoints(dir).empty();
            } catch (const std::exception &e) {
                endpoint_error = e.what();
            }
            if (ready) {
                waiting_ready = false;
                r.ready_s = elapsed_s();
                if (cfg.verbose)
                    say("DPU side listening after " + format_seconds(r.ready_s) +
                        "; starting the host side");
                error = spawn(host, cfg.host_argv, child_environment(cfg, r.fabric, side::host),
                              signals.child_mask());
                if (!error.empty()) {
                    set_outcome(pair_outcome::setup_failed, "cannot start the host side: " + error);
                    terminate_all(SIGTERM);
                }
            } else if (dpu.status.exited) {
                waiting_ready = false;
                set_outcome(pair_outcome::not_ready, "the DPU side " + dpu.status.describe() +
                                                         " before a Comch server was listening");
            } else if (now >= ready_deadline) {
                waiting_ready = false;
                std::string why = "the DPU side did not start a Comch server within " +
                                  format_seconds(cfg.ready_timeout_s);
                if (!endpoint_error.empty())
                    why += " (reading the fabric failed: " + endpoint_error + ")";
                set_outcome(pair_outcome::not_ready, why);
                terminate_all(SIGTERM);
            }
        }

        if (!terminating && now >= overall_deadline) {
            set_outcome(pair_outcome::timed_out, "timed out after " +
                                                     format_seconds(cfg.timeout_s) +
                                                     "; still running: " + still_running());
            terminate_all(SIGTERM);
        }
        if (kill_at != 0 && now >= kill_at) {
            for (child *c : {&dpu, &host}) {
                if (c->running() && cfg.report)
                    say("the " + std::string(side_name(c->who)) +
                        " side is still running 2 s after being signalled; sending SIGKILL");
                signal_child(*c, SIGKILL);
            }
            kill_at = 0;
        }

        // Both gone: let their output drain a little (a background grandchild may hold a pipe).
        bool all_gone = !dpu.running() && !host.running() && !(waiting_ready && !terminating);
        std::vector<std::pair<child *, output_pipe *>> open;
        for (child *c : {&dpu, &host})
            for (output_pipe *p : {&c->out, &c->err})
                if (p->fd)
                    open.emplace_back(c, p);
        if (all_gone) {
            if (open.empty())
                break;
            if (drain_until == 0) {
                drain_until = now + drain_grace_ns;
            } else if (now >= drain_until) {
                for (auto [c, p] : open) {
                    // The group still has a member holding the pipe, so its id is still ours.
                    kill(-c->pid, SIGTERM);
                    out.close(c->who, *p);
                }
                break;
            }
        }

        // Sleep until something happens or the next deadline.
        uint64_t wake = now + 1000 * ms;
        if (waiting_ready && !terminating)
            wake = std::min(wake, next_ready_check);
        if (!terminating)
            wake = std::min(wake, overall_deadline);
        if (kill_at != 0)
            wake = std::min(wake, kill_at);
        if (drain_until != 0)
            wake = std::min(wake, drain_until);
        int timeout_ms = wake > now ? int((wake - now + ms - 1) / ms) : 0;

        std::vector<pollfd> fds;
        fds.push_back({signals.fd(), POLLIN, 0});
        for (auto [c, p] : open)
            fds.push_back({p->fd.get(), POLLIN, 0});
        int n = ::poll(fds.data(), fds.size(), timeout_ms);
        if (n < 0 && errno != EINTR) {
            set_outcome(pair_outcome::setup_failed, std::string("poll: ") + std::strerror(errno));
            terminate_all(SIGKILL);
            continue;
        }
        if (n <= 0)
            continue;

        if (fds[0].revents & POLLIN) {
            signalfd_siginfo info;
            while (::read(signals.fd(), &info, sizeof(info)) == ssize_t(sizeof(info))) {
                int sig = int(info.ssi_signo);
                if (sig == SIGCHLD)
                    continue; // reaped at the top of the loop
                if (r.outcome == pair_outcome::interrupted && outcome_set) {
                    // A second interrupt: stop waiting politely.
                    for (child *c : {&dpu, &host})
                        signal_child(*c, SIGKILL);
                    continue;
                }
                r.signal = sig;
                set_outcome(pair_outcome::interrupted, std::string("received SIG") +
                                                           signal_abbrev(sig) +
                                                           "; passing it on to " + still_running());
                waiting_ready = false;
                terminating = true;
                for (child *c : {&dpu, &host})
                    signal_child(*c, sig);
                if (kill_at == 0)
                    kill_at = now_ns() + kill_grace_ns;
            }
        }
        for (size_t i = 1; i < fds.size(); ++i) {
            if (fds[i].revents != 0)
                out.pump(open[i - 1].first->who, *open[i - 1].second);
        }
    }

    if (!outcome_set)
        r.outcome = pair_outcome::completed;
    r.dpu = dpu.status;
    r.host = host.status;
    r.elapsed_s = elapsed_s();
    return r;
}

} // namespace softcomch::tools
