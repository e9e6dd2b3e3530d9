// SPDX-License-Identifier: Apache-2.0
//
// softcomch bench: finding the benchmark programs, running them one at a time (they pin CPUs)
// with a timeout each, and reading their records (bench/bench_report.hpp).
#include <doca_version.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../child_process.hpp"
#include "../build_tree.hpp"
#include "../paths.hpp"
#include "../system.hpp"
#include "bench.hpp"

extern char **environ;

namespace softcomch::tools::bench {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t0)
{
    return std::chrono::duration<double>(steady::now() - t0).count();
}

bool matches_any(const std::vector<std::string> &globs, const std::string &name)
{
    for (const auto &g : globs)
        if (::fnmatch(g.c_str(), name.c_str(), 0) == 0)
            return true;
    return false;
}

// Appends complete lines of `chunk` to `lines`, keeping an unfinished one in `pending`.
template <class Fn> void split_lines(std::string &pending, std::string_view chunk, Fn &&line)
{
    pending.append(chunk);
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
        line(std::string_view(pending).substr(start, nl - start));
    pending.erase(0, start);
}

std::string describe_status(int wait_status)
{
    if (WIFEXITED(wait_status))
        return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
    if (WIFSIGNALED(wait_status)) {
        const char *name = ::sigabbrev_np(WTERMSIG(wait_status));
        return std::string("killed by SIG") + (name ? name : std::to_string(WTERMSIG(wait_status)));
    }
    return "ended (status " + std::to_string(wait_status) + ")";
}

// Runs one program to its end or its timeout, feeding its stdout lines to add_line().
void run_one(run &r, program_run &p, double timeout_s)
{
    const auto t0 = steady::now();
    sigset_t mask;
    sigemptyset(&mask);
    sigprocmask(SIG_BLOCK, nullptr, &mask);
    std::vector<std::string> env;
    for (char **e = environ; e && *e; ++e)
        env.emplace_back(*e);
    std::vector<std::string> argv{p.path};
    argv.insert(argv.end(), p.args.begin(), p.args.end());
    child c;
    c.who = side::host;
    if (std::string why = spawn(c, argv, env, mask); !why.empty()) {
        p.status = "failed";
        p.reason = why;
        return;
    }
    std::vector<std::string> err_tail;
    bool out_open = true, err_open = true, timed_out = false;
    int wait_status = 0;
    bool exited = false;
    steady::time_point kill_at{};
    int kills = 0;
    while (out_open || err_open || !exited) {
        if (!exited) {
            const pid_t w = ::waitpid(c.pid, &wait_status, WNOHANG);
            if (w == c.pid)
                exited = true;
        }
        const double elapsed = seconds_since(t0);
        if (!timed_out && elapsed > timeout_s) {
            timed_out = true;
            kill_at = steady::now();
            ::kill(-c.pid, SIGTERM);
            ::kill(c.pid, SIGTERM);
            kills = 1;
        }
        if (timed_out && kills == 1 && seconds_since(kill_at) > 2) {
            ::kill(-c.pid, SIGKILL);
            ::kill(c.pid, SIGKILL);
            kills = 2;
        }
        if (timed_out && kills == 2 && seconds_since(kill_at) > 5)
            break; // something holds the pipes open and ignores SIGKILL's group: give up on it
        if (exited && !out_open && !err_open)
            break;
        if (!out_open && !err_open) {
            ::usleep(10000);
            continue;
        }
        pollfd fds[2] = {{out_open ? c.out.fd.get() : -1, POLLIN, 0},
                         {err_open ? c.err.fd.get() : -1, POLLIN, 0}};
        const int n = ::poll(fds, 2, 50);
        if (n < 0 && errno != EINTR)
            break;
        char buf[65536];
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                const std::string_view chunk(buf, size_t(got));
                if (i == 0)
                    split_lines(c.out.pending, chunk,
                                [&](std::string_view l) { add_line(r, p, l); });
                else
                    split_lines(c.err.pending, chunk, [&](std::string_view l) {
                        err_tail.emplace_back(l);
                        if (err_tail.size() > 3)
                            err_tail.erase(err_tail.begin());
                    });
            } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                (i == 0 ? out_open : err_open) = false;
            }
        }
    }
    if (!c.out.pending.empty())
        add_line(r, p, c.out.pending);
    if (!exited && ::waitpid(c.pid, &wait_status, WNOHANG) == c.pid)
        exited = true;
    if (!exited) { // reaped later by nobody: make sure it is gone
        ::kill(c.pid, SIGKILL);
        exited = ::waitpid(c.pid, &wait_status, 0) == c.pid;
    }
    p.seconds = seconds_since(t0);
    std::string stderr_text;
    for (const auto &l : err_tail)
        stderr_text += (stderr_text.empty() ? "" : " | ") + l;
    if (timed_out) {
        p.status = "timeout";
        std::ostringstream s;
        s << "timed out after " << timeout_s << " s";
        p.reason = s.str();
    } else if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
        p.status = "failed";
        p.reason = describe_status(wait_status);
    } else {
        p.status = "ok";
    }
    if (p.status != "ok" && !stderr_text.empty())
        p.reason += ": " + stderr_text;
}

std::string first_cpuinfo(const std::string &key)
{
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with(key))
            continue;
        const size_t colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
    }
    return {};
}

} // namespace

const std::vector<std::string_view> &program_order()
{
    // The probe; the API benchmarks; the transport alone (the ring, the fast path's copy:
    // what the API adds shows against these); the peers.
    static const std::vector<std::string_view> order{
        probe_program, "comch_rtt",  "comch_scale",    "comch_fastpath",
        "dma_copy",    "ring_bench", "fastpath_bench", "peer_ipc",
        "peer_ucx",    "peer_zmq",   "peer_iceoryx",
    };
    return order;
}

