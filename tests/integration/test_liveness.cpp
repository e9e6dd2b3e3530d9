// SPDX-License-Identifier: Apache-2.0
//
// Liveness beyond hang-up (docs/failure-model.md, "Bounds: handshakes, descriptors, stop,
// liveness"): a peer that is alive but does not progress (SIGSTOP stands for a debugger or a
// busy loop that never calls doca_pe_progress) is reported once within SOFTCOMCH_PEER_STALL_MS
// and once when it resumes; the connection is kept unless SOFTCOMCH_PEER_TIMEOUT_MS asks for a
// disconnect. A peer asleep in epoll_wait is not stalled: nothing is expected of it until this
// side writes to it.
#include <signal.h>
#include <sys/wait.h>

#include <optional>

#include "bounds_support.hpp"
#include "common/bounds.hpp"

using namespace sc_test;
using namespace bounds_test;
namespace knobs = softcomch::bounds;

namespace {

class Liveness : public ::testing::Test {
protected:
    void SetUp() override
    {
        use_private_fabric(::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
};

// A child that stops itself (SIGSTOP) when the test asks, right after a progress call, and says
// when: its last heartbeat is then within a tick of that time. A SIGSTOP sent from outside may
// land after the child sat unscheduled for a while, its last beat long before the stop, and a
// bound measured from the stop would not hold on a loaded machine. The steady clock is the
// machine's, the same in every process.
class self_stop {
public:
    self_stop()
    {
        if (::pipe2(when_, O_CLOEXEC) != 0)
            when_[0] = when_[1] = -1;
    }
    ~self_stop()
    {
        for (int f : when_)
            if (f >= 0)
                ::close(f);
    }
    self_stop(const self_stop &) = delete;
    self_stop &operator=(const self_stop &) = delete;

    // In the child, between progress calls: stops once, when asked.
    void check()
    {
        if (done_ || !go_.opened())
            return;
        done_ = true;
        const int64_t now = clock::now().time_since_epoch().count();
        (void)!::write(when_[1], &now, sizeof now);
        ::raise(SIGSTOP);
    }
    // In the parent: asks, waits until `pid` stopped, and gives the time it stopped at.
    std::optional<clock::time_point> stop(pid_t pid)
    {
        go_.open();
        int st = 0;
        int64_t t = 0;
        if (::waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st) ||
            ::read(when_[0], &t, sizeof t) != ssize_t(sizeof t))
            return std::nullopt;
        return clock::time_point(clock::duration(t));
    }

private:
    gate go_;
    int when_[2] = {-1, -1};
    bool done_ = false;
};

// A client in a child: connects, opens `connected`, then progresses (polling or asleep in
// epoll_wait) until its connection ends; stops itself when `stopper` asks (polling only).
int client_until_idle(const std::string &name, gate &connected, bool epoll,
                      self_stop *stopper = nullptr)
{
    client c(name);
    CHILD_CHECK(c.ok());
    CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
    CHILD_CHECK(c.wait_running());
    connected.open();
    if (!epoll) {
        CHILD_CHECK(c.progress_until(
            [&] {
                if (stopper)
                    stopper->check();
                return c.state() == DOCA_CTX_STATE_IDLE;
            },
            20000ms));
        return 0;
    }
    const auto t0 = clock::now();
    while (c.state() != DOCA_CTX_STATE_IDLE) {
        CHILD_CHECK(ms_since(t0) < 20000);
        c.wait_event(10000); // asleep until the server writes (or goes)
    }
    return 0;
}

// Stops `pid` and waits until it is stopped.
bool stop_process(pid_t pid)
{
    int st = 0;
    return ::kill(pid, SIGSTOP) == 0 && ::waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st);
}

const char *const k_stalled = "has not progressed for";
const char *const k_resumed = "progresses again";

} // namespace

// A client that stops progressing is reported once, within the configured time, and again
// when it resumes; the connection is kept (the default, as on hardware).
TEST_F(Liveness, StoppedPeerIsReportedOnceAndWhenItResumes)
{
    env_knob stall(knobs::peer_stall.env, "200");
    const size_t mark = sdk_log::mark();
    server s("watched");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate connected;
    self_stop stopper;
    const pid_t cli =
        spawn([&] { return client_until_idle("watched", connected, false, &stopper); });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && connected.opened(); }, 5000ms));
    s.progress_for(400ms);
    EXPECT_TRUE(lines_with(mark, k_stalled).empty()) << "a progressing peer was reported";
    const std::optional<clock::time_point> stopped = stopper.stop(cli);
    ASSERT_TRUE(stopped);
    const auto t0 = *stopped;
    ASSERT_TRUE(s.progress_until([&] { return !lines_with(mark, k_stalled).empty(); }, 3000ms));
    const long reported = ms_since(t0);
    EXPECT_GE(reported, 180);  // stalled since its last beat, up to one tick before the stop
    EXPECT_LT(reported, 3000); // bounded (loaded or instrumented machines: generous)
    const std::string line = lines_with(mark, k_stalled).front();
    EXPECT_NE(line.find("pid " + std::to_string(cli)), std::string::npos) << line;
    EXPECT_NE(line.find("the connection is kept"), std::string::npos) << line;
    s.progress_for(300ms);
    EXPECT_EQ(lines_with(mark, k_stalled).size(), 1u) << "reported more than once";
    ASSERT_EQ(::kill(cli, SIGCONT), 0);
    ASSERT_TRUE(s.progress_until([&] { return !lines_with(mark, k_resumed).empty(); }, 3000ms));
    EXPECT_TRUE(s.disconnected.empty());
    EXPECT_EQ(s.connections.size(), 1u);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
    EXPECT_EQ(wait_child(cli), 0);
}

