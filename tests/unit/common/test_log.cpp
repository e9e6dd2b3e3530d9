// SPDX-License-Identifier: Apache-2.0
//
// DOCA logging: line format, level windows, strict pinning, SDK/application separation, the
// standard stdout/stderr pair, the SDK stderr fallback, sources, SOFTCOMCH_LOG_LEVEL, and
// one-write-per-line under concurrency. The C entry points (src/capi/common/log.cpp) are compiled
// into this test, so DOCA_LOG_* and the doca_log_* functions are the real ones.
#define DOCA_ALLOW_EXPERIMENTAL_API
#define DOCA_LOGGING_ALLOW_TRACE
#include <doca_log.h>
#include <doca_version.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/log.hpp"
#include "common/log_backend.hpp"

#include "capi/common/log.cpp" // NOLINT: the thunks under test, white-box

DOCA_LOG_REGISTER(SOFTCOMCH::TEST::LOG);

namespace {

// A default-priority static initializer runs after DOCA_LOG_REGISTER's constructor(101): it sees
// the source registered, with its name stringified as written.
const std::string g_name_at_startup = [] {
    const char *name = softcomch::log::source_name(log_source);
    return std::string(name ? name : "(not registered)");
}();

namespace sl = softcomch::log;

std::vector<std::string> g_app_lines;
std::vector<std::string> g_sdk_lines;
char g_app_buf[4096];
char g_sdk_buf[4096];
char g_small_buf[32];

void on_app_line(char *buf)
{
    g_app_lines.emplace_back(buf);
}
void on_sdk_line(char *buf)
{
    g_sdk_lines.emplace_back(buf);
}

// Checks "[HH:MM:SS:uuuuuu][<tid>][DOCA][<LVL>][<file>:<line>]" + "[<func>]" (application lines
// only) + " <message>\n" with a single newline at the end. (No std::regex: slow, and GCC 12 warns
// inside it under the sanitizers.)
class line_checker {
public:
    line_checker(const std::string &line) : s_(line) {}

    bool check(bool app, const char *file)
    {
        return ch('[') && digits(2, 2) && ch(':') && digits(2, 2) && ch(':') && digits(2, 2) &&
               ch(':') && digits(6, 6) && ch(']') && ch('[') && digits(1, 20) && ch(']') &&
               word("[DOCA][") && level() && ch(']') && ch('[') && file_name(file) && ch(':') &&
               digits(1, 9) && ch(']') && (!app || func()) && ch(' ') && message();
    }

private:
    bool ch(char c) { return i_ < s_.size() && s_[i_++] == c; }
    bool digits(size_t min, size_t max)
    {
        size_t n = 0;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9' && n < max) {
            ++i_;
            ++n;
        }
        return n >= min;
    }
    bool word(const char *w)
    {
        const size_t n = std::strlen(w);
        if (s_.compare(i_, n, w) != 0)
            return false;
        i_ += n;
        return true;
    }
    bool level()
    {
        for (const char *t : {"CRT", "ERR", "WRN", "INF", "DBG", "TRC"})
            if (word(t))
                return true;
        return false;
    }
    bool file_name(const char *file)
    {
        if (file != nullptr)
            return word(file);
        const size_t start = i_;
        while (i_ < s_.size() && s_[i_] != ':' && s_[i_] != ']' && s_[i_] != '/')
            ++i_;
        return i_ > start;
    }
    bool func()
    {
        if (!ch('['))
            return false;
        const size_t start = i_;
        while (i_ < s_.size() && s_[i_] != ']')
            ++i_;
        return i_ > start && ch(']');
    }
    bool message()
    {
        const size_t nl = s_.find('\n', i_);
        return nl == s_.size() - 1;
    }

    const std::string &s_;
    size_t i_ = 0;
};

bool is_app_line(const std::string &line)
{
    return line_checker(line).check(true, "test_log.cpp");
}
bool is_sdk_line(const std::string &line)
{
    return line_checker(line).check(false, nullptr);
}

std::string token_of(const std::string &line)
{
    const size_t at = line.find("[DOCA][");
    return at == std::string::npos ? "" : line.substr(at + 7, 3);
}

