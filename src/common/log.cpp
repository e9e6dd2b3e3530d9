// SPDX-License-Identifier: Apache-2.0
//
// DOCA logging: the backend registry, level windows and line formatting (log_backend.hpp), and
// the SDK-side entry points of log.hpp. Not on the data path: one mutex guards everything except
// the two thresholds that sdk_enabled()/app_enabled() read with a single relaxed load.
#include "common/log.hpp"

#include <doca_version.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/log_backend.hpp"
#include "common/object_tag.hpp"
#include "common/posix.hpp"

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

namespace softcomch::log {
namespace {

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
    std::optional<std::string> env_bad; // an unparsable SOFTCOMCH_LOG_LEVEL, reported once
    std::vector<std::optional<std::string>> sources; // index = source id

    registry() { restore_defaults(); }

    void restore_defaults()
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
};

// Most verbose level any backend of the family takes (0: none). Written under the registry
// mutex, read lock-free by sdk_enabled()/app_enabled(); relaxed is enough because a stale value
// only means one line more or less is formatted around a configuration change.
std::atomic<uint32_t> sdk_threshold{warning};
std::atomic<uint32_t> app_threshold{0};

// Set while this thread writes a line: a line logged from inside a flush callback would
// overwrite the buffer being flushed (and could recurse forever), so such nested lines are dropped.
thread_local bool t_in_emit = false;

registry &reg()
{
    // Never destroyed: SDK code may log from static destructors and atexit handlers.
    static registry *r = new registry();
    return *r;
}

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

// ---- output ----

int syslog_priority(uint32_t lvl) noexcept
{
    if (lvl <= crit)
        return LOG_CRIT;
    if (lvl <= error)
        return LOG_ERR;
    if (lvl <= warning)
        return LOG_WARNING;
    if (lvl <= info)
        return LOG_INFO;
    return LOG_DEBUG;
}

// `text` ends with '\n'. One write(2) per line so that lines never interleave.
void write_line(doca_log_backend &b, uint32_t lvl, const char *text, size_t len) noexcept
{
    switch (b.sink_) {
    case sink::file: {
        flockfile(b.fp_);
        fflush(b.fp_); // whatever the program printed before comes first
        const int fd = fileno(b.fp_);
        if (fd >= 0) {
            (void)softcomch::write_all(
                fd, std::string_view(text, len)); // nowhere to report a failing sink
        } else {                                  // memory and cookie streams have no descriptor
            fwrite(text, 1, len, b.fp_);
            fflush(b.fp_);
        }
        funlockfile(b.fp_);
        break;
    }
    case sink::fd:
        (void)softcomch::write_all(b.fd_, std::string_view(text, len));
        break;
    case sink::buf: {
        std::lock_guard lock(b.buf_mu_); // one line at a time in the caller's buffer
        const size_t n = std::min(len, b.capacity_ - 1);
        std::memcpy(b.buf_, text, n);
        if (n < len && n > 0)
            b.buf_[n - 1] = '\n'; // truncated: keep the line terminated
        b.buf_[n] = '\0';
        b.flush_(b.buf_);
        break;
    }
    case sink::syslog:
        syslog(syslog_priority(lvl), "%.*s", int(len > 0 ? len - 1 : 0), text);
        break;
    }
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

// A line under construction: on the stack when it fits, on the heap otherwise.
class line_buffer {
public:
    line_buffer() = default;
    line_buffer(const line_buffer &) = delete;
    line_buffer &operator=(const line_buffer &) = delete;
    ~line_buffer()
    {
        if (data_ != stack_)
            std::free(data_);
    }

    void appendf(const char *fmt, ...) noexcept __attribute__((format(printf, 2, 3)))
    {
        va_list ap;
        va_start(ap, fmt);
        vappendf(fmt, ap);
        va_end(ap);
    }

    void vappendf(const char *fmt, va_list ap) noexcept
    {
        va_list again;
        va_copy(again, ap);
        const int n = vsnprintf(data_ + len_, cap_ - len_, fmt, ap);
        if (n < 0) {
            va_end(again);
            return;
        }
        if (size_t(n) < cap_ - len_) {
            len_ += size_t(n);
        } else if (grow(len_ + size_t(n) + 2)) { // +2: room for the newline and the NUL
            vsnprintf(data_ + len_, cap_ - len_, fmt, again);
            len_ += size_t(n);
        } else {
            len_ = cap_ - 2; // out of memory: keep what fitted, leave room for the newline
        }
        va_end(again);
    }

    // Ends the line with exactly one '\n' (always room for it: see vappendf).
    void finish() noexcept
    {
        if (cap_ - len_ < 2 && !grow(len_ + 2))
            len_ = cap_ - 2;
        data_[len_++] = '\n';
        data_[len_] = '\0';
    }

    const char *data() const noexcept { return data_; }
    size_t size() const noexcept { return len_; }

private:
    bool grow(size_t need) noexcept
    {
        if (need <= cap_)
            return true;
        char *p = static_cast<char *>(std::malloc(need));
        if (p == nullptr)
            return false;
        std::memcpy(p, data_, len_);
        if (data_ != stack_)
            std::free(data_);
        data_ = p;
        cap_ = need;
        return true;
    }

    char stack_[1024];
    char *data_ = stack_;
    size_t cap_ = sizeof(stack_);
    size_t len_ = 0;
};

const char *base_name(const char *path) noexcept
{
    if (path == nullptr)
        return "?";
    const char *slash = std::strrchr(path, '/');
    return slash ? slash + 1 : path;
}

// [HH:MM:SS:uuuuuu][<tid>][DOCA][<LVL>][<file>:<line>]([<func>]) <message>\n
void format_line(line_buffer &out, uint32_t lvl, const char *file, int line, const char *func,
                 const char *fmt, va_list ap) noexcept
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    tm local{};
    localtime_r(&ts.tv_sec, &local);
    const long tid = ::syscall(SYS_gettid); // not cached: a cached value would be stale after fork
    out.appendf("[%02d:%02d:%02d:%06ld][%ld][DOCA][%s][%s:%d]", local.tm_hour, local.tm_min,
                local.tm_sec, ts.tv_nsec / 1000, tid, level_token(lvl), base_name(file), line);
    if (func != nullptr)
        out.appendf("[%s]", func);
    out.appendf(" ");
    out.vappendf(fmt, ap);
    out.finish();
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

// Runs before main() in every program that loads the library, so SOFTCOMCH_LOG_LEVEL applies
// from the first line on; also reports an unparsable value once.
__attribute__((constructor(101))) void init_from_environment()
{
    registry &r = reg();
    std::optional<std::string> bad;
    {
        std::lock_guard lock(r.mu);
        recompute(r);
        bad.swap(r.env_bad);
    }
    if (bad)
        SC_LOG_WARN("SOFTCOMCH_LOG_LEVEL=\"%s\" ignored: expected 10..70 or a level name such as "
                    "debug",
                    bad->c_str());
}

} // namespace

// ---- levels ----

bool valid_limit(uint32_t level) noexcept
{
    return level >= disable && level <= trace;
}

bool valid_line_level(uint32_t level) noexcept
{
    return level >= crit && level <= trace;
}

const char *level_token(uint32_t level) noexcept
{
    if (level <= disable)
        return "DIS";
    if (level <= crit)
        return "CRT";
    if (level <= error)
        return "ERR";
    if (level <= warning)
        return "WRN";
    if (level <= info)
        return "INF";
    if (level <= debug)
        return "DBG";
    return "TRC";
}

bool parse_level(std::string_view text, uint32_t *level) noexcept
{
    if (text.empty())
        return false;
    if (text.front() >= '0' && text.front() <= '9') {
        uint32_t v = 0;
        for (char c : text) {
            if (c < '0' || c > '9' || v > 1000)
                return false;
            v = v * 10 + uint32_t(c - '0');
        }
        if (!valid_limit(v))
            return false;
        *level = v;
        return true;
    }
    static constexpr struct {
        const char *name;
        uint32_t value;
    } names[] = {{"disable", disable}, {"crit", crit},    {"critical", crit},   {"err", error},
                 {"error", error},     {"warn", warning}, {"warning", warning}, {"info", info},
                 {"dbg", debug},       {"debug", debug},  {"trc", trace},       {"trace", trace}};
    for (const auto &n : names) {
        const std::string_view name(n.name);
        if (name.size() != text.size())
            continue;
        bool same = true;
        for (size_t i = 0; i < name.size() && same; ++i) {
            char c = text[i];
            if (c >= 'A' && c <= 'Z')
                c = char(c - 'A' + 'a');
            same = c == name[i];
        }
        if (same) {
            *level = n.value;
            return true;
        }
    }
    return false;
}

// ---- backends ----

doca_error_t create_file_backend(family fam, FILE *fp, doca_log_backend **out)
{
    auto b = std::make_unique<doca_log_backend>(fam, sink::file);
    b->fp_ = fp;
    return create(fam, std::move(b), out);
}

doca_error_t create_fd_backend(family fam, int fd, doca_log_backend **out)
{
    auto b = std::make_unique<doca_log_backend>(fam, sink::fd);
    b->fd_ = fd;
    return create(fam, std::move(b), out);
}

doca_error_t create_buf_backend(family fam, char *buf, size_t capacity, log_flush_callback handler,
                                doca_log_backend **out)
{
    auto b = std::make_unique<doca_log_backend>(fam, sink::buf);
    b->buf_ = buf;
    b->capacity_ = capacity;
    b->flush_ = handler;
    return create(fam, std::move(b), out);
}

doca_error_t create_syslog_backend(family fam, const char *ident, doca_log_backend **out)
{
    auto b = std::make_unique<doca_log_backend>(fam, sink::syslog);
    b->ident_ = ident;
    // syslog has one identity per process: the most recently created syslog backend names it.
    openlog(b->ident_.c_str(), LOG_PID, LOG_USER);
    return create(fam, std::move(b), out);
}

doca_error_t create_standard_backends()
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    if (r.standard_created)
        return DOCA_SUCCESS;
    auto out = std::make_unique<doca_log_backend>(family::application, sink::file);
    out->fp_ = stdout;
    out->hard_upper_ = info; // stdout: INFO and more verbose
    auto err = std::make_unique<doca_log_backend>(family::application, sink::file);
    err->fp_ = stderr;
    err->hard_lower_ = warning; // stderr: WARNING and more severe
    r.backends.reserve(r.backends.size() + 2);
    add_backend(r, std::move(out));
    add_backend(r, std::move(err));
    r.standard_created = true;
    return DOCA_SUCCESS;
}

