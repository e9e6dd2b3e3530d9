// SPDX-License-Identifier: Apache-2.0
//
// Diagnostics of the fast-path harness (fastpath_harness.hpp): names of error codes and context
// states, show() for the values the checks print, the child-process checks that print both
// values (CHILD_CHECK_EQ, CHILD_CHECK_MSG), and the "flows" idiom: functions that return an error
// text ("" = success), usable in the gtest parent (EXPECT_EQ(f(...), "")) and in forked children
// (CHILD_CHECK_MSG) alike, with the REQ* macros. Definitions in fastpath_checks.cpp.
#pragma once

#include <doca_ctx.h>
#include <doca_error.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace sc_test::fp {

// ---- diagnostics ----

std::string err_name(doca_error_t e);
std::string state_name(doca_ctx_states s);

std::string show(doca_error_t e);
std::string show(doca_ctx_states s);
std::string show(bool b);
std::string show(const std::string &s);
std::string show(const char *s);
std::string show(const void *p);
template <typename T>
requires std::is_integral_v<T>
inline std::string show(T v)
{
    return std::to_string(v);
}

// Child-process checks that print both values (CHILD_CHECK only prints the expression).
#define CHILD_CHECK_EQ(a, b)                                                                       \
    do {                                                                                           \
        auto &&child_a_ = (a);                                                                     \
        auto &&child_b_ = (b);                                                                     \
        if (!(child_a_ == child_b_)) {                                                             \
            std::fprintf(stderr, "[pid %d] child check failed at %s:%d: %s == %s (%s vs %s)\n",    \
                         int(getpid()), __FILE__, __LINE__, #a, #b,                                \
                         ::sc_test::fp::show(child_a_).c_str(),                                    \
                         ::sc_test::fp::show(child_b_).c_str());                                   \
            return __LINE__ % 200 + 1;                                                             \
        }                                                                                          \
    } while (0)

#define CHILD_CHECK_MSG(cond, ...)                                                                 \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "[pid %d] child check failed at %s:%d: %s: ", int(getpid()),      \
                         __FILE__, __LINE__, #cond);                                               \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fprintf(stderr, "\n");                                                            \
            return __LINE__ % 200 + 1;                                                             \
        }                                                                                          \
    } while (0)

uint64_t parse_u64(const std::string &s);

// Environment helpers (stress knobs).
long env_long(const char *name, long dflt);

std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// ---- shared flows: functions that return an error text ("" = success), usable in the parent
// (EXPECT_EQ(f(...), "")) and in children (CHILD_CHECK_MSG) alike ----

#define REQ(cond)                                                                                  \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return ::sc_test::fp::strf("%s:%d: %s", __FILE__, __LINE__, #cond);                    \
    } while (0)
#define REQ_MSG(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return ::sc_test::fp::strf("%s:%d: %s: ", __FILE__, __LINE__, #cond) +                 \
                   ::sc_test::fp::strf(__VA_ARGS__);                                               \
    } while (0)
#define REQ_EQ(a, b)                                                                               \
    do {                                                                                           \
        auto &&req_a_ = (a);                                                                       \
        auto &&req_b_ = (b);                                                                       \
        if (!(req_a_ == req_b_))                                                                   \
            return ::sc_test::fp::strf("%s:%d: %s == %s (%s vs %s)", __FILE__, __LINE__, #a, #b,   \
                                       ::sc_test::fp::show(req_a_).c_str(),                        \
                                       ::sc_test::fp::show(req_b_).c_str());                       \
    } while (0)
// Propagates the error text of a nested flow.
#define REQ_OK(expr)                                                                               \
    do {                                                                                           \
        std::string req_e_ = (expr);                                                               \
        if (!req_e_.empty())                                                                       \
            return req_e_;                                                                         \
    } while (0)

// "[DOCA_ERROR_SHUTDOWN,...]", "[STARTING,RUNNING]", "a; b".
std::string errs_to_string(const std::vector<doca_error_t> &v);
std::string states_to_string(const std::vector<doca_ctx_states> &v);
std::string join(const std::vector<std::string> &v);

} // namespace sc_test::fp