// With SOFTCOMCH_PEER_TIMEOUT_MS the stopped client is disconnected (the disconnect event, as
// for a client that died); once resumed it finds its connection gone and stops by itself.
TEST_F(Liveness, StoppedClientIsDisconnectedWhenOptedIn)
{
    env_knob timeout(knobs::peer_timeout.env, "300");
    const size_t mark = sdk_log::mark();
    server s("strict");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate connected;
    self_stop stopper;
    const pid_t cli =
        spawn([&] { return client_until_idle("strict", connected, false, &stopper); });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && connected.opened(); }, 5000ms));
    const std::optional<clock::time_point> stopped = stopper.stop(cli);
    ASSERT_TRUE(stopped);
    const auto t0 = *stopped;
    ASSERT_TRUE(s.progress_until([&] { return s.disconnected.size() == 1; }, 3000ms));
    const long took = ms_since(t0);
    EXPECT_GE(took, 280);
    EXPECT_LT(took, 3000); // bounded (loaded or instrumented machines: generous)
    EXPECT_EQ(lines_with(mark, "did not progress for 300 ms").size(), 1u) << sdk_log::since(mark);
    EXPECT_EQ(s.state(), DOCA_CTX_STATE_RUNNING);
    ASSERT_EQ(::kill(cli, SIGCONT), 0);
    EXPECT_EQ(wait_child(cli), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// The other way round: a client that opted in leaves a stopped server (RUNNING -> STOPPING ->
// IDLE, as when the server dies); the resumed server sees the client gone.
TEST_F(Liveness, StoppedServerIsLeftByAClientThatOptedIn)
{
    env_knob timeout(knobs::peer_timeout.env, "300");
    gate serving;
    self_stop stopper;
    const pid_t srv = spawn([&] {
        server s("left");
        CHILD_CHECK(s.ok() && s.start() == DOCA_SUCCESS);
        serving.open();
        CHILD_CHECK(s.progress_until(
            [&] {
                stopper.check();
                return !s.disconnected.empty();
            },
            20000ms));
        return 0;
    });
    ASSERT_TRUE(serving.wait(5000ms));
    const size_t mark = sdk_log::mark();
    client c("left");
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(c.wait_running());
    const std::optional<clock::time_point> stopped = stopper.stop(srv);
    ASSERT_TRUE(stopped);
    const auto t0 = *stopped;
    // A server whose connection was idle long enough may have parked it (armed, asleep): a
    // sleeping peer is judged only once this side writes to it (PeerAsleepInEpoll... below), so
    // the client writes. Then the verdict comes 300 ms after the later of its last beat and
    // the write, both at or after the stop's tick.
    ASSERT_EQ(c.send(c.connection(), std::string("are you there")), DOCA_SUCCESS);
    ASSERT_TRUE(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 3000ms));
    const long took = ms_since(t0);
    EXPECT_GE(took, 280);
    EXPECT_LT(took, 3000); // bounded (loaded or instrumented machines: generous)
    EXPECT_EQ(c.states.back(), DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(c.states[c.states.size() - 2], DOCA_CTX_STATE_STOPPING);
    EXPECT_EQ(lines_with(mark, "did not progress for 300 ms").size(), 1u) << sdk_log::since(mark);
    ASSERT_EQ(::kill(srv, SIGCONT), 0);
    EXPECT_EQ(wait_child(srv), 0);
}

// A client asleep in epoll_wait (notifications armed) beats no heartbeat and is not stalled,
// stopped or not, until the server writes to it: from then on it is expected to progress.
TEST_F(Liveness, PeerAsleepInEpollIsJudgedOnlyOnceItHasWork)
{
    env_knob stall(knobs::peer_stall.env, "200");
    const size_t mark = sdk_log::mark();
    server s("sleeper");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate connected;
    const pid_t cli = spawn([&] { return client_until_idle("sleeper", connected, true); });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && connected.opened(); }, 5000ms));
    s.progress_for(600ms);
    EXPECT_TRUE(lines_with(mark, k_stalled).empty()) << "an idle sleeper was reported";
    ASSERT_TRUE(stop_process(cli));
    s.progress_for(400ms);
    EXPECT_TRUE(lines_with(mark, k_stalled).empty()) << "a stopped sleeper with no work";
    ASSERT_EQ(s.send(s.connections.front(), std::string("wake up")), DOCA_SUCCESS);
    const auto t0 = clock::now();
    ASSERT_TRUE(s.progress_until([&] { return !lines_with(mark, k_stalled).empty(); }, 3000ms));
    EXPECT_GE(ms_since(t0), 190);
    ASSERT_EQ(::kill(cli, SIGCONT), 0);
    ASSERT_TRUE(s.progress_until([&] { return !lines_with(mark, k_resumed).empty(); }, 3000ms));
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
    EXPECT_EQ(wait_child(cli), 0);
}
