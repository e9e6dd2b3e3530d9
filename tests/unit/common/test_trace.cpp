// SPDX-License-Identifier: Apache-2.0
//
// The trace recorder (common/trace.hpp) and the trace file reader (common/trace_file.hpp): off by
// default and after a bad path, the file's header and lines, escaping and cut lines, metadata per
// process and thread, several processes appending to one file, the per-message budget, the
// fast-path counters, state and task spans, and what the reader accepts and refuses.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.hpp"
#include "common/json.hpp"
#include "common/trace.hpp"
#include "common/trace_file.hpp"

namespace {

namespace trace = softcomch::trace;
namespace tf = softcomch::trace_file;
namespace json = softcomch::json;

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class Trace : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/softcomch-trace-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        path_ = dir_ + "/trace.json";
    }
    void TearDown() override
    {
        trace::testing::reset();
        ::unsetenv(trace::k_env);
        std::remove(path_.c_str());
        ::rmdir(dir_.c_str());
    }
    // Tracing into path_ from now on.
    void start()
    {
        ::setenv(trace::k_env, path_.c_str(), 1);
        trace::testing::reset();
        ASSERT_TRUE(trace::on());
    }
    // Every event of the file, checked.
    std::vector<json::value> events()
    {
        std::vector<json::value> out;
        const tf::report r = tf::read(slurp(path_), &out);
        for (const auto &p : r.problems)
            ADD_FAILURE() << "line " << p.line << ": " << p.what;
        return out;
    }
    std::vector<json::value> named(const std::string &name)
    {
        std::vector<json::value> out;
        for (auto &e : events())
            if (e.find("name")->as_string() == name)
                out.push_back(e);
        return out;
    }

    std::string dir_;
    std::string path_;
};

TEST_F(Trace, OffWithoutTheVariable)
{
    ::unsetenv(trace::k_env);
    trace::testing::reset();
    EXPECT_TRUE(trace::armed()); // unresolved: the first event site resolves it
    trace::event('i', "test", "nothing").arg("x", 1).emit();
    EXPECT_FALSE(trace::armed());
    EXPECT_FALSE(trace::on());
    bool ran = false;
    SC_TRACE(ran = true);
    EXPECT_FALSE(ran);
    EXPECT_EQ(trace::testing::path(), "");
}

