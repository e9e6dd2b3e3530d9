// SPDX-License-Identifier: Apache-2.0
//
// `softcomch bench` (docs/cli.md, "softcomch bench") against fake benchmark programs: small shell
// scripts in a scratch --programs directory that print records in the format of
// bench/bench_report.hpp and log when they start and end. Checked: the probe runs first and the
// programs one at a time in the fixed order; a failing and a hanging program are reported (the
// latter after --timeout) while the others still run; baselines measured by another program are
// filled in; the --json document field by field; --from gives back the same document; the SVG
// plots are well-formed XML naming every subject; the --doc report judges the issue-11 targets
// right for known values; an installed tree finds its libexec/softcomch.
// CliBenchSmoke (label `bench`) runs the REAL programs of <build>/libexec/softcomch with --smoke and
// checks what they print and that every metric of bench/metrics.list is reported by its program
// (never a timing); it skips while that directory holds no benchmark programs.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "build_tree.hpp"
#include "cli_util.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sc_cli;
using sc_test::contains;

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// One record line as bench_report.hpp's emit() writes it.
std::string rec(const std::string &metric, double value, const std::string &unit,
                const std::string &subject, const std::string &group, unsigned long size,
                const std::string &mode, const std::string &baseline = "",
                const std::string &better = "lower", double baseline_value = 0)
{
    std::ostringstream s;
    s << "{\"metric\":\"" << metric << "\",\"value\":" << value << ",\"unit\":\"" << unit
      << "\",\"better\":\"" << better << "\",\"subject\":\"" << subject << "\",\"group\":\""
      << group << "\",\"size\":" << size << ",\"mode\":\"" << mode << "\"";
    if (!baseline.empty()) {
        s << ",\"baseline\":\"" << baseline << "\"";
        if (baseline_value > 0)
            s << ",\"baseline_value\":" << baseline_value
              << ",\"ratio\":" << value / baseline_value;
    }
    s << "}";
    return s.str();
}

std::string unavailable(const std::string &metric, const std::string &why)
{
    return "{\"metric\":\"" + metric + "\",\"unavailable\":\"" + why + "\"}";
}

const char *const order[] = {"spin_baseline", "comch_rtt",      "comch_scale", "comch_fastpath",
                             "ring_bench",    "fastpath_bench", "peer_ipc",    "peer_ucx",
                             "peer_zmq",      "peer_iceoryx"};

