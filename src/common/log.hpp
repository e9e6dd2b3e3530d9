// SPDX-License-Identifier: Apache-2.0
//
// SDK-internal logging. Library code logs through SC_LOG_* and never through the application
// macros of doca_log.h: DOCA keeps the SDK's lines apart from the application's (separate
// backends, separate level limits), and SoftComch does the same. The line format is DOCA's:
//   [HH:MM:SS:uuuuuu][<tid>][DOCA][<LVL>][<file>:<line>] <message>
// Levels are DOCA's numbers (enum doca_log_level in doca_log.h). Every SC_LOG_* line is rate
// limited per call site and exported function (log_limit.hpp): a peer or a looping caller
// cannot fill a disk.
#pragma once

#include <cstdint>

#include "common/visibility.hpp"

namespace softcomch::log {

enum level : uint32_t {
    disable = 10,
    crit = 20,
    error = 30,
    warning = 40,
    info = 50,
    debug = 60,
    trace = 70,
};

// True when an SDK line at `lvl` would reach at least one SDK backend. Cheap (one relaxed load);
// call sites on the data path test it before formatting anything.
SOFTCOMCH_API bool sdk_enabled(uint32_t lvl) noexcept;

// Formats and writes one SDK line to every SDK backend whose window includes `lvl`.
SOFTCOMCH_API void sdk(uint32_t lvl, const char *file, int line, const char *fmt, ...) noexcept
    __attribute__((format(printf, 4, 5)));

// sdk() for the line of call site `site` (the address of a static object of one SC_LOG_*
// expansion), rate limited (common/log_limit.hpp): of similar lines (same site, same exported
// function), the first SOFTCOMCH_LOG_BURST (default 10) per second are written, the others
// counted and summarised in one line "... (N similar lines suppressed)" before the next line
// written for that site.
SOFTCOMCH_API void sdk_at(const void *site, uint32_t lvl, const char *file, int line,
                          const char *fmt, ...) noexcept __attribute__((format(printf, 5, 6)));

} // namespace softcomch::log

// Disabled: one relaxed load and one branch, as before rate limiting; the limiter is consulted
// only for an enabled line, before it is formatted.
#define SC_LOG_AT(lvl, ...)                                                                        \
    do {                                                                                           \
        if (::softcomch::log::sdk_enabled(lvl)) {                                                  \
            static char sc_log_site_;                                                              \
            ::softcomch::log::sdk_at(&sc_log_site_, (lvl), __FILE_NAME__, __LINE__, __VA_ARGS__);  \
        }                                                                                          \
    } while (0)

#define SC_LOG_CRIT(...) SC_LOG_AT(::softcomch::log::crit, __VA_ARGS__)
#define SC_LOG_ERR(...) SC_LOG_AT(::softcomch::log::error, __VA_ARGS__)
#define SC_LOG_WARN(...) SC_LOG_AT(::softcomch::log::warning, __VA_ARGS__)
#define SC_LOG_INFO(...) SC_LOG_AT(::softcomch::log::info, __VA_ARGS__)
#define SC_LOG_DBG(...) SC_LOG_AT(::softcomch::log::debug, __VA_ARGS__)
#define SC_LOG_TRC(...) SC_LOG_AT(::softcomch::log::trace, __VA_ARGS__)
