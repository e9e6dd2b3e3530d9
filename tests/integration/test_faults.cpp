// SPDX-License-Identifier: Apache-2.0
//
// Faults on demand (SOFTCOMCH_FAULTS, docs/failure-model.md): each fault kind between two real
// processes over the real transport, with what the program on each side sees and the line the
// fault logs where it fires; a bad value failing doca_ctx_start; and the scope options choosing
// the connections a rule applies to. The variable is set for each test (the forked peer
// inherits it; side=host or side=dpu picks the process the fault lives in).
#include <sys/wait.h>

#include "bounds_support.hpp"
#include "common/bounds.hpp"
#include "fastpath_harness.hpp"

using namespace sc_test;
using namespace sc_test::fp;
using namespace bounds_test;
namespace knobs = softcomch::bounds;

namespace {

constexpr const char *k_env = "SOFTCOMCH_FAULTS";
const char *const k_fired = "fault injected (";

void private_fabric(const std::string &extra = "")
{
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    use_private_fabric(
        std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + extra);
}

class FaultsOnDemand : public ::testing::Test {
protected:
    void SetUp() override { private_fabric(); }
};

// The lines since `mark` that say the rule `rule` fired.
std::vector<std::string> fired(size_t mark, const std::string &rule)
{
    return lines_with(mark, std::string(k_fired) + rule + ", SOFTCOMCH_FAULTS)");
}

// Sends `text`, retrying while a submit-again fault refuses the submit.
doca_error_t send_retrying(side &s, doca_comch_connection *conn, const std::string &text)
{
    doca_error_t rc;
    while ((rc = send_ctrl(s, conn, text)) == DOCA_ERROR_AGAIN)
        (void)doca_pe_progress(s.pe());
    return rc;
}

// A client in a child: connects, opens `connected`, sends `greeting` (when not empty), then
// progresses until its connection ends; 0 when it did within `within`.
int client_until_idle(const std::string &name, gate &connected, bool epoll,
                      const std::string &greeting = "", std::chrono::milliseconds within = 10000ms)
{
    client c(name);
    CHILD_CHECK(c.ok());
    CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
    CHILD_CHECK(c.wait_running());
    connected.open();
    if (!greeting.empty())
        CHILD_CHECK(c.send(c.connection(), greeting) == DOCA_SUCCESS);
    const auto t0 = clock::now();
    while (c.state() != DOCA_CTX_STATE_IDLE) {
        CHILD_CHECK(clock::now() - t0 < within);
        if (epoll)
            c.wait_event(5000); // only what the library arms wakes it before that
        else
            (void)doca_pe_progress(c.pe());
    }
    CHILD_CHECK(c.states.size() >= 2 && c.states[c.states.size() - 2] == DOCA_CTX_STATE_STOPPING);
    return 0;
}

// Echoes every message the server receives back to its sender.
void echo_all(server &s)
{
    s.on_recv = [](side &me, doca_comch_connection *conn, const uint8_t *buf, uint32_t len) {
        me.received.push_back({conn, std::string(reinterpret_cast<const char *>(buf), len)});
        (void)me.send(conn, buf, len);
    };
}

} // namespace

