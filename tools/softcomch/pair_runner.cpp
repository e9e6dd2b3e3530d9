// SPDX-License-Identifier: Apache-2.0
//
// run_pair(): the fabric, the two children (child_process.hpp), and one poll() loop that relays
// their output and watches readiness, deadlines and signals. The loop's steps are the methods of
// pair_run below, in the order one round calls them.
#include "pair_runner.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <random>
#include <utility>

#include "child_process.hpp"
#include "command.hpp"
#include "common/clock.hpp"
#include "common/posix.hpp"
#include "introspect/fabric.hpp"

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

std::string private_fabric_name()
{
    std::random_device rd;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "run-%d-%08x", int(getpid()), unsigned(rd()));
    return buf;
}

// The parent's environment minus SOFTCOMCH_FABRIC, SOFTCOMCH_SIDE, cfg.unset_env and the names
// of cfg.set_env, plus the run's values of the first two and cfg.set_env.
std::vector<std::string> child_environment(const pair_config &cfg, const std::string &fabric,
                                           side who)
{
    auto dropped = [&](std::string_view entry) {
        std::string_view name = entry.substr(0, entry.find('='));
        if (name == "SOFTCOMCH_FABRIC" || name == "SOFTCOMCH_SIDE")
            return true;
        for (const std::string &s : cfg.set_env)
            if (std::string_view(s).substr(0, s.find('=')) == name)
                return true;
        return std::find(cfg.unset_env.begin(), cfg.unset_env.end(), name) != cfg.unset_env.end();
    };
    std::vector<std::string> env;
    for (char **e = environ; e && *e; ++e)
        if (!dropped(*e))
            env.emplace_back(*e);
    env.push_back("SOFTCOMCH_FABRIC=" + fabric);
    env.push_back("SOFTCOMCH_SIDE=" + std::string(side_name(who)));
    env.insert(env.end(), cfg.set_env.begin(), cfg.set_env.end());
    return env;
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

// Removes a private fabric's directory when the run ends.
struct fabric_remover {
    std::string path;
    bool active = false;
    ~fabric_remover()
    {
        std::error_code ec;
        if (active)
            std::filesystem::remove_all(path, ec);
    }
};

// One run of a pair. Members are declared in the order they are set up, so that they are torn
// down in reverse: the children's pipes, then the signal state, then the private fabric.
class pair_run {
public:
    explicit pair_run(const pair_config &cfg)
        : cfg_(cfg), t0_(now_ns()), overall_deadline_(t0_ + seconds_to_ns(cfg.timeout_s)),
          ready_deadline_(t0_ + seconds_to_ns(cfg.ready_timeout_s)), out_(cfg)
    {}

    pair_result run()
    {
        if (!prepare_fabric() || !start_dpu())
            return r_;
        for (;;) {
            reap(dpu_);
            reap(host_);
            const uint64_t now = now_ns();
            if (waiting_ready_ && !terminating_ && now >= next_ready_check_)
                check_ready(now);
            check_deadlines(now);
            const std::vector<open_pipe> open = open_pipes();
            if (all_gone() && drained(now, open))
                break;
            wait_and_relay(now, open);
        }
        if (!outcome_set_)
            r_.outcome = pair_outcome::completed;
        r_.dpu = dpu_.status;
        r_.host = host_.status;
        r_.elapsed_s = elapsed_s();
        return r_;
    }

private:
    using open_pipe = std::pair<child *, output_pipe *>;

    double elapsed_s() const { return double(now_ns() - t0_) / 1e9; }

    void say(const std::string &msg) const
    {
        std::fprintf(stderr, "%s: %s\n", cfg_.tag.c_str(), msg.c_str());
    }

    // The fabric: a private one (removed at the end) or the one asked for, created if needed.
    bool prepare_fabric()
    {
        const bool private_fabric = cfg_.fabric.empty();
        r_.fabric = private_fabric ? private_fabric_name() : cfg_.fabric;
        if (!introspect::valid_fabric_name(r_.fabric)) {
            r_.detail =
                "invalid fabric name '" + r_.fabric + "' (allowed: 1 to 64 of A-Z a-z 0-9 . _ -)";
            return false;
        }
        try {
            dir_ = introspect::create_fabric_dir(r_.fabric);
        } catch (const std::exception &e) {
            r_.detail = "cannot create the fabric directory: " + std::string(e.what());
            return false;
        }
        remover_.path = dir_;
        remover_.active = private_fabric;
        if (cfg_.verbose)
            say("fabric " + r_.fabric + " (" + dir_ + ")");
        return true;
    }

    // Signal handling, then the DPU side.
    bool start_dpu()
    {
        signals_.emplace();
        if (!signals_->ok()) {
            r_.detail = std::string("cannot set up signal handling: ") + std::strerror(errno);
            return false;
        }
        const std::string error =
            spawn(dpu_, cfg_.dpu_argv, child_environment(cfg_, r_.fabric, side::dpu),
                  signals_->child_mask());
        if (!error.empty()) {
            r_.detail = "cannot start the DPU side: " + error;
            return false;
        }
        if (cfg_.verbose)
            say("DPU side started (pid " + std::to_string(dpu_.pid) + "); waiting for its server");
        return true;
    }

    // Readiness: the DPU side has a server endpoint in the fabric. Then the host side starts;
    // a DPU side that exits or runs out of time first ends the run.
    void check_ready(uint64_t now)
    {
        next_ready_check_ = now + ready_poll_ns;
        bool ready = false;
        try {
            ready = !introspect::live_endpoints(dir_).empty();
        } catch (const std::exception &e) {
            endpoint_error_ = e.what();
        }
        if (ready) {
            waiting_ready_ = false;
            r_.ready_s = elapsed_s();
            if (cfg_.verbose)
                say("DPU side listening after " + format_seconds(r_.ready_s) +
                    "; starting the host side");
            const std::string error =
                spawn(host_, cfg_.host_argv, child_environment(cfg_, r_.fabric, side::host),
                      signals_->child_mask());
            if (!error.empty()) {
                set_outcome(pair_outcome::setup_failed, "cannot start the host side: " + error);
                terminate_all(SIGTERM);
            }
        } else if (dpu_.status.exited) {
            waiting_ready_ = false;
            set_outcome(pair_outcome::not_ready, "the DPU side " + dpu_.status.describe() +
                                                     " before a Comch server was listening");
        } else if (now >= ready_deadline_) {
            waiting_ready_ = false;
            std::string why = "the DPU side did not start a Comch server within " +
                              format_seconds(cfg_.ready_timeout_s);
            if (!endpoint_error_.empty())
                why += " (reading the fabric failed: " + endpoint_error_ + ")";
            set_outcome(pair_outcome::not_ready, why);
            terminate_all(SIGTERM);
        }
    }

    // The run's --timeout, and SIGKILL for a side still running 2 s after being signalled.
    void check_deadlines(uint64_t now)
    {
        if (!terminating_ && now >= overall_deadline_) {
            set_outcome(pair_outcome::timed_out, "timed out after " +
                                                     format_seconds(cfg_.timeout_s) +
                                                     "; still running: " + still_running());
            terminate_all(SIGTERM);
        }
        if (kill_at_ != 0 && now >= kill_at_) {
            for (child *c : {&dpu_, &host_}) {
                if (c->running() && cfg_.report)
                    say("the " + std::string(side_name(c->who)) +
                        " side is still running 2 s after being signalled; sending SIGKILL");
                signal_child(*c, SIGKILL);
            }
            kill_at_ = 0;
        }
    }

    std::vector<open_pipe> open_pipes()
    {
        std::vector<open_pipe> open;
        for (child *c : {&dpu_, &host_})
            for (output_pipe *p : {&c->out, &c->err})
                if (p->fd)
                    open.emplace_back(c, p);
        return open;
    }

    // Both sides gone (and the host side not still to be started).
    bool all_gone() const
    {
        return !dpu_.running() && !host_.running() && !(waiting_ready_ && !terminating_);
    }

    // Once both are gone, their output gets a little time to drain (a background grandchild may
    // hold a pipe); then whoever still holds one is sent SIGTERM. True when the run is over.
    bool drained(uint64_t now, const std::vector<open_pipe> &open)
    {
        if (open.empty())
            return true;
        if (drain_until_ == 0) {
            drain_until_ = now + drain_grace_ns;
            return false;
        }
        if (now < drain_until_)
            return false;
        for (auto [c, p] : open) {
            // The group still has a member holding the pipe, so its id is still ours.
            kill(-c->pid, SIGTERM);
            out_.close(c->who, *p);
        }
        return true;
    }

    // How long the loop may sleep: until the next deadline, at most 1 s.
    int poll_timeout_ms(uint64_t now) const
    {
        uint64_t wake = now + 1000 * ms;
        if (waiting_ready_ && !terminating_)
            wake = std::min(wake, next_ready_check_);
        if (!terminating_)
            wake = std::min(wake, overall_deadline_);
        if (kill_at_ != 0)
            wake = std::min(wake, kill_at_);
        if (drain_until_ != 0)
            wake = std::min(wake, drain_until_);
        return wake > now ? int((wake - now + ms - 1) / ms) : 0;
    }

    // Sleeps until a signal, output or the next deadline; handles what came.
    void wait_and_relay(uint64_t now, const std::vector<open_pipe> &open)
    {
        std::vector<pollfd> fds;
        fds.push_back({signals_->fd(), POLLIN, 0});
        for (auto [c, p] : open)
            fds.push_back({p->fd.get(), POLLIN, 0});
        const int n = ::poll(fds.data(), fds.size(), poll_timeout_ms(now));
        if (n < 0 && errno != EINTR) {
            set_outcome(pair_outcome::setup_failed, std::string("poll: ") + std::strerror(errno));
            terminate_all(SIGKILL);
            return;
        }
        if (n <= 0)
            return;
        if (fds[0].revents & POLLIN)
            on_signals();
        for (size_t i = 1; i < fds.size(); ++i) {
            if (fds[i].revents != 0)
                out_.pump(open[i - 1].first->who, *open[i - 1].second);
        }
    }

    // SIGINT, SIGTERM, SIGHUP: passed on to both sides; a second one sends SIGKILL.
    void on_signals()
    {
        signalfd_siginfo info;
        while (::read(signals_->fd(), &info, sizeof(info)) == ssize_t(sizeof(info))) {
            const int sig = int(info.ssi_signo);
            if (sig == SIGCHLD)
                continue; // reaped at the top of the loop
            if (r_.outcome == pair_outcome::interrupted && outcome_set_) {
                // A second interrupt: stop waiting politely.
                for (child *c : {&dpu_, &host_})
                    signal_child(*c, SIGKILL);
                continue;
            }
            r_.signal = sig;
            set_outcome(pair_outcome::interrupted, std::string("received SIG") +
                                                       signal_abbrev(sig) + "; passing it on to " +
                                                       still_running());
            waiting_ready_ = false;
            terminate_all(sig);
        }
    }

    // The first outcome sticks.
    void set_outcome(pair_outcome o, std::string detail)
    {
        if (outcome_set_)
            return;
        outcome_set_ = true;
        r_.outcome = o;
        r_.detail = std::move(detail);
        if (cfg_.report)
            say(r_.detail);
    }

    void terminate_all(int sig)
    {
        terminating_ = true;
        for (child *c : {&dpu_, &host_})
            signal_child(*c, sig);
        if (kill_at_ == 0)
            kill_at_ = now_ns() + kill_grace_ns;
    }

    std::string still_running() const
    {
        std::string s;
        for (const child *c : {&dpu_, &host_}) {
            if (c->running())
                s += (s.empty() ? "" : ", ") + std::string(side_name(c->who));
        }
        if (!host_.status.started)
            s += " (host not started)";
        return s.empty() ? std::string("nothing") : s;
    }

    const pair_config &cfg_;
    pair_result r_;
    const uint64_t t0_;
    const uint64_t overall_deadline_;
    const uint64_t ready_deadline_;
    std::string dir_;
    fabric_remover remover_;
    std::optional<signal_scope> signals_;
    child dpu_{side::dpu};
    child host_{side::host};
    relay out_;

    bool waiting_ready_ = true;
    bool outcome_set_ = false;
    bool terminating_ = false;
    uint64_t kill_at_ = 0;     // 0: no SIGKILL scheduled
    uint64_t drain_until_ = 0; // 0: children not all gone yet
    uint64_t next_ready_check_ = 0;
    std::string endpoint_error_;
};

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
    pair_run run(cfg);
    return run.run();
}

} // namespace softcomch::tools
