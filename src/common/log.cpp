// SPDX-License-Identifier: Apache-2.0
//
// DOCA logging: the backend registry and its level windows (log_backend.hpp), the global limits,
// the sources, and the writing entry points of log.hpp and log_backend.hpp. Not on the data path:
// one mutex guards everything except the two thresholds that sdk_enabled()/app_enabled() read
// with a single relaxed load. The backend API is in log_backends.cpp, a line's formatting and
// writing in log_line.cpp, the level names in log_levels.cpp (log_internal.hpp joins them).
#include "common/log_internal.hpp"

#include <doca_version.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "common/clock.hpp"
#include "common/guard.hpp"
#include "common/log_limit.hpp"

namespace softcomch::log {

using namespace detail;

namespace {

// Most verbose level any backend of the family takes (0: none). Written under the registry
// mutex, read lock-free by sdk_enabled()/app_enabled(); relaxed is enough because a stale value
// only means one line more or less is formatted around a configuration change.
std::atomic<uint32_t> sdk_threshold{warning};
std::atomic<uint32_t> app_threshold{0};

// Lines of one kind per window (SOFTCOMCH_LOG_BURST; 0: no limit), and the limiter's state.
std::atomic<uint32_t> burst_limit{k_default_burst};
constinit rate_limiter limiter;

// Set while this thread writes a line: a line logged from inside a flush callback would
// overwrite the buffer being flushed (and could recurse forever), so such nested lines are dropped.
thread_local bool t_in_emit = false;

uint32_t fallback_level(const registry &r) noexcept
{
    if (r.env_hold)
        return r.env_level;
    return r.sdk_explicit ? r.sdk_lower : uint32_t(warning);
}

struct window {
    uint32_t upper;
    uint32_t lower;
    bool takes(uint32_t lvl) const noexcept
    {
        return lvl > disable && upper <= lvl && lvl <= lower;
    }
};

window window_of(const registry &r, const doca_log_backend &b) noexcept
{
    uint32_t lower = b.lower_;
    if (&b == r.fallback.get())
        lower = fallback_level(r);
    else if (b.family_ == family::sdk && r.env_hold)
        lower = r.env_level;
    return {std::max(b.upper_, b.hard_upper_), std::min(lower, b.hard_lower_)};
}

// Picks the backends under the registry mutex and writes after releasing it, so a flush
// callback may call the logging API (a line it logs itself is dropped: see t_in_emit).
// Backends are never freed while the process runs, so the pointers stay valid.
void emit(family fam, uint32_t lvl, const char *text, size_t len) noexcept
{
    if (t_in_emit)
        return;
    t_in_emit = true;
    registry &r = reg();
    doca_log_backend *targets[16];
    size_t count = 0;
    std::vector<doca_log_backend *> more; // only with more than 16 matching backends
    auto pick = [&](doca_log_backend *b) {
        if (count < std::size(targets)) {
            targets[count++] = b;
            return;
        }
        try {
            more.push_back(b);
        } catch (...) { // out of memory: this backend misses the line
        }
    };
    {
        std::lock_guard lock(r.mu);
        for (const auto &b : r.backends)
            if (b->family_ == fam && window_of(r, *b).takes(lvl))
                pick(b.get());
        if (fam == family::sdk && r.sdk_backends == 0 && window_of(r, *r.fallback).takes(lvl))
            pick(r.fallback.get());
    }
    for (size_t i = 0; i < count; ++i)
        write_line(*targets[i], lvl, text, len);
    for (doca_log_backend *b : more)
        write_line(*b, lvl, text, len);
    t_in_emit = false;
}

// Recomputes the thresholds (after restoring the start-up state when `restore`) and reports an
// unparsable SOFTCOMCH_LOG_LEVEL once.
void apply_environment(registry &r, bool restore) noexcept
{
    std::optional<std::string> bad;
    std::optional<std::string> bad_burst;
    {
        std::lock_guard lock(r.mu);
        if (restore) {
            r.restore_defaults();
            limiter.clear();
        }
        recompute(r);
        burst_limit.store(r.burst, std::memory_order_relaxed);
        bad.swap(r.env_bad);
        bad_burst.swap(r.env_burst_bad);
    }
    if (bad)
        SC_LOG_WARN("SOFTCOMCH_LOG_LEVEL=\"%s\" ignored: expected 10..70 or a level name such as "
                    "debug",
                    bad->c_str());
    if (bad_burst)
        SC_LOG_WARN("SOFTCOMCH_LOG_BURST=\"%s\" ignored: expected 0 (no rate limit) to %u lines "
                    "per call site and second",
                    bad_burst->c_str(), unsigned(k_max_burst));
}

// SOFTCOMCH_LOG_BURST: a decimal 0..k_max_burst, whole.
bool parse_burst(const char *text, uint32_t *out) noexcept
{
    if (text[0] < '0' || text[0] > '9')
        return false;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (*end != '\0' || v > k_max_burst)
        return false;
    *out = uint32_t(v);
    return true;
}

// Runs before main() in every program that loads the library, so SOFTCOMCH_LOG_LEVEL applies
// from the first line on; also reports an unparsable value once.
__attribute__((constructor(101))) void init_from_environment()
{
    apply_environment(reg(), false);
}

} // namespace

namespace detail {

void registry::restore_defaults()
{
    backends.clear();
    sdk_backends = 0;
    standard_created = false;
    version_printed = false;
    app_lower = info;
    app_upper = crit;
    sdk_lower = info;
    sdk_explicit = false;
    env_hold = false;
    env_level = info;
    env_bad.reset();
    burst = k_default_burst;
    env_burst_bad.reset();
    if (const char *env = std::getenv("SOFTCOMCH_LOG_BURST");
        env && *env && !parse_burst(env, &burst))
        env_burst_bad = env;
    sources.clear();
    fallback = std::make_unique<doca_log_backend>(family::sdk, sink::file);
    fallback->fp_ = stderr;
    if (const char *env = std::getenv("SOFTCOMCH_LOG_LEVEL"); env && *env) {
        uint32_t lvl = 0;
        if (parse_level(env, &lvl)) {
            env_hold = true;
            env_level = lvl;
            sdk_lower = lvl;
            sdk_explicit = true;
        } else {
            env_bad = env;
        }
    }
}

registry &reg()
{
    static registry *r = new registry();
    return *r;
}

void recompute(const registry &r) noexcept
{
    uint32_t app = 0;
    uint32_t sdk_max = 0;
    auto account = [&](const doca_log_backend &b) {
        const window w = window_of(r, b);
        if (w.upper > w.lower)
            return;
        uint32_t &t = b.family_ == family::sdk ? sdk_max : app;
        t = std::max(t, w.lower);
    };
    for (const auto &b : r.backends)
        account(*b);
    if (r.sdk_backends == 0)
        account(*r.fallback);
    app_threshold.store(app, std::memory_order_relaxed);
    sdk_threshold.store(sdk_max, std::memory_order_relaxed);
}

doca_log_backend *add_backend(registry &r, std::unique_ptr<doca_log_backend> b)
{
    if (b->family_ == family::sdk) {
        b->lower_ = r.sdk_lower;
        b->upper_ = crit;
    } else {
        b->lower_ = r.app_lower;
        b->upper_ = r.app_upper;
    }
    doca_log_backend *raw = b.get();
    r.backends.push_back(std::move(b));
    if (raw->family_ == family::sdk)
        ++r.sdk_backends;
    recompute(r);
    return raw;
}

doca_error_t create(family fam, std::unique_ptr<doca_log_backend> b, doca_log_backend **out)
{
    registry &r = reg();
    bool print_version = false;
    {
        std::lock_guard lock(r.mu);
        *out = add_backend(r, std::move(b));
        if (fam == family::sdk && !r.version_printed) {
            r.version_printed = true;
            print_version = true;
        }
    }
    // As DOCA does: the first SDK backend opens with the library version.
    if (print_version)
        SC_LOG_INFO("DOCA version %s", DOCA_VERSION_STRING);
    return DOCA_SUCCESS;
}

} // namespace detail

// ---- global limits ----

namespace {

// A global limit of family `fam` (already stored by the caller): every backend of the family
// that did not pin its own `limit` follows it. Caller holds r.mu.
void follow_global(registry &r, family fam, uint32_t level, uint32_t doca_log_backend::*limit,
                   bool doca_log_backend::*pinned) noexcept
{
    for (auto &b : r.backends)
        if (b->family_ == fam && !((*b).*pinned))
            (*b).*limit = level;
    recompute(r);
}

// The slot of source `id`, or nullptr when no source of that id is registered. Caller holds r.mu.
std::optional<std::string> *registered_source(registry &r, int id) noexcept
{
    if (id < 0 || size_t(id) >= r.sources.size() || !r.sources[size_t(id)])
        return nullptr;
    return &r.sources[size_t(id)];
}

} // namespace

void set_global_lower_limit(uint32_t level) noexcept
{
    locked([&](registry &r) {
        r.app_lower = level;
        follow_global(r, family::application, level, &doca_log_backend::lower_,
                      &doca_log_backend::lower_pinned_);
    });
}

void set_global_upper_limit(uint32_t level) noexcept
{
    locked([&](registry &r) {
        r.app_upper = level;
        follow_global(r, family::application, level, &doca_log_backend::upper_,
                      &doca_log_backend::upper_pinned_);
    });
}

uint32_t global_lower_limit() noexcept
{
    return locked([](const registry &r) { return r.app_lower; });
}

uint32_t global_upper_limit() noexcept
{
    return locked([](const registry &r) { return r.app_upper; });
}

void set_global_sdk_limit(uint32_t level, bool from_user_cli) noexcept
{
    locked([&](registry &r) {
        r.sdk_lower = level;
        r.sdk_explicit = true;
        if (from_user_cli)
            r.env_hold = false;
        follow_global(r, family::sdk, level, &doca_log_backend::lower_,
                      &doca_log_backend::lower_pinned_);
    });
}

uint32_t global_sdk_limit() noexcept
{
    return locked([](const registry &r) { return r.env_hold ? r.env_level : r.sdk_lower; });
}

// ---- sources ----

doca_error_t register_source(const char *name, int *id) noexcept
{
    return locked([&](registry &r) {
        try {
            r.sources.emplace_back(std::string(name));
        } catch (...) {
            return DOCA_ERROR_NO_MEMORY;
        }
        *id = int(r.sources.size() - 1);
        return DOCA_SUCCESS;
    });
}

bool unregister_source(int id) noexcept
{
    return locked([&](registry &r) {
        std::optional<std::string> *source = registered_source(r, id);
        if (source)
            source->reset();
        return source != nullptr;
    });
}

const char *source_name(int id) noexcept
{
    return locked([&](registry &r) {
        const std::optional<std::string> *source = registered_source(r, id);
        return source ? (*source)->c_str() : nullptr;
    });
}

// ---- writing ----

bool app_enabled(uint32_t lvl) noexcept
{
    return lvl > disable && lvl <= app_threshold.load(std::memory_order_relaxed);
}

bool sdk_enabled(uint32_t lvl) noexcept
{
    return lvl > disable && lvl <= sdk_threshold.load(std::memory_order_relaxed);
}

void vapp(uint32_t lvl, const char *file, int line, const char *func, const char *fmt,
          va_list ap) noexcept
{
    line_buffer out;
    format_line(out, lvl, file, line, func ? func : "?", fmt, ap);
    emit(family::application, lvl, out.data(), out.size());
}

void vsdk(uint32_t lvl, const char *file, int line, const char *fmt, va_list ap) noexcept
{
    line_buffer out;
    format_line(out, lvl, file, line, nullptr, fmt, ap);
    emit(family::sdk, lvl, out.data(), out.size());
}

void sdk(uint32_t lvl, const char *file, int line, const char *fmt, ...) noexcept
{
    va_list ap;
    va_start(ap, fmt);
    vsdk(lvl, file, line, fmt, ap);
    va_end(ap);
}

void sdk_at(const void *site, uint32_t lvl, const char *file, int line, const char *fmt,
            ...) noexcept
{
    const rate_limiter::verdict v =
        limiter.admit(site, current_api_function, coarse_now_ns() / 1'000'000,
                      burst_limit.load(std::memory_order_relaxed));
    if (!v.write)
        return;
    if (v.suppressed != 0)
        sdk(lvl, file, line, "... (%llu similar lines suppressed)",
            static_cast<unsigned long long>(v.suppressed));
    va_list ap;
    va_start(ap, fmt);
    vsdk(lvl, file, line, fmt, ap);
    va_end(ap);
}

void reset_for_testing() noexcept
{
    apply_environment(reg(), true);
}

} // namespace softcomch::log
