// SPDX-License-Identifier: Apache-2.0
//
// softcomch top in a real terminal: tmux runs it in a detached session while a server and two
// clients are connected; the test types keys (tmux send-keys), reads the screen (tmux
// capture-pane -p) and the pane's modes (alternate screen, cursor), and checks what the view
// shows, that the keys work and that the terminal is as before once top ends (q, SIGTERM).
// Skipped, saying why, where tmux is missing or cannot start a session.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "child_process.hpp"
#include "cli_util.hpp"
#include "top_peers.hpp"

namespace {

using namespace sc_cli;
using namespace std::chrono_literals;

std::string find_in_path(const std::string &name)
{
    const char *path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':'))
        if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0)
            return dir + "/" + name;
    return {};
}

std::vector<std::string> lines_of(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l))
        out.push_back(l);
    return out;
}

// One tmux server of our own (its socket in a private directory), one session "top".
class tmux_session {
public:
    tmux_session()
    {
        tmux_ = find_in_path("tmux");
        if (tmux_.empty()) {
            why_ = "tmux is not installed (scripts/install-deps.sh installs Debian's tmux)";
            return;
        }
        char tmpl[] = "/tmp/sc-top-tmux-XXXXXX";
        if (::mkdtemp(tmpl) == nullptr) {
            why_ = "cannot make a directory for tmux's socket";
            return;
        }
        dir_ = tmpl;
        socket_ = dir_ + "/sock";
    }
    ~tmux_session()
    {
        if (!socket_.empty())
            (void)tmux({"kill-server"});
        if (!dir_.empty()) {
            ::unlink(socket_.c_str());
            ::rmdir(dir_.c_str());
        }
    }
    const std::string &why_not() const { return why_; }

    proc_result tmux(std::vector<std::string> args) const
    {
        std::vector<std::string> argv{tmux_, "-S", socket_, "-f", "/dev/null"};
        argv.insert(argv.end(), args.begin(), args.end());
        return run(argv, tool_env(), 20);
    }

    // Starts `command` (a shell command line) in a 200x50 pane.
    bool start(const std::string &command)
    {
        const proc_result r =
            tmux({"new-session", "-d", "-s", "top", "-x", "200", "-y", "50", command});
        if (r.status != 0)
            why_ = "tmux cannot start a session here: " + r.err;
        return r.status == 0;
    }
    std::string screen() const { return tmux({"capture-pane", "-p", "-t", "top"}).out; }
    std::string format(const std::string &f) const
    {
        std::string out = tmux({"display-message", "-p", "-t", "top", f}).out;
        while (!out.empty() && out.back() == '\n')
            out.pop_back();
        return out;
    }
    bool keys(const std::string &k) const
    {
        return tmux({"send-keys", "-t", "top", "-l", k}).status == 0;
    }
    // Polls the screen until `ok` holds (at most `timeout`); the last screen.
    bool wait_screen(const std::function<bool(const std::string &)> &ok, std::string &last,
                     std::chrono::milliseconds timeout = 15000ms) const
    {
        const auto end = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            last = screen();
            if (ok(last))
                return true;
            if (std::chrono::steady_clock::now() > end)
                return false;
            std::this_thread::sleep_for(20ms); // pacing between polls, not a synchronisation
        }
    }

private:
    std::string tmux_, dir_, socket_, why_;
};

// The pid of the only child of `parent` (the shell's top), or 0.
int child_of(int parent)
{
    std::ifstream in("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) +
                     "/children");
    int pid = 0;
    in >> pid;
    return pid;
}

