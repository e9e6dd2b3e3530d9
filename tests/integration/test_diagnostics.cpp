// SPDX-License-Identifier: Apache-2.0
//
// The diagnostics of src/comch/diagnostics.hpp between real processes: each mistake is made by
// a small program (a forked server or client of the public-API harness, or
// tests/programs/comch_diag_server under its own environment), and the line the library writes
// about it is checked, at WARNING or ERROR (both visible at DOCA's default SDK level), once,
// not once per progress call:
//   a client still STARTING (no server of its name; a near name; the server in another fabric)
//   a client whose server accepted but does not progress
//   a server or client created on the wrong side's device; a name longer than the maximum
//   a server at its client limit (the server once, each refused client)
//   a peer that stopped progressing (what to do)
//   a producer send to a consumer id that does not exist (the ids that do)
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "bounds_support.hpp"
#include "build_tree.hpp"
#include "common/bounds.hpp"
#include "fastpath_harness.hpp"

using namespace sc_test;
using namespace bounds_test;
namespace knobs = softcomch::bounds;

namespace {

class Diagnostics : public ::testing::Test {
protected:
    void SetUp() override
    {
        unsetenv("SOFTCOMCH_SIDE");
        unsetenv("SOFTCOMCH_TOPOLOGY");
        use_private_fabric(::testing::UnitTest::GetInstance()->current_test_info()->name());
        fabric_ = getenv("SOFTCOMCH_FABRIC");
    }
    std::string fabric_;
};

// A server in a child until `quit` opens; `serving` opens once it listens.
pid_t serve(const std::string &name, server_options o, gate &serving, gate &quit)
{
    return spawn([&, name, o] {
        server s(name, o);
        CHILD_CHECK(s.ok() && s.start() == DOCA_SUCCESS);
        serving.open();
        CHILD_CHECK(s.progress_until([&] { return quit.opened(); }, 20000ms));
        return 0;
    });
}

// Progresses `c` until a line with `part` appears (returns how long it took since `t0`, -1 if it
// did not), then for `after` more, so that a line written on every progress call would show.
long wait_line(side &c, size_t mark, const std::string &part, std::chrono::milliseconds timeout,
               std::chrono::milliseconds after = 300ms, clock::time_point t0 = clock::now())
{
    if (!c.progress_until([&] { return !lines_with(mark, part).empty(); }, timeout))
        return -1;
    const long took = ms_since(t0);
    c.progress_for(after);
    return took;
}

const char *const k_starting = "still STARTING after";

} // namespace

