// SPDX-License-Identifier: Apache-2.0
//
// SOFTCOMCH_TRACE across processes (docs/trace.md): a DPU-side server and a host-side client,
// each in a forked child of its own (so each resolves the variable itself, as two programs do),
// record into one file; it is then read with the library's reader (common/trace_file.hpp) and
// must be valid line by line and as strict JSON, with both pids named after their roles, every
// kind of event each side should have written, and timestamps of the one clock that respect
// causality across the two processes (a message is received after it was sent, its reply after
// that). The fast path: consumer announcement and acknowledgement events, and counters whose
// last values are the messages and bytes that went through.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/trace_file.hpp"
#include "dma_fixture.hpp"
#include "fastpath_harness.hpp"

using namespace sc_test;
using namespace sc_test::fp;

namespace {

namespace json = softcomch::json;
namespace tf = softcomch::trace_file;

constexpr int kMessages = 20;

class Trace : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto *ti = ::testing::UnitTest::GetInstance()->current_test_info();
        unsetenv("SOFTCOMCH_SIDE");
        unsetenv("SOFTCOMCH_TOPOLOGY");
        use_private_fabric(std::string("trace-") + ti->name());
        char tmpl[] = "/tmp/softcomch-it-trace-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        file_ = dir_ + "/trace.json";
        // Set before any Comch call of this process: only the children use Comch, and each
        // resolves it at its first event.
        setenv("SOFTCOMCH_TRACE", file_.c_str(), 1);
    }
    void TearDown() override
    {
        unsetenv("SOFTCOMCH_TRACE");
        std::filesystem::remove_all(dir_);
    }

    // The file's events, checked line by line and as strict JSON. A process that took a Comch
    // role is named twice (its program, then the role); one that did not, once.
    std::vector<json::value> read_trace(size_t names_per_process = 2)
    {
        std::ifstream in(file_, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        std::vector<json::value> events;
        const tf::report r = tf::read(s.str(), &events);
        for (const auto &p : r.problems)
            ADD_FAILURE() << file_ << ":" << p.line << ": " << p.what;
        std::string err;
        const json::value strict = json::parse(tf::strict(events), &err);
        EXPECT_EQ(err, "");
        // The same events, but of each process's names (its program's, then its role's) the
        // last only.
        size_t names = 0;
        for (const auto &e : events)
            names += e.find("name")->as_string() == "process_name";
        EXPECT_EQ(names, names_per_process * r.processes.size());
        EXPECT_EQ(strict.find("traceEvents")->size(),
                  events.size() - (names_per_process - 1) * r.processes.size());
        names_.clear();
        for (const auto &p : r.processes)
            names_[p.pid] = p.name;
        return events;
    }

    std::string dir_, file_;
    std::map<int64_t, std::string> names_; // pid -> process_name
};

// The events of one pid with one phase and name, in file order.
std::vector<const json::value *> select(const std::vector<json::value> &events, int64_t pid,
                                        const std::string &ph, const std::string &name)
{
    std::vector<const json::value *> out;
    for (const auto &e : events)
        if (e.find("pid")->as_int() == pid && e.find("ph")->as_string() == ph &&
            e.find("name")->as_string() == name)
            out.push_back(&e);
    return out;
}

double ts(const json::value *e)
{
    return e->find("ts")->as_double();
}

int echo_server(const std::string &name)
{
    server s(name);
    CHILD_CHECK(s.ok());
    s.on_recv = [](side &self, doca_comch_connection *c, const uint8_t *b, uint32_t n) {
        (void)self.send(c, b, n);
    };
    CHILD_CHECK(s.start() == DOCA_SUCCESS);
    CHILD_CHECK(s.progress_until([&] { return !s.disconnected.empty(); }, 20000ms));
    CHILD_CHECK(s.stop_and_wait() == DOCA_SUCCESS);
    return 0;
}

