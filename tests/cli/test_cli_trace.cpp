// SPDX-License-Identifier: Apache-2.0
//
// `softcomch trace` and `softcomch run --trace` (docs/trace.md): a recorded file is checked line
// by line and rewritten as strict JSON ({"traceEvents":[...]}) that the library's strict parser
// reads; invalid lines are named with their line number; --check writes nothing, --out leaves the
// recording alone, --json reports the same figures. *Live*: the control-path sample pair run
// with --trace gives one valid trace with both processes on it, named after their roles.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "cli_util.hpp"
#include "comch_harness.hpp"
#include "common/trace_file.hpp"

namespace {

using namespace sc_cli;
using sc_test::contains;
using sc_test::has_line;
namespace tf = softcomch::trace_file;

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class CliTrace : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_EQ(access(tool().c_str(), X_OK), 0) << tool() << " is missing";
        sc_test::use_private_fabric(
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        char tmpl[] = "/tmp/softcomch-cli-trace-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        file_ = dir_ + "/pair.json";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    void write(const std::string &text) { std::ofstream(file_, std::ios::binary) << text; }

    std::string dir_, file_;
};

// What two processes' recorders would have written (the array form, no closing bracket).
const std::string k_recorded =
    "[\n"
    R"({"ph":"M","ts":1.0,"pid":10,"tid":10,"cat":"__metadata","name":"process_name","args":{"name":"server_prog"}},)"
    "\n"
    R"({"ph":"M","ts":1.5,"pid":10,"tid":10,"cat":"__metadata","name":"process_name","args":{"name":"DPU: server 'x'"}},)"
    "\n"
    R"({"ph":"b","ts":2.0,"pid":10,"tid":10,"cat":"state","name":"server 'x' RUNNING","id":"10.1"},)"
    "\n"
    R"({"ph":"M","ts":3.0,"pid":20,"tid":20,"cat":"__metadata","name":"process_name","args":{"name":"host: client 'x'"}},)"
    "\n"
    R"({"ph":"i","ts":4.25,"pid":20,"tid":20,"cat":"comch","name":"connect","s":"t","args":{"conn":1}},)"
    "\n"
    R"({"ph":"i","ts":3.5,"pid":10,"tid":10,"cat":"comch","name":"connect","s":"t","args":{"conn":1}},)"
    "\n"
    R"({"ph":"e","ts":9.0,"pid":10,"tid":10,"cat":"state","name":"server 'x' RUNNING","id":"10.1"},)"
    "\n";

TEST_F(CliTrace, WritesStrictJsonInPlace)
{
    write(k_recorded);
    const auto r = sc({"trace", file_});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, file_ + ": 4 events (and 3 metadata) from 2 processes over "
                                        "0.007 ms"))
        << r.out;
    EXPECT_TRUE(has_line(r.out, "  pid 10", {"DPU: server 'x'", "(3 events)"})) << r.out;
    EXPECT_TRUE(has_line(r.out, "  pid 20", {"host: client 'x'", "(1 events)"})) << r.out;
    EXPECT_TRUE(has_line(r.out, "wrote " + file_ + " (strict JSON")) << r.out;
    // Strict JSON now: the library's strict parser reads it whole.
    const json::value doc = parse(slurp(file_));
    const json::value *list = doc.find("traceEvents");
    ASSERT_TRUE(list && list->is_array());
    ASSERT_EQ(list->size(), 6u); // the older name of pid 10 is gone
    EXPECT_EQ((*list)[0].find("args")->find("name")->as_string(), "DPU: server 'x'");
    double last = 0;
    for (size_t i = 2; i < list->size(); ++i) { // the events, in time order
        const double ts = (*list)[i].find("ts")->as_double();
        EXPECT_LE(last, ts);
        last = ts;
    }
    // Running it again on the strict file changes nothing.
    const std::string once = slurp(file_);
    ASSERT_EQ(sc({"trace", file_}).status, 0);
    EXPECT_EQ(slurp(file_), once);
}