class CliBench : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (access("/bin/sh", X_OK) != 0)
            GTEST_SKIP() << "no /bin/sh for the fake programs";
        char tmpl[] = "/tmp/softcomch-bench-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        programs_ = dir_ + "/programs";
        log_ = dir_ + "/order.log";
        fs::create_directories(programs_);
    }
    void TearDown() override
    {
        std::error_code ec;
        if (std::getenv("SOFTCOMCH_BENCH_TEST_KEEP")) // to look at the outputs
            std::printf("kept %s\n", dir_.c_str());
        else if (!dir_.empty())
            fs::remove_all(dir_, ec);
    }

    // A fake program: logs "start NAME ARGS" and "end NAME", printing `lines` in between, then
    // runs `tail` (exit 3, sleep ...).
    void program(const std::string &name, const std::vector<std::string> &lines,
                 const std::string &tail = "", const std::string &dir = "")
    {
        const std::string path = (dir.empty() ? programs_ : dir) + "/" + name;
        std::ofstream out(path);
        out << "#!/bin/sh\necho \"start " << name << " $*\" >> '" << log_ << "'\n"
            << "echo '# a comment line the reader ignores'\n";
        for (const auto &l : lines)
            out << "printf '%s\\n' '" << l << "'\n";
        out << tail << "\necho \"end " << name << "\" >> '" << log_ << "'\n";
        out.close();
        ::chmod(path.c_str(), 0755);
    }

    // The full fake set: every program of the order, peer_ipc failing after one record,
    // peer_zmq hanging, peer_iceoryx unable to measure.
    void full_set(bool noisy = false)
    {
        program("spin_baseline",
                {std::string("{\"context\":\"probe\",\"noisy\":") + (noisy ? "true" : "false") +
                     ",\"reason\":\"spread 3%\"}",
                 "{\"context\":\"machine\",\"cpus\":2}",
                 rec("base_spin_rtt_64B_p50", 0.2, "us", "spin", "ctrl_rtt", 64, "polled"),
                 rec("base_spin_rtt_64B_p99", 0.3, "us", "spin", "ctrl_rtt", 64, "polled"),
                 rec("base_spin_rtt_64B_p999", 0.5, "us", "spin", "ctrl_rtt", 64, "polled"),
                 rec("base_spin_rtt_4080B_p50", 0.4, "us", "spin", "ctrl_rtt", 4080, "polled"),
                 rec("base_eventfd_rtt_64B_p50", 3.0, "us", "eventfd", "ctrl_rtt", 64, "epoll")});
        program("comch_rtt",
                {rec("ctrl_rtt_polled_64B_p50", 0.45, "us", "softcomch", "ctrl_rtt", 64, "polled",
                     "base_spin_rtt_64B_p50"),
                 rec("ctrl_rtt_polled_64B_p99", 1.2, "us", "softcomch", "ctrl_rtt", 64, "polled",
                     "base_spin_rtt_64B_p99"),
                 rec("ctrl_rtt_polled_64B_p999", 2.0, "us", "softcomch", "ctrl_rtt", 64, "polled",
                     "base_spin_rtt_64B_p999"),
                 // Its own spin baseline, measured next to it, differs from spin_baseline's.
                 rec("ctrl_rtt_polled_4080B_p50", 0.5, "us", "softcomch", "ctrl_rtt", 4080,
                     "polled", "base_spin_rtt_4080B_p50", "lower", 0.25),
                 rec("ctrl_rtt_epoll_64B_p50", 3.2, "us", "softcomch", "ctrl_rtt", 64, "epoll",
                     "base_eventfd_rtt_64B_p50"),
                 "{not a record", "stray text, not a comment",
                 rec("ctrl_rtt_polled_64B_p50", 9, "us", "softcomch", "ctrl_rtt", 64, "polled")});
        program("comch_scale",
                {rec("ctrl_rate_1conn_64B_mrate", 14.2, "Mmsg/s", "softcomch", "ctrl_rate", 64,
                     "1conn", "", "higher"),
                 rec("scale_progress_1idle_ns", 17, "ns", "softcomch", "scale", 0, "1idle"),
                 rec("scale_progress_512idle_ns", 3490, "ns", "softcomch", "scale", 0, "512idle",
                     "scale_progress_1idle_ns")});
        std::vector<std::string> fast;
        for (unsigned long size : {4096ul, 65536ul, 1048576ul, 4194304ul}) {
            const std::string sz = size == 4096      ? "4KiB"
                                   : size == 65536   ? "64KiB"
                                   : size == 1048576 ? "1MiB"
                                                     : "4MiB";
            const double memcpy_v = 40, tput = size == 4096 ? 8 : size == 1048576 ? 25 : 36;
            fast.push_back(rec("base_memcpy_resident_" + sz, memcpy_v, "GB/s", "memcpy",
                               "fast_tput", size, "resident", "", "higher"));
            fast.push_back(rec("base_pvw_resident_" + sz, 30, "GB/s", "process_vm_writev",
                               "fast_tput", size, "resident", "", "higher"));
            fast.push_back(rec("fast_tput_resident_1pair_" + sz, tput, "GB/s", "softcomch",
                               "fast_tput", size, "resident/1pair", "base_memcpy_resident_" + sz,
                               "higher", memcpy_v));
        }
        fast.push_back(rec("fast_tput_event_resident_1pair_1MiB", 20, "GB/s", "softcomch",
                           "fast_tput", 1048576, "resident/1pair/event", "", "higher"));
        // Four pairs: 64 KiB has no four-pair peer (ucx's one-pair 24.4 is no comparison),
        // 1 MiB has one.
        fast.push_back(rec("fast_tput_resident_4pair_64KiB", 20, "GB/s", "softcomch", "fast_tput",
                           65536, "resident/4pair", "", "higher"));
        fast.push_back(rec("fast_tput_resident_4pair_1MiB", 15, "GB/s", "softcomch", "fast_tput",
                           1048576, "resident/4pair", "", "higher"));
        program("comch_fastpath", fast);
        program("ring_bench", {rec("transport_ring_rtt_64B_p50", 0.2, "us", "softcomch",
                                   "transport", 64, "polled")});
        program("fastpath_bench", {rec("transport_fast_path_read_64KiB_best", 35, "GB/s",
                                       "softcomch", "transport", 65536, "", "", "higher")});
        program("peer_ipc",
                {rec("peer_uds_rtt_64B_p50", 6.0, "us", "uds", "ctrl_rtt", 64, "epoll")},
                "echo 'peer_ipc: lost the socket' >&2; exit 3");
        program("peer_ucx",
                {rec("peer_ucx_rtt_64B_p50", 0.58, "us", "ucx", "ctrl_rtt", 64, "polled"),
                 rec("peer_ucx_rtt_64B_p99", 0.9, "us", "ucx", "ctrl_rtt", 64, "polled"),
                 rec("peer_ucx_rate_64B_mrate", 5.95, "Mmsg/s", "ucx", "ctrl_rate", 64, "1conn", "",
                     "higher"),
                 rec("peer_ucx_tput_64KiB", 24.4, "GB/s", "ucx", "fast_tput", 65536,
                     "resident/1pair", "", "higher"),
                 rec("peer_ucx_tput_1MiB", 12, "GB/s", "ucx", "fast_tput", 1048576, "resident", "",
                     "higher"),
                 rec("peer_ucx_tput_4pair_1MiB", 10, "GB/s", "ucx", "fast_tput", 1048576,
                     "resident/4pair", "", "higher")});
        program("peer_zmq", {rec("peer_zmq_rtt_64B_p50", 20, "us", "zmq", "ctrl_rtt", 64, "")},
                "sleep 600");
        program("peer_iceoryx",
                {unavailable("peer_iceoryx_rtt_64B_p50", "libiceoryx-posh-dev is not installed")});
    }

    proc_result bench(std::vector<std::string> args, double timeout_s = 60)
    {
        std::vector<std::string> argv{tool(), "bench"};
        argv.insert(argv.end(), args.begin(), args.end());
        return run(argv, tool_env(), timeout_s);
    }

    // A full run with --json, the document parsed (kept in json_file_).
    json::value json_run(bool noisy = false)
    {
        full_set(noisy);
        auto r = bench({"--smoke", "--json", "--programs", programs_, "--timeout", "2"});
        EXPECT_EQ(r.status, 1) << r.err; // a program failed and one timed out
        json_file_ = dir_ + "/run.json";
        std::ofstream(json_file_) << r.out;
        err_ = r.err;
        return parse(r.out);
    }

    std::string dir_, programs_, log_, json_file_, err_;
};