TEST_F(Trace, BadPathsTurnItOffWithOneLine)
{
    // The SDK's error line goes to stderr (no backend is registered in this test).
    char tmpl[] = "/tmp/softcomch-trace-err-XXXXXX";
    const int errfd = ::mkstemp(tmpl);
    ASSERT_GE(errfd, 0);
    const int saved = ::dup(2);
    ::dup2(errfd, 2);
    const std::string missing = dir_ + "/no/such/dir/trace.json";
    ::setenv(trace::k_env, missing.c_str(), 1);
    trace::testing::reset();
    trace::event('i', "test", "a").emit();
    trace::event('i', "test", "b").emit();
    EXPECT_FALSE(trace::armed());
    // Not a trace: refused, and left as it was.
    {
        std::ofstream(path_) << "hello\n";
    }
    ::setenv(trace::k_env, path_.c_str(), 1);
    trace::testing::reset();
    EXPECT_FALSE(trace::on());
    // A finished (strict) trace: refused too.
    {
        std::ofstream(path_) << "{\"traceEvents\":[]}\n";
    }
    trace::testing::reset();
    EXPECT_FALSE(trace::on());
    ::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    const std::string err = slurp(tmpl);
    ::close(errfd);
    std::remove(tmpl);
    EXPECT_EQ(slurp(path_), "{\"traceEvents\":[]}\n");
    size_t lines = 0;
    for (size_t p = 0; (p = err.find("SOFTCOMCH_TRACE=", p)) != std::string::npos; ++p)
        ++lines;
    EXPECT_EQ(lines, 3u) << err; // one per resolution, none per event
    EXPECT_NE(err.find(missing + ": cannot record a trace there: No such file or directory; "
                                 "tracing is off"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("not a SoftComch trace"), std::string::npos) << err;
    EXPECT_NE(err.find("finished trace"), std::string::npos) << err;
}

TEST_F(Trace, HeaderMetadataAndOneLinePerEvent)
{
    start();
    trace::event('i', "test", "first").arg("n", 1).arg("s", "x").arg("b", true).emit();
    trace::event('i', "test", "second").emit();
    const std::string text = slurp(path_);
    ASSERT_EQ(text.substr(0, 2), "[\n");
    EXPECT_EQ(text.back(), '\n');
    const auto ev = events();
    ASSERT_EQ(ev.size(), 4u); // process_name, thread_name, first, second
    EXPECT_EQ(ev[0].find("name")->as_string(), "process_name");
    EXPECT_EQ(ev[1].find("name")->as_string(), "thread_name");
    EXPECT_EQ(ev[1].find("args")->find("name")->as_string(), "main");
    const json::value &first = ev[2];
    EXPECT_EQ(first.find("ph")->as_string(), "i");
    EXPECT_EQ(first.find("s")->as_string(), "t");
    EXPECT_EQ(first.find("pid")->as_int(), ::getpid());
    EXPECT_EQ(first.find("tid")->as_int(), ::getpid());
    EXPECT_EQ(first.find("args")->find("n")->as_int(), 1);
    EXPECT_EQ(first.find("args")->find("s")->as_string(), "x");
    EXPECT_TRUE(first.find("args")->find("b")->as_bool());
    // One clock: CLOCK_MONOTONIC in microseconds.
    const double now_us = double(softcomch::now_ns()) / 1000.0;
    const double ts = first.find("ts")->as_double();
    EXPECT_LE(ts, now_us);
    EXPECT_GT(ts, now_us - 10e6);
    EXPECT_LE(ts, ev[3].find("ts")->as_double());
    EXPECT_EQ(first.find("args")->find("n")->as_int(), 1);
    EXPECT_EQ(trace::testing::path(), path_);
}

TEST_F(Trace, EscapesAndCutsWithoutBreakingTheLine)
{
    start();
    const std::string nasty = std::string("q\"b\\n\nt\tc\x01") + "\xC3\xA9" + "\xFF" + "\xE2\x82";
    trace::event('i', "test", nasty).arg("text", nasty).emit();
    const std::string huge(5000, 'y');
    trace::event('i', "test", huge).arg("a", huge).arg("after", 7).emit();
    auto ev = events();
    ASSERT_EQ(ev.size(), 4u);
    EXPECT_EQ(ev[2].find("name")->as_string(), "q\"b\\n\nt\tc?\xC3\xA9???");
    EXPECT_EQ(ev[2].find("args")->find("text")->as_string(), "q\"b\\n\nt\tc?\xC3\xA9???");
    // The long name is cut to fit; the arguments that no longer fit are left out.
    const std::string text = slurp(path_);
    size_t longest = 0;
    for (size_t a = 0, b; (b = text.find('\n', a)) != std::string::npos; a = b + 1)
        longest = std::max(longest, b - a + 1);
    EXPECT_LE(longest, trace::k_max_line);
    EXPECT_GT(ev[3].find("name")->as_string().size(), 900u);
    EXPECT_EQ(ev[3].find("args"), nullptr);
    // No \u escape anywhere (Perfetto's JSON tokenizer has none).
    EXPECT_EQ(text.find("\\u"), std::string::npos);
}

TEST_F(Trace, ProcessesAppendWholeLines)
{
    start();
    trace::event('i', "test", "parent before").emit();
    constexpr int children = 3, per_child = 2000;
    std::vector<pid_t> pids;
    for (int c = 0; c < children; ++c) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            for (int i = 0; i < per_child; ++i)
                trace::event('i', "test", "child")
                    .arg("i", i)
                    .arg("pad", std::string(200, 'p'))
                    .emit();
            ::_exit(0);
        }
        pids.push_back(pid);
    }
    for (int i = 0; i < per_child; ++i)
        trace::event('i', "test", "parent").arg("i", i).emit();
    for (pid_t p : pids) {
        int st = 0;
        ASSERT_EQ(::waitpid(p, &st, 0), p);
        ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    std::map<int64_t, int> per_pid, names;
    for (const auto &e : events()) {
        const std::string &name = e.find("name")->as_string();
        if (name == "child" || name == "parent")
            ++per_pid[e.find("pid")->as_int()];
        if (name == "process_name")
            ++names[e.find("pid")->as_int()];
    }
    ASSERT_EQ(per_pid.size(), size_t(children + 1));
    EXPECT_EQ(per_pid[::getpid()], per_child);
    for (pid_t p : pids) {
        EXPECT_EQ(per_pid[p], per_child) << "pid " << p;
        EXPECT_EQ(names[p], 1) << "a forked child names itself once";
    }
    EXPECT_EQ(names[::getpid()], 1);
}