// A value that is not the grammar fails the start of a server and of a client with
// DOCA_ERROR_BAD_CONFIG and one line naming the rule and what is wrong; the variable is read at
// each start, so a corrected value starts.
TEST_F(FaultsOnDemand, ABadValueFailsTheStartWithALineNamingTheRule)
{
    server s("badly");
    client c("badly");
    ASSERT_TRUE(s.ok() && c.ok());
    {
        env_knob bad(k_env, "delay,ms=5; hang,at=5m");
        const size_t mark = sdk_log::mark();
        EXPECT_EQ(s.start(), DOCA_ERROR_BAD_CONFIG);
        EXPECT_EQ(s.state(), DOCA_CTX_STATE_IDLE);
        EXPECT_EQ(c.start(), DOCA_ERROR_BAD_CONFIG);
        EXPECT_EQ(c.state(), DOCA_CTX_STATE_IDLE);
        const auto lines = lines_with(mark, "SOFTCOMCH_FAULTS: rule \"hang,at=5m\": bad value "
                                            "\"5m\" for at (a duration such as 250ms or 2s)");
        ASSERT_EQ(lines.size(), 2u) << sdk_log::since(mark);
        EXPECT_NE(lines[0].find("[ERR]"), std::string::npos) << lines[0];
        EXPECT_NE(lines[0].find("doca_ctx_start: comch server 'badly'"), std::string::npos);
        EXPECT_NE(lines[1].find("doca_ctx_start: comch client 'badly'"), std::string::npos);
        EXPECT_EQ(sdk_log::errors_since(mark), 2u) << sdk_log::since(mark);
    }
    {
        env_knob unknown(k_env, "explode,after=1");
        const size_t mark = sdk_log::mark();
        EXPECT_EQ(s.start(), DOCA_ERROR_BAD_CONFIG);
        EXPECT_EQ(lines_with(mark, "rule \"explode,after=1\": unknown fault \"explode\"").size(),
                  1u)
            << sdk_log::since(mark);
    }
    env_knob good(k_env, "delay,ms=5,server=someone-else");
    EXPECT_EQ(s.start(), DOCA_SUCCESS);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// disconnect,after=N on the server: its Nth send reaches the client, then the connection drops
// as if the server's process had died. The client gets the N messages and stops (RUNNING ->
// STOPPING -> IDLE, "went away"); the server sees its client go (the disconnect event) and logs
// the fault once; a send after the drop fails with DOCA_ERROR_CONNECTION_ABORTED.
// The server answers only once it holds all three messages: a dropped connection reads nothing
// more, so echoing each on arrival would make the count depend on whether the third message was
// in the ring before the second echo (under load it sometimes is not).
TEST_F(FaultsOnDemand, DisconnectAfterNSendsDropsTheConnectionOnBothSides)
{
    env_knob faults(k_env, "disconnect,after=2,side=dpu");
    const size_t mark = sdk_log::mark();
    server s("dropper");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    const pid_t cli = spawn([] {
        const size_t m = sdk_log::mark();
        client c("dropper");
        CHILD_CHECK(c.ok() && c.start() == DOCA_ERROR_IN_PROGRESS && c.wait_running());
        for (const char *msg : {"one", "two", "three"})
            CHILD_CHECK(c.send(c.connection(), std::string(msg)) == DOCA_SUCCESS);
        CHILD_CHECK(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 5000ms));
        CHILD_CHECK_EQ(c.received.size(), size_t(2));
        CHILD_CHECK_EQ(c.received[0].data, std::string("one"));
        CHILD_CHECK_EQ(c.received[1].data, std::string("two"));
        CHILD_CHECK(c.states[c.states.size() - 2] == DOCA_CTX_STATE_STOPPING);
        CHILD_CHECK_EQ(lines_with(m, "the server (pid").size(), size_t(1));
        return 0;
    });
    ASSERT_TRUE(s.progress_until([&] { return s.received.size() == 3; }, 5000ms))
        << sdk_log::since(mark);
    const std::deque<message> got = s.received; // send() may progress, and so receive
    for (const message &m : got)
        ASSERT_EQ(s.send(m.conn, m.data), DOCA_SUCCESS) << m.data;
    ASSERT_TRUE(s.progress_until([&] { return s.disconnected.size() == 1; }, 5000ms))
        << sdk_log::since(mark);
    EXPECT_EQ(s.received.size(), 3u);
    EXPECT_TRUE(s.progress_until([&] { return s.send_ok + s.send_err == 3; }, 2000ms));
    EXPECT_EQ(s.send_ok, 2u);
    ASSERT_EQ(s.send_errors.size(), 1u);
    EXPECT_EQ(s.send_errors[0], DOCA_ERROR_CONNECTION_ABORTED) << "the send after the drop";
    const auto f = fired(mark, "disconnect,after=2,side=dpu");
    ASSERT_EQ(f.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(f[0].find("[WRN]"), std::string::npos) << f[0];
    EXPECT_NE(f[0].find("the connection drops after this send"), std::string::npos) << f[0];
    EXPECT_NE(f[0].find("connection 1 of server 'dropper' (dpu side)"), std::string::npos) << f[0];
    EXPECT_EQ(lines_with(mark, "went away without disconnecting").size(), 1u)
        << sdk_log::since(mark);
    EXPECT_EQ(s.state(), DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(wait_child(cli), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// disconnect,at=T on the client, whose program sleeps in epoll_wait: the fault's timer wakes it,
// the connection drops T after it came up, and both sides see the other go.
TEST_F(FaultsOnDemand, DisconnectAtATimeWakesAnEpollProgramAndDrops)
{
    env_knob faults(k_env, "disconnect,at=300ms,side=host");
    const size_t mark = sdk_log::mark();
    server s("timed");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate connected;
    // Before the client exists: its connection, and the fault's 300 ms, come after.
    const auto t0 = clock::now();
    const pid_t cli = spawn([&] {
        const size_t m = sdk_log::mark();
        const auto started = clock::now();
        const int rc = client_until_idle("timed", connected, true);
        CHILD_CHECK(rc == 0);
        CHILD_CHECK(ms_since(started) >= 280);
        // Woken by the fault's timer, not the 5 s wait (start-up and connection included).
        CHILD_CHECK(ms_since(started) < 4000);
        CHILD_CHECK_EQ(fired(m, "disconnect,at=300ms,side=host").size(), size_t(1));
        CHILD_CHECK_EQ(lines_with(m, "the connection drops now").size(), size_t(1));
        return 0;
    });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && connected.opened(); }, 5000ms));
    ASSERT_TRUE(s.progress_until([&] { return s.disconnected.size() == 1; }, 5000ms));
    EXPECT_GE(ms_since(t0), 280);
    EXPECT_TRUE(lines_with(mark, k_fired).empty()) << "the rule is the host's";
    EXPECT_EQ(lines_with(mark, "went away without disconnecting").size(), 1u);
    EXPECT_EQ(wait_child(cli), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// delay,ms=N on the client: what the server sends reaches the client's program N ms later, in
// order, each message counted from its own arrival (a burst is not spread out), whether the
// client polls or sleeps in epoll_wait (its wake-up covers the due time).
class FaultsDelay : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override { private_fabric(GetParam() ? "-epoll" : "-poll"); }
};

TEST_P(FaultsDelay, ReceivedMessagesAreDeliveredLateInOrder)
{
    const bool epoll = GetParam();
    env_knob faults(k_env, "delay,ms=300,side=host");
    const size_t mark = sdk_log::mark();
    server s("slow");
    ASSERT_TRUE(s.ok());
    std::vector<std::pair<std::string, clock::time_point>> echoes;
    s.on_recv = [&](side &, doca_comch_connection *, const uint8_t *buf, uint32_t len) {
        echoes.emplace_back(std::string(reinterpret_cast<const char *>(buf), len), clock::now());
    };
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate connected, done;
    const pid_t cli = spawn([&] {
        const size_t m = sdk_log::mark();
        client c("slow");
        CHILD_CHECK(c.ok() && c.start() == DOCA_ERROR_IN_PROGRESS && c.wait_running());
        std::vector<clock::time_point> delivered;
        c.on_recv = [&](side &me, doca_comch_connection *conn, const uint8_t *buf, uint32_t len) {
            delivered.push_back(clock::now());
            (void)me.send(conn, buf, len);
            me.received.push_back({conn, {}});
        };
        connected.open();
        const auto t0 = clock::now();
        size_t rounds = 0;
        while (c.received.size() < 3) {
            CHILD_CHECK(ms_since(t0) < 10000);
            ++rounds;
            if (epoll)
                c.wait_event(5000); // only what the library arms wakes it before that
            else
                (void)doca_pe_progress(c.pe());
        }
        // Asleep while the messages are held (woken each millisecond to look for more), not
        // spinning on a ring that is never empty.
        CHILD_CHECK_MSG(!epoll || rounds < 3000, "%zu wake-ups", rounds);
        // Each message's delay is its own: the three, sent back to back, are delivered
        // together (measured here, where they are delivered, not where the echoes arrive).
        CHILD_CHECK_MSG(
            delivered[2] - delivered[0] < 250ms, "delivered %ld ms apart",
            long(std::chrono::duration_cast<std::chrono::milliseconds>(delivered[2] - delivered[0])
                     .count()));
        CHILD_CHECK(c.progress_until([&] { return done.opened(); }, 5000ms));
        CHILD_CHECK_EQ(fired(m, "delay,ms=300,side=host").size(), size_t(1));
        CHILD_CHECK_EQ(lines_with(m, "delivered 300 ms late").size(), size_t(1));
        return 0;
    });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && connected.opened(); }, 5000ms));
    doca_comch_connection *conn = s.connections.front();
    const auto t0 = clock::now();
    for (const char *m : {"m0", "m1", "m2"})
        ASSERT_EQ(s.send(conn, std::string(m)), DOCA_SUCCESS);
    ASSERT_TRUE(s.progress_until([&] { return echoes.size() == 3; }, 5000ms));
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(echoes[i].first, std::string("m").append(std::to_string(i))); // GCC bug 105651
        EXPECT_GE(echoes[i].second - t0, 300ms) << "echo " << i << " came early";
        EXPECT_LT(echoes[i].second - t0, 2000ms) << "echo " << i;
    }
    EXPECT_TRUE(lines_with(mark, k_fired).empty()) << "the rule is the host's";
    done.open();
    EXPECT_EQ(wait_child(cli), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Modes, FaultsDelay, ::testing::Bool(),
                         [](const auto &i) { return i.param ? "epoll" : "polling"; });