std::string default_programs_dir()
{
    const std::string self = self_dir();
    if (self.empty())
        return {};
    return (fs::path(self) / build_tree::libexec_from_bindir).lexically_normal().string();
}

std::string metrics_list_path()
{
    const std::string p = std::string(build_tree::source_bench_dir) + "/metrics.list";
    return *build_tree::source_bench_dir && ::access(p.c_str(), R_OK) == 0 ? p : std::string();
}

std::vector<std::string> read_metrics_list(const std::string &path)
{
    std::vector<std::string> out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        if (const size_t hash = line.find('#'); hash != std::string::npos)
            line.erase(hash);
        const size_t b = line.find_first_not_of(" \t\r");
        if (b == std::string::npos)
            continue;
        const size_t e = line.find_last_not_of(" \t\r");
        out.push_back(line.substr(b, e - b + 1));
    }
    return out;
}

double default_timeout(std::string_view mode)
{
    if (mode == "smoke")
        return 60;
    if (mode == "quick")
        return 120;
    return 1800;
}

bool add_line(run &r, program_run &p, std::string_view line)
{
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string_view::npos || line[b] == '#')
        return true; // empty, or a comment for the human reader
    auto bad = [&] {
        ++p.bad_lines;
        return false;
    };
    if (line[b] != '{')
        return bad();
    std::string err;
    json::value v = json::parse(line.substr(b), &err);
    if (!err.empty() || !v.is_object())
        return bad();
    if (const json::value *c = v.find("context"); c && c->is_string()) {
        v.set("program", p.name);
        r.contexts.push_back(std::move(v));
        return true;
    }
    const json::value *m = v.find("metric");
    if (!m || !m->is_string() || m->as_string().empty())
        return bad();
    record rec;
    rec.metric = m->as_string();
    rec.program = p.name;
    auto text = [&](const char *key, std::string &into) {
        if (const json::value *f = v.find(key); f && f->is_string())
            into = f->as_string();
    };
    if (const json::value *u = v.find("unavailable")) {
        rec.unavailable =
            u->is_string() && !u->as_string().empty() ? u->as_string() : "unavailable (no reason)";
    } else {
        const json::value *val = v.find("value");
        if (!val || !val->is_number())
            return bad();
        rec.value = val->as_double();
    }
    text("unit", rec.unit);
    text("better", rec.better);
    text("subject", rec.subject);
    text("group", rec.group);
    text("mode", rec.mode);
    text("baseline", rec.baseline);
    if (const json::value *s = v.find("size"); s && s->is_number() && s->as_double() >= 0)
        rec.size = uint64_t(s->as_double());
    if (const json::value *bv = v.find("baseline_value"); bv && bv->is_number())
        rec.baseline_value = bv->as_double();
    if (const json::value *ra = v.find("ratio"); ra && ra->is_number())
        rec.ratio = ra->as_double();
    if (find_metric(r, rec.metric)) {
        ++p.duplicates;
        return true;
    }
    ++p.records;
    r.records.push_back(std::move(rec));
    return true;
}

json::value machine_info()
{
    json::value m = json::value::object();
    std::string cpu = first_cpuinfo("model name");
    if (cpu.empty())
        cpu = first_cpuinfo("Model");
    m.set("cpu", cpu.empty() ? std::string("unknown") : cpu);
    m.set("cores", long(::sysconf(_SC_NPROCESSORS_ONLN)));
    struct utsname u {};
    if (::uname(&u) == 0) {
        m.set("kernel", std::string(u.sysname) + " " + u.release);
        m.set("arch", std::string(u.machine));
        m.set("host", std::string(u.nodename));
    }
    m.set("softcomch", SOFTCOMCH_VERSION_STRING);
    return m;
}

run execute(const run_options &o)
{
    run r;
    r.machine = machine_info();
    r.started = iso8601_now();
    r.mode = o.mode;
    r.programs_dir = o.dir;
    const double timeout = o.timeout_s > 0 ? o.timeout_s : default_timeout(o.mode);
    const auto &order = program_order();
    size_t index = 0;
    for (const auto name_view : order) {
        ++index;
        program_run p;
        p.name = std::string(name_view);
        p.path = (fs::path(o.dir) / p.name).string();
        if (o.mode != "full")
            p.args.push_back("--" + o.mode);
        if (!o.only.empty() && name_view != probe_program && !matches_any(o.only, p.name)) {
            p.status = "skipped";
            p.reason = "not selected by --only";
            r.programs.push_back(std::move(p));
            continue;
        }
        if (::access(p.path.c_str(), X_OK) != 0) {
            p.status = "missing";
            p.reason = "no executable " + p.path;
        } else {
            if (o.progress)
                std::fprintf(stderr, "softcomch bench: [%zu/%zu] %s%s ...\n", index, order.size(),
                             p.name.c_str(), o.mode == "full" ? "" : (" --" + o.mode).c_str());
            run_one(r, p, timeout);
        }
        if (o.progress)
            std::fprintf(stderr, "softcomch bench: [%zu/%zu] %s: %s%s%s (%d records, %.1f s)\n",
                         index, order.size(), p.name.c_str(), p.status.c_str(),
                         p.reason.empty() ? "" : ": ", p.reason.c_str(), p.records, p.seconds);
        r.programs.push_back(std::move(p));
    }
    return r;
}

} // namespace softcomch::tools::bench