int pinging_client(const std::string &name)
{
    client c(name);
    CHILD_CHECK(c.ok());
    CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
    CHILD_CHECK(c.wait_running(10000ms));
    for (int i = 0; i < kMessages; ++i) {
        CHILD_CHECK(c.send(c.connection(), "ping " + std::to_string(i)) == DOCA_SUCCESS);
        CHILD_CHECK(c.progress_until([&] { return c.received.size() == size_t(i + 1); }));
    }
    CHILD_CHECK(c.stop_and_wait() == DOCA_SUCCESS);
    return 0;
}

} // namespace

TEST_F(Trace, ControlPathPairOnOneTimeline)
{
    const pid_t srv = spawn([] { return echo_server("traced"); });
    const pid_t cli = spawn([] { return pinging_client("traced"); });
    ASSERT_EQ(wait_child(cli, 30000ms), 0);
    ASSERT_EQ(wait_child(srv, 30000ms), 0);

    const auto events = read_trace();
    ASSERT_EQ(names_.size(), 2u);
    EXPECT_EQ(names_[srv], "DPU: server 'traced'");
    EXPECT_EQ(names_[cli], "host: client 'traced'");

    // Every kind of event each side writes.
    for (pid_t pid : {srv, cli}) {
        SCOPED_TRACE(names_[pid]);
        ASSERT_EQ(select(events, pid, "i", "connect").size(), 1u);
        ASSERT_EQ(select(events, pid, "i", "disconnect").size(), 1u);
        ASSERT_EQ(select(events, pid, "b", "send").size(), size_t(kMessages));
        ASSERT_EQ(select(events, pid, "e", "send").size(), size_t(kMessages));
        ASSERT_EQ(select(events, pid, "i", "recv").size(), size_t(kMessages));
        EXPECT_EQ(select(events, pid, "M", "thread_name").size(), 1u);
        for (const auto *e : select(events, pid, "e", "send"))
            EXPECT_EQ(e->find("args")->find("status")->as_string(), "DOCA_SUCCESS");
        // Within one thread, time only goes forward in file order.
        double last = 0;
        for (const auto &e : events)
            if (e.find("pid")->as_int() == pid && e.find("ts")) {
                EXPECT_LE(last, e.find("ts")->as_double()) << json::dump(e, 0);
                last = e.find("ts")->as_double();
            }
    }
    const auto srv_connect = select(events, srv, "i", "connect")[0];
    const auto cli_connect = select(events, cli, "i", "connect")[0];
    EXPECT_EQ(srv_connect->find("args")->find("peer_pid")->as_int(), cli);
    EXPECT_EQ(cli_connect->find("args")->find("peer_pid")->as_int(), srv);
    // Both sides name the connection alike.
    EXPECT_EQ(srv_connect->find("args")->find("conn")->as_int(),
              cli_connect->find("args")->find("conn")->as_int());
    EXPECT_EQ(select(events, srv, "i", "disconnect")[0]->find("args")->find("reason")->as_string(),
              "peer disconnected");
    // The states: the client's STARTING, RUNNING and STOPPING, the server's RUNNING and
    // STOPPING, as spans that begin and end on the same id.
    for (const auto &[pid, want] : std::vector<std::pair<pid_t, std::vector<std::string>>>{
             {srv, {"server 'traced' RUNNING", "server 'traced' STOPPING"}},
             {cli,
              {"client 'traced' STARTING", "client 'traced' RUNNING",
               "client 'traced' STOPPING"}}}) {
        std::string id;
        for (const std::string &name : want) {
            const auto b = select(events, pid, "b", name);
            const auto e = select(events, pid, "e", name);
            ASSERT_EQ(b.size(), 1u) << name;
            ASSERT_EQ(e.size(), 1u) << name;
            EXPECT_LE(ts(b[0]), ts(e[0])) << name;
            EXPECT_EQ(b[0]->find("id")->as_string(), e[0]->find("id")->as_string());
            if (id.empty())
                id = b[0]->find("id")->as_string();
            EXPECT_EQ(b[0]->find("id")->as_string(), id) << "one track per context";
        }
    }
    // One clock: message i is submitted by the client before the server receives it, and the
    // server's echo is submitted before the client receives it.
    const auto cli_send = select(events, cli, "b", "send");
    const auto srv_recv = select(events, srv, "i", "recv");
    const auto srv_send = select(events, srv, "b", "send");
    const auto cli_recv = select(events, cli, "i", "recv");
    for (int i = 0; i < kMessages; ++i) {
        EXPECT_LT(ts(cli_send[i]), ts(srv_recv[i])) << i;
        EXPECT_LT(ts(srv_recv[i]), ts(srv_send[i])) << i;
        EXPECT_LT(ts(srv_send[i]), ts(cli_recv[i])) << i;
        EXPECT_EQ(cli_send[i]->find("args")->find("len")->as_int(),
                  srv_recv[i]->find("args")->find("len")->as_int());
    }
}

