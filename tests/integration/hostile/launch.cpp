// SPDX-License-Identifier: Apache-2.0
//
// The launchers of victim.hpp: they exec hostile_victim (build_tree.hpp: its path in
// the build tree), so that the test process, which holds the attacker's copy of the transport,
// never loads libsoftcomch.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "build_tree.hpp"
#include "child_process.hpp"
#include "process_runner.hpp"
#include "victim.hpp"

namespace hostile {

using namespace std::chrono_literals;

namespace {

const char *victim_path()
{
    return sc_test::build_tree::hostile_victim;
}

// Forks and execs hostile_victim with `args`; `in`/`out` (when >= 0) become its stdin/stdout.
pid_t exec_victim(const std::vector<std::string> &args, int in = -1, int out = -1)
{
    std::vector<std::string> all{victim_path()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char *> argv;
    for (auto &a : all)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        sc_test::die_with_parent(parent);
        if (in >= 0)
            ::dup2(in, 0);
        if (out >= 0)
            ::dup2(out, 1);
        ::execv(argv[0], argv.data());
        std::perror("exec hostile_victim");
        ::_exit(127);
    }
    return pid;
}

const char *plan_name(client_plan p)
{
    switch (p) {
    case client_plan::refused:
        return "refused";
    case client_plan::closed:
        return "closed";
    case client_plan::neighbours:
        return "neighbours";
    }
    return "?";
}

} // namespace

pid_t spawn_server(const victim_server_options &o)
{
    return exec_victim({"server", o.name, o.log, o.produce ? "1" : "0", std::to_string(o.payload)});
}

pid_t spawn_client(const victim_client_options &o)
{
    return exec_victim({"client", o.hostile_name, o.honest_name, o.log, plan_name(o.plan)});
}

std::string honest_echo(const std::string &name)
{
    sc_test::run_options ro;
    ro.timeout_s = 20;
    const sc_test::proc_result r = sc_test::run_process({victim_path(), "honest", name}, ro);
    if (r.status == 0)
        return "";
    return "honest client: status " + std::to_string(r.status) +
           (r.timed_out ? " (timed out)" : "") + "\n" + r.out + r.err;
}

honest_session::~honest_session()
{
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        (void)sc_test::wait_child(pid_, 5000ms);
    }
    for (int fd : {to_child_, from_child_})
        if (fd >= 0)
            ::close(fd);
}

bool honest_session::start(const std::string &name)
{
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0)
        return false;
    if (::pipe2(out, O_CLOEXEC) != 0) {
        ::close(in[0]);
        ::close(in[1]);
        return false;
    }
    pid_ = exec_victim({"honest", name, "hold"}, in[0], out[1]);
    ::close(in[0]);
    ::close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
    if (pid_ <= 0)
        return false;
    // "connected\n", or EOF when the client failed first.
    std::string got;
    char buf[32];
    while (got.find('\n') == std::string::npos) {
        pollfd p{from_child_, POLLIN, 0};
        if (::poll(&p, 1, 10000) != 1)
            return false;
        const ssize_t n = ::read(from_child_, buf, sizeof buf);
        if (n <= 0)
            return false;
        got.append(buf, size_t(n));
    }
    return got == "connected\n";
}

std::string honest_session::finish()
{
    if (pid_ <= 0 || ::write(to_child_, "s", 1) != 1)
        return "honest client: not running";
    const int st = sc_test::wait_child(pid_, 10000ms);
    pid_ = -1;
    return st == 0 ? "" : "honest client: status " + std::to_string(st);
}

} // namespace hostile