class CliTopTmux : public ::testing::Test {
protected:
    void SetUp() override
    {
        sc_test::use_private_fabric(
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        if (!session_.why_not().empty())
            GTEST_SKIP() << session_.why_not();
        srv_ = std::make_unique<peer_process>(peer_process::role::server, name_);
        ASSERT_TRUE(srv_->expect("listening"));
        a_ = std::make_unique<peer_process>(peer_process::role::client, name_);
        ASSERT_TRUE(a_->expect("connected"));
        b_ = std::make_unique<peer_process>(peer_process::role::client, name_);
        ASSERT_TRUE(b_->expect("connected"));
        ASSERT_TRUE(a_->command("send 10 100"));
        ASSERT_TRUE(b_->command("send 3 50"));
        ASSERT_TRUE(a_->expect("sent"));
        ASSERT_TRUE(b_->expect("sent"));
    }

    // Runs top in the pane between two markers, then the terminal's modes, then waits.
    bool start_top()
    {
        const std::string cmd = "printf 'BEFORE-TOP\\n'; env SOFTCOMCH_FABRIC=" +
                                std::string(std::getenv("SOFTCOMCH_FABRIC")) + " " + tool() +
                                " top -d 0.2; echo TOP-EXIT=$?; stty -a | tr ' ;' '\\n\\n' | "
                                "grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; "
                                "echo; echo MODES-DONE; exec sleep 600";
        if (!session_.start(cmd)) {
            skip_ = session_.why_not();
            return false;
        }
        return true;
    }

    // The rows of the connections table on `screen`, first column (pid) and the whole line.
    static std::vector<std::string> connection_lines(const std::string &screen)
    {
        std::vector<std::string> rows;
        bool in = false;
        for (const auto &l : lines_of(screen)) {
            if (l.find("PEER-STATE") != std::string::npos) {
                in = true;
                continue;
            }
            if (in && l.find_first_not_of(' ') == std::string::npos)
                break;
            if (in)
                rows.push_back(l);
        }
        return rows;
    }

    const std::string name_ = "top-tmux";
    tmux_session session_;
    std::unique_ptr<peer_process> srv_, a_, b_;
    std::string skip_;
};

TEST_F(CliTopTmux, LiveShowsTheFabricSortsAndQuits)
{
    if (!start_top())
        GTEST_SKIP() << skip_;
    std::string s;
    const std::string srv = std::to_string(srv_->pid());
    ASSERT_TRUE(session_.wait_screen(
        [&](const std::string &t) {
            return sc_test::contains(t, "3 processes, 1 server, 2 clients, 4 connections") &&
                   connection_lines(t).size() == 4;
        },
        s))
        << s;
    EXPECT_EQ(session_.format("#{alternate_on}"), "1") << "top draws on the alternate screen";
    EXPECT_EQ(session_.format("#{cursor_flag}"), "0") << "with the cursor hidden";
    EXPECT_TRUE(sc_test::contains(s, "softcomch top - fabric '")) << s;
    EXPECT_TRUE(sc_test::contains(s, "sort: pid")) << s;
    EXPECT_TRUE(has_row(s, srv, {"server", name_, "RUNNING", "0000:03:00.0", "pf0hpf"})) << s;
    for (const peer_process *c : {a_.get(), b_.get()})
        EXPECT_TRUE(has_row(s, std::to_string(c->pid()), {"client", name_, "RUNNING"})) << s;
    // pid order: the server's two connections first.
    auto rows = connection_lines(s);
    ASSERT_EQ(rows.size(), 4u) << s;
    EXPECT_TRUE(has_row(rows[0], srv) && has_row(rows[1], srv)) << s;

    // s: name, s again: msgs-out (most first: the two ends of A's connection, 10 each).
    ASSERT_TRUE(session_.keys("ss"));
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) { return sc_test::contains(t, "sort: msgs-out"); }, s))
        << s;
    rows = connection_lines(s);
    ASSERT_EQ(rows.size(), 4u) << s;
    const std::string a = std::to_string(a_->pid());
    EXPECT_TRUE(has_row(rows[0] + "\n" + rows[1], srv, {a})) << s;
    EXPECT_TRUE(has_row(rows[0] + "\n" + rows[1], a, {srv})) << s;
    // S goes back one.
    ASSERT_TRUE(session_.keys("S"));
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) { return sc_test::contains(t, "sort: name"); }, s))
        << s;

    // p pauses and resumes; h shows the help and goes back.
    ASSERT_TRUE(session_.keys("p"));
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) { return sc_test::contains(t, "[PAUSED]"); }, s))
        << s;
    ASSERT_TRUE(session_.keys("p"));
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) { return !sc_test::contains(t, "[PAUSED]"); }, s))
        << s;
    ASSERT_TRUE(session_.keys("h"));
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) {
            return sc_test::contains(t, "SORT ORDERS") && !sc_test::contains(t, "CONNECTIONS (");
        },
        s))
        << s;
    ASSERT_TRUE(session_.keys("h"));
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) {
            return sc_test::contains(t, "CONNECTIONS (4)") && !sc_test::contains(t, "SORT ORDERS");
        },
        s))
        << s;

    // q: top ends with 0 and the terminal is as it was: normal screen (what was printed before
    // top is back, top's frame gone), cursor shown, line editing and echo on.
    ASSERT_TRUE(session_.keys("q"));
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) { return sc_test::contains(t, "MODES-DONE"); }, s))
        << s;
    EXPECT_TRUE(sc_test::contains(s, "BEFORE-TOP")) << s;
    EXPECT_TRUE(sc_test::contains(s, "TOP-EXIT=0")) << s;
    EXPECT_FALSE(sc_test::contains(s, "softcomch top - fabric")) << s;
    EXPECT_TRUE(has_row(s, "icanon", {"echo"})) << s;
    EXPECT_FALSE(sc_test::contains(s, "-icanon")) << s;
    EXPECT_FALSE(sc_test::contains(s, "-echo")) << s;
    EXPECT_EQ(session_.format("#{alternate_on}"), "0");
    EXPECT_EQ(session_.format("#{cursor_flag}"), "1");
}

TEST_F(CliTopTmux, LiveSigtermRestoresTheTerminal)
{
    if (!start_top())
        GTEST_SKIP() << skip_;
    std::string s;
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) { return sc_test::contains(t, "CONNECTIONS (4)"); }, s))
        << s;
    const int shell = std::atoi(session_.format("#{pane_pid}").c_str());
    const int top = child_of(shell);
    ASSERT_GT(top, 0);
    ASSERT_EQ(::kill(top, SIGTERM), 0);
    ASSERT_TRUE(session_.wait_screen(
        [](const std::string &t) { return sc_test::contains(t, "MODES-DONE"); }, s))
        << s;
    EXPECT_TRUE(sc_test::contains(s, "TOP-EXIT=143")) << s; // 128 + SIGTERM
    EXPECT_TRUE(sc_test::contains(s, "BEFORE-TOP")) << s;
    EXPECT_FALSE(sc_test::contains(s, "-icanon")) << s;
    EXPECT_FALSE(sc_test::contains(s, "-echo")) << s;
    EXPECT_EQ(session_.format("#{alternate_on}"), "0");
    EXPECT_EQ(session_.format("#{cursor_flag}"), "1");
}

} // namespace