namespace {

constexpr int kFastMessages = 50;
constexpr size_t kFastSize = 4096;

std::string consumer_body(fp_server &s, doca_comch_connection *conn)
{
    consumer cons(conn, s.dev(), {.slots = 8, .slot_size = kFastSize});
    REQ_OK(start_consumer(cons, s));
    REQ_EQ(cons.post_all(), DOCA_SUCCESS);
    REQ_EQ(send_ctrl(s, conn, "cid " + std::to_string(cons.id())), DOCA_SUCCESS);
    REQ_MSG(cons.progress_until([&] { return cons.recv_count >= size_t(kFastMessages); }, 15000ms,
                                s.pe()),
            "received %zu", cons.recv_count);
    REQ_EQ(cons.stop_and_wait(s.pe(), 10000ms), DOCA_SUCCESS);
    REQ_EQ(cons.destroy(), DOCA_SUCCESS);
    REQ_EQ(send_ctrl(s, conn, "stopped"), DOCA_SUCCESS);
    return "";
}

std::string producer_body(fp_client &c, doca_comch_connection *conn)
{
    uint32_t cid = 0;
    REQ_OK(learn_remote_consumer(c, c, conn, cid));
    producer p(conn, c.dev(), {.num_tasks = 8, .slots = 8, .slot_size = kFastSize});
    REQ_OK(start_producer(p));
    for (int i = 0; i < kFastMessages; ++i) {
        const doca_error_t rc =
            p.send(cid, kFastSize, [](uint8_t *d, size_t n) { std::memset(d, 7, n); }, nullptr, 0,
                   {.timeout = 10000ms});
        REQ_MSG(rc == DOCA_SUCCESS, "send %d: %s", i, err_name(rc).c_str());
    }
    REQ_MSG(p.wait_completions(10000ms), "%zu sends never completed", p.in_flight());
    REQ_EQ(p.stop_and_wait(), DOCA_SUCCESS);
    REQ_EQ(p.destroy(), DOCA_SUCCESS);
    REQ_MSG(expect_msg(c, "stopped", nullptr, 10000ms), "no \"stopped\"");
    REQ_MSG(c.progress_until([&] { return c.has_expired(cid); }, 5000ms), "no expired event");
    return "";
}

// The last value of counter `name` of `pid`.
int64_t last_counter(const std::vector<json::value> &events, int64_t pid, const std::string &name)
{
    int64_t v = -1;
    for (const auto *e : select(events, pid, "C", name))
        v = e->find("args")->find("value")->as_int();
    return v;
}

} // namespace

