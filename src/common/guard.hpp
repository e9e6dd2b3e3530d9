// SPDX-License-Identifier: Apache-2.0
//
// One guard for every exported function body: no C++ exception ever crosses the C ABI.
// bad_alloc becomes DOCA_ERROR_NO_MEMORY; anything else is logged and becomes
// DOCA_ERROR_UNEXPECTED (or the supplied fallback value for functions that do not return
// doca_error_t).
#pragma once

#include <doca_error.h>

#include <exception>
#include <new>
#include <type_traits>

#include "common/log.hpp"

namespace softcomch {

// Name of the exported function being executed on this thread (set by guard). Argument checks
// inside a guarded lambda use it in their log lines: a lambda's own __func__ is "operator()".
// Initial-exec TLS: set on every API call, and the default (global-dynamic) model costs a
// __tls_get_addr call each time in a shared library (~4% of a 4 KiB fast-path stream). The
// libraries are linked by the program, not dlopened late, so static TLS space is there.
inline thread_local const char *current_api_function __attribute__((tls_model("initial-exec"))) =
    "doca";
inline const char *api_function() noexcept
{
    return current_api_function;
}

struct api_scope {
    explicit api_scope(const char *func) noexcept : prev_(current_api_function)
    {
        current_api_function = func;
    }
    ~api_scope() { current_api_function = prev_; }
    api_scope(const api_scope &) = delete;
    api_scope &operator=(const api_scope &) = delete;

private:
    const char *prev_;
};

template <typename Fn> doca_error_t guard(const char *func, Fn &&fn) noexcept
{
    api_scope scope(func);
    try {
        return fn();
    } catch (const std::bad_alloc &) {
        SC_LOG_ERR("%s: out of memory", func);
        return DOCA_ERROR_NO_MEMORY;
    } catch (const std::exception &e) {
        SC_LOG_ERR("%s: internal error: %s", func, e.what());
        return DOCA_ERROR_UNEXPECTED;
    } catch (...) {
        SC_LOG_ERR("%s: internal error", func);
        return DOCA_ERROR_UNEXPECTED;
    }
}

// For functions that return something other than doca_error_t (pointers, void, uint8_t).
template <typename R, typename Fn> R guard_value(const char *func, R fallback, Fn &&fn) noexcept
{
    api_scope scope(func);
    try {
        return fn();
    } catch (const std::exception &e) {
        SC_LOG_ERR("%s: internal error: %s", func, e.what());
    } catch (...) {
        SC_LOG_ERR("%s: internal error", func);
    }
    return fallback;
}

} // namespace softcomch

// Logs why an argument was refused and returns the code: every refusal in the C API says why.
#define SC_REFUSE(code, ...)                                                                       \
    do {                                                                                           \
        SC_LOG_ERR(__VA_ARGS__);                                                                   \
        return (code);                                                                             \
    } while (0)

#define SC_CHECK_NOT_NULL(ptr)                                                                     \
    do {                                                                                           \
        if ((ptr) == nullptr)                                                                      \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: " #ptr " is NULL",                            \
                      ::softcomch::api_function());                                                \
    } while (0)