TEST_F(CliTrace, CheckOutAndJson)
{
    write(k_recorded);
    const std::string out = dir_ + "/strict.json";
    auto r = sc({"trace", "--check", file_});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(contains(r.out, "wrote")) << r.out;
    EXPECT_EQ(slurp(file_), k_recorded);
    r = sc({"trace", file_, "--out", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(slurp(file_), k_recorded);
    EXPECT_TRUE(parse(slurp(out)).find("traceEvents"));
    r = sc({"trace", "--check", "--json", file_});
    ASSERT_EQ(r.status, 0) << r.err;
    const json::value v = parse(r.out);
    EXPECT_TRUE(v.find("valid")->as_bool());
    EXPECT_FALSE(v.find("strict_input")->as_bool());
    EXPECT_EQ(v.find("events")->as_int(), 4);
    EXPECT_EQ(v.find("metadata")->as_int(), 3);
    EXPECT_EQ(v.find("first_ts_us")->as_double(), 2.0);
    EXPECT_EQ(v.find("last_ts_us")->as_double(), 9.0);
    ASSERT_EQ(v.find("processes")->size(), 2u);
    EXPECT_EQ((*v.find("processes"))[1].find("name")->as_string(), "host: client 'x'");
    EXPECT_EQ(v.find("problems")->size(), 0u);
    EXPECT_TRUE(v.find("output")->is_null());
    r = sc({"trace", "--check", "--json", out});
    EXPECT_TRUE(parse(r.out).find("strict_input")->as_bool());
}

TEST_F(CliTrace, InvalidLinesAreNamed)
{
    write(k_recorded +
          R"({"ph":"i","pid":10,"tid":10,"name":"no ts"},)"
          "\n" +
          R"({"ph":"i","ts":5,"pid":10,"tid":10,"name":"cut)"
          "\n");
    const auto r = sc({"trace", file_});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(has_line(r.err, file_ + ":9: no \"ts\"")) << r.err;
    EXPECT_TRUE(has_line(r.err, file_ + ":10: not a JSON event")) << r.err;
    EXPECT_TRUE(has_line(r.out, file_ + ": 4 events", {"with invalid lines"})) << r.out;
    // The valid events are still written.
    EXPECT_EQ(parse(slurp(file_)).find("traceEvents")->size(), 6u);
}

TEST_F(CliTrace, UsageAndMissingFiles)
{
    EXPECT_EQ(sc({"trace"}).status, 2);
    EXPECT_EQ(sc({"trace", "a", "b"}).status, 2);
    EXPECT_EQ(sc({"trace", "--check", "--out", "x", file_}).status, 2);
    const auto r = sc({"trace", dir_ + "/missing.json"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "cannot read")) << r.err;
    EXPECT_TRUE(contains(sc({"trace", "--help"}).out, "SOFTCOMCH_TRACE"));
}

// The issue's done-when: the control-path sample pair, run with --trace, gives one trace with
// both processes on it, each named after its role, with the events of both sides.
TEST_F(CliTrace, LiveRunTraceOfTheControlPathSamples)
{
    const std::string samples = sc_test::bin_dir() + "/samples/";
    ASSERT_EQ(access((samples + "comch_ctrl_path_server").c_str(), X_OK), 0);
    write("stale content of an earlier run\n"); // replaced, not appended to
    const auto r =
        sc({"run", "--timeout", "60", "--trace", file_, "--dpu", samples + "comch_ctrl_path_server",
            "--host", samples + "comch_ctrl_path_client"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.err, "softcomch run: trace: " + file_ + ": ", {"from 2 processes"}))
        << r.err;
    EXPECT_TRUE(has_line(r.err, "softcomch run: trace: wrote " + file_)) << r.err;
    const std::string text = slurp(file_);
    const json::value doc = parse(text);
    ASSERT_TRUE(doc.find("traceEvents"));
    std::vector<json::value> events;
    const tf::report rep = tf::read(text, &events);
    ASSERT_TRUE(rep.ok()) << rep.problems.at(0).what;
    EXPECT_TRUE(rep.strict_input);
    ASSERT_EQ(rep.processes.size(), 2u);
    std::map<std::string, int64_t> pid_of;
    for (const auto &p : rep.processes)
        pid_of[p.name.substr(0, p.name.find(':'))] = p.pid;
    ASSERT_EQ(pid_of.count("DPU"), 1u);
    ASSERT_EQ(pid_of.count("host"), 1u);
    for (const auto &p : rep.processes)
        EXPECT_EQ(p.name.find(p.name[0] == 'D' ? "DPU: server '" : "host: client '"), 0u) << p.name;
    // Each side connected, sent and received its message, and its context went through its
    // states.
    std::map<std::pair<int64_t, std::string>, int> seen;
    for (const auto &e : events)
        ++seen[{e.find("pid")->as_int(),
                e.find("ph")->as_string() + " " + e.find("name")->as_string()}];
    for (const char *side : {"DPU", "host"}) {
        const int64_t pid = pid_of[side];
        EXPECT_EQ((seen[{pid, "i connect"}]), 1) << side;
        EXPECT_EQ((seen[{pid, "i disconnect"}]), 1) << side;
        EXPECT_GE((seen[{pid, "b send"}]), 1) << side;
        EXPECT_EQ((seen[{pid, "b send"}]), (seen[{pid, "e send"}])) << side;
        EXPECT_GE((seen[{pid, "i recv"}]), 1) << side;
    }
}

} // namespace