// A fault of SOFTCOMCH_FAULTS is on the timeline where it fired: on the side its rule names,
// with the connection's id as that side's connect event gives it, and the rule as written.
TEST_F(Trace, FiredFaultIsRecordedOnItsSide)
{
    setenv("SOFTCOMCH_FAULTS", "delay,ms=2,side=host", 1);
    const pid_t srv = spawn([] { return echo_server("traced-fault"); });
    const pid_t cli = spawn([] { return pinging_client("traced-fault"); });
    unsetenv("SOFTCOMCH_FAULTS");
    ASSERT_EQ(wait_child(cli, 30000ms), 0);
    ASSERT_EQ(wait_child(srv, 30000ms), 0);

    const auto events = read_trace();
    ASSERT_EQ(names_.size(), 2u);
    EXPECT_TRUE(select(events, srv, "i", "delay").empty());
    const auto fired = select(events, cli, "i", "delay");
    ASSERT_EQ(fired.size(), 1u); // the warning and the event: once, while the delay keeps acting
    EXPECT_EQ(fired[0]->find("cat")->as_string(), "fault");
    const auto connect = select(events, cli, "i", "connect");
    ASSERT_EQ(connect.size(), 1u);
    EXPECT_EQ(fired[0]->find("args")->find("conn")->as_int(),
              connect[0]->find("args")->find("conn")->as_int());
    EXPECT_EQ(fired[0]->find("args")->find("detail")->as_string(), "delay,ms=2,side=host");
    EXPECT_GT(ts(fired[0]), ts(connect[0]));
}

TEST_F(Trace, FastPathCountersAndConsumerEvents)
{
    const pid_t srv = spawn([] { return run_side<fp_server>("traced-fp", false, consumer_body); });
    const pid_t cli = spawn([] { return run_side<fp_client>("traced-fp", false, producer_body); });
    ASSERT_EQ(wait_child(cli, 40000ms), 0);
    ASSERT_EQ(wait_child(srv, 40000ms), 0);

    const auto events = read_trace();
    ASSERT_EQ(names_.size(), 2u);
    // The producer's side saw the consumer announced, and later expire; the consumer's side saw
    // its announcement acknowledged.
    const auto announced = select(events, cli, "i", "consumer announced");
    ASSERT_EQ(announced.size(), 1u);
    EXPECT_EQ(announced[0]->find("args")->find("status")->as_string(), "DOCA_SUCCESS");
    const int64_t cid = announced[0]->find("args")->find("consumer")->as_int();
    EXPECT_EQ(select(events, cli, "i", "consumer expired").size(), 1u);
    const auto acked = select(events, srv, "i", "consumer acknowledged");
    ASSERT_EQ(acked.size(), 1u);
    EXPECT_EQ(acked[0]->find("args")->find("consumer")->as_int(), cid);
    // The consumer's and the producer's states under their own labels.
    const std::string conn = std::to_string(
        select(events, srv, "i", "connect").at(0)->find("args")->find("conn")->as_int());
    EXPECT_EQ(
        select(events, srv, "b", "consumer " + std::to_string(cid) + " (conn " + conn + ") RUNNING")
            .size(),
        1u);
    bool producer_running = false;
    for (const auto *e : [&] {
             std::vector<const json::value *> all;
             for (const auto &ev : events)
                 if (ev.find("pid")->as_int() == cli && ev.find("ph")->as_string() == "b")
                     all.push_back(&ev);
             return all;
         }())
        producer_running = producer_running ||
                           (e->find("name")->as_string().rfind("producer ", 0) == 0 &&
                            e->find("name")->as_string().find(" RUNNING") != std::string::npos);
    EXPECT_TRUE(producer_running);
    // Counted, not one line per message: the last sample is the total.
    EXPECT_EQ(last_counter(events, cli, "fastpath.tx_messages"), kFastMessages);
    EXPECT_EQ(last_counter(events, cli, "fastpath.tx_bytes"), int64_t(kFastMessages * kFastSize));
    EXPECT_EQ(last_counter(events, srv, "fastpath.rx_messages"), kFastMessages);
    EXPECT_EQ(last_counter(events, srv, "fastpath.rx_bytes"), int64_t(kFastMessages * kFastSize));
    EXPECT_LT(select(events, cli, "C", "fastpath.tx_messages").size(), size_t(kFastMessages));
}