// Runs `body` in a child whose stdout and stderr go to pipes; returns {out, err}.
template <typename Fn> std::pair<std::string, std::string> run_captured(Fn body)
{
    int out_pipe[2];
    int err_pipe[2];
    EXPECT_EQ(pipe(out_pipe), 0);
    EXPECT_EQ(pipe(err_pipe), 0);
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        close(out_pipe[0]);
        close(err_pipe[0]);
        body();
        fflush(stdout);
        fflush(stderr);
        _exit(0);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    auto drain = [](int fd) {
        std::string s;
        char chunk[4096];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof(chunk))) > 0)
            s.append(chunk, size_t(n));
        close(fd);
        return s;
    };
    std::string out = drain(out_pipe[0]);
    std::string err = drain(err_pipe[0]);
    return {out, err};
}

class Log : public ::testing::Test {
protected:
    void SetUp() override
    {
        unsetenv("SOFTCOMCH_LOG_LEVEL");
        sl::reset_for_testing();
        g_app_lines.clear();
        g_sdk_lines.clear();
    }
    void TearDown() override
    {
        unsetenv("SOFTCOMCH_LOG_LEVEL");
        sl::reset_for_testing();
    }

    // reset_for_testing() forgets the sources too; re-register this file's.
    static void reregister()
    {
        ASSERT_EQ(doca_log_register_source("SOFTCOMCH::TEST::LOG", &log_source), DOCA_SUCCESS);
    }

    doca_log_backend *app_buffer()
    {
        reregister();
        doca_log_backend *b = nullptr;
        EXPECT_EQ(doca_log_backend_create_with_buf(g_app_buf, sizeof(g_app_buf), on_app_line, &b),
                  DOCA_SUCCESS);
        return b;
    }
    doca_log_backend *sdk_buffer()
    {
        doca_log_backend *b = nullptr;
        EXPECT_EQ(
            doca_log_backend_create_with_buf_sdk(g_sdk_buf, sizeof(g_sdk_buf), on_sdk_line, &b),
            DOCA_SUCCESS);
        return b;
    }
    void log_all_levels()
    {
        DOCA_LOG_CRIT("crit");
        DOCA_LOG_ERR("err");
        DOCA_LOG_WARN("warn");
        DOCA_LOG_INFO("info");
        DOCA_LOG_DBG("dbg");
        DOCA_LOG_TRC("trc");
    }
    static std::string tokens(const std::vector<std::string> &lines)
    {
        // Appends, not `" " + std::string` (g++ 12 warns falsely on that operator when
        // optimizing: -Wrestrict, GCC bug 105651).
        std::string t;
        for (const std::string &l : lines) {
            if (!t.empty())
                t += ' ';
            t += token_of(l);
        }
        return t;
    }
};

TEST_F(Log, ApplicationLineFormat)
{
    app_buffer();
    DOCA_LOG_INFO("hello %d from %s", 42, "test");
    ASSERT_EQ(g_app_lines.size(), 1u);
    const std::string &line = g_app_lines[0];
    EXPECT_TRUE(is_app_line(line)) << line;
    EXPECT_NE(line.find("[DOCA][INF][test_log.cpp:"), std::string::npos) << line;
    EXPECT_NE(line.find("][TestBody] hello 42 from test\n"), std::string::npos) << line;
    const std::string tid =
        std::string("[").append(std::to_string(syscall(SYS_gettid))).append("]"); // GCC bug 105651
    EXPECT_NE(line.find(tid), std::string::npos) << line;
}

TEST_F(Log, FileIsPrintedWithoutItsDirectory)
{
    app_buffer();
    EXPECT_EQ(doca_log(DOCA_LOG_LEVEL_ERROR, log_source, "/a/b/c/sample.c", 350, "open_dev", "x"),
              DOCA_SUCCESS);
    ASSERT_EQ(g_app_lines.size(), 1u);
    EXPECT_NE(g_app_lines[0].find("[DOCA][ERR][sample.c:350][open_dev] x\n"), std::string::npos);
}

