// SPDX-License-Identifier: Apache-2.0
//
// Private to the logger (log.cpp: the registry, level windows and the writing entry points;
// log_backends.cpp: the backend API of log_backend.hpp; log_line.cpp: formatting a line and
// writing it to one backend; log_levels.cpp: level names and numbers). Nothing else includes it:
// the rest of the tree uses log.hpp and log_backend.hpp.
#pragma once

#include <doca_log.h>

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "common/log_backend.hpp"
#include "common/log_limit.hpp"
#include "common/object_tag.hpp"

using softcomch::log::family;

// The C handle is the implementation object (docs/design.md, layers).
struct doca_log_backend {
    enum class sink : uint8_t { file, fd, buf, syslog };

    doca_log_backend(family fam, sink kind) : family_(fam), sink_(kind) {}

    softcomch::object_tag tag_{softcomch::object_kind::log_backend};
    family family_;
    sink sink_;
    FILE *fp_ = nullptr;
    int fd_ = -1;
    char *buf_ = nullptr;
    size_t capacity_ = 0;
    log_flush_callback flush_ = nullptr;
    std::string ident_; // syslog identity; openlog() keeps the pointer, the backend lives on
    std::mutex buf_mu_; // buffer backends: serialises the copy + flush callback

    // The configurable window: upper_ <= L <= lower_ (guarded by the registry mutex).
    uint32_t lower_ = softcomch::log::info;
    uint32_t upper_ = softcomch::log::crit;
    bool lower_pinned_ = false;
    bool upper_pinned_ = false;
    // A fixed window on top, used by the standard stdout/stderr pair.
    uint32_t hard_lower_ = UINT32_MAX;
    uint32_t hard_upper_ = 0;
};

namespace softcomch::log::detail {

using sink = doca_log_backend::sink;

struct registry {
    std::mutex mu;
    std::vector<std::unique_ptr<doca_log_backend>> backends;
    std::unique_ptr<doca_log_backend> fallback; // stderr sink for SDK lines while no SDK backend
    size_t sdk_backends = 0;
    bool standard_created = false;
    bool version_printed = false;
    uint32_t app_lower = info;
    uint32_t app_upper = crit;
    uint32_t sdk_lower = info;
    bool sdk_explicit = false; // the SDK limit was chosen (env, API, CLI): the fallback follows it
    bool env_hold = false;     // SOFTCOMCH_LOG_LEVEL holds the SDK level
    uint32_t env_level = info;
    std::optional<std::string> env_bad;       // an unparsable SOFTCOMCH_LOG_LEVEL, reported once
    uint32_t burst = k_default_burst;         // SOFTCOMCH_LOG_BURST (log_limit.hpp)
    std::optional<std::string> env_burst_bad; // an unparsable SOFTCOMCH_LOG_BURST, reported once
    std::vector<std::optional<std::string>> sources; // index = source id

    registry() { restore_defaults(); }

    // The start-up state; reads SOFTCOMCH_LOG_LEVEL (log.cpp).
    void restore_defaults();
};

// The process's registry (never destroyed: SDK code may log from static destructors and atexit
// handlers).
registry &reg();

// Runs `fn(registry &)` under the registry's mutex and returns what it returns.
template <typename Fn> auto locked(Fn &&fn)
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    return fn(r);
}

// Recomputes the thresholds sdk_enabled()/app_enabled() read. Caller holds r.mu.
void recompute(const registry &r) noexcept;

// Adds `b` with the current global limits of its family. Caller holds r.mu.
doca_log_backend *add_backend(registry &r, std::unique_ptr<doca_log_backend> b);

// Adds `b` (taking r.mu) and stores it in *out; the first SDK backend opens with the DOCA version
// line.
doca_error_t create(family fam, std::unique_ptr<doca_log_backend> b, doca_log_backend **out);

// ---- one line (log_line.cpp) ----

// A line under construction: on the stack when it fits, on the heap otherwise.
class line_buffer {
public:
    line_buffer() = default;
    line_buffer(const line_buffer &) = delete;
    line_buffer &operator=(const line_buffer &) = delete;
    ~line_buffer();

    void appendf(const char *fmt, ...) noexcept __attribute__((format(printf, 2, 3)));
    void vappendf(const char *fmt, va_list ap) noexcept;
    // Ends the line with exactly one '\n' (always room for it: see vappendf).
    void finish() noexcept;

    const char *data() const noexcept { return data_; }
    size_t size() const noexcept { return len_; }

private:
    bool grow(size_t need) noexcept;

    char stack_[1024];
    char *data_ = stack_;
    size_t cap_ = sizeof(stack_);
    size_t len_ = 0;
};

// [HH:MM:SS:uuuuuu][<tid>][DOCA][<LVL>][<file>:<line>]([<func>]) <message>\n
void format_line(line_buffer &out, uint32_t lvl, const char *file, int line, const char *func,
                 const char *fmt, va_list ap) noexcept;

// `text` ends with '\n'. One write(2) per line so that lines never interleave.
void write_line(doca_log_backend &b, uint32_t lvl, const char *text, size_t len) noexcept;

} // namespace softcomch::log::detail
