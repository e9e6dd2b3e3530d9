// SPDX-License-Identifier: Apache-2.0
//
// softcomch top --once [--json] against a real fabric: a server and clients in their own
// processes exchange known messages, then the tool's JSON is parsed and checked field by field
// (the schema of docs/cli.md, "softcomch top", and the figures each process must have
// published); a stopped server shows as a stalled peer of its client, whose sends pile up in
// the ring and the send queue; a DMA context, the memory one process exported and another
// imported show with their figures. The terminal view is tested in test_cli_top_tmux.cpp.
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "child_process.hpp"
#include "cli_util.hpp"
#include "device_lookup.hpp"
#include "dma_fixture.hpp"
#include "top_peers.hpp"

namespace {

using namespace sc_cli;
using namespace std::chrono_literals;

const std::vector<jt> str{jt::string};
const std::vector<jt> integer{jt::integer};
const std::vector<jt> boolean{jt::boolean};
const std::vector<jt> object{jt::object};
const std::vector<jt> array{jt::array};

const std::vector<field> doc_schema{
    {"schema", str, {"softcomch-top"}},
    {"schema_version", integer},
    {"fabric", str},
    {"fabric_dir", str},
    {"stats_dir", str},
    {"timestamp", str},
    {"summary", object},
    {"processes", array},
    {"contexts", array},
    {"connections", array},
    {"engines", array},
    {"memory", array},
    {"unreadable", array},
    {"stale_removed", array},
};
const std::vector<field> summary_schema{{"processes", integer},     {"servers", integer},
                                        {"clients", integer},       {"connections", integer},
                                        {"stalled_peers", integer}, {"engines", integer},
                                        {"exports", integer},       {"imports", integer}};
const std::vector<field> process_schema{
    {"pid", integer},
    {"comm", str},
    {"cmdline", str},
    {"state",
     str,
     {"running", "sleeping", "waiting", "stopped", "traced", "zombie", "dead", "idle", "unknown"}},
    {"contexts_unpublished", integer},
    {"connections_unpublished", integer},
    {"resources_unpublished", integer},
    {"stats_file", str},
};
const std::vector<field> context_schema{
    {"pid", integer},
    {"id", integer},
    {"kind", str, {"server", "client"}},
    {"name", str},
    {"name_truncated", boolean},
    {"state", str, {"IDLE", "STARTING", "RUNNING", "STOPPING"}},
    {"bluefield", str},
    {"device", str},
    {"representor", str},
    {"host_function", str},
    {"max_msg_size", integer},
    {"recv_queue_size", integer},
    {"connections", integer},
    {"since_tick_ms", {jt::integer, jt::null}},
};
const std::vector<field> connection_schema{
    {"pid", integer},
    {"context_id", integer},
    {"side", str, {"server", "client"}},
    {"name", str},
    {"id", integer},
    {"peer_pid", integer},
    {"state", str, {"open", "closing"}},
    {"max_msg_size", integer},
    {"sent", object},
    {"received", object},
    {"send_queued", integer},
    {"send_ring", object},
    {"recv_ring", object},
    {"consumers", integer},
    {"producers", integer},
    {"peer", object},
};
const std::vector<field> engine_schema{
    {"pid", integer},
    {"id", integer},
    {"engine", str, {"dma", "compress", "sha", "mmap_advise"}},
    {"device", str},
    {"state", str, {"IDLE", "STARTING", "RUNNING", "STOPPING"}},
    {"tasks_done", integer},
    {"tasks_failed", integer},
    {"in_flight", integer},
    {"bytes", integer},
};
const std::vector<field> memory_schema{
    {"pid", integer},
    {"id", integer},
    {"role", str, {"export", "import"}},
    {"what", str, {"mmap", "sync_event"}},
    {"function", str},
    {"access", integer},
    {"addr", integer},
    {"len", integer},
    {"exporter", {jt::string, jt::null}},
    {"exported_for", {jt::string, jt::null}},
    {"bytes", {jt::integer, jt::null}},
};
const std::vector<field> pair_schema{{"messages", integer}, {"bytes", integer}};
const std::vector<field> ring_schema{{"used", integer}, {"limit", integer}};
const std::vector<field> peer_schema{
    {"stalled", boolean}, {"silent_ms", integer}, {"asleep", boolean}, {"gone", boolean}};

// The whole document against the schema, nested objects included.
::testing::AssertionResult valid_top(const json::value &doc)
{
    if (auto r = matches(doc, doc_schema, "top"); !r)
        return r;
    if (auto r = matches(*doc.find("summary"), summary_schema, "summary"); !r)
        return r;
    if (auto r = all_match(*doc.find("processes"), process_schema, "processes"); !r)
        return r;
    if (auto r = all_match(*doc.find("contexts"), context_schema, "contexts"); !r)
        return r;
    if (auto r = all_match(*doc.find("connections"), connection_schema, "connections"); !r)
        return r;
    if (auto r = all_match(*doc.find("engines"), engine_schema, "engines"); !r)
        return r;
    if (auto r = all_match(*doc.find("memory"), memory_schema, "memory"); !r)
        return r;
    for (const auto &m : doc.find("memory")->elements())
        if ((m.find("role")->as_string() == "import") != m.find("exporter")->is_string())
            return ::testing::AssertionFailure() << "an import names its exporter, an export not";
    for (const auto &c : doc.find("connections")->elements()) {
        for (const char *p : {"sent", "received"})
            if (auto r = matches(*c.find(p), pair_schema, p); !r)
                return r;
        for (const char *p : {"send_ring", "recv_ring"})
            if (auto r = matches(*c.find(p), ring_schema, p); !r)
                return r;
        if (auto r = matches(*c.find("peer"), peer_schema, "peer"); !r)
            return r;
    }
    return ::testing::AssertionSuccess();
}

json::value top_json()
{
    const proc_result r = sc({"top", "--once", "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return parse(r.out);
}

// Runs the tool until `done` holds for its document (at most `timeout`); the last document.
json::value top_until(const std::function<bool(const json::value &)> &done,
                      std::chrono::milliseconds timeout = 15000ms)
{
    const auto end = std::chrono::steady_clock::now() + timeout;
    json::value doc = top_json();
    while (!done(doc) && std::chrono::steady_clock::now() < end) {
        std::this_thread::sleep_for(20ms); // pacing between polls, not a synchronisation
        doc = top_json();
    }
    return doc;
}

const json::value *find_by(const json::value &doc, const char *list, int pid,
                           const std::function<bool(const json::value &)> &also = {})
{
    for (const auto &e : doc.find(list)->elements())
        if (e.find("pid")->as_int() == pid && (!also || also(e)))
            return &e;
    return nullptr;
}

const json::value *connection_of(const json::value &doc, int pid, int peer)
{
    return find_by(doc, "connections", pid,
                   [&](const json::value &c) { return c.find("peer_pid")->as_int() == peer; });
}

int64_t at(const json::value &v, const char *a, const char *b = nullptr)
{
    const json::value *x = v.find(a);
    if (x != nullptr && b != nullptr)
        x = x->find(b);
    return x == nullptr ? -1 : x->as_int();
}

class CliTop : public ::testing::Test {
protected:
    void SetUp() override
    {
        sc_test::use_private_fabric(
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
};

TEST_F(CliTop, EmptyFabric)
{
    const json::value doc = top_json();
    ASSERT_TRUE(valid_top(doc));
    EXPECT_EQ(doc.find("fabric")->as_string(), std::getenv("SOFTCOMCH_FABRIC"));
    EXPECT_EQ(doc.find("schema_version")->as_int(), 1);
    EXPECT_EQ(doc.find("processes")->size(), 0u);
    EXPECT_EQ(doc.find("connections")->size(), 0u);
    const proc_result text = sc({"top", "--once"});
    EXPECT_EQ(text.status, 0);
    EXPECT_TRUE(sc_test::contains(text.out, "0 processes, 0 servers, 0 clients, 0 connections"))
        << text.out;
}

TEST_F(CliTop, UsageAndHelp)
{
    const proc_result help = sc({"top", "--help"});
    EXPECT_EQ(help.status, 0);
    for (const char *s : {"--once", "--json", "--delay", "--sort", "softcomch-top", "peer_pid"})
        EXPECT_TRUE(sc_test::contains(help.out, s)) << s;
    EXPECT_EQ(sc({"top", "--sort", "bogus"}).status, 2);
    EXPECT_EQ(sc({"top", "-d", "0"}).status, 2);
    EXPECT_EQ(sc({"top", "extra"}).status, 2);
    const proc_result bad = sc({"top", "--once", "--fabric", "no/slash"});
    EXPECT_EQ(bad.status, 1);
    EXPECT_FALSE(bad.err.empty());
    // Not a terminal (a pipe): one snapshot, as --once.
    const proc_result piped = sc({"top"});
    EXPECT_EQ(piped.status, 0);
    EXPECT_TRUE(sc_test::contains(piped.out, "CONNECTIONS (0)")) << piped.out;
}

TEST_F(CliTop, LiveCountsMatchWhatWasSent)
{
    const std::string name = "top-counts";
    peer_process srv(peer_process::role::server, name);
    ASSERT_TRUE(srv.expect("listening"));
    peer_process a(peer_process::role::client, name);
    ASSERT_TRUE(a.expect("connected"));
    peer_process b(peer_process::role::client, name);
    ASSERT_TRUE(b.expect("connected"));
    ASSERT_TRUE(a.command("send 10 100"));
    ASSERT_TRUE(b.command("send 3 50"));
    ASSERT_TRUE(a.expect("sent"));
    ASSERT_TRUE(b.expect("sent"));

    // The counters are exact at once; the ring figures come with the next tick of each side.
    const json::value doc = top_until([&](const json::value &d) {
        for (const auto &c : d.find("connections")->elements())
            if (at(c, "send_ring", "used") != 0 || at(c, "recv_ring", "used") != 0)
                return false;
        return d.find("connections")->size() == 4;
    });
    ASSERT_TRUE(valid_top(doc));
    const json::value &sum = *doc.find("summary");
    EXPECT_EQ(at(sum, "processes"), 3);
    EXPECT_EQ(at(sum, "servers"), 1);
    EXPECT_EQ(at(sum, "clients"), 2);
    EXPECT_EQ(at(sum, "connections"), 4);
    EXPECT_EQ(at(sum, "stalled_peers"), 0);
    EXPECT_EQ(doc.find("unreadable")->size(), 0u);

    for (pid_t pid : {srv.pid(), a.pid(), b.pid()}) {
        const json::value *p = find_by(doc, "processes", pid);
        ASSERT_NE(p, nullptr) << pid;
        EXPECT_NE(p->find("state")->as_string(), "stopped");
        EXPECT_TRUE(sc_test::contains(p->find("cmdline")->as_string(), "cli_test_cli_top"));
        EXPECT_EQ(p->find("stats_file")->as_string(),
                  doc.find("stats_dir")->as_string() + "/" + std::to_string(pid) + ".stats");
    }

    const json::value *sctx = find_by(doc, "contexts", srv.pid());
    ASSERT_NE(sctx, nullptr);
    EXPECT_EQ(sctx->find("kind")->as_string(), "server");
    EXPECT_EQ(sctx->find("name")->as_string(), name);
    EXPECT_EQ(sctx->find("state")->as_string(), "RUNNING");
    EXPECT_EQ(sctx->find("bluefield")->as_string(), "bf0");
    EXPECT_EQ(sctx->find("device")->as_string(), "0000:03:00.0");
    EXPECT_EQ(sctx->find("representor")->as_string(), "pf0hpf");
    EXPECT_EQ(sctx->find("host_function")->as_string(), "0000:b1:00.0");
    EXPECT_EQ(at(*sctx, "connections"), 2);
    EXPECT_EQ(at(*sctx, "recv_queue_size"), 64); // the harness's
    EXPECT_GT(at(*sctx, "max_msg_size"), 0);
    EXPECT_TRUE(sctx->find("since_tick_ms")->is_int());
    for (const peer_process *c : {&a, &b}) {
        const json::value *cctx = find_by(doc, "contexts", c->pid());
        ASSERT_NE(cctx, nullptr);
        EXPECT_EQ(cctx->find("kind")->as_string(), "client");
        EXPECT_EQ(cctx->find("name")->as_string(), name);
        EXPECT_EQ(cctx->find("state")->as_string(), "RUNNING");
        EXPECT_EQ(cctx->find("device")->as_string(), "0000:b1:00.0");
        EXPECT_EQ(cctx->find("representor")->as_string(), "");
        EXPECT_EQ(cctx->find("host_function")->as_string(), "0000:b1:00.0");
        EXPECT_EQ(at(*cctx, "connections"), 1);
    }

    // Each connection from both ends: the same id, the peers crossed, the figures mirrored.
    struct expected {
        const peer_process *client;
        int64_t messages, size;
    };
    for (const expected &e : {expected{&a, 10, 100}, expected{&b, 3, 50}}) {
        const json::value *cs = connection_of(doc, e.client->pid(), srv.pid());
        const json::value *ss = connection_of(doc, srv.pid(), e.client->pid());
        ASSERT_NE(cs, nullptr);
        ASSERT_NE(ss, nullptr);
        EXPECT_EQ(at(*cs, "id"), at(*ss, "id"));
        EXPECT_EQ(cs->find("side")->as_string(), "client");
        EXPECT_EQ(ss->find("side")->as_string(), "server");
        EXPECT_EQ(cs->find("name")->as_string(), name);
        EXPECT_EQ(cs->find("state")->as_string(), "open");
        EXPECT_EQ(at(*cs, "sent", "messages"), e.messages);
        EXPECT_EQ(at(*cs, "sent", "bytes"), e.messages * e.size);
        EXPECT_EQ(at(*cs, "received", "messages"), e.messages);
        EXPECT_EQ(at(*cs, "received", "bytes"), e.messages * k_reply_size);
        EXPECT_EQ(at(*ss, "received", "messages"), e.messages);
        EXPECT_EQ(at(*ss, "received", "bytes"), e.messages * e.size);
        EXPECT_EQ(at(*ss, "sent", "messages"), e.messages);
        EXPECT_EQ(at(*ss, "sent", "bytes"), e.messages * k_reply_size);
        for (const json::value *c : {cs, ss}) {
            EXPECT_EQ(at(*c, "send_queued"), 0);
            EXPECT_EQ(at(*c, "send_ring", "limit"), 64);
            EXPECT_EQ(at(*c, "recv_ring", "limit"), 64);
            EXPECT_EQ(at(*c, "consumers"), 0);
            EXPECT_EQ(at(*c, "producers"), 0);
            EXPECT_FALSE(c->find("peer")->find("stalled")->as_bool());
            EXPECT_FALSE(c->find("peer")->find("gone")->as_bool());
            EXPECT_EQ(at(*c, "max_msg_size"), at(*sctx, "max_msg_size"));
        }
    }

    // The text form names the same things.
    const proc_result text = sc({"top", "--once"});
    EXPECT_EQ(text.status, 0);
    EXPECT_TRUE(sc_test::contains(text.out, "3 processes, 1 server, 2 clients, 4 connections"))
        << text.out;
    EXPECT_TRUE(has_row(text.out, std::to_string(srv.pid()),
                        {"server", name, "RUNNING", "0000:03:00.0", "pf0hpf"}))
        << text.out;

    // A process that ends without destroying its contexts leaves its file, which the next
    // reader removes; one that ends cleanly takes its file with it.
    const std::string a_file = find_by(doc, "processes", a.pid())->find("stats_file")->as_string();
    const std::string b_file = find_by(doc, "processes", b.pid())->find("stats_file")->as_string();
    const int a_pid = a.pid(), b_pid = b.pid();
    EXPECT_EQ(b.finish(), 0);
    a.kill_and_reap();
    const json::value after = top_json();
    EXPECT_EQ(find_by(after, "processes", a_pid), nullptr);
    EXPECT_EQ(find_by(after, "processes", b_pid), nullptr);
    ASSERT_EQ(after.find("stale_removed")->size(), 1u) << json::dump(after);
    EXPECT_EQ(after.find("stale_removed")->elements()[0].as_string(), a_file);
    EXPECT_NE(::access(a_file.c_str(), F_OK), 0);
    EXPECT_NE(::access(b_file.c_str(), F_OK), 0);
    EXPECT_EQ(top_json().find("stale_removed")->size(), 0u);
    // The server's connections to them are gone too (closed connections give their slots back).
    const json::value last =
        top_until([&](const json::value &d) { return d.find("connections")->size() == 0; });
    EXPECT_EQ(last.find("connections")->size(), 0u);
    EXPECT_EQ(at(*find_by(last, "contexts", srv.pid()), "connections"), 0);
    const std::string stats_dir = last.find("stats_dir")->as_string();
    EXPECT_EQ(srv.finish(), 0);
    EXPECT_EQ(top_json().find("processes")->size(), 0u);
    EXPECT_NE(::access(stats_dir.c_str(), F_OK), 0) << "the last file takes the directory along";
}

TEST_F(CliTop, LiveStoppedServerIsStalledAndSendsPileUp)
{
    const std::string name = "top-stall";
    // The client reports a peer silent for 100 ms; the server's own judgement of the client is
    // kept out of the count (30 s): a client held off the CPU for 100 ms just before the server
    // stopped would otherwise be a second stalled peer in the server's last published view.
    const std::map<std::string, std::string> env{{"SOFTCOMCH_PEER_STALL_MS", "100"}};
    peer_process srv(peer_process::role::server, name, {{"SOFTCOMCH_PEER_STALL_MS", "30000"}});
    ASSERT_TRUE(srv.expect("listening"));
    peer_process cli(peer_process::role::client, name, env);
    ASSERT_TRUE(cli.expect("connected"));

    ASSERT_EQ(::kill(srv.pid(), SIGSTOP), 0);
    ASSERT_TRUE(cli.command("flood 70 32"));
    ASSERT_TRUE(cli.expect("flooded"));
    // The server's receive queue holds 64; the other 6 wait in the client's send queue.
    const json::value stalled = top_until([&](const json::value &d) {
        const json::value *c = connection_of(d, cli.pid(), srv.pid());
        return c && c->find("peer")->find("stalled")->as_bool() &&
               at(*c, "send_ring", "used") == 64 && at(*c, "send_queued") == 6;
    });
    ASSERT_TRUE(valid_top(stalled));
    const json::value *c = connection_of(stalled, cli.pid(), srv.pid());
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->find("peer")->find("stalled")->as_bool());
    EXPECT_GE(at(*c, "peer", "silent_ms"), 100);
    EXPECT_EQ(at(*c, "send_ring", "used"), 64);
    EXPECT_EQ(at(*c, "send_ring", "limit"), 64);
    EXPECT_EQ(at(*c, "send_queued"), 6);
    EXPECT_EQ(at(*c, "sent", "messages"), 64); // in the ring; the queued ones are not sent yet
    EXPECT_EQ(at(*c, "sent", "bytes"), 64 * 32);
    EXPECT_EQ(at(*stalled.find("summary"), "stalled_peers"), 1);
    EXPECT_EQ(find_by(stalled, "processes", srv.pid())->find("state")->as_string(), "stopped");
    const proc_result text = sc({"top", "--once"});
    EXPECT_TRUE(has_row(text.out, std::to_string(cli.pid()), {"client", "STALLED"})) << text.out;

    ASSERT_EQ(::kill(srv.pid(), SIGCONT), 0);
    const json::value resumed = top_until([&](const json::value &d) {
        const json::value *cc = connection_of(d, cli.pid(), srv.pid());
        const json::value *sc = connection_of(d, srv.pid(), cli.pid());
        return cc && sc && !cc->find("peer")->find("stalled")->as_bool() &&
               at(*cc, "send_queued") == 0 && at(*cc, "send_ring", "used") == 0 &&
               at(*cc, "received", "messages") == 70 && at(*sc, "received", "messages") == 70;
    });
    const json::value *cc = connection_of(resumed, cli.pid(), srv.pid());
    const json::value *ss = connection_of(resumed, srv.pid(), cli.pid());
    ASSERT_NE(cc, nullptr);
    ASSERT_NE(ss, nullptr);
    EXPECT_FALSE(cc->find("peer")->find("stalled")->as_bool());
    EXPECT_EQ(at(*cc, "send_queued"), 0);
    EXPECT_EQ(at(*cc, "send_ring", "used"), 0);
    EXPECT_EQ(at(*cc, "sent", "messages"), 70);
    EXPECT_EQ(at(*cc, "received", "messages"), 70);
    EXPECT_EQ(at(*cc, "received", "bytes"), 70 * k_reply_size);
    EXPECT_EQ(at(*ss, "received", "messages"), 70);
    EXPECT_EQ(at(*ss, "received", "bytes"), 70 * 32);
    EXPECT_EQ(at(*ss, "sent", "messages"), 70);
    EXPECT_EQ(cli.finish(), 0);
    EXPECT_EQ(srv.finish(), 0);
}

} // namespace

namespace {

bool write_all(int fd, const void *p, size_t n)
{
    return ::write(fd, p, n) == ssize_t(n);
}

bool read_all(int fd, void *p, size_t n)
{
    auto *b = static_cast<uint8_t *>(p);
    while (n != 0) {
        const ssize_t got = ::read(fd, b, n);
        if (got <= 0)
            return false;
        b += got;
        n -= size_t(got);
    }
    return true;
}

} // namespace

// The host side exports 1 MiB; the DPU side imports it and reads 4 x 64 KiB of it with DMA: top
// shows the DMA context with its figures, the export and the import naming its exporter.
TEST_F(CliTop, LiveShowsDmaContextsExportsAndImports)
{
    constexpr size_t k_len = size_t(1) << 20, k_chunk = size_t(64) << 10;
    constexpr int k_tasks = 4;
    int handoff[2];
    ASSERT_EQ(::pipe2(handoff, O_CLOEXEC), 0);
    sc_test::gate copied, quit;
    const pid_t host = sc_test::spawn([&] {
        doca_dev *dev = sc_devices::open_dev("b1:00.0");
        CHILD_CHECK(dev != nullptr);
        std::vector<uint8_t> mem(k_len, 0x5a);
        doca_mmap *m = nullptr;
        CHILD_CHECK(doca_mmap_create(&m) == DOCA_SUCCESS);
        CHILD_CHECK(doca_mmap_set_memrange(m, mem.data(), mem.size()) == DOCA_SUCCESS);
        CHILD_CHECK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE) == DOCA_SUCCESS);
        CHILD_CHECK(doca_mmap_add_dev(m, dev) == DOCA_SUCCESS);
        CHILD_CHECK(doca_mmap_start(m) == DOCA_SUCCESS);
        const void *d = nullptr;
        size_t n = 0;
        CHILD_CHECK(doca_mmap_export_pci(m, dev, &d, &n) == DOCA_SUCCESS);
        const uint64_t len = n, addr = uint64_t(reinterpret_cast<uintptr_t>(mem.data()));
        CHILD_CHECK(write_all(handoff[1], &len, 8) && write_all(handoff[1], d, n) &&
                    write_all(handoff[1], &addr, 8));
        CHILD_CHECK(quit.wait(60000ms)); // as dma_copy_host sits in getchar()
        CHILD_CHECK(doca_mmap_destroy(m) == DOCA_SUCCESS);
        CHILD_CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
        return 0;
    });
    const pid_t dpu = sc_test::spawn([&] {
        uint64_t len = 0, addr = 0;
        uint8_t desc[512];
        CHILD_CHECK(read_all(handoff[0], &len, 8) && len <= sizeof desc &&
                    read_all(handoff[0], desc, len) && read_all(handoff[0], &addr, 8));
        dma_test::context c("03:00.0", 8);
        doca_mmap *remote = nullptr;
        CHILD_CHECK(doca_mmap_create_from_export(nullptr, desc, len, c.dev, &remote) ==
                    DOCA_SUCCESS);
        {
            dma_test::region mine(c.dev, k_len);
            CHILD_CHECK(doca_ctx_start(c.ctx) == DOCA_SUCCESS);
            for (int i = 0; i < k_tasks; ++i) {
                void *at = reinterpret_cast<void *>(uintptr_t(addr + i * k_chunk));
                doca_buf *rbuf = nullptr;
                CHILD_CHECK(doca_buf_inventory_buf_get_by_args(mine.inv, remote, at, k_chunk, at,
                                                               k_chunk, &rbuf) == DOCA_SUCCESS);
                CHILD_CHECK(c.submit(c.task(rbuf, mine.buf(i * k_chunk, k_chunk, 0))) ==
                            DOCA_SUCCESS);
            }
            CHILD_CHECK(c.progress_until([&] { return c.done.size() == size_t(k_tasks); }));
            copied.open();
            CHILD_CHECK(quit.wait(60000ms));
            CHILD_CHECK(doca_ctx_stop(c.ctx) == DOCA_SUCCESS);
        }
        CHILD_CHECK(doca_mmap_destroy(remote) == DOCA_SUCCESS);
        return 0;
    });
    ASSERT_TRUE(copied.wait(20000ms));

    const json::value doc = top_json();
    ASSERT_TRUE(valid_top(doc)) << json::dump(doc);
    const json::value &sum = *doc.find("summary");
    EXPECT_EQ(at(sum, "engines"), 1);
    EXPECT_EQ(at(sum, "exports"), 1);
    EXPECT_EQ(at(sum, "imports"), 1);
    const json::value *e = find_by(doc, "engines", dpu);
    ASSERT_NE(e, nullptr) << json::dump(doc);
    EXPECT_EQ(e->find("engine")->as_string(), "dma");
    EXPECT_EQ(e->find("device")->as_string(), "0000:03:00.0");
    EXPECT_EQ(e->find("state")->as_string(), "RUNNING");
    EXPECT_EQ(at(*e, "tasks_done"), k_tasks);
    EXPECT_EQ(at(*e, "tasks_failed"), 0);
    EXPECT_EQ(at(*e, "in_flight"), 0);
    EXPECT_EQ(at(*e, "bytes"), int64_t(k_tasks * k_chunk));
    const json::value *ex = find_by(doc, "memory", host);
    ASSERT_NE(ex, nullptr);
    EXPECT_EQ(ex->find("role")->as_string(), "export");
    EXPECT_EQ(ex->find("what")->as_string(), "mmap");
    EXPECT_EQ(ex->find("function")->as_string(), "0000:b1:00.0");
    EXPECT_EQ(at(*ex, "access"), int64_t(DOCA_ACCESS_FLAG_PCI_READ_WRITE));
    EXPECT_EQ(at(*ex, "len"), int64_t(k_len));
    const json::value *im = find_by(doc, "memory", dpu);
    ASSERT_NE(im, nullptr);
    EXPECT_EQ(im->find("role")->as_string(), "import");
    EXPECT_EQ(im->find("function")->as_string(), "0000:03:00.0");
    EXPECT_EQ(im->find("exporter")->as_string(), "pid " + std::to_string(host));
    EXPECT_EQ(im->find("exported_for")->as_string(), "0000:b1:00.0");
    EXPECT_EQ(at(*im, "addr"), at(*ex, "addr"));
    EXPECT_EQ(at(*im, "len"), int64_t(k_len));
    EXPECT_EQ(at(*im, "bytes"), int64_t(k_tasks * k_chunk));

    const proc_result text = sc({"top", "--once"});
    EXPECT_EQ(text.status, 0);
    EXPECT_TRUE(sc_test::contains(text.out, "1 engine, 1 export, 1 import")) << text.out;
    EXPECT_TRUE(has_row(text.out, std::to_string(dpu), {"dma", "RUNNING", "0000:03:00.0"}))
        << text.out;
    EXPECT_TRUE(has_row(text.out, std::to_string(dpu),
                        {"import", "mmap", "0000:03:00.0", "pci-rw", "pid " + std::to_string(host),
                         "0000:b1:00.0"}))
        << text.out;
    EXPECT_TRUE(has_row(text.out, std::to_string(host), {"export", "mmap", "0000:b1:00.0"}))
        << text.out;

    quit.open();
    EXPECT_EQ(sc_test::wait_child(dpu), 0);
    EXPECT_EQ(sc_test::wait_child(host), 0);
    ::close(handoff[0]);
    ::close(handoff[1]);
    const json::value after = top_json();
    EXPECT_EQ(after.find("engines")->size(), 0u);
    EXPECT_EQ(after.find("memory")->size(), 0u);
}
