// SPDX-License-Identifier: Apache-2.0
//
// Rate limiting of SDK log lines (common/log_limit.hpp, docs/logging_and_argp.md): the limiter
// on its own with a simulated clock (bursts, windows, exact summary counts, keys, threads), then
// SC_LOG_* end to end into a buffer backend (the first line always written, the summary line's
// text, SOFTCOMCH_LOG_BURST), and the application's DOCA_LOG_* lines, which are never limited.
// The C entry points are compiled in, as in test_log.cpp.
#define DOCA_ALLOW_EXPERIMENTAL_API
#include <doca_log.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.hpp"
#include "common/guard.hpp"
#include "common/log.hpp"
#include "common/log_backend.hpp"
#include "common/log_limit.hpp"

#include "capi/common/log.cpp" // NOLINT: the thunks under test, white-box

DOCA_LOG_REGISTER(SOFTCOMCH::TEST::LOG_LIMIT);

namespace {

namespace sl = softcomch::log;

constexpr uint32_t k_burst = sl::k_default_burst;

// Distinct addresses standing for call sites and exported functions.
char site_a, site_b;
const char func_x[] = "doca_x";
const char func_y[] = "doca_y";

struct tally {
    uint64_t written = 0;
    uint64_t summaries = 0;
    uint64_t summarised = 0; // lines the summaries reported
};

void feed(sl::rate_limiter &lim, tally &t, const void *site, const void *func, uint64_t now,
          uint64_t events)
{
    for (uint64_t i = 0; i < events; ++i) {
        const auto v = lim.admit(site, func, now, k_burst);
        if (!v.write)
            continue;
        ++t.written;
        if (v.suppressed) {
            ++t.summaries;
            t.summarised += v.suppressed;
        }
    }
}

TEST(LogLimit, BurstThenSuppressedThenOneExactSummary)
{
    static sl::rate_limiter lim;
    lim.clear();
    tally t;
    // The first line of a site is always written, and so are the next burst - 1.
    EXPECT_TRUE(lim.admit(&site_a, func_x, 5000, k_burst).write);
    feed(lim, t, &site_a, func_x, 5000, 9999);
    EXPECT_EQ(t.written, k_burst - 1) << "at most `burst` lines of one kind per window";
    EXPECT_EQ(t.summaries, 0u);
    // Still inside the window (999 ms later): nothing more.
    feed(lim, t, &site_a, func_x, 5999, 1000);
    EXPECT_EQ(t.written, k_burst - 1);
    // The window is over: the next line is written, with the exact count of what was dropped.
    const auto v = lim.admit(&site_a, func_x, 6000, k_burst);
    EXPECT_TRUE(v.write);
    EXPECT_EQ(v.suppressed, 10000u + 1000u - k_burst);
    // And the count starts again from zero.
    const auto w = lim.admit(&site_a, func_x, 7000, k_burst);
    EXPECT_TRUE(w.write);
    EXPECT_EQ(w.suppressed, 0u);
}

TEST(LogLimit, SitesAndFunctionsAreLimitedSeparately)
{
    static sl::rate_limiter lim;
    lim.clear();
    tally a, b, c;
    feed(lim, a, &site_a, func_x, 100, 1000);
    feed(lim, b, &site_b, func_x, 100, 1000); // another call site
    feed(lim, c, &site_a, func_y, 100, 1000); // the same site reached through another function
    EXPECT_EQ(a.written, k_burst);
    EXPECT_EQ(b.written, k_burst);
    EXPECT_EQ(c.written, k_burst);
}

TEST(LogLimit, ZeroBurstMeansNoLimit)
{
    static sl::rate_limiter lim;
    lim.clear();
    for (int i = 0; i < 1000; ++i)
        ASSERT_TRUE(lim.admit(&site_a, func_x, 1, 0).write);
}

TEST(LogLimit, ManyThreadsOneSiteCountsStayExact)
{
    static sl::rate_limiter lim;
    lim.clear();
    constexpr int k_threads = 4;
    constexpr uint64_t k_events = 20000;
    std::vector<tally> t(k_threads);
    std::vector<std::thread> threads;
    for (int i = 0; i < k_threads; ++i)
        threads.emplace_back([&, i] { feed(lim, t[size_t(i)], &site_a, func_x, 42, k_events); });
    for (auto &th : threads)
        th.join();
    uint64_t written = 0;
    for (const tally &x : t)
        written += x.written;
    EXPECT_EQ(written, k_burst) << "the window's count is one CAS-updated word";
    const auto v = lim.admit(&site_a, func_x, 42 + sl::k_window_ms, k_burst);
    ASSERT_TRUE(v.write);
    EXPECT_EQ(v.suppressed, k_threads * k_events - k_burst);
}

TEST(LogLimit, ManyThreadsManyWindowsNothingIsLost)
{
    // Threads racing across window boundaries: every event is either written or reported by
    // exactly one summary (or still pending at the end).
    static sl::rate_limiter lim;
    lim.clear();
    constexpr int k_threads = 4;
    constexpr uint64_t k_events = 20000;
    std::vector<tally> t(k_threads);
    std::vector<std::thread> threads;
    for (int i = 0; i < k_threads; ++i)
        threads.emplace_back([&, i] {
            for (uint64_t e = 0; e < k_events; ++e) {
                const auto v = lim.admit(&site_b, func_x, e / 50 * 100, k_burst);
                if (v.write) {
                    ++t[size_t(i)].written;
                    t[size_t(i)].summarised += v.suppressed;
                }
            }
        });
    for (auto &th : threads)
        th.join();
    uint64_t written = 0, summarised = 0;
    for (const tally &x : t) {
        written += x.written;
        summarised += x.summarised;
    }
    const auto last = lim.admit(&site_b, func_x, 1'000'000'000, k_burst);
    EXPECT_EQ(written + summarised + last.suppressed, uint64_t(k_threads) * k_events);
}

// ---- end to end: SC_LOG_* into a buffer backend ----

std::vector<std::string> g_lines;
char g_buf[1024];
void on_line(char *line)
{
    g_lines.emplace_back(line);
}

class LogLimitLines : public ::testing::Test {
protected:
    void SetUp() override { restart(); }
    void TearDown() override
    {
        unsetenv("SOFTCOMCH_LOG_BURST");
        sl::reset_for_testing();
    }
    void restart()
    {
        unsetenv("SOFTCOMCH_LOG_LEVEL");
        sl::reset_for_testing();
        ASSERT_EQ(doca_log_register_source("SOFTCOMCH::TEST::LOG_LIMIT", &log_source),
                  DOCA_SUCCESS);
        doca_log_backend *b = nullptr;
        ASSERT_EQ(doca_log_backend_create_with_buf_sdk(g_buf, sizeof g_buf, on_line, &b),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
        g_lines.clear();
    }
    static size_t count(const std::string &needle)
    {
        size_t n = 0;
        for (const auto &l : g_lines)
            n += l.find(needle) != std::string::npos;
        return n;
    }
};

void one_site(int i)
{
    SC_LOG_WARN("hostile message %d", i);
}

TEST_F(LogLimitLines, AFloodOfOneLineIsCutToTheBurst)
{
    for (int i = 0; i < 10000; ++i)
        one_site(i);
    // The window is one second of the coarse clock: a slow machine may cross it once or twice.
    EXPECT_LE(g_lines.size(), 3 * (k_burst + 1));
    EXPECT_GE(g_lines.size(), k_burst);
    ASSERT_FALSE(g_lines.empty());
    EXPECT_NE(g_lines.front().find("hostile message 0"), std::string::npos)
        << "the first occurrence is always written: " << g_lines.front();
    EXPECT_NE(g_lines.front().find("[WRN]"), std::string::npos);
}

TEST_F(LogLimitLines, TheSummaryComesWithTheNextLineAndCountsExactly)
{
    const uint64_t start = softcomch::coarse_now_ns();
    for (int i = 0; i < 500; ++i)
        one_site(i);
    // One window later (a wait on the clock, not on another thread): the next line is preceded
    // by the summary.
    if (softcomch::coarse_now_ns() - start >= sl::k_window_ms * 1'000'000)
        GTEST_SKIP() << "the burst itself took more than a window on this machine";
    const size_t before = g_lines.size();
    EXPECT_EQ(before, k_burst);
    while (softcomch::coarse_now_ns() - start < (sl::k_window_ms + 10) * 1'000'000)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    one_site(-1);
    ASSERT_EQ(g_lines.size(), before + 2);
    const std::string &summary = g_lines[before];
    EXPECT_NE(summary.find("... (490 similar lines suppressed)"), std::string::npos) << summary;
    EXPECT_NE(summary.find("[WRN]"), std::string::npos) << "the site's own level: " << summary;
    EXPECT_NE(g_lines[before + 1].find("hostile message -1"), std::string::npos);
}

TEST_F(LogLimitLines, RefusalsOfDifferentFunctionsDoNotSuppressEachOther)
{
    // One shared check (one call site) reached from many exported functions, as the C API's
    // argument checks are: every function's first refusals are written.
    static const char *const funcs[] = {"doca_a", "doca_b", "doca_c", "doca_d", "doca_e",
                                        "doca_f", "doca_g", "doca_h", "doca_i", "doca_j",
                                        "doca_k", "doca_l", "doca_m", "doca_n", "doca_o"};
    for (const char *f : funcs) {
        softcomch::api_scope scope(f);
        for (int i = 0; i < 3; ++i)
            SC_LOG_ERR("%s: argument refused", f);
    }
    for (const char *f : funcs)
        EXPECT_EQ(count(std::string(f) + ": argument refused"), 3u) << f;
}

TEST_F(LogLimitLines, BurstFromTheEnvironmentZeroIsOff)
{
    setenv("SOFTCOMCH_LOG_BURST", "0", 1);
    restart();
    for (int i = 0; i < 1000; ++i)
        one_site(i);
    EXPECT_EQ(g_lines.size(), 1000u);

    setenv("SOFTCOMCH_LOG_BURST", "3", 1);
    restart();
    for (int i = 0; i < 1000; ++i)
        one_site(i);
    EXPECT_LE(g_lines.size(), 3u * 3 + 2);
    EXPECT_GE(g_lines.size(), 3u);
}

TEST_F(LogLimitLines, ABadBurstValueIsIgnored)
{
    for (const char *bad : {"lots", "-1", "10x", "2000000"}) {
        setenv("SOFTCOMCH_LOG_BURST", bad, 1);
        restart(); // the warning about it goes to the stderr fallback (no backend yet)
        for (int i = 0; i < 1000; ++i)
            one_site(i);
        EXPECT_LE(g_lines.size(), 3 * (k_burst + 1)) << bad << ": the default burst applies";
        EXPECT_GE(g_lines.size(), k_burst) << bad;
    }
}

TEST_F(LogLimitLines, ApplicationLinesAreNeverLimited)
{
    char app_buf[512];
    static std::vector<std::string> app_lines;
    app_lines.clear();
    doca_log_backend *b = nullptr;
    ASSERT_EQ(doca_log_backend_create_with_buf(
                  app_buf, sizeof app_buf, [](char *l) { app_lines.emplace_back(l); }, &b),
              DOCA_SUCCESS);
    for (int i = 0; i < 5000; ++i)
        DOCA_LOG_WARN("the program's own line %d", i);
    EXPECT_EQ(app_lines.size(), 5000u) << "programs expect every line they log";
}

void trace_site(int i)
{
    SC_LOG_TRC("trace line %d", i);
}

TEST_F(LogLimitLines, DisabledLinesDoNotReachTheLimiter)
{
    // A line below every backend's level stops at sdk_enabled(): once enabled, its first
    // occurrence is written with no summary of the disabled ones.
    for (int i = 0; i < 100; ++i)
        trace_site(i);
    EXPECT_TRUE(g_lines.empty());
    sl::set_global_sdk_limit(DOCA_LOG_LEVEL_TRACE);
    trace_site(100);
    ASSERT_EQ(g_lines.size(), 1u);
    EXPECT_NE(g_lines[0].find("trace line 100"), std::string::npos) << g_lines[0];
}

} // namespace