TEST_F(Log, SdkLineFormatHasNoFunctionField)
{
    sdk_buffer();
    ASSERT_EQ(g_sdk_lines.size(), 1u); // the version line
    EXPECT_TRUE(is_sdk_line(g_sdk_lines[0])) << g_sdk_lines[0];
    EXPECT_NE(g_sdk_lines[0].find(std::string("[INF]")), std::string::npos);
    EXPECT_NE(g_sdk_lines[0].find(std::string("] DOCA version ") + DOCA_VERSION_STRING + "\n"),
              std::string::npos)
        << g_sdk_lines[0];
    SC_LOG_ERR("library failure %d", 7);
    ASSERT_EQ(g_sdk_lines.size(), 2u);
    EXPECT_TRUE(is_sdk_line(g_sdk_lines[1])) << g_sdk_lines[1];
    EXPECT_NE(g_sdk_lines[1].find("[DOCA][ERR][test_log.cpp:"), std::string::npos);
    EXPECT_NE(g_sdk_lines[1].find("] library failure 7\n"), std::string::npos);
}

TEST_F(Log, VersionLineOnlyForTheFirstSdkBackend)
{
    sdk_buffer();
    sdk_buffer();
    EXPECT_EQ(g_sdk_lines.size(), 1u);
    app_buffer();
    EXPECT_TRUE(g_app_lines.empty());
}

TEST_F(Log, DefaultWindowIsCritToInfo)
{
    app_buffer();
    log_all_levels();
    EXPECT_EQ(tokens(g_app_lines), "CRT ERR WRN INF");
    for (const std::string &l : g_app_lines)
        EXPECT_TRUE(is_app_line(l)) << l;
    EXPECT_EQ(doca_log_level_get_global_lower_limit(), uint32_t(DOCA_LOG_LEVEL_INFO));
    EXPECT_EQ(doca_log_level_get_global_upper_limit(), uint32_t(DOCA_LOG_LEVEL_CRIT));
}