// submit-again,every=N on the client: every Nth doca_task_submit on its connection returns
// DOCA_ERROR_AGAIN and changes nothing: the task is still the program's, and submitting it
// again sends it. The server gets every message once, in order.
TEST_F(FaultsOnDemand, SubmitAgainRefusesEveryNthSubmitAndTheTaskStaysUsable)
{
    env_knob faults(k_env, "submit-again,every=3,side=host");
    const size_t mark = sdk_log::mark();
    server s("again");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    const pid_t cli = spawn([] {
        const size_t m = sdk_log::mark();
        client c("again");
        CHILD_CHECK(c.ok() && c.start() == DOCA_ERROR_IN_PROGRESS && c.wait_running());
        static const char *const msgs[] = {"a", "b", "c", "d", "e", "f"};
        std::vector<int> again_at; // the submit numbers (from 1) that returned AGAIN
        int submits = 0;
        for (const char *msg : msgs) {
            doca_comch_task_send *t = nullptr;
            CHILD_CHECK(doca_comch_client_task_send_alloc_init(c.handle(), c.connection(), msg, 1,
                                                               &t) == DOCA_SUCCESS);
            doca_task *task = doca_comch_task_send_as_task(t);
            doca_error_t rc;
            while ((rc = doca_task_submit(task)) == DOCA_ERROR_AGAIN)
                again_at.push_back(++submits); // untouched: the same task again
            CHILD_CHECK(rc == DOCA_SUCCESS);
            ++submits;
        }
        CHILD_CHECK_EQ(again_at.size(), size_t(2));
        CHILD_CHECK_EQ(again_at[0], 3);
        CHILD_CHECK_EQ(again_at[1], 6);
        CHILD_CHECK(c.progress_until([&] { return c.send_ok == 6; }, 5000ms));
        CHILD_CHECK_EQ(c.send_err, size_t(0));
        CHILD_CHECK_EQ(fired(m, "submit-again,every=3,side=host").size(), size_t(1));
        CHILD_CHECK(c.progress_until([&] { return !c.received.empty(); }, 5000ms)); // "bye"
        return 0;
    });
    ASSERT_TRUE(s.progress_until([&] { return s.received.size() == 6; }, 5000ms));
    std::string got;
    for (const auto &m : s.received)
        got += m.data;
    EXPECT_EQ(got, "abcdef");
    EXPECT_EQ(s.send(s.connections.front(), std::string("bye")), DOCA_SUCCESS);
    EXPECT_EQ(wait_child(cli), 0);
    EXPECT_TRUE(lines_with(mark, k_fired).empty()) << "the rule is the host's";
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// submit-again on the fast path: a consumer's post-receives and a producer's sends on that
// connection are refused the same way (one count for all its submits), and retrying them
// delivers every message.
TEST_F(FaultsOnDemand, SubmitAgainAlsoRefusesProducerSendsAndConsumerPosts)
{
    env_knob faults(k_env, "submit-again,every=2,side=dpu");
    const size_t mark = sdk_log::mark();
    fp_server s("fp-again");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    child_guard child(spawn([] {
        return run_side<fp_client>(
            "fp-again", false, [](fp_client &c, doca_comch_connection *conn) -> std::string {
                consumer cons(conn, c.dev(), {.slots = 4, .slot_size = 4096});
                REQ_OK(start_consumer(cons, c));
                REQ_EQ(cons.post_all(), DOCA_SUCCESS);
                REQ_EQ(send_ctrl(c, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
                uint32_t cid = 0;
                REQ_OK(learn_remote_consumer(c, c, conn, cid));
                producer p(conn, c.dev(), {.num_tasks = 4, .slots = 4, .slot_size = 4096});
                REQ_OK(start_producer(p));
                for (int i = 0; i < 4; ++i)
                    REQ_EQ(p.send(cid, "to-dpu", 6), DOCA_SUCCESS);
                REQ(p.wait_completions(5000ms));
                REQ_EQ(p.ok_count, size_t(4));
                REQ(cons.progress_until([&] { return cons.recv_count == 4; }, 5000ms, c.pe()));
                REQ_EQ(send_ctrl(c, conn, "got 4"), DOCA_SUCCESS);
                REQ_EQ(p.stop_and_wait(), DOCA_SUCCESS);
                REQ_EQ(p.destroy(), DOCA_SUCCESS);
                REQ_EQ(cons.stop_and_wait(c.pe()), DOCA_SUCCESS);
                REQ_EQ(cons.destroy(), DOCA_SUCCESS);
                return "";
            });
    }));
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(s, conn));
    uint32_t cid = 0;
    ASSERT_EQ(learn_remote_consumer(s, s, conn, cid), "");
    {
        consumer cons(conn, s.dev(), {.slots = 4, .slot_size = 4096});
        ASSERT_EQ(start_consumer(cons, s), "");
        ASSERT_EQ(cons.post_all(), DOCA_SUCCESS);
        EXPECT_GE(cons.post_again, 1u) << "no post-receive was refused";
        ASSERT_EQ(send_retrying(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
        producer p(conn, s.dev(), {.num_tasks = 4, .slots = 4, .slot_size = 4096});
        ASSERT_EQ(start_producer(p), "");
        for (int i = 0; i < 4; ++i)
            ASSERT_EQ(p.send(cid, "to-host", 7), DOCA_SUCCESS);
        EXPECT_GE(p.again, 1u) << "no producer send was refused";
        ASSERT_TRUE(p.wait_completions(5000ms));
        EXPECT_EQ(p.ok_count, 4u);
        EXPECT_EQ(p.err_count, 0u);
        ASSERT_TRUE(cons.progress_until([&] { return cons.recv_count == 4; }, 5000ms, s.pe()));
        ASSERT_TRUE(expect_msg(s, "got 4", nullptr, 5000ms, cons.pe()));
        EXPECT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(p.destroy(), DOCA_SUCCESS);
        EXPECT_EQ(cons.stop_and_wait(s.pe()), DOCA_SUCCESS);
        EXPECT_EQ(cons.destroy(), DOCA_SUCCESS);
    }
    EXPECT_EQ(fired(mark, "submit-again,every=2,side=dpu").size(), 1u) << sdk_log::since(mark);
    ASSERT_EQ(send_retrying(s, conn, "fin"), DOCA_SUCCESS);
    ASSERT_TRUE(expect_msg(s, "fin", nullptr, 10000ms));
    ASSERT_TRUE(s.progress_until([&] { return !s.disconnected.empty(); }, 10000ms));
    EXPECT_EQ(child.wait(), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// consumer-start-fail: doca_ctx_start of a consumer on that connection fails with the code the
// rule names (DOCA_ERROR_DRIVER by default) and the consumer stays IDLE; a producer on the same
// connection starts as usual.
TEST_F(FaultsOnDemand, ConsumerStartFailsWithTheCodeAsked)
{
    env_knob faults(k_env, "consumer-start-fail,side=host;"
                           "consumer-start-fail,code=DOCA_ERROR_IO_FAILED,side=dpu");
    const size_t mark = sdk_log::mark();
    fp_server s("no-consumers");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    child_guard child(spawn([] {
        return run_side<fp_client>(
            "no-consumers", false, [](fp_client &c, doca_comch_connection *conn) -> std::string {
                const size_t m = sdk_log::mark();
                consumer cons(conn, c.dev(), {.slots = 2, .slot_size = 4096});
                REQ(cons.ok());
                REQ_EQ(cons.start(), DOCA_ERROR_DRIVER);
                REQ_EQ(cons.state(), DOCA_CTX_STATE_IDLE);
                REQ_EQ(fired(m, "consumer-start-fail,side=host").size(), size_t(1));
                REQ_EQ(lines_with(m, "doca_ctx_start of a consumer fails with DOCA_ERROR_DRIVER")
                           .size(),
                       size_t(1));
                REQ_EQ(cons.destroy(), DOCA_SUCCESS);
                return "";
            });
    }));
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(s, conn));
    {
        consumer cons(conn, s.dev(), {.slots = 2, .slot_size = 4096});
        ASSERT_TRUE(cons.ok());
        EXPECT_EQ(cons.start(), DOCA_ERROR_IO_FAILED);
        EXPECT_EQ(cons.state(), DOCA_CTX_STATE_IDLE);
        EXPECT_EQ(cons.start(), DOCA_ERROR_IO_FAILED) << "every start of a consumer";
        EXPECT_EQ(cons.destroy(), DOCA_SUCCESS);
        producer p(conn, s.dev(), {.num_tasks = 2, .slots = 2, .slot_size = 4096});
        EXPECT_EQ(start_producer(p), "");
        EXPECT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(p.destroy(), DOCA_SUCCESS);
    }
    const auto f = fired(mark, "consumer-start-fail,code=DOCA_ERROR_IO_FAILED,side=dpu");
    EXPECT_EQ(f.size(), 2u) << sdk_log::since(mark);
    EXPECT_EQ(lines_with(mark, "fails with DOCA_ERROR_IO_FAILED").size(), 2u);
    EXPECT_EQ(finish(s, conn), "");
    EXPECT_EQ(child.wait(), 0);
}

// kill-channel,after=N on the server, whose producer sends to the client's consumer: the Nth
// send drops the connection half-way through the copy. The send completes with
// DOCA_ERROR_CONNECTION_ABORTED and the next is refused (the consumer expired), the server sees
// its client go; the client sees what a producer's death during a write looks like: every
// posted receive ends with DOCA_ERROR_CONNECTION_ABORTED and the client stops.
TEST_F(FaultsOnDemand, KillChannelDropsTheConnectionDuringAFastPathSend)
{
    env_knob faults(k_env, "kill-channel,after=2,side=dpu");
    const size_t mark = sdk_log::mark();
    fp_server s("killer");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    child_guard child(spawn([] {
        fp_client c("killer");
        CHILD_CHECK(c.ok() && c.start() == DOCA_ERROR_IN_PROGRESS);
        doca_comch_connection *conn = nullptr;
        CHILD_CHECK(establish(c, conn));
        auto cons = std::make_unique<consumer>(
            conn, c.dev(), consumer_options{.slots = 4, .slot_size = 4096, .hold_errors = true});
        const std::string e = start_consumer(*cons, c);
        CHILD_CHECK_MSG(e.empty(), "%s", e.c_str());
        CHILD_CHECK(cons->post_all() == DOCA_SUCCESS);
        CHILD_CHECK(send_ctrl(c, conn, "cid " + std::to_string(cons->id())) == DOCA_SUCCESS);
        CHILD_CHECK(cons->progress_until([&] { return cons->posted() == 0; }, 5000ms, c.pe()));
        CHILD_CHECK_EQ(cons->recv_count, size_t(1));
        CHILD_CHECK_EQ(cons->received.front().data.size(), size_t(1000));
        CHILD_CHECK(!cons->errors.empty());
        for (doca_error_t rc : cons->errors)
            CHILD_CHECK_EQ(rc, DOCA_ERROR_CONNECTION_ABORTED);
        CHILD_CHECK(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 5000ms));
        const doca_error_t rc = doca_ctx_stop(cons->ctx());
        CHILD_CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS ||
                    rc == DOCA_ERROR_BAD_STATE);
        CHILD_CHECK(cons->progress_until([&] { return cons->state() == DOCA_CTX_STATE_IDLE; },
                                         5000ms, c.pe()));
        cons->free_held();
        CHILD_CHECK(cons->destroy() == DOCA_SUCCESS);
        return 0;
    }));
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(s, conn));
    uint32_t cid = 0;
    ASSERT_EQ(learn_remote_consumer(s, s, conn, cid), "");
    {
        producer p(conn, s.dev(), {.num_tasks = 4, .slots = 4, .slot_size = 4096});
        ASSERT_EQ(start_producer(p), "");
        std::vector<uint8_t> msg(1000, 0x5a);
        ASSERT_EQ(p.send(cid, msg.data(), msg.size()), DOCA_SUCCESS);
        ASSERT_TRUE(p.wait_completions(5000ms));
        EXPECT_EQ(p.ok_count, 1u);
        EXPECT_TRUE(lines_with(mark, k_fired).empty()) << "fired on the first send";
        ASSERT_EQ(p.send(cid, msg.data(), msg.size()), DOCA_SUCCESS);
        ASSERT_TRUE(p.wait_completions(5000ms));
        EXPECT_EQ(errs_to_string(p.err_statuses), "[DOCA_ERROR_CONNECTION_ABORTED]");
        const auto f = fired(mark, "kill-channel,after=2,side=dpu");
        ASSERT_EQ(f.size(), 1u) << sdk_log::since(mark);
        EXPECT_NE(f[0].find("the connection drops during this fast-path send"), std::string::npos);
        EXPECT_EQ(p.send(cid, msg.data(), msg.size(), nullptr, 0, {.timeout = 200ms}),
                  DOCA_ERROR_NOT_FOUND);
        EXPECT_TRUE(s.progress_until([&] { return s.disconnected.size() == 1; }, 5000ms));
        EXPECT_EQ(lines_with(mark, "went away without disconnecting").size(), 1u)
            << sdk_log::since(mark);
        EXPECT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(p.destroy(), DOCA_SUCCESS);
    }
    EXPECT_EQ(child.wait(), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// hang,after=N,for=T on the client: after its Nth send it stops serving the connection for T
// (no reading, no heartbeat), then serves it again. The server sees a hung peer, not a closed
// one: reported after SOFTCOMCH_PEER_STALL_MS, and again when it resumes; the connection is kept
// and what the server sent meanwhile arrives once the hang is over.
TEST_F(FaultsOnDemand, HangForAWhileIsAStalledPeerThenServesAgain)
{
    env_knob faults(k_env, "hang,after=1,for=700ms,side=host");
    env_knob stall(knobs::peer_stall.env, "200");
    const size_t mark = sdk_log::mark();
    server s("hanger");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate connected, go, bye;
    const pid_t cli = spawn([&] {
        const size_t m = sdk_log::mark();
        client c("hanger");
        CHILD_CHECK(c.ok() && c.start() == DOCA_ERROR_IN_PROGRESS && c.wait_running());
        connected.open();
        // The hang starts inside this send: both clocks start before it (the server's before
        // it opens `go`), so neither can see less of the hang than there was.
        CHILD_CHECK(c.progress_until([&] { return go.opened(); }, 5000ms));
        const auto t0 = clock::now();
        CHILD_CHECK(c.send(c.connection(), std::string("hello")) == DOCA_SUCCESS);
        CHILD_CHECK(c.progress_until([&] { return !c.received.empty(); }, 5000ms));
        CHILD_CHECK(ms_since(t0) >= 650);
        CHILD_CHECK_EQ(c.received.front().data, std::string("are you there"));
        CHILD_CHECK(c.send(c.connection(), std::string("yes")) == DOCA_SUCCESS);
        CHILD_CHECK_EQ(fired(m, "hang,after=1,for=700ms,side=host").size(), size_t(1));
        CHILD_CHECK_EQ(lines_with(m, "stops serving the connection for a while").size(), size_t(1));
        CHILD_CHECK_EQ(lines_with(m, "serves the connection again").size(), size_t(1));
        CHILD_CHECK(c.progress_until([&] { return bye.opened(); }, 5000ms));
        CHILD_CHECK(c.state() == DOCA_CTX_STATE_RUNNING);
        return 0;
    });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && connected.opened(); }, 5000ms));
    const auto t0 = clock::now();
    go.open();
    ASSERT_TRUE(s.progress_until([&] { return !s.received.empty(); }, 5000ms));
    ASSERT_EQ(s.send(s.connections.front(), std::string("are you there")), DOCA_SUCCESS);
    ASSERT_TRUE(s.progress_until(
        [&] { return !lines_with(mark, "has not progressed for").empty(); }, 3000ms));
    EXPECT_GE(ms_since(t0), 150);
    ASSERT_TRUE(
        s.progress_until([&] { return !lines_with(mark, "progresses again").empty(); }, 3000ms));
    ASSERT_TRUE(s.progress_until([&] { return s.received.size() == 2; }, 3000ms));
    EXPECT_GE(ms_since(t0), 600);
    EXPECT_EQ(s.received[1].data, "yes");
    EXPECT_TRUE(s.disconnected.empty()) << "a hung peer is not a closed one";
    EXPECT_TRUE(lines_with(mark, k_fired).empty()) << "the rule is the host's";
    bye.open();
    EXPECT_EQ(wait_child(cli), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// hang,at=T (for ever) on the client, with SOFTCOMCH_PEER_TIMEOUT_MS: the server disconnects
// the hung client as it does a stopped process; the client, hung, does not even see that.
TEST_F(FaultsOnDemand, HangForEverIsDisconnectedByAPeerThatOptedIn)
{
    env_knob faults(k_env, "hang,at=200ms,side=host");
    env_knob timeout(knobs::peer_timeout.env, "400");
    const size_t mark = sdk_log::mark();
    server s("frozen");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate connected, checked;
    const pid_t cli = spawn([&] {
        const size_t m = sdk_log::mark();
        client c("frozen");
        CHILD_CHECK(c.ok() && c.start() == DOCA_ERROR_IN_PROGRESS && c.wait_running());
        connected.open();
        CHILD_CHECK(c.progress_until([&] { return checked.opened(); }, 10000ms));
        CHILD_CHECK(c.state() == DOCA_CTX_STATE_RUNNING);
        CHILD_CHECK(lines_with(m, "went away").empty());
        CHILD_CHECK_EQ(fired(m, "hang,at=200ms,side=host").size(), size_t(1));
        CHILD_CHECK_EQ(lines_with(m, "this process stops serving the connection").size(),
                       size_t(1));
        return 0;
    });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && connected.opened(); }, 5000ms));
    const auto t0 = clock::now();
    ASSERT_TRUE(s.progress_until([&] { return s.disconnected.size() == 1; }, 5000ms));
    EXPECT_GE(ms_since(t0), 400);
    EXPECT_EQ(lines_with(mark, "did not progress for 400 ms").size(), 1u) << sdk_log::since(mark);
    s.progress_for(200ms); // the hung client must not notice meanwhile
    checked.open();
    EXPECT_EQ(wait_child(cli), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// conn=N: only the Nth connection of the process. This process's count of connections is
// learnt first (a probe connection, whose number a rule that matches nothing logs), so that the
// test holds however many connections the process made before.
TEST_F(FaultsOnDemand, ConnSelectsOnlyTheNthConnectionOfTheProcess)
{
    uint32_t probe = 0;
    {
        env_knob faults(k_env, "delay,ms=1,server=nobody");
        const size_t mark = sdk_log::mark();
        server s("counted");
        ASSERT_TRUE(s.ok());
        ASSERT_EQ(s.start(), DOCA_SUCCESS);
        gate connected;
        const pid_t cli = spawn([&] { return client_until_idle("counted", connected, false); });
        ASSERT_TRUE(s.progress_until([&] { return !s.connections.empty(); }, 5000ms));
        const auto l = lines_with(mark, "comch server 'counted': connection ");
        ASSERT_EQ(l.size(), 1u) << sdk_log::since(mark);
        probe = uint32_t(std::stoul(l[0].substr(l[0].find("': connection ") + 14)));
        EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(wait_child(cli), 0);
    }
    // The next two connections are probe + 1 and probe + 2: the second is dropped.
    const std::string rule = "disconnect,after=1,side=dpu,conn=" + std::to_string(probe + 2);
    env_knob faults(k_env, rule);
    const size_t mark = sdk_log::mark();
    server s("counted");
    ASSERT_TRUE(s.ok());
    echo_all(s);
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate first_up, second_up, finish_first;
    const pid_t first = spawn([&] {
        client c("counted");
        CHILD_CHECK(c.ok() && c.start() == DOCA_ERROR_IN_PROGRESS && c.wait_running());
        first_up.open();
        CHILD_CHECK(c.send(c.connection(), std::string("hi")) == DOCA_SUCCESS);
        CHILD_CHECK(c.progress_until([&] { return finish_first.opened(); }, 10000ms));
        CHILD_CHECK(c.state() == DOCA_CTX_STATE_RUNNING);
        CHILD_CHECK_EQ(c.received.size(), size_t(1));
        return 0;
    });
    ASSERT_TRUE(
        s.progress_until([&] { return first_up.opened() && s.received.size() == 1; }, 5000ms));
    const pid_t second =
        spawn([&] { return client_until_idle("counted", second_up, false, "hi"); });
    EXPECT_TRUE(s.progress_until([&] { return s.disconnected.size() == 1; }, 5000ms));
    EXPECT_EQ(wait_child(second), 0) << "the second client was not dropped";
    s.progress_for(100ms);
    EXPECT_EQ(s.connections.size(), 1u);
    const auto f = fired(mark, rule);
    ASSERT_EQ(f.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(f[0].find("connection " + std::to_string(probe + 2) + " of"), std::string::npos);
    finish_first.open();
    EXPECT_EQ(wait_child(first), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
}

// server= and fabric=: a rule applies only to the connections of the server of that name, and
// only in its fabric. Three servers in this process: "keep" (no rule), "cut" (a rule naming it)
// and "far" (a rule naming it in another fabric).
TEST_F(FaultsOnDemand, ServerAndFabricSelectOnlyTheirConnections)
{
    const std::string here = softcomch::transport::fabric_name();
    env_knob faults(k_env, "disconnect,after=1,side=dpu,server=cut,fabric=" + here +
                               ";disconnect,after=1,server=far,fabric=elsewhere");
    const size_t mark = sdk_log::mark();
    std::vector<std::unique_ptr<server>> servers;
    for (const char *name : {"keep", "cut", "far"}) {
        servers.push_back(std::make_unique<server>(name));
        ASSERT_TRUE(servers.back()->ok());
        echo_all(*servers.back());
        ASSERT_EQ(servers.back()->start(), DOCA_SUCCESS);
    }
    gate up[3], finish_kept;
    auto kept_client = [&](const char *name, gate &g) {
        return spawn([&, name] {
            client c(name);
            CHILD_CHECK(c.ok() && c.start() == DOCA_ERROR_IN_PROGRESS && c.wait_running());
            g.open();
            CHILD_CHECK(c.send(c.connection(), std::string("hi")) == DOCA_SUCCESS);
            CHILD_CHECK(c.progress_until([&] { return finish_kept.opened(); }, 10000ms));
            CHILD_CHECK(c.state() == DOCA_CTX_STATE_RUNNING);
            CHILD_CHECK_EQ(c.received.size(), size_t(1));
            return 0;
        });
    };
    const pid_t keep = kept_client("keep", up[0]);
    const pid_t cut = spawn([&] { return client_until_idle("cut", up[1], false, "hi"); });
    const pid_t far = kept_client("far", up[2]);
    auto all = [&](const std::function<bool()> &pred) {
        const auto end = clock::now() + 5000ms;
        while (!pred() && clock::now() < end)
            for (auto &sv : servers)
                (void)doca_pe_progress(sv->pe());
        return pred();
    };
    EXPECT_TRUE(all([&] { return servers[1]->disconnected.size() == 1; }));
    EXPECT_TRUE(all([&] {
        return servers[0]->received.size() == 1 && servers[2]->received.size() == 1 &&
               servers[0]->send_ok == 1 && servers[2]->send_ok == 1;
    }));
    EXPECT_EQ(wait_child(cut), 0) << "the client of 'cut' was not dropped";
    const auto deadline = clock::now() + 100ms;
    all([&] { return clock::now() > deadline; });
    EXPECT_TRUE(servers[0]->disconnected.empty());
    EXPECT_TRUE(servers[2]->disconnected.empty()) << "a rule of another fabric applied";
    EXPECT_EQ(lines_with(mark, k_fired).size(), 1u) << sdk_log::since(mark);
    EXPECT_EQ(fired(mark, "disconnect,after=1,side=dpu,server=cut,fabric=" + here).size(), 1u);
    finish_kept.open();
    EXPECT_EQ(wait_child(keep), 0);
    EXPECT_EQ(wait_child(far), 0);
    for (auto &sv : servers)
        EXPECT_EQ(sv->stop_and_wait(), DOCA_SUCCESS);
}