const json::value *record_of(const json::value &doc, const std::string &metric)
{
    for (const auto &r : doc.find("records")->elements())
        if (r.find("metric")->as_string() == metric)
            return &r;
    return nullptr;
}

const json::value *program_of(const json::value &doc, const std::string &name)
{
    for (const auto &p : doc.find("programs")->elements())
        if (p.find("name")->as_string() == name)
            return &p;
    return nullptr;
}

TEST_F(CliBench, Help)
{
    auto r = sc({"bench", "--help"});
    EXPECT_EQ(r.status, 0);
    for (const char *s : {"--quick", "--smoke", "--json", "--plot DIR", "--doc FILE",
                          "--only PATTERN", "--from FILE", "--programs DIR", "Exit status"})
        EXPECT_TRUE(contains(r.out, s)) << s << "\n" << r.out;
    r = sc({"--help"});
    EXPECT_TRUE(contains(r.out, "bench")) << r.out;
}

TEST_F(CliBench, UsageErrors)
{
    EXPECT_EQ(sc({"bench", "--quick", "--smoke"}).status, 2);
    EXPECT_EQ(sc({"bench", "--from", "x.json", "--quick"}).status, 2);
    EXPECT_EQ(sc({"bench", "--timeout", "-1"}).status, 2);
    EXPECT_EQ(sc({"bench", "extra"}).status, 2);
    auto r = sc({"bench", "--programs", dir_ + "/empty"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "no benchmark programs")) << r.err;
    EXPECT_EQ(sc({"bench", "--from", dir_ + "/absent.json"}).status, 1);
}