TEST_F(Log, GlobalLowerLimitIsTheMostVerboseLevelShown)
{
    app_buffer();
    ASSERT_EQ(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
    log_all_levels();
    EXPECT_EQ(tokens(g_app_lines), "CRT ERR WRN INF DBG TRC");
    g_app_lines.clear();
    ASSERT_EQ(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
    log_all_levels();
    EXPECT_EQ(tokens(g_app_lines), "CRT ERR");
    g_app_lines.clear();
    ASSERT_EQ(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
    log_all_levels();
    EXPECT_TRUE(g_app_lines.empty());
}

TEST_F(Log, UpperLimitIsTheLeastVerboseLevelShown)
{
    doca_log_backend *b = app_buffer();
    ASSERT_EQ(doca_log_backend_set_level_upper_limit(b, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
    log_all_levels();
    EXPECT_EQ(tokens(g_app_lines), "WRN INF DBG");
    g_app_lines.clear();
    ASSERT_EQ(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
    log_all_levels();
    EXPECT_EQ(tokens(g_app_lines), "ERR WRN INF DBG");
}

TEST_F(Log, StrictLimitsIgnoreGlobalChanges)
{
    doca_log_backend *pinned = app_buffer();
    ASSERT_EQ(doca_log_backend_set_level_lower_limit(pinned, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_backend_set_level_lower_limit_strict(pinned), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_backend_set_level_upper_limit(pinned, DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_backend_set_level_upper_limit_strict(pinned), DOCA_SUCCESS);

    static std::vector<std::string> other_lines;
    static char other_buf[1024];
    other_lines.clear();
    doca_log_backend *other = nullptr;
    ASSERT_EQ(
        doca_log_backend_create_with_buf(
            other_buf, sizeof(other_buf), [](char *l) { other_lines.emplace_back(l); }, &other),
        DOCA_SUCCESS);

    ASSERT_EQ(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_CRIT), DOCA_SUCCESS);
    log_all_levels();
    EXPECT_EQ(tokens(g_app_lines), "ERR WRN INF DBG"); // pinned window [ERROR..DEBUG]
    EXPECT_EQ(tokens(other_lines), "CRT ERR WRN");     // follows the globals [CRIT..WARNING]
}

TEST_F(Log, SdkAndApplicationLinesStayApart)
{
    app_buffer();
    sdk_buffer();
    g_sdk_lines.clear(); // the version line
    DOCA_LOG_ERR("from the program");
    SC_LOG_ERR("from the library");
    ASSERT_EQ(g_app_lines.size(), 1u);
    ASSERT_EQ(g_sdk_lines.size(), 1u);
    EXPECT_NE(g_app_lines[0].find("from the program"), std::string::npos);
    EXPECT_NE(g_sdk_lines[0].find("from the library"), std::string::npos);
    // The application limits do not move SDK backends and vice versa.
    ASSERT_EQ(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
    SC_LOG_WARN("still here");
    EXPECT_EQ(g_sdk_lines.size(), 2u);
    ASSERT_EQ(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
    SC_LOG_CRIT("silenced");
    DOCA_LOG_INFO("program still logs");
    EXPECT_EQ(g_sdk_lines.size(), 2u);
    EXPECT_EQ(g_app_lines.size(), 2u);
}

TEST_F(Log, SdkLevelAndSdkEnabled)
{
    doca_log_backend *b = sdk_buffer();
    g_sdk_lines.clear();
    EXPECT_EQ(doca_log_level_get_global_sdk_limit(), uint32_t(DOCA_LOG_LEVEL_INFO));
    EXPECT_TRUE(sl::sdk_enabled(sl::info));
    EXPECT_FALSE(sl::sdk_enabled(sl::debug));
    SC_LOG_DBG("hidden");
    EXPECT_TRUE(g_sdk_lines.empty());
    ASSERT_EQ(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
    EXPECT_TRUE(sl::sdk_enabled(sl::debug));
    EXPECT_FALSE(sl::sdk_enabled(sl::trace));
    SC_LOG_DBG("shown");
    ASSERT_EQ(g_sdk_lines.size(), 1u);
    EXPECT_EQ(token_of(g_sdk_lines[0]), "DBG");
    ASSERT_EQ(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
    EXPECT_FALSE(sl::sdk_enabled(sl::info));
    EXPECT_TRUE(sl::sdk_enabled(sl::warning));
    EXPECT_FALSE(sl::sdk_enabled(sl::disable));
    ASSERT_EQ(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
    EXPECT_TRUE(sl::sdk_enabled(sl::trace));
    EXPECT_EQ(doca_log_level_get_global_sdk_limit(), uint32_t(DOCA_LOG_LEVEL_TRACE));
}

TEST_F(Log, WithoutSdkBackendWarningsGoToStderr)
{
    EXPECT_TRUE(sl::sdk_enabled(sl::warning));
    EXPECT_FALSE(sl::sdk_enabled(sl::info));
    auto [out, err] = run_captured([] {
        SC_LOG_INFO("quiet info");
        SC_LOG_WARN("loud warning");
        SC_LOG_ERR("loud error");
    });
    EXPECT_EQ(out, "");
    EXPECT_EQ(err.find("quiet info"), std::string::npos);
    EXPECT_NE(err.find("[DOCA][WRN][test_log.cpp:"), std::string::npos) << err;
    EXPECT_NE(err.find("] loud warning\n"), std::string::npos) << err;
    EXPECT_NE(err.find("] loud error\n"), std::string::npos) << err;
}

TEST_F(Log, WithoutApplicationBackendNothingIsPrinted)
{
    reregister();
    auto [out, err] = run_captured([] {
        DOCA_LOG_CRIT("nowhere");
        DOCA_LOG_INFO("nowhere");
    });
    EXPECT_EQ(out, "");
    EXPECT_EQ(err, "");
}

TEST_F(Log, StandardBackendSplitsStdoutAndStderr)
{
    reregister();
    auto [out, err] = run_captured([this] {
        ASSERT_EQ(doca_log_backend_create_standard(), DOCA_SUCCESS);
        ASSERT_EQ(doca_log_backend_create_standard(), DOCA_SUCCESS); // idempotent
        log_all_levels();
        doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG);
        DOCA_LOG_DBG("dbg2");
        doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR);
        DOCA_LOG_WARN("warn3");
        DOCA_LOG_INFO("info3");
        DOCA_LOG_ERR("err3");
    });
    auto lines = [](const std::string &text) {
        std::vector<std::string> v;
        size_t start = 0;
        for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
            v.push_back(text.substr(start, nl - start + 1));
        return v;
    };
    const auto out_lines = lines(out);
    const auto err_lines = lines(err);
    EXPECT_EQ(tokens(out_lines), "INF DBG") << out;
    EXPECT_EQ(tokens(err_lines), "CRT ERR WRN ERR") << err;
    for (const auto &l : out_lines)
        EXPECT_TRUE(is_app_line(l)) << l;
    for (const auto &l : err_lines)
        EXPECT_TRUE(is_app_line(l)) << l;
    EXPECT_NE(out.find("] dbg2\n"), std::string::npos);
    EXPECT_NE(err.find("] err3\n"), std::string::npos);
}

TEST_F(Log, RegisterSourceKeepsNamesWithColons)
{
    EXPECT_STREQ(sl::source_name(log_source), nullptr); // reset forgot it
    reregister();
    EXPECT_STREQ(sl::source_name(log_source), "SOFTCOMCH::TEST::LOG");
    int other = -1;
    ASSERT_EQ(doca_log_register_source("COMCH_CTRL_PATH_SERVER::MAIN", &other), DOCA_SUCCESS);
    EXPECT_NE(other, log_source);
    EXPECT_STREQ(sl::source_name(other), "COMCH_CTRL_PATH_SERVER::MAIN");
    EXPECT_EQ(doca_log_unregister_source(other), DOCA_SUCCESS);
    EXPECT_EQ(doca_log_unregister_source(other), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_unregister_source(-5), DOCA_ERROR_INVALID_VALUE);
    app_buffer();
    EXPECT_EQ(doca_log(DOCA_LOG_LEVEL_ERROR, other, __FILE__, __LINE__, __func__, "x"),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_TRUE(g_app_lines.empty());
}

TEST_F(Log, TheRegisterMacroRanBeforeStaticInitializers)
{
    EXPECT_EQ(g_name_at_startup, "SOFTCOMCH::TEST::LOG");
}

TEST_F(Log, InvalidArgumentsAreRefused)
{
    doca_log_backend *b = nullptr;
    int id = 0;
    char buf[16];
    EXPECT_EQ(doca_log_backend_create_with_file(nullptr, &b), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_create_with_file(stdout, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_create_with_fd(-1, &b), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_create_with_fd(987654, &b), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_create_with_buf(nullptr, 16, on_app_line, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_create_with_buf(buf, 0, on_app_line, &b), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_create_with_buf(buf, 16, nullptr, &b), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_create_with_buf_sdk(buf, 16, on_sdk_line, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_create_with_syslog(nullptr, &b), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(b, nullptr); // outputs are written only on success
    EXPECT_EQ(doca_log_register_source(nullptr, &id), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_register_source("x", nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_level_set_global_lower_limit(0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_level_set_global_lower_limit(71), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_level_set_global_upper_limit(9), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_level_set_global_sdk_limit(80), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_set_level_lower_limit(nullptr, 50), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_set_level_lower_limit_strict(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(
        doca_log_backend_set_level_upper_limit_strict(reinterpret_cast<doca_log_backend *>(buf)),
        DOCA_ERROR_INVALID_VALUE);
    doca_log_backend *app = app_buffer();
    EXPECT_EQ(doca_log_backend_set_level_lower_limit(app, 75), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log_backend_set_sdk_level(app, 50),
              DOCA_ERROR_INVALID_VALUE); // not an SDK backend
    EXPECT_EQ(doca_log(DOCA_LOG_LEVEL_DISABLE, log_source, __FILE__, __LINE__, __func__, "x"),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log(99, log_source, __FILE__, __LINE__, __func__, "x"),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log(DOCA_LOG_LEVEL_ERROR, log_source, __FILE__, __LINE__, __func__, nullptr),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_log(DOCA_LOG_LEVEL_ERROR, log_source, nullptr, 0, nullptr, "no file"),
              DOCA_SUCCESS);
    ASSERT_EQ(g_app_lines.size(), 1u);
    EXPECT_NE(g_app_lines[0].find("[?:0][?] no file"), std::string::npos) << g_app_lines[0];
}

TEST_F(Log, BufferBackendTruncatesLongLines)
{
    reregister();
    doca_log_backend *b = nullptr;
    ASSERT_EQ(doca_log_backend_create_with_buf(g_small_buf, sizeof(g_small_buf), on_app_line, &b),
              DOCA_SUCCESS);
    DOCA_LOG_INFO("%s", std::string(500, 'x').c_str());
    ASSERT_EQ(g_app_lines.size(), 1u);
    EXPECT_EQ(g_app_lines[0].size(), sizeof(g_small_buf) - 1);
    EXPECT_EQ(g_app_lines[0].back(), '\n');
}

TEST_F(Log, LongLinesAreNotTruncatedOnDescriptors)
{
    reregister();
    FILE *tmp = tmpfile();
    ASSERT_NE(tmp, nullptr);
    doca_log_backend *b = nullptr;
    ASSERT_EQ(doca_log_backend_create_with_fd(fileno(tmp), &b), DOCA_SUCCESS);
    const std::string big(10000, 'y');
    DOCA_LOG_INFO("%s", big.c_str());
    rewind(tmp);
    std::string content(20000, '\0');
    content.resize(fread(content.data(), 1, content.size(), tmp));
    fclose(tmp);
    EXPECT_NE(content.find(big + "\n"), std::string::npos);
    EXPECT_TRUE(is_app_line(content));
}

TEST_F(Log, FileBackendFlushesWhatTheProgramPrintedFirst)
{
    reregister();
    FILE *tmp = tmpfile();
    ASSERT_NE(tmp, nullptr);
    doca_log_backend *b = nullptr;
    ASSERT_EQ(doca_log_backend_create_with_file(tmp, &b), DOCA_SUCCESS);
    fputs("before\n", tmp); // still in the stdio buffer
    DOCA_LOG_WARN("logged");
    fputs("after\n", tmp);
    fflush(tmp);
    rewind(tmp);
    char text[512] = {};
    const size_t n = fread(text, 1, sizeof(text) - 1, tmp);
    fclose(tmp);
    const std::string s(text, n);
    EXPECT_EQ(s.rfind("before\n[", 0), 0u) << s;
    EXPECT_NE(s.find("] logged\nafter\n"), std::string::npos) << s;
}

TEST_F(Log, ConcurrentLinesNeverInterleave)
{
    reregister();
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    doca_log_backend *b = nullptr;
    ASSERT_EQ(doca_log_backend_create_with_fd(p[1], &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
    constexpr int threads = 8;
    constexpr int per_thread = 200;
    std::string collected;
    std::thread reader([&] {
        char chunk[8192];
        ssize_t n;
        while ((n = read(p[0], chunk, sizeof(chunk))) > 0)
            collected.append(chunk, size_t(n));
    });
    std::vector<std::thread> writers;
    for (int t = 0; t < threads; ++t)
        writers.emplace_back([t] {
            for (int k = 0; k < per_thread; ++k)
                DOCA_LOG_DBG("thread %d line %d %s", t, k,
                             std::string(100 + t * 10, 'a' + char(t)).c_str());
        });
    for (auto &w : writers)
        w.join();
    close(p[1]);
    reader.join();
    close(p[0]);
    size_t count = 0;
    size_t start = 0;
    for (size_t nl; (nl = collected.find('\n', start)) != std::string::npos; start = nl + 1) {
        const std::string line = collected.substr(start, nl - start + 1);
        EXPECT_TRUE(is_app_line(line)) << line;
        ++count;
    }
    EXPECT_EQ(start, collected.size());
    EXPECT_EQ(count, size_t(threads * per_thread));
}

TEST_F(Log, EnvironmentSetsAndHoldsTheSdkLevel)
{
    setenv("SOFTCOMCH_LOG_LEVEL", "debug", 1);
    sl::reset_for_testing();
    EXPECT_EQ(doca_log_level_get_global_sdk_limit(), uint32_t(DOCA_LOG_LEVEL_DEBUG));
    EXPECT_TRUE(sl::sdk_enabled(sl::debug)); // also without any SDK backend (stderr fallback)
    doca_log_backend *b = sdk_buffer();
    g_sdk_lines.clear();
    // A program that sets its SDK backend to WARNING (as NVIDIA's samples do) still shows DEBUG:
    ASSERT_EQ(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
    SC_LOG_DBG("kept by the environment");
    EXPECT_EQ(g_sdk_lines.size(), 1u);
    // ...until the user asks otherwise on the command line (argp --sdk-log-level).
    sl::set_global_sdk_limit(DOCA_LOG_LEVEL_ERROR, /*from_user_cli=*/true);
    SC_LOG_WARN("now hidden");
    EXPECT_EQ(g_sdk_lines.size(), 1u);
}

TEST_F(Log, EnvironmentAcceptsNumbersAndRejectsGarbage)
{
    setenv("SOFTCOMCH_LOG_LEVEL", "30", 1);
    sl::reset_for_testing();
    EXPECT_EQ(sl::global_sdk_limit(), 30u);
    EXPECT_FALSE(sl::sdk_enabled(sl::warning));
    auto [out, err] = run_captured([] {
        setenv("SOFTCOMCH_LOG_LEVEL", "loud", 1);
        sl::reset_for_testing();
    });
    EXPECT_NE(err.find("SOFTCOMCH_LOG_LEVEL=\"loud\" ignored"), std::string::npos) << err;
    uint32_t v = 0;
    EXPECT_TRUE(sl::parse_level("TRACE", &v));
    EXPECT_EQ(v, 70u);
    EXPECT_TRUE(sl::parse_level("Warn", &v));
    EXPECT_EQ(v, 40u);
    EXPECT_TRUE(sl::parse_level("10", &v));
    EXPECT_EQ(v, 10u);
    EXPECT_FALSE(sl::parse_level("5", &v));
    EXPECT_FALSE(sl::parse_level("71", &v));
    EXPECT_FALSE(sl::parse_level("50x", &v));
    EXPECT_FALSE(sl::parse_level("", &v));
}

TEST_F(Log, SyslogBackendsCanBeCreatedAndUsed)
{
    reregister();
    sdk_buffer(); // takes the "DOCA version" line, which would otherwise go to syslog
    doca_log_backend *app = nullptr;
    doca_log_backend *sdk = nullptr;
    ASSERT_EQ(doca_log_backend_create_with_syslog("softcomch-test", &app), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_backend_create_with_syslog_sdk("softcomch-test", &sdk), DOCA_SUCCESS);
    ASSERT_NE(app, nullptr);
    ASSERT_NE(sdk, app);
    // Silence both before writing anything, so the test does not fill the system log.
    ASSERT_EQ(doca_log_backend_set_level_lower_limit(app, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
    ASSERT_EQ(doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
    EXPECT_EQ(doca_log(DOCA_LOG_LEVEL_CRIT, log_source, __FILE__, __LINE__, __func__, "not sent"),
              DOCA_SUCCESS);
}

TEST_F(Log, LevelTokens)
{
    EXPECT_STREQ(sl::level_token(20), "CRT");
    EXPECT_STREQ(sl::level_token(30), "ERR");
    EXPECT_STREQ(sl::level_token(40), "WRN");
    EXPECT_STREQ(sl::level_token(50), "INF");
    EXPECT_STREQ(sl::level_token(60), "DBG");
    EXPECT_STREQ(sl::level_token(70), "TRC");
}

TEST_F(Log, FlushCallbackThatLogsDoesNotDeadlock)
{
    reregister();
    static char buf[256];
    doca_log_backend *b = nullptr;
    static int calls = 0;
    calls = 0;
    ASSERT_EQ(doca_log_backend_create_with_buf(
                  buf, sizeof(buf),
                  [](char *) {
                      ++calls;
                      DOCA_LOG_ERR("nested"); // dropped
                  },
                  &b),
              DOCA_SUCCESS);
    DOCA_LOG_ERR("outer");
    EXPECT_EQ(calls, 1);
}

} // namespace
