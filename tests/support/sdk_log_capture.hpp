// SPDX-License-Identifier: Apache-2.0
//
// Bad-input test support over the PUBLIC API: captures SDK log lines in a buffer backend at
// DEBUG, so a test can check that a refused call logged a line naming the function, and the
// EXPECT_REFUSED / EXPECT_REFUSED_VIA / EXPECT_LOGGED macros built on it.
#pragma once

#include <doca_error.h>
#include <doca_log.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

// ---- SDK log capture: one buffer backend at DEBUG for the whole process ----
namespace sdk_log {
inline std::mutex mu;
inline std::vector<std::string> lines;
inline char buffer[8192];

inline void on_line(char *line)
{
    std::lock_guard<std::mutex> g(mu);
    lines.emplace_back(line);
}

inline doca_log_backend *backend()
{
    static doca_log_backend *b = [] {
        doca_log_backend *be = nullptr;
        if (doca_log_backend_create_with_buf_sdk(buffer, sizeof buffer, on_line, &be) !=
            DOCA_SUCCESS)
            return static_cast<doca_log_backend *>(nullptr);
        doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_DEBUG);
        return be;
    }();
    return b;
}

inline size_t mark()
{
    EXPECT_NE(backend(), nullptr) << "cannot create the SDK log capture backend";
    std::lock_guard<std::mutex> g(mu);
    return lines.size();
}

inline bool ident(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `fn` appears in `line` as a whole word (doca_buf_get_data does not match doca_buf_get_data_len).
inline bool names(const std::string &line, const std::string &fn)
{
    for (size_t p = line.find(fn); p != std::string::npos; p = line.find(fn, p + 1)) {
        bool left = p == 0 || !ident(line[p - 1]);
        bool right = p + fn.size() >= line.size() || !ident(line[p + fn.size()]);
        if (left && right)
            return true;
    }
    return false;
}

inline bool named_since(size_t m, const std::string &fn)
{
    std::lock_guard<std::mutex> g(mu);
    for (size_t i = m; i < lines.size(); ++i)
        if (names(lines[i], fn))
            return true;
    return false;
}

// Lines at ERROR, CRITICAL or WARNING level since mark `m`.
inline size_t errors_since(size_t m)
{
    std::lock_guard<std::mutex> g(mu);
    size_t n = 0;
    for (size_t i = m; i < lines.size(); ++i)
        for (const char *lvl : {"[ERR]", "[CRIT]", "[WRN]"})
            if (lines[i].find(lvl) != std::string::npos) {
                ++n;
                break;
            }
    return n;
}

inline std::string since(size_t m)
{
    std::lock_guard<std::mutex> g(mu);
    std::string s = "\nSDK log lines since the call:";
    if (m == lines.size())
        s += " (none)";
    for (size_t i = m; i < lines.size(); ++i)
        s += "\n  " + lines[i];
    return s;
}
} // namespace sdk_log

// `fn(args)` returns `code`, and an SDK log line names `fn`.
#define EXPECT_REFUSED(code, fn, ...)                                                              \
    do {                                                                                           \
        const size_t mark_ = sdk_log::mark();                                                      \
        const doca_error_t rc_ = fn(__VA_ARGS__);                                                  \
        EXPECT_EQ(rc_, code) << #fn "(" #__VA_ARGS__ ")";                                          \
        if (rc_ != DOCA_SUCCESS) {                                                                 \
            EXPECT_TRUE(sdk_log::named_since(mark_, #fn))                                          \
                << "no SDK log line names " #fn " after " #fn "(" #__VA_ARGS__ ") was refused"     \
                << sdk_log::since(mark_);                                                          \
        }                                                                                          \
    } while (0)

// As EXPECT_REFUSED, for a static inline wrapper: the log line names the exported function
// `logged` that the wrapper calls.
#define EXPECT_REFUSED_VIA(code, logged, fn, ...)                                                  \
    do {                                                                                           \
        const size_t mark_ = sdk_log::mark();                                                      \
        EXPECT_EQ(fn(__VA_ARGS__), code) << #fn "(" #__VA_ARGS__ ")";                              \
        EXPECT_TRUE(sdk_log::named_since(mark_, #logged))                                          \
            << "no SDK log line names " #logged " after " #fn "(" #__VA_ARGS__ ") was refused"     \
            << sdk_log::since(mark_);                                                              \
    } while (0)

// `expr` (a call of `fn` returning nothing useful) does not crash and logs a line naming `fn`.
#define EXPECT_LOGGED(fn, expr)                                                                    \
    do {                                                                                           \
        const size_t mark_ = sdk_log::mark();                                                      \
        expr;                                                                                      \
        EXPECT_TRUE(sdk_log::named_since(mark_, #fn))                                              \
            << "no SDK log line names " #fn " after " #expr << sdk_log::since(mark_);              \
    } while (0)

// A zeroed block standing for "a pointer to something that is not a DOCA object of this kind".
alignas(64) inline unsigned char junk_block[1024];
template <typename T> T *junk()
{
    return reinterpret_cast<T *>(junk_block);
}