// A client whose server is not there says, once and at WARNING, what it waits for and which
// servers the fabric has: the brief's own example.
TEST_F(Diagnostics, ClientWithoutItsServerSaysWhatTheFabricHas)
{
    env_knob delay(knobs::diag_delay.env, "300");
    gate serving, quit;
    const pid_t srv = serve("y", {.dev_pci = "03:00.1", .rep_pci = "b1:00.1"}, serving, quit);
    ASSERT_TRUE(serving.wait(5000ms));
    const size_t mark = sdk_log::mark();
    client c("x");
    ASSERT_TRUE(c.ok());
    const auto t0 = clock::now(); // the delay counts from the start
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    const long took = wait_line(c, mark, k_starting, 5000ms, 300ms, t0);
    ASSERT_GE(took, 0) << sdk_log::since(mark);
    EXPECT_GE(took, 250); // the delay, less a coarse-clock tick
    const auto lines = lines_with(mark, k_starting);
    ASSERT_EQ(lines.size(), 1u) << "said once" << sdk_log::since(mark);
    EXPECT_NE(lines[0].find("[WRN]"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("comch client 'x': still STARTING after "), std::string::npos)
        << lines[0];
    EXPECT_NE(lines[0].find("no server named 'x' for host function 0000:b1:00.0 on fabric '" +
                            fabric_ +
                            "'; servers on this fabric: 'y' bound to pf1hpf "
                            "(0000:b1:00.1); still waiting"),
              std::string::npos)
        << lines[0];
    EXPECT_NE(lines[0].find("softcomch doctor --client 'x' --pci 0000:b1:00.0 tells more"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(c.state(), DOCA_CTX_STATE_STARTING) << "the client keeps waiting";
    EXPECT_EQ(doca_ctx_stop(c.ctx()), DOCA_SUCCESS);
    quit.open();
    EXPECT_EQ(wait_child(srv), 0);
}

// SOFTCOMCH_DIAG_DELAY_MS=0 turns the diagnostic off.
TEST_F(Diagnostics, DelayZeroIsOff)
{
    env_knob delay(knobs::diag_delay.env, "0");
    const size_t mark = sdk_log::mark();
    client c("nobody");
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    c.progress_for(400ms);
    EXPECT_TRUE(lines_with(mark, k_starting).empty()) << sdk_log::since(mark);
    EXPECT_EQ(doca_ctx_stop(c.ctx()), DOCA_SUCCESS);
}

// A server whose name is near the client's: a case difference, a trailing space, a typo.
class DiagnosticsNearName
    : public Diagnostics,
      public ::testing::WithParamInterface<std::pair<const char *, const char *>> {};

std::string near_kind_name(const ::testing::TestParamInfo<std::pair<const char *, const char *>> &i)
{
    static const char *const kinds[] = {"Case", "TrailingSpace", "Typo"};
    return kinds[i.index];
}

TEST_P(DiagnosticsNearName, IsSuggested)
{
    const auto [server_name, how] = GetParam();
    env_knob delay(knobs::diag_delay.env, "200");
    gate serving, quit;
    const pid_t srv = serve(server_name, {}, serving, quit);
    ASSERT_TRUE(serving.wait(5000ms));
    const size_t mark = sdk_log::mark();
    client c("diag_server");
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_GE(wait_line(c, mark, k_starting, 5000ms, 100ms), 0) << sdk_log::since(mark);
    const auto lines = lines_with(mark, k_starting);
    ASSERT_EQ(lines.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(lines[0].find("; did you mean '" + std::string(server_name) + "'? (" + how + ")"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(doca_ctx_stop(c.ctx()), DOCA_SUCCESS);
    quit.open();
    EXPECT_EQ(wait_child(srv), 0);
}

INSTANTIATE_TEST_SUITE_P(Kinds, DiagnosticsNearName,
                         ::testing::Values(std::make_pair("Diag_Server", "differs only in case"),
                                           std::make_pair("diag_server ",
                                                          "differs in leading or trailing spaces"),
                                           std::make_pair("diag_servr", "1 character apart")),
                         near_kind_name);

// The server runs in another fabric: the client's fabric has none, and the line says where it is.
TEST_F(Diagnostics, ServerInAnotherFabricIsNamed)
{
    env_knob delay(knobs::diag_delay.env, "200");
    const std::string theirs = fabric_ + "-other";
    const std::string name = "elsewhere-" + std::to_string(getpid());
    gate serving, quit;
    const pid_t srv = spawn([&] {
        setenv("SOFTCOMCH_FABRIC", theirs.c_str(), 1);
        server s(name);
        CHILD_CHECK(s.ok() && s.start() == DOCA_SUCCESS);
        serving.open();
        CHILD_CHECK(s.progress_until([&] { return quit.opened(); }, 20000ms));
        return 0;
    });
    ASSERT_TRUE(serving.wait(5000ms));
    const size_t mark = sdk_log::mark();
    client c(name);
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_GE(wait_line(c, mark, k_starting, 5000ms, 100ms), 0) << sdk_log::since(mark);
    const auto lines = lines_with(mark, k_starting);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("and no server listens on this fabric"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("a server named '" + name +
                            "' for this host function listens on "
                            "fabric '" +
                            theirs + "' (pid " + std::to_string(srv) +
                            "): start both sides with the same SOFTCOMCH_FABRIC"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(doca_ctx_stop(c.ctx()), DOCA_SUCCESS);
    quit.open();
    EXPECT_EQ(wait_child(srv), 0);
}

// A server that listens but does not progress (stopped): the client's warning names its process
// and says what it must do.
TEST_F(Diagnostics, ServerThatDoesNotProgressIsNamed)
{
    env_knob deadline(knobs::handshake_timeout.env, "300");
    gate serving, quit;
    const pid_t srv = serve("frozen", {}, serving, quit);
    ASSERT_TRUE(serving.wait(5000ms));
    ASSERT_EQ(::kill(srv, SIGSTOP), 0);
    int st = 0;
    ASSERT_EQ(::waitpid(srv, &st, WUNTRACED), srv);
    const size_t mark = sdk_log::mark();
    client c("frozen");
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_GE(wait_line(c, mark, "has not answered the handshake", 5000ms), 0)
        << sdk_log::since(mark);
    const auto lines = lines_with(mark, "has not answered the handshake");
    ASSERT_EQ(lines.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(lines[0].find("[WRN]"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("still waiting; the server's program (pid " + std::to_string(srv) +
                            ") must call doca_pe_progress on the engine of its server"),
              std::string::npos)
        << lines[0];
    EXPECT_TRUE(lines_with(mark, k_starting).empty()) << "a server was found: nothing to explain";
    EXPECT_EQ(doca_ctx_stop(c.ctx()), DOCA_SUCCESS);
    ASSERT_EQ(::kill(srv, SIGCONT), 0);
    quit.open();
    EXPECT_EQ(wait_child(srv), 0);
}

// A peer that stops progressing once connected: the waiting side's warning says what to do.
TEST_F(Diagnostics, StalledPeerLineSaysWhatToDo)
{
    env_knob stall(knobs::peer_stall.env, "200");
    const size_t mark = sdk_log::mark();
    server s("stall");
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.start(), DOCA_SUCCESS);
    gate connected;
    const pid_t cli = spawn([&] {
        client c("stall");
        CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS && c.wait_running());
        connected.open();
        CHILD_CHECK(c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 20000ms));
        return 0;
    });
    ASSERT_TRUE(
        s.progress_until([&] { return !s.connections.empty() && connected.opened(); }, 5000ms));
    ASSERT_EQ(::kill(cli, SIGSTOP), 0);
    int st = 0;
    ASSERT_EQ(::waitpid(cli, &st, WUNTRACED), cli);
    ASSERT_GE(wait_line(s, mark, "has not progressed for", 3000ms), 0) << sdk_log::since(mark);
    const auto lines = lines_with(mark, "has not progressed for");
    ASSERT_EQ(lines.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(lines[0].find("[WRN]"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("the peer (pid " + std::to_string(cli) + ")"), std::string::npos);
    EXPECT_NE(lines[0].find("its program must keep calling doca_pe_progress on the engine of its "
                            "Comch context"),
              std::string::npos)
        << lines[0];
    ASSERT_EQ(::kill(cli, SIGCONT), 0);
    EXPECT_EQ(s.stop_and_wait(), DOCA_SUCCESS);
    EXPECT_EQ(wait_child(cli), 0);
}

// A client on the DPU's device, a server on a host function: refused at create (as before, with
// DOCA_ERROR_NOT_SUPPORTED, which NVIDIA's samples never meet), with where to run instead. Nothing
// waits, so there is nothing to explain later.
TEST_F(Diagnostics, WrongSideDevicesAreRefusedWithWhereToRun)
{
    doca_dev *dpu = open_dev("03:00.0");
    doca_dev *host = open_dev("b1:00.0");
    ASSERT_TRUE(dpu && host);
    doca_dev_rep *rep = open_rep(dpu, "b1:00.0");
    ASSERT_NE(rep, nullptr);
    size_t mark = sdk_log::mark();
    doca_comch_client *cli = nullptr;
    EXPECT_EQ(doca_comch_client_create(dpu, "wrong-side", &cli), DOCA_ERROR_NOT_SUPPORTED);
    auto lines = lines_with(mark, "cannot run a Comch client");
    ASSERT_EQ(lines.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(lines[0].find("[ERR]"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("0000:03:00.0 is on the DPU side of bf0, where the server runs; start "
                            "the client on the host, on a host function this device represents: "
                            "0000:b1:00.0 (pf0hpf), 0000:b1:00.2 (pf0vf0)"),
              std::string::npos)
        << lines[0];
    mark = sdk_log::mark();
    doca_comch_server *srv = nullptr;
    EXPECT_EQ(doca_comch_server_create(host, rep, "wrong-side", &srv), DOCA_ERROR_NOT_SUPPORTED);
    lines = lines_with(mark, "cannot run a Comch server");
    ASSERT_EQ(lines.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(lines[0].find("0000:b1:00.0 is a host function of bf0, where the client runs; start "
                            "the server on the DPU side (device 0000:03:00.0 with representor "
                            "pf0hpf, which stands for 0000:b1:00.0)"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
}

// A name longer than doca_comch_cap_get_max_name_len allows: refused at create on both sides
// (DOCA_ERROR_INVALID_VALUE, the documented code), with its length and the limit.
TEST_F(Diagnostics, NameTooLongIsRefusedWithItsLength)
{
    doca_dev *dpu = open_dev("03:00.0");
    doca_dev *host = open_dev("b1:00.0");
    ASSERT_TRUE(dpu && host);
    doca_dev_rep *rep = open_rep(dpu, "b1:00.0");
    ASSERT_NE(rep, nullptr);
    uint32_t max = 0;
    ASSERT_EQ(doca_comch_cap_get_max_name_len(doca_dev_as_devinfo(host), &max), DOCA_SUCCESS);
    const std::string name(max + 10, 'n');
    const std::string expect = "at most " + std::to_string(max - 1) +
                               " characters; see doca_comch_cap_get_max_name_len, " +
                               std::to_string(max) + " with the terminating NUL): \"" +
                               std::string(40, 'n') + "...\" has " + std::to_string(name.size()) +
                               ";";
    size_t mark = sdk_log::mark();
    doca_comch_client *cli = nullptr;
    EXPECT_EQ(doca_comch_client_create(host, name.c_str(), &cli), DOCA_ERROR_INVALID_VALUE);
    auto lines = lines_with(mark, "the name is too long");
    ASSERT_EQ(lines.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(lines[0].find("doca_comch_client_create: the name is too long (" + expect),
              std::string::npos)
        << lines[0];
    mark = sdk_log::mark();
    doca_comch_server *srv = nullptr;
    EXPECT_EQ(doca_comch_server_create(dpu, rep, name.c_str(), &srv), DOCA_ERROR_INVALID_VALUE);
    lines = lines_with(mark, "the name is too long");
    ASSERT_EQ(lines.size(), 1u) << sdk_log::since(mark);
    EXPECT_NE(lines[0].find(expect), std::string::npos) << lines[0];
    // One character less is accepted.
    const std::string longest(max - 1, 'n');
    EXPECT_EQ(doca_comch_client_create(host, longest.c_str(), &cli), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_client_destroy(cli), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
}

namespace {

// tests/programs/comch_diag_server NAME in a process of its own, under the environment of this
// one plus `env`: started by start(), which waits for its "ready"; stop() closes its stdin (it
// stops and exits) and returns its exit status, with what it wrote to stderr in `err`.
class diag_server {
public:
    bool start(const std::string &name, const std::vector<std::string> &env)
    {
        int in[2], out[2], errp[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
            ::pipe2(errp, O_CLOEXEC) != 0)
            return false;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], 0);
            ::dup2(out[1], 1);
            ::dup2(errp[1], 2);
            for (const std::string &e : env)
                ::putenv(const_cast<char *>(e.c_str()));
            const std::string prog =
                std::string(sc_test::build_tree::programs_dir) + "/comch_diag_server";
            ::execl(prog.c_str(), prog.c_str(), name.c_str(), (char *)nullptr);
            _exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        ::close(errp[1]);
        stdin_ = in[1];
        stderr_ = errp[0];
        char buf[16] = {};
        pollfd p{out[0], POLLIN, 0};
        const bool ready = ::poll(&p, 1, 10000) == 1 && ::read(out[0], buf, sizeof buf - 1) > 0 &&
                           std::string(buf).starts_with("ready");
        ::close(out[0]);
        return pid_ > 0 && ready;
    }
    int stop()
    {
        if (stdin_ >= 0)
            ::close(stdin_);
        stdin_ = -1;
        char buf[4096];
        ssize_t n;
        while ((n = ::read(stderr_, buf, sizeof buf)) > 0)
            err.append(buf, size_t(n));
        return wait_child(pid_);
    }
    ~diag_server()
    {
        if (stdin_ >= 0) {
            ::kill(pid_, SIGKILL);
            (void)stop();
        }
        if (stderr_ >= 0)
            ::close(stderr_);
    }
    pid_t pid() const { return pid_; }
    std::string err;

private:
    pid_t pid_ = -1;
    int stdin_ = -1, stderr_ = -1;
};

size_t count_of(const std::string &text, const std::string &part)
{
    size_t n = 0;
    for (size_t p = text.find(part); p != std::string::npos; p = text.find(part, p + 1))
        ++n;
    return n;
}

} // namespace

// A server at its client limit (a topology with max_clients 1, in a program of its own): each
// refused client says why (ERROR: it stops, IDLE), the server says so once per start.
TEST_F(Diagnostics, ServerAtItsClientLimit)
{
    const std::string topo = "/tmp/softcomch-diag-topology-" + std::to_string(getpid()) + ".json";
    {
        std::ofstream f(topo);
        f << R"({"bluefields": [{"id": "bf0", "comch_caps": {"max_clients": 1},
              "host": [{"pci": "b1:00.0"}],
              "dpu": [{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0"}]}]}]})";
    }
    const std::string topo_env = "SOFTCOMCH_TOPOLOGY=" + topo;
    diag_server srv;
    ASSERT_TRUE(srv.start("limited", {topo_env}));
    const size_t mark = sdk_log::mark();
    client first("limited");
    ASSERT_EQ(first.start(), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(first.wait_running()) << sdk_log::since(mark);
    const std::string why = "the server (pid " + std::to_string(srv.pid()) +
                            ") holds its maximum of 1 clients (doca_comch_cap_get_max_clients); "
                            "another can connect once one of them disconnects";
    for (int i = 0; i < 3; ++i) {
        client more("limited");
        ASSERT_EQ(more.start(), DOCA_ERROR_IN_PROGRESS);
        ASSERT_TRUE(more.progress_until([&] { return more.state() == DOCA_CTX_STATE_IDLE; }))
            << "client " << i << " still waits" << sdk_log::since(mark);
    }
    const auto refused = lines_with(mark, "connection refused: " + why + " (DOCA_ERROR_FULL)");
    EXPECT_EQ(refused.size(), 3u) << sdk_log::since(mark);
    for (const auto &l : refused)
        EXPECT_NE(l.find("[ERR]"), std::string::npos) << l;
    first.progress_for(100ms);
    EXPECT_EQ(first.state(), DOCA_CTX_STATE_RUNNING) << "the connected client is not disturbed";
    EXPECT_EQ(first.stop_and_wait(), DOCA_SUCCESS);
    EXPECT_EQ(srv.stop(), 0) << srv.err;
    ::unlink(topo.c_str());
    EXPECT_EQ(count_of(srv.err, "[WRN]"), 1u) << srv.err;
    EXPECT_EQ(count_of(srv.err, "comch server 'limited': refused a client: " + why +
                                    " (logged once per start)"),
              1u)
        << srv.err;
}

// A producer's send to a consumer id the peer never announced: DOCA_ERROR_NOT_FOUND from
// doca_task_submit (as before, for every such send), and one warning naming the id and the ids
// that do exist on the connection.
TEST_F(Diagnostics, ProducerSendToAConsumerIdThatDoesNotExist)
{
    using namespace sc_test::fp;
    const std::string name = "diag-fp";
    child_guard child(spawn([&] {
        return run_side<fp_server>(
            name, false, [&](fp_server &s, doca_comch_connection *conn) -> std::string {
                consumer k(conn, s.dev(), consumer_options{.slots = 1});
                REQ_OK(start_consumer(k, s));
                REQ_EQ(k.post_all(), DOCA_SUCCESS);
                REQ_EQ(send_ctrl(s, conn, "cid " + std::to_string(k.id())), DOCA_SUCCESS);
                REQ_MSG(expect_msg(s, "done", nullptr, 10000ms), "no \"done\"");
                REQ_EQ(k.stop_and_wait(s.pe()), DOCA_SUCCESS);
                return "";
            });
    }));
    fp_client c(name);
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    doca_comch_connection *conn = nullptr;
    ASSERT_TRUE(establish(c, conn));
    uint32_t cid = 0;
    ASSERT_EQ(learn_remote_consumer(c, c, conn, cid), "");
    {
        producer p(conn, c.dev(), {.num_tasks = 4, .slots = 4, .slot_size = 64});
        ASSERT_EQ(start_producer(p), "");
        const uint32_t wrong = cid + 1000;
        const size_t mark = sdk_log::mark();
        const uint8_t payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        for (int i = 0; i < 5; ++i) {
            EXPECT_EQ(p.send(wrong, payload, sizeof payload), DOCA_ERROR_NOT_FOUND);
            pe_group({p.pe()}).until([] { return false; }, 20ms);
        }
        const std::string part = "doca_comch_producer_task_send to consumer id " +
                                 std::to_string(wrong) +
                                 ", which does not exist on this connection";
        const auto lines = lines_with(mark, part);
        ASSERT_EQ(lines.size(), 1u) << "once, not once per send" << sdk_log::since(mark);
        EXPECT_NE(lines[0].find("[WRN]"), std::string::npos) << lines[0];
        EXPECT_NE(lines[0].find("the peer's consumers on it: " + std::to_string(cid) + " ("),
                  std::string::npos)
            << lines[0];
        // The right id still works.
        EXPECT_EQ(p.send(cid, payload, sizeof payload), DOCA_SUCCESS);
        EXPECT_TRUE(p.wait_completions());
        EXPECT_EQ(p.stop_and_wait(), DOCA_SUCCESS);
        EXPECT_EQ(p.destroy(), DOCA_SUCCESS);
    }
    ASSERT_EQ(send_ctrl(c, conn, "done"), DOCA_SUCCESS);
    EXPECT_EQ(finish(c, conn), "");
    EXPECT_EQ(child.wait(), 0);
}