TEST_F(CliBench, ProbeFirstOneAtATimeFailuresReported)
{
    const json::value doc = json_run();
    // The log: every program started and (but the hanging one) ended before the next started.
    std::vector<std::string> lines;
    std::istringstream log(slurp(log_));
    for (std::string l; std::getline(log, l);)
        lines.push_back(l);
    std::vector<std::string> want;
    for (const char *name : order) {
        want.push_back(std::string("start ") + name + " --smoke");
        // peer_ipc exits with status 3, peer_zmq hangs: neither reaches its "end".
        if (std::string(name) != "peer_zmq" && std::string(name) != "peer_ipc")
            want.push_back(std::string("end ") + name);
    }
    EXPECT_EQ(lines, want);
    ASSERT_TRUE(doc.is_object());
    const json::value *ipc = program_of(doc, "peer_ipc");
    ASSERT_NE(ipc, nullptr);
    EXPECT_EQ(ipc->find("status")->as_string(), "failed");
    EXPECT_TRUE(contains(ipc->find("reason")->as_string(), "exited with status 3"));
    EXPECT_TRUE(contains(ipc->find("reason")->as_string(), "lost the socket"));
    const json::value *zmq = program_of(doc, "peer_zmq");
    EXPECT_EQ(zmq->find("status")->as_string(), "timeout");
    EXPECT_TRUE(contains(zmq->find("reason")->as_string(), "timed out after 2 s"));
    EXPECT_EQ(program_of(doc, "peer_iceoryx")->find("status")->as_string(), "ok");
    EXPECT_EQ(program_of(doc, "spin_baseline")->find("status")->as_string(), "ok");
    // What they printed before failing is kept.
    EXPECT_NE(record_of(doc, "peer_uds_rtt_64B_p50"), nullptr);
    EXPECT_NE(record_of(doc, "peer_zmq_rtt_64B_p50"), nullptr);
    // The bad lines (a broken record, stray text; not the comment) and the duplicate are
    // counted, the first value kept.
    const json::value *rtt = program_of(doc, "comch_rtt");
    EXPECT_EQ(rtt->find("bad_lines")->as_int(), 2);
    EXPECT_EQ(rtt->find("duplicates")->as_int(), 1);
    EXPECT_DOUBLE_EQ(record_of(doc, "ctrl_rtt_polled_64B_p50")->find("value")->as_double(), 0.45);
    EXPECT_TRUE(contains(err_, "peer_zmq: timeout")) << err_;

    // The human output says the same.
    auto t = bench({"--from", json_file_});
    EXPECT_EQ(t.status, 0) << t.err;
    EXPECT_TRUE(sc_test::has_line(t.out, "  peer_ipc", {"failed", "exited with status 3"}))
        << t.out;
    EXPECT_TRUE(sc_test::has_line(t.out, "  peer_zmq", {"timeout"})) << t.out;
    EXPECT_TRUE(sc_test::has_line(t.out, "  peer_iceoryx_rtt_64B_p50: libiceoryx")) << t.out;
}