bool is_backend(const doca_log_backend *b) noexcept
{
    if (b == nullptr)
        return false;
    registry &r = reg();
    std::lock_guard lock(r.mu);
    for (const auto &own : r.backends)
        if (own.get() == b)
            return b->tag_.is(object_kind::log_backend);
    return false;
}

family backend_family(const doca_log_backend *b) noexcept
{
    return b->family_;
}

void set_backend_lower_limit(doca_log_backend *b, uint32_t level) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    b->lower_ = level;
    recompute(r);
}

void set_backend_upper_limit(doca_log_backend *b, uint32_t level) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    b->upper_ = level;
    recompute(r);
}

void pin_backend_lower_limit(doca_log_backend *b) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    b->lower_pinned_ = true;
}

void pin_backend_upper_limit(doca_log_backend *b) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    b->upper_pinned_ = true;
}

// ---- global limits ----

void set_global_lower_limit(uint32_t level) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    r.app_lower = level;
    for (auto &b : r.backends)
        if (b->family_ == family::application && !b->lower_pinned_)
            b->lower_ = level;
    recompute(r);
}

void set_global_upper_limit(uint32_t level) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    r.app_upper = level;
    for (auto &b : r.backends)
        if (b->family_ == family::application && !b->upper_pinned_)
            b->upper_ = level;
    recompute(r);
}