namespace {

// A process that exports host memory, imports it through the DPU's device and copies it with
// one DMA task (the dma_copy pattern in one process): 0, or the step that failed.
int export_import_copy()
{
    doca_dev *host = sc_devices::open_dev("b1:00.0");
    dma_test::context c("03:00.0", 4);
    if (host == nullptr)
        return 1;
    std::vector<uint8_t> mem(8192, 0x5a);
    doca_mmap *m = nullptr;
    if (doca_mmap_create(&m) != DOCA_SUCCESS ||
        doca_mmap_set_memrange(m, mem.data(), mem.size()) != DOCA_SUCCESS ||
        doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
        doca_mmap_add_dev(m, host) != DOCA_SUCCESS || doca_mmap_start(m) != DOCA_SUCCESS)
        return 2;
    const void *desc = nullptr;
    size_t len = 0;
    if (doca_mmap_export_pci(m, host, &desc, &len) != DOCA_SUCCESS)
        return 3;
    doca_mmap *remote = nullptr;
    if (doca_mmap_create_from_export(nullptr, desc, len, c.dev, &remote) != DOCA_SUCCESS)
        return 4;
    dma_test::region mine(c.dev, mem.size());
    doca_buf *rbuf = nullptr;
    if (doca_buf_inventory_buf_get_by_args(mine.inv, remote, mem.data(), mem.size(), mem.data(),
                                           mem.size(), &rbuf) != DOCA_SUCCESS)
        return 5;
    doca_buf *lbuf = mine.buf(0, mem.size(), 0);
    if (doca_ctx_start(c.ctx) != DOCA_SUCCESS || c.submit(c.task(rbuf, lbuf)) != DOCA_SUCCESS)
        return 6;
    if (!c.progress_until([&] { return !c.done.empty(); }) || c.done[0].status != DOCA_SUCCESS)
        return 7;
    if (mine.mem[100] != 0x5a)
        return 8;
    (void)doca_ctx_stop(c.ctx);
    c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; });
    if (doca_mmap_destroy(remote) != DOCA_SUCCESS || doca_mmap_destroy(m) != DOCA_SUCCESS)
        return 9;
    return doca_dev_close(host) == DOCA_SUCCESS ? 0 : 10;
}

} // namespace

// A DMA task is a span (cat "engine") and an export and its import are instant events (cat
// "memory"), the import naming the process that exported the memory.
TEST_F(Trace, DmaTaskSpanAndMemoryCrossingTheLink)
{
    const pid_t child = spawn([] { return export_import_copy(); });
    ASSERT_EQ(wait_child(child, 30000ms), 0);
    const auto events = read_trace(1);
    const auto begin = select(events, child, "b", "dma memcpy");
    const auto end = select(events, child, "e", "dma memcpy");
    ASSERT_EQ(begin.size(), 1u);
    ASSERT_EQ(end.size(), 1u);
    EXPECT_EQ(begin[0]->find("cat")->as_string(), "engine");
    EXPECT_EQ(end[0]->find("args")->find("status")->as_string(), "DOCA_SUCCESS");
    EXPECT_EQ(begin[0]->find("id")->as_string(), end[0]->find("id")->as_string());
    EXPECT_LE(ts(begin[0]), ts(end[0]));
    const auto exported = select(events, child, "i", "export");
    const auto imported = select(events, child, "i", "import");
    ASSERT_EQ(exported.size(), 1u);
    ASSERT_EQ(imported.size(), 1u);
    EXPECT_EQ(exported[0]->find("cat")->as_string(), "memory");
    const std::string detail = imported[0]->find("args")->find("detail")->as_string();
    EXPECT_NE(detail.find("exported by pid " + std::to_string(child)), std::string::npos) << detail;
    EXPECT_LT(ts(exported[0]), ts(imported[0]));
    EXPECT_LT(ts(imported[0]), ts(begin[0]));
}
