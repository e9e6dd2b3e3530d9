// SPDX-License-Identifier: Apache-2.0
//
// The definitions of top_peers.hpp.
#include "top_peers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "comch_harness.hpp"
#include "process_runner.hpp"

namespace sc_cli {

namespace {

using namespace std::chrono_literals;

bool say(int fd, const std::string &line)
{
    const std::string text = line + "\n";
    return ::write(fd, text.data(), text.size()) == ssize_t(text.size());
}

// The next command line, when one has arrived (non-blocking); "" otherwise, "quit" at EOF.
std::string next_command(int fd, std::string &buf)
{
    for (;;) {
        if (size_t nl = buf.find('\n'); nl != std::string::npos) {
            std::string line = buf.substr(0, nl);
            buf.erase(0, nl + 1);
            return line;
        }
        char chunk[256];
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n == 0)
            return "quit"; // the test went away
        if (n < 0)
            return "";
        buf.append(chunk, size_t(n));
    }
}

// Progresses `s` and serves commands until "quit"; `on` handles the others (false: failed).
int serve(sc_test::side &s, int in, int out,
          const std::function<bool(const std::string &, std::istringstream &)> &on)
{
    std::string buf;
    for (;;) {
        if (doca_pe_progress(s.pe()) == 0)
            std::this_thread::sleep_for(20us);
        const std::string line = next_command(in, buf);
        if (line.empty())
            continue;
        std::istringstream words(line);
        std::string verb;
        words >> verb;
        if (verb == "quit")
            break;
        CHILD_CHECK(on(verb, words));
        (void)out;
    }
    CHILD_CHECK(s.stop_and_wait() == DOCA_SUCCESS);
    return 0;
}

int server_main(const std::string &name, int in, int out)
{
    sc_test::server s(name);
    CHILD_CHECK(s.ok());
    s.on_recv = [](sc_test::side &self, doca_comch_connection *c, const uint8_t *, uint32_t) {
        static const char reply[k_reply_size] = {'r', 'e', 'p', 'l', 'y', '!', '\n'};
        (void)self.send(c, reply, k_reply_size);
    };
    CHILD_CHECK(s.start() == DOCA_SUCCESS);
    CHILD_CHECK(say(out, "listening"));
    return serve(s, in, out, [](const std::string &, std::istringstream &) { return false; });
}

int client_main(const std::string &name, int in, int out)
{
    sc_test::client c(name);
    CHILD_CHECK(c.ok());
    CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
    CHILD_CHECK(c.wait_running(20000ms));
    CHILD_CHECK(say(out, "connected"));
    return serve(c, in, out, [&](const std::string &verb, std::istringstream &words) {
        size_t n = 0, size = 0;
        words >> n >> size;
        if ((verb != "send" && verb != "flood") || n == 0 || size == 0)
            return false;
        const size_t target = c.received.size() + n;
        for (size_t i = 0; i < n; ++i)
            if (c.send(c.connection(), std::string(size, char('a' + i % 26))) != DOCA_SUCCESS)
                return false;
        if (verb == "flood")
            return say(out, "flooded");
        return c.progress_until([&] { return c.received.size() >= target; }, 20000ms) &&
               say(out, "sent");
    });
}

} // namespace

peer_process::peer_process(role r, const std::string &name,
                           const std::map<std::string, std::string> &env)
{
    int cmd[2], rep[2];
    if (::pipe2(cmd, O_CLOEXEC) != 0)
        return;
    if (::pipe2(rep, O_CLOEXEC) != 0) {
        ::close(cmd[0]);
        ::close(cmd[1]);
        return;
    }
    pid_ = sc_test::spawn([&] {
        ::close(cmd[1]);
        ::close(rep[0]);
        ::fcntl(cmd[0], F_SETFL, O_NONBLOCK);
        for (const auto &[k, v] : env)
            ::setenv(k.c_str(), v.c_str(), 1);
        return r == role::server ? server_main(name, cmd[0], rep[1])
                                 : client_main(name, cmd[0], rep[1]);
    });
    ::close(cmd[0]);
    ::close(rep[1]);
    to_ = cmd[1];
    from_ = rep[0];
}

peer_process::~peer_process()
{
    if (pid_ > 0) {
        ::kill(pid_, SIGCONT); // a test may have stopped it
        ::kill(pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
    }
    if (to_ >= 0)
        ::close(to_);
    if (from_ >= 0)
        ::close(from_);
}

bool peer_process::command(const std::string &line)
{
    return to_ >= 0 && say(to_, line);
}

bool peer_process::expect(const std::string &want, int timeout_ms)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        while (true) {
            const size_t nl = buf_.find('\n');
            if (nl == std::string::npos)
                break;
            const std::string line = buf_.substr(0, nl);
            buf_.erase(0, nl + 1);
            if (line == want)
                return true;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        if (left.count() <= 0 || from_ < 0)
            return false;
        pollfd p{from_, POLLIN, 0};
        if (::poll(&p, 1, int(left.count())) <= 0)
            continue;
        char chunk[256];
        const ssize_t n = ::read(from_, chunk, sizeof chunk);
        if (n <= 0)
            return false; // it exited
        buf_.append(chunk, size_t(n));
    }
}

int peer_process::finish(int timeout_ms)
{
    if (pid_ <= 0)
        return -1;
    ::kill(pid_, SIGCONT);
    command("quit");
    const int status = sc_test::wait_child(pid_, std::chrono::milliseconds(timeout_ms));
    pid_ = -1;
    return status;
}

bool has_row(const std::string &text, const std::string &first,
             std::initializer_list<std::string> parts)
{
    std::istringstream in(text);
    std::string l, trimmed;
    while (std::getline(in, l)) {
        const size_t start = l.find_first_not_of(' ');
        trimmed += (start == std::string::npos ? std::string() : l.substr(start)) + "\n";
    }
    return sc_test::has_line(trimmed, first, parts);
}

void peer_process::kill_and_reap()
{
    if (pid_ <= 0)
        return;
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
}

} // namespace sc_cli