TEST_F(CliBench, OnlySelectsProgramsButAlwaysTheProbe)
{
    full_set();
    auto r = bench({"--quick", "--json", "--programs", programs_, "--only", "comch_r*,peer_u*"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(slurp(log_), "start spin_baseline --quick\nend spin_baseline\nstart comch_rtt "
                           "--quick\nend comch_rtt\nstart peer_ucx --quick\nend peer_ucx\n");
    const json::value doc = parse(r.out);
    EXPECT_EQ(program_of(doc, "comch_scale")->find("status")->as_string(), "skipped");
    EXPECT_EQ(doc.find("command")->as_string(),
              "softcomch bench --quick --only 'comch_r*,peer_u*' --json");
}

TEST_F(CliBench, JsonFieldsAndRatiosAcrossPrograms)
{
    const json::value doc = json_run();
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(doc.find("schema")->as_string(), "softcomch-bench");
    const json::value *m = doc.find("machine");
    ASSERT_TRUE(m && m->is_object());
    for (const char *k : {"cpu", "kernel"})
        EXPECT_TRUE(m->find(k) && m->find(k)->is_string()) << k;
    EXPECT_GE(m->find("cores")->as_int(), 1);
    EXPECT_EQ(doc.find("command")->as_string(), "softcomch bench --smoke --timeout 2 --json");
    EXPECT_TRUE(iso8601(doc.find("started")->as_string()));
    EXPECT_EQ(doc.find("mode")->as_string(), "smoke");
    EXPECT_EQ(doc.find("noise")->find("noisy")->as_bool(), false);
    const std::vector<field> schema{
        {"metric", {jt::string}, {}},
        {"value", {jt::number, jt::integer, jt::null}, {}},
        {"unit", {jt::string}, {}},
        {"baseline", {jt::string, jt::null}, {}},
        {"baseline_value", {jt::number, jt::integer, jt::null}, {}},
        {"ratio", {jt::number, jt::integer, jt::null}, {}},
        {"subject", {jt::string}, {}},
        {"group", {jt::string}, {}},
        {"size", {jt::integer}, {}},
        {"mode", {jt::string}, {}},
        {"better", {jt::string}, {"lower", "higher"}},
        {"program", {jt::string}, {}},
    };
    for (const auto &r : doc.find("records")->elements())
        EXPECT_TRUE(
            matches(r, schema, r.find("metric")->as_string(), {"unavailable", "best_peer"}));
    // Filled in from spin_baseline's record: 0.45 / 0.2.
    const json::value *p50 = record_of(doc, "ctrl_rtt_polled_64B_p50");
    ASSERT_NE(p50, nullptr);
    EXPECT_EQ(p50->find("baseline")->as_string(), "base_spin_rtt_64B_p50");
    EXPECT_DOUBLE_EQ(p50->find("baseline_value")->as_double(), 0.2);
    EXPECT_NEAR(p50->find("ratio")->as_double(), 2.25, 1e-9);
    EXPECT_EQ(p50->find("subject")->as_string(), "softcomch");
    EXPECT_EQ(p50->find("group")->as_string(), "ctrl_rtt");
    EXPECT_EQ(p50->find("size")->as_int(), 64);
    EXPECT_EQ(p50->find("mode")->as_string(), "polled");
    EXPECT_EQ(p50->find("program")->as_string(), "comch_rtt");
    // Its best peer: ucx (the same group, size, statistic and mode; uds is epoll).
    const json::value *peer = p50->find("best_peer");
    ASSERT_NE(peer, nullptr);
    EXPECT_EQ(peer->find("subject")->as_string(), "ucx");
    EXPECT_NEAR(peer->find("ratio")->as_double(), 0.45 / 0.58, 1e-9);
    EXPECT_TRUE(peer->find("ahead")->as_bool());
    // The epoll round trip is compared with the peers that sleep too: uds (6.0, epoll), never
    // ucx's polled 0.58.
    const json::value *ep = record_of(doc, "ctrl_rtt_epoll_64B_p50");
    ASSERT_NE(ep, nullptr);
    ASSERT_NE(ep->find("best_peer"), nullptr);
    EXPECT_EQ(ep->find("best_peer")->find("subject")->as_string(), "uds");
    // Throughput is compared at the same number of pairs: four pairs against a peer's four
    // (ucx 4pair 10, not its better one-pair 12), and nothing when the peer measured one pair only.
    const json::value *four = record_of(doc, "fast_tput_resident_4pair_1MiB");
    ASSERT_NE(four, nullptr);
    ASSERT_NE(four->find("best_peer"), nullptr);
    EXPECT_EQ(four->find("best_peer")->find("metric")->as_string(), "peer_ucx_tput_4pair_1MiB");
    EXPECT_TRUE(four->find("best_peer")->find("ahead")->as_bool());
    EXPECT_EQ(record_of(doc, "fast_tput_resident_4pair_64KiB")->find("best_peer"), nullptr);
    // A baseline the program measured itself stays; a record without a baseline has nulls.
    const json::value *fast = record_of(doc, "fast_tput_resident_1pair_64KiB");
    EXPECT_NEAR(fast->find("ratio")->as_double(), 36.0 / 40, 1e-9);
    EXPECT_TRUE(record_of(doc, "base_spin_rtt_64B_p50")->find("ratio")->is_null());
    EXPECT_TRUE(record_of(doc, "base_spin_rtt_64B_p50")->find("baseline")->is_null());
    // Unavailable: null value and the reason.
    const json::value *ice = record_of(doc, "peer_iceoryx_rtt_64B_p50");
    ASSERT_NE(ice, nullptr);
    EXPECT_TRUE(ice->find("value")->is_null());
    EXPECT_EQ(ice->find("unavailable")->as_string(), "libiceoryx-posh-dev is not installed");
    // The probe's context line is kept with its program.
    bool probe = false;
    for (const auto &c : doc.find("contexts")->elements())
        probe = probe || (c.find("context")->as_string() == "probe" &&
                          c.find("program")->as_string() == "spin_baseline");
    EXPECT_TRUE(probe);
}

TEST_F(CliBench, FromRoundTrip)
{
    const json::value doc = json_run();
    auto r = bench({"--from", json_file_, "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    const json::value again = parse(r.out);
    EXPECT_TRUE(again == doc) << r.out;
    // The text tables of a saved run.
    auto t = bench({"--from", json_file_});
    EXPECT_EQ(t.status, 0);
    EXPECT_TRUE(sc_test::has_line(t.out, "  ctrl_rtt_polled_64B_p50",
                                  {"0.45", "us", "2.25x", "ucx 0.58 us", "ahead"}))
        << t.out;
    EXPECT_TRUE(
        sc_test::has_line(t.out, "  ctrl_rtt_polled_64B_p99", {"ucx 0.9 us", "1.33x BEHIND"}))
        << t.out;
    EXPECT_TRUE(sc_test::has_line(t.out, "  ctrl_rate_1conn_64B_mrate", {"14.2", "2.39x ahead"}))
        << t.out;
    EXPECT_TRUE(sc_test::has_line(t.out, "ctrl_rtt")) << t.out;
    EXPECT_FALSE(contains(t.out, "NOISY"));
}

TEST_F(CliBench, NoisyProbeIsFlagged)
{
    const json::value doc = json_run(true);
    EXPECT_TRUE(doc.find("noise")->find("noisy")->as_bool());
    EXPECT_TRUE(contains(err_, "NOISY")) << err_;
    auto t = bench({"--from", json_file_});
    // Among the first lines, not only at the end.
    EXPECT_LT(t.out.find("NOISY"), t.out.find("Programs")) << t.out;
    EXPECT_TRUE(contains(t.out, "spread 3%"));
    // The verdict may also be a word.
    program("spin_baseline", {"{\"context\":\"probe\",\"verdict\":\"noisy\"}"});
    t = bench({"--programs", programs_, "--only", "none"});
    EXPECT_EQ(t.status, 0) << t.err;
    EXPECT_TRUE(contains(t.out, "!!! WARNING: the noise probe says this machine is NOISY"))
        << t.out;
}

TEST_F(CliBench, PlotsAreWellFormedSvgWithEverySubject)
{
    json_run();
    const std::string plots = dir_ + "/plots";
    auto r = bench({"--from", json_file_, "--plot", plots});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::map<std::string, std::vector<std::string>> want{
        {"latency.svg",
         {"softcomch polled", "softcomch epoll", "spin polled", "eventfd epoll", "ucx polled",
          "uds epoll", "zmq", "64B", "4080B"}},
        {"throughput.svg",
         {"softcomch resident/1pair", "memcpy resident", "process_vm_writev resident",
          "ucx resident/1pair", "4MiB"}},
        {"rate.svg", {"softcomch 1conn 64B", "ucx 1conn 64B"}},
    };
    const bool python = access("/usr/bin/python3", X_OK) == 0;
    for (const auto &[file, subjects] : want) {
        const std::string path = plots + "/" + file;
        const std::string text = slurp(path);
        ASSERT_FALSE(text.empty()) << path;
        EXPECT_TRUE(text.starts_with("<?xml")) << file;
        for (const auto &s : subjects)
            EXPECT_TRUE(contains(text, ">" + s + "<")) << file << " lacks " << s;
        if (python) {
            auto x = run({"/usr/bin/python3", "-c",
                          "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1])."
                          "getroot(); assert r.tag.endswith('svg'), r.tag",
                          path},
                         tool_env());
            EXPECT_EQ(x.status, 0) << file << ": " << x.err;
        }
    }
    if (!python)
        GTEST_SKIP() << "no /usr/bin/python3: the SVGs were not parsed as XML";
}

TEST_F(CliBench, DocJudgesTheTargets)
{
    json_run();
    const std::string doc = dir_ + "/docs/PERFORMANCE.md";
    fs::create_directories(dir_ + "/docs");
    auto r = bench({"--from", json_file_, "--doc", doc, "--plot", dir_ + "/docs/perf"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string md = slurp(doc);
    auto row = [&](const std::string &target, const std::string &measured,
                   const std::string &verdict) {
        EXPECT_TRUE(
            sc_test::has_line(md, "| " + target + " | " + measured, {"| " + verdict + " |"}))
            << target << " " << measured << " " << verdict << "\n"
            << md;
    };
    row("polled 64 B RTT p50 <= 2.5x spin", "2.25x", "met");
    row("polled 64 B RTT p99 <= 3x spin", "4x", "**not met**");
    // Judged on the baseline the record carries (0.25 us), not on spin_baseline's (0.4 us).
    row("polled 4080 B RTT p50 <= 1.5x spin",
        "2x (ctrl_rtt_polled_4080B_p50 0.5 us / base_spin_rtt_4080B_p50 0.25 us)", "**not met**");
    row("epoll 64 B RTT p50 <= 1.1x eventfd", "1.07x", "met");
    row("one-way 64 B rate >= 20 Mmsg/s", "14.2 Mmsg/s", "**not met**");
    row("fast path >= 0.8x memcpy, 64 KiB to 4 MiB, both regimes",
        "worst 0.625x (fast_tput_resident_1pair_1MiB 25 GB/s / base_memcpy_resident_1MiB 40 GB/s)",
        "**not met**");
    row("fast path >= 0.4x memcpy at 4 KiB", "worst 0.2x", "**not met**");
    row("event-driven fast path at 1 MiB within 2x of polled (>= 0.5x)", "0.8x", "met");
    row("progress cost with 512 idle connections <= 2x that with 1", "205x", "**not met**");
    // Ahead of ucx on p50, rate, 64 KiB and 1 MiB throughput (one pair and four), of uds on
    // epoll; behind ucx on p99. The four-pair 64 KiB figure has no peer.
    row("ahead of every peer on every metric where a peer exists",
        "6 of 7 ahead; behind: ctrl_rtt_polled_64B_p99 (1.33x ucx)", "**not met**");
    for (const char *s :
         {"## The machine", "| CPU |", "| kernel |", "| cores |",
          "softcomch bench --smoke --timeout 2 --json", "## Noise", "## ctrl_rtt", "## fast_tput",
          "| peer_ucx_rtt_64B_p50 | ucx |", "| base_memcpy_resident_64KiB | memcpy |",
          "| peer_iceoryx_rtt_64B_p50 | libiceoryx-posh-dev is not installed |",
          "](perf/latency.svg)", "](perf/throughput.svg)", "](perf/rate.svg)"})
        EXPECT_TRUE(contains(md, s)) << s << "\n" << md;
    EXPECT_TRUE(fs::exists(dir_ + "/docs/perf/latency.svg"));
}

TEST_F(CliBench, InstalledTreeFindsLibexec)
{
    const std::string prefix = dir_ + "/prefix";
    auto r = run(
        {sc_test::build_tree::cmake_command, "--install", sc_test::bin_dir(), "--prefix", prefix},
        tool_env(), 120);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string libexec = prefix + "/libexec/softcomch";
    ASSERT_TRUE(fs::is_directory(libexec)) << "cmake --install put no libexec/softcomch";
    // Only the probe runs (--only matches nothing else); a fake one, so no timing is involved.
    fs::remove(libexec + "/spin_baseline");
    program("spin_baseline", {rec("base_spin_rtt_64B_p50", 0.2, "us", "spin", "ctrl_rtt", 64, "")},
            "", libexec);
    auto b = run({prefix + "/bin/softcomch", "bench", "--smoke", "--json", "--only", "none"},
                 tool_env({}, {"LD_LIBRARY_PATH"}), 60);
    ASSERT_EQ(b.status, 0) << b.out << b.err;
    const json::value doc = parse(b.out);
    EXPECT_EQ(fs::canonical(doc.find("programs_dir")->as_string()), fs::canonical(libexec));
    EXPECT_EQ(program_of(doc, "spin_baseline")->find("status")->as_string(), "ok");
    EXPECT_NE(record_of(doc, "base_spin_rtt_64B_p50"), nullptr);
}

// ---- the real programs ----

// Which program reports which metrics of bench/metrics.list: by prefix.
const std::map<std::string, std::vector<std::string>> &metric_prefixes()
{
    static const std::map<std::string, std::vector<std::string>> m{
        {"spin_baseline", {"probe_", "base_spin_rtt_"}},
        {"comch_rtt", {"ctrl_rtt_", "cpu_", "base_eventfd_rtt_mailbox_"}},
        {"comch_scale", {"ctrl_rate_", "scale_", "base_spin_rate_"}},
        {"comch_fastpath", {"fast_", "base_memcpy_", "base_pvw_"}},
        {"dma_copy", {"dma_"}},
        {"ring_bench", {"transport_ring_"}},
        {"fastpath_bench", {"transport_fast_", "transport_memcpy"}},
        {"peer_ipc",
         {"base_eventfd_rtt_blocking_", "base_eventfd_rtt_polled_", "peer_pipe_", "peer_uds_",
          "peer_tcp_"}},
        {"peer_ucx", {"peer_ucx_"}},
        {"peer_zmq", {"peer_zmq_"}},
        {"peer_iceoryx", {"peer_iceoryx_"}},
    };
    return m;
}

std::string owner_of(const std::string &metric)
{
    for (const auto &[program, prefixes] : metric_prefixes())
        for (const auto &p : prefixes)
            if (metric.starts_with(p))
                return program;
    return {};
}

// Every program runs with --smoke, once (label `bench`: they pin both CPUs), and exits 0; every
// line it prints is a '#' comment, a context or a complete record (a value with its unit, better,
// subject and group, or an unavailable metric with its reason); each metric of
// bench/metrics.list is reported, by the program its prefix names, and each program reports at
// least one. Never a timing.
TEST(CliBenchSmoke, EveryMetricOfTheListIsReported)
{
    const std::string libexec = sc_test::bin_dir() + "/libexec/softcomch";
    if (access((libexec + "/spin_baseline").c_str(), X_OK) != 0)
        GTEST_SKIP() << "no benchmark programs in " << libexec
                     << " (configured with -DSOFTCOMCH_BUILD_BENCH=OFF)";
    std::vector<std::string> metrics;
    {
        std::ifstream in(std::string(sc_test::build_tree::source_dir) + "/bench/metrics.list");
        for (std::string line; std::getline(in, line);) {
            line = line.substr(0, line.find('#'));
            std::istringstream words(line);
            for (std::string w; words >> w;)
                metrics.push_back(w);
        }
    }
    ASSERT_FALSE(metrics.empty()) << "bench/metrics.list names no metric";
    for (const auto &m : metrics)
        EXPECT_FALSE(owner_of(m).empty()) << m << " (bench/metrics.list): no program's prefix";
    // Found beside <build>/bin/softcomch, as a user runs it.
    auto r = run({tool(), "bench", "--smoke", "--json"}, tool_env(), 540);
    const json::value doc = parse(r.out);
    ASSERT_TRUE(doc.is_object()) << r.err;
    std::set<std::string> ran;
    for (const auto &p : doc.find("programs")->elements()) {
        const std::string name = p.find("name")->as_string();
        ran.insert(name);
        EXPECT_EQ(p.find("status")->as_string(), "ok")
            << name << ": " << p.find("reason")->as_string();
        EXPECT_EQ(p.find("bad_lines")->as_int(), 0)
            << name << " printed lines that are neither '#' comments nor records";
        EXPECT_GE(p.find("records")->as_int(), 1) << name << " reported nothing";
    }
    for (const auto &[program, prefixes] : metric_prefixes())
        EXPECT_TRUE(ran.count(program)) << program << " did not run";
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<std::string, std::string> reported; // metric -> program
    for (const auto &rec : doc.find("records")->elements()) {
        const std::string name = rec.find("metric")->as_string();
        reported[name] = rec.find("program")->as_string();
        if (const json::value *u = rec.find("unavailable")) {
            EXPECT_FALSE(u->as_string().empty()) << name << " is unavailable without a reason";
            continue;
        }
        EXPECT_TRUE(rec.find("value")->is_number()) << name;
        for (const char *field : {"unit", "better", "subject", "group"})
            EXPECT_FALSE(rec.find(field)->as_string().empty()) << name << " lacks " << field;
    }
    for (const auto &m : metrics) {
        const auto it = reported.find(m);
        if (it == reported.end())
            ADD_FAILURE() << m << " (bench/metrics.list) was not reported";
        else
            EXPECT_EQ(it->second, owner_of(m)) << m << " reported by another program";
    }
}

} // namespace