TEST_F(Trace, ThreadsShareTheRecorder)
{
    start();
    constexpr int threads = 4, per_thread = 500;
    std::vector<std::thread> ts;
    int ctx[threads] = {};
    for (int t = 0; t < threads; ++t)
        ts.emplace_back([&, t] {
            trace::label(&ctx[t], "ctx " + std::to_string(t));
            trace::state_change(&ctx[t], "test", "IDLE", "RUNNING");
            for (int i = 0; i < per_thread; ++i) {
                trace::task_begin(&ctx[t], "send", uint64_t(t), 8); // one in flight per thread
                trace::fast_sent(64);
                trace::fast_received(32);
                trace::task_end(&ctx[t], 0);
            }
            trace::state_change(&ctx[t], "test", "RUNNING", "IDLE");
        });
    for (auto &t : ts)
        t.join();
    trace::flush_counters();
    std::map<int64_t, int> sends, thread_names;
    int64_t tx = 0, rx_bytes = 0;
    for (const auto &e : events()) {
        const std::string &name = e.find("name")->as_string();
        if (name == "send" && e.find("ph")->as_string() == "e")
            ++sends[e.find("tid")->as_int()];
        if (name == "thread_name")
            ++thread_names[e.find("tid")->as_int()];
        if (name == "fastpath.tx_messages")
            tx = e.find("args")->find("value")->as_int();
        if (name == "fastpath.rx_bytes")
            rx_bytes = e.find("args")->find("value")->as_int();
    }
    EXPECT_EQ(sends.size(), size_t(threads));
    for (const auto &[tid, n] : sends) {
        EXPECT_EQ(n, per_thread) << "thread " << tid;
        EXPECT_EQ(thread_names[tid], 1) << "thread " << tid;
    }
    EXPECT_EQ(tx, threads * per_thread);
    EXPECT_EQ(rx_bytes, threads * per_thread * 32);
}