uint32_t global_lower_limit() noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    return r.app_lower;
}

uint32_t global_upper_limit() noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    return r.app_upper;
}

void set_global_sdk_limit(uint32_t level, bool from_user_cli) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    r.sdk_lower = level;
    r.sdk_explicit = true;
    if (from_user_cli)
        r.env_hold = false;
    for (auto &b : r.backends)
        if (b->family_ == family::sdk && !b->lower_pinned_)
            b->lower_ = level;
    recompute(r);
}

uint32_t global_sdk_limit() noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    return r.env_hold ? r.env_level : r.sdk_lower;
}

// ---- sources ----

doca_error_t register_source(const char *name, int *id) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    try {
        r.sources.emplace_back(std::string(name));
    } catch (...) {
        return DOCA_ERROR_NO_MEMORY;
    }
    *id = int(r.sources.size() - 1);
    return DOCA_SUCCESS;
}

bool unregister_source(int id) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    if (id < 0 || size_t(id) >= r.sources.size() || !r.sources[size_t(id)])
        return false;
    r.sources[size_t(id)].reset();
    return true;
}

const char *source_name(int id) noexcept
{
    registry &r = reg();
    std::lock_guard lock(r.mu);
    if (id < 0 || size_t(id) >= r.sources.size() || !r.sources[size_t(id)])
        return nullptr;
    return r.sources[size_t(id)]->c_str();
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

void reset_for_testing() noexcept
{
    registry &r = reg();
    std::optional<std::string> bad;
    {
        std::lock_guard lock(r.mu);
        r.restore_defaults();
        recompute(r);
        bad.swap(r.env_bad);
    }
    if (bad)
        SC_LOG_WARN("SOFTCOMCH_LOG_LEVEL=\"%s\" ignored: expected 10..70 or a level name such as "
                    "debug",
                    bad->c_str());
}

} // namespace softcomch::log