TEST_F(Trace, BudgetCountsWhatItDrops)
{
    start();
    // Within one second of the coarse clock (retried if a second boundary falls inside).
    uint32_t taken = 0, refused = 0;
    for (int attempt = 0; attempt < 5; ++attempt) {
        trace::testing::reset();
        ASSERT_TRUE(trace::on());
        const uint64_t second = softcomch::coarse_now_ns() / 1'000'000'000u;
        taken = refused = 0;
        for (uint32_t i = 0; i < trace::k_budget_per_second + 300; ++i)
            (trace::take_budget() ? taken : refused)++;
        if (softcomch::coarse_now_ns() / 1'000'000'000u == second)
            break;
    }
    EXPECT_EQ(taken, trace::k_budget_per_second);
    EXPECT_EQ(refused, 300u);
    trace::flush_counters();
    const auto notice = named("events not recorded");
    ASSERT_EQ(notice.size(), 1u);
    EXPECT_EQ(notice[0].find("args")->find("dropped")->as_int(), 300);
}

TEST_F(Trace, FastPathCounters)
{
    start();
    for (int i = 0; i < 5; ++i)
        trace::fast_sent(100);
    for (int i = 0; i < 3; ++i)
        trace::fast_received(50);
    trace::flush_counters();
    const size_t lines = events().size();
    trace::flush_counters(); // unchanged: nothing more
    const auto ev = events();
    EXPECT_EQ(ev.size(), lines);
    std::map<std::string, int64_t> last;
    for (const auto &e : ev)
        if (e.find("ph")->as_string() == "C")
            last[e.find("name")->as_string()] = e.find("args")->find("value")->as_int();
    EXPECT_EQ(last["fastpath.tx_messages"], 5);
    EXPECT_EQ(last["fastpath.tx_bytes"], 500);
    EXPECT_EQ(last["fastpath.rx_messages"], 3);
    EXPECT_EQ(last["fastpath.rx_bytes"], 150);
    // Sampled at the first send, then at most every k_counter_interval_ns: far fewer lines than
    // messages once they are many.
    for (int i = 0; i < 10000; ++i)
        trace::fast_sent(1);
    size_t samples = 0;
    for (const auto &e : events())
        samples += e.find("name")->as_string() == "fastpath.tx_messages";
    EXPECT_LT(samples, 100u);
}

TEST_F(Trace, StateSpansTaskSpansProcessRoleAndFaults)
{
    start();
    int ctx = 0, task = 0, other = 0;
    trace::name_process("DPU", "server", "svc");
    trace::name_process("host", "client", "ignored"); // the first role names the process
    trace::label(&ctx, "server 'svc'");
    trace::state_change(&ctx, "comch server", "IDLE", "RUNNING");
    EXPECT_FALSE(trace::tasks_open());
    trace::task_begin(&task, "send", 7, 64);
    EXPECT_TRUE(trace::tasks_open());
    trace::task_end(&other, 0); // never begun: nothing
    trace::task_end(&task, 0);
    EXPECT_FALSE(trace::tasks_open());
    trace::task_begin(&task, "send", 7, 64);
    trace::task_end(&task, trace::k_withdrawn);
    trace::fault("disconnect", 7, "after=3");
    trace::state_change(&ctx, "comch server", "RUNNING", "STOPPING");
    trace::state_change(&ctx, "comch server", "STOPPING", "IDLE");
    trace::state_change(&ctx, "comch server", "IDLE", "RUNNING"); // restarted: unlabelled now
    std::vector<std::string> spans;
    std::string state_id;
    std::vector<std::string> names;
    for (const auto &e : events()) {
        const std::string ph = e.find("ph")->as_string();
        const std::string name = e.find("name")->as_string();
        if (ph == "M" && name == "process_name")
            names.push_back(e.find("args")->find("name")->as_string());
        if (ph != "b" && ph != "e")
            continue;
        spans.push_back(ph + " " + e.find("cat")->as_string() + " " + name);
        if (e.find("cat")->as_string() == "state" && state_id.empty())
            state_id = e.find("id")->as_string();
        if (name == "send" && ph == "e") {
            const std::string status = e.find("args")->find("status")->as_string();
            EXPECT_TRUE(status == "DOCA_SUCCESS" || status == "withdrawn") << status;
        }
    }
    const std::vector<std::string> want{"b state server 'svc' RUNNING",
                                        "b comch send",
                                        "e comch send",
                                        "b comch send",
                                        "e comch send",
                                        "e state server 'svc' RUNNING",
                                        "b state server 'svc' STOPPING",
                                        "e state server 'svc' STOPPING",
                                        "b state comch server RUNNING"};
    EXPECT_EQ(spans, want);
    EXPECT_EQ(state_id.rfind(std::to_string(::getpid()) + ".", 0), 0u) << state_id;
    ASSERT_EQ(names.size(), 2u);
    EXPECT_EQ(names[1], "DPU: server 'svc'");
    const auto faults = named("disconnect");
    ASSERT_EQ(faults.size(), 1u);
    EXPECT_EQ(faults[0].find("cat")->as_string(), "fault");
    EXPECT_EQ(faults[0].find("args")->find("detail")->as_string(), "after=3");
    EXPECT_EQ(named("process_sort_index").at(0).find("args")->find("sort_index")->as_int(), 0);
}

// ---- the reader ----

TEST(TraceFile, AcceptsTheRecordersFormAndTheStrictOnes)
{
    const std::string ev1 = R"({"ph":"i","ts":1.5,"pid":1,"tid":1,"name":"a","s":"t"})";
    const std::string ev2 =
        R"({"ph":"M","pid":1,"tid":1,"name":"process_name","args":{"name":"p"}})";
    const std::string ev3 = R"({"ph":"C","ts":3,"pid":2,"tid":2,"name":"c","args":{"v":1}})";
    for (const std::string &text : {"[\n" + ev1 + ",\n" + ev2 + ",\n" + ev3 + ",\n",
                                    "[\n" + ev1 + ",\n" + ev2 + ",\n" + ev3 + "\n]\n",
                                    "[" + ev1 + "," + ev2 + "," + ev3 + ",",
                                    "{\"traceEvents\":[" + ev1 + "," + ev2 + "," + ev3 + "]}"}) {
        std::vector<json::value> out;
        const tf::report r = tf::read(text, &out);
        EXPECT_TRUE(r.ok()) << text << (r.problems.empty() ? "" : r.problems[0].what);
        EXPECT_EQ(r.events, 2u) << text;
        EXPECT_EQ(r.metadata, 1u) << text;
        ASSERT_EQ(r.processes.size(), 2u) << text;
        EXPECT_EQ(r.processes[0].name, "p");
        EXPECT_EQ(r.first_ts, 1.5);
        EXPECT_EQ(r.last_ts, 3);
        // Strict output: valid JSON, metadata first, the same events.
        std::string err;
        const json::value doc = json::parse(tf::strict(out), &err);
        ASSERT_EQ(err, "") << tf::strict(out);
        ASSERT_EQ(doc.find("traceEvents")->size(), 3u);
        EXPECT_EQ((*doc.find("traceEvents"))[0].find("ph")->as_string(), "M");
    }
}

TEST(TraceFile, NamesEveryBadLine)
{
    const std::string text = "[\n"
                             R"({"ph":"i","ts":1,"pid":1,"tid":1,"name":"ok"},)"
                             "\n"
                             R"({"ph":"i","pid":1,"tid":1,"name":"no ts"},)"
                             "\n"
                             R"({"ph":"Q","ts":1,"pid":1,"tid":1,"name":"bad ph"},)"
                             "\n"
                             R"({"ph":"i","ts":1,"pid":"1","tid":1,"name":"string pid"},)"
                             "\n"
                             R"({"ph":"b","ts":1,"pid":1,"tid":1,"name":"no id"},)"
                             "\n"
                             R"({"ph":"C","ts":1,"pid":1,"tid":1,"name":"c","args":{"v":"x"}},)"
                             "\n"
                             R"({"ph":"i","ts":1,"pid":1,"tid":1,"name":"arr","stack":[1]},)"
                             "\n"
                             R"({"ph":"M","pid":1,"tid":1,"name":"process_name","args":{}},)"
                             "\n"
                             R"({"ph":"i","ts":1,"pid":1,"tid":1,"name":"cut)"
                             "\n"
                             R"({"ph":"X","ts":1,"pid":1,"tid":1,"name":"x","dur":2},)"
                             "\n";
    const tf::report r = tf::read(text, nullptr);
    EXPECT_EQ(r.events, 2u);
    std::vector<size_t> lines;
    for (const auto &p : r.problems)
        lines.push_back(p.line);
    EXPECT_EQ(lines, (std::vector<size_t>{3, 4, 5, 6, 7, 8, 9, 10}));
    EXPECT_NE(r.problems[0].what.find("ts"), std::string::npos);
    EXPECT_NE(r.problems[5].what.find("array"), std::string::npos);
    EXPECT_FALSE(tf::read("hello", nullptr).ok());
    EXPECT_FALSE(tf::read("{\"other\":1}", nullptr).ok());
}

TEST(TraceFile, StrictKeepsTheLastNameOfEachProcessAndSortsByTime)
{
    std::vector<json::value> out;
    const std::string text =
        "[\n"
        R"({"ph":"i","ts":5,"pid":1,"tid":1,"name":"late"},)"
        "\n"
        R"({"ph":"M","ts":1,"pid":1,"tid":1,"name":"process_name","args":{"name":"prog"}},)"
        "\n"
        R"({"ph":"i","ts":2,"pid":1,"tid":1,"name":"early"},)"
        "\n"
        R"({"ph":"M","ts":3,"pid":1,"tid":1,"name":"process_name","args":{"name":"DPU: server 'x'"}},)"
        "\n";
    ASSERT_TRUE(tf::read(text, &out).ok());
    std::string err;
    const json::value doc = json::parse(tf::strict(out), &err);
    ASSERT_EQ(err, "");
    const json::value &list = *doc.find("traceEvents");
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[0].find("args")->find("name")->as_string(), "DPU: server 'x'");
    EXPECT_EQ(list[1].find("name")->as_string(), "early");
    EXPECT_EQ(list[2].find("name")->as_string(), "late");
}

} // namespace
