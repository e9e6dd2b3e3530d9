// SPDX-License-Identifier: Apache-2.0
//
// The recorder's file, its process and thread metadata, and the event builder (trace.hpp). What
// the library records is in trace_events.cpp.
#include "common/trace.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/posix.hpp"
#include "common/trace_internal.hpp"

extern char *program_invocation_short_name; // glibc

namespace softcomch::trace {

namespace detail {

std::atomic<bool> g_armed{true};

recorder &rec() noexcept
{
    static recorder r;
    return r;
}

namespace {

std::mutex resolve_mu;
bool atfork_registered = false;

// The calling thread's id, cached for the current generation (a fork changes it).
struct thread_cache {
    uint32_t generation = 0;
    int tid = 0;
    uint32_t meta_generation = 0; // the generation whose thread_name this thread wrote
};
thread_local thread_cache t_thread;

int current_tid() noexcept
{
    const uint32_t g = rec().generation.load(std::memory_order_relaxed);
    if (t_thread.generation != g) {
        t_thread.generation = g;
        t_thread.tid = int(::syscall(SYS_gettid));
    }
    return t_thread.tid;
}

void before_fork() noexcept
{
    rec().mu.lock();
    rec().sample_mu.lock();
}

void after_fork_parent() noexcept
{
    rec().sample_mu.unlock();
    rec().mu.unlock();
}

// The child writes to the same file under its own pid: its metadata is written again, and the
// parent's open spans are not its own.
void after_fork_child() noexcept
{
    recorder &r = rec();
    r.sample_mu.unlock();
    r.ctxs.clear();
    r.tasks.clear();
    r.open_tasks.store(0, std::memory_order_relaxed);
    r.role_named = false;
    r.pid.store(int(::getpid()), std::memory_order_relaxed);
    r.generation.fetch_add(1, std::memory_order_relaxed);
    for (auto *a : {&r.tx_messages, &r.tx_bytes, &r.rx_messages, &r.rx_bytes})
        a->store(0, std::memory_order_relaxed);
    for (uint64_t &s : r.shown)
        s = 0;
    r.mu.unlock();
}

// Opens `path` for appending events. A new or empty file gets the array's "[\n"; an existing one
// must be a trace in progress (its first character '['). Under flock, so that two processes
// starting together write the header once and before any event.
int open_trace(const char *path, std::string &why) noexcept
{
    const int fd = ::open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd < 0) {
        why = std::strerror(errno);
        return -1;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        why = "not a regular file";
        ::close(fd);
        return -1;
    }
    const bool locked = ::flock(fd, LOCK_EX) == 0;
    bool ok = ::fstat(fd, &st) == 0;
    if (ok && st.st_size == 0) {
        ok = softcomch::write_all(fd, "[\n");
        if (!ok)
            why = std::strerror(errno);
    } else if (ok) {
        char head[64];
        const ssize_t n = ::pread(fd, head, sizeof head, 0);
        ssize_t i = 0;
        while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
            ++i;
        if (i >= n || head[i] != '[') {
            ok = false;
            why = i < n && head[i] == '{'
                      ? "it holds a finished trace (strict JSON, from softcomch trace); remove it "
                        "or name another file"
                      : "it is not a SoftComch trace (it does not start with '['); remove it or "
                        "name another file";
        }
    } else {
        why = std::strerror(errno);
    }
    if (locked)
        (void)::flock(fd, LOCK_UN);
    if (!ok) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool resolve() noexcept
{
    std::lock_guard<std::mutex> g(resolve_mu);
    recorder &r = rec();
    const int s = r.state.load(std::memory_order_acquire);
    if (s != int(status::unresolved))
        return s == int(status::on);
    const char *path = std::getenv(k_env);
    if (!path || !*path) {
        g_armed.store(false, std::memory_order_relaxed);
        r.state.store(int(status::off), std::memory_order_release);
        return false;
    }
    std::string why;
    const int fd = open_trace(path, why);
    if (fd < 0) {
        SC_LOG_ERR("%s=%s: cannot record a trace there: %s; tracing is off", k_env, path,
                   why.c_str());
        g_armed.store(false, std::memory_order_relaxed);
        r.state.store(int(status::off), std::memory_order_release);
        return false;
    }
    r.fd = fd;
    try {
        r.path = path;
    } catch (...) { // the path is only reported by testing::path()
    }
    r.pid.store(int(::getpid()), std::memory_order_relaxed);
    if (!atfork_registered)
        atfork_registered = ::pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
    r.state.store(int(status::on), std::memory_order_release);
    return true;
}

void write_fd(const char *data, size_t len) noexcept
{
    const int fd = rec().fd;
    ssize_t n;
    do
        n = ::write(fd, data, len); // one write: O_APPEND keeps the line whole
    while (n < 0 && errno == EINTR);
}

} // namespace

void ensure_metadata() noexcept
{
    recorder &r = rec();
    const uint32_t g = r.generation.load(std::memory_order_relaxed);
    if (r.meta_generation.load(std::memory_order_relaxed) != g &&
        r.meta_generation.exchange(g, std::memory_order_relaxed) != g) {
        event e('M', "__metadata", "process_name");
        e.arg("name", program_invocation_short_name ? program_invocation_short_name : "?");
        e.emit();
    }
    if (t_thread.meta_generation != g) {
        t_thread.meta_generation = g;
        char name[32] = "main";
        if (current_tid() != r.pid.load(std::memory_order_relaxed) &&
            ::pthread_getname_np(::pthread_self(), name, sizeof name) != 0)
            std::snprintf(name, sizeof name, "thread %d", current_tid());
        event e('M', "__metadata", "thread_name");
        e.arg("name", name);
        e.emit();
    }
}

void write_line(const char *data, size_t len) noexcept
{
    write_fd(data, len);
}

std::string next_id()
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%d.%llu", rec().pid.load(std::memory_order_relaxed),
                  (unsigned long long)rec().next_id.fetch_add(1, std::memory_order_relaxed));
    return buf;
}

} // namespace detail

using detail::rec;

bool on() noexcept
{
    const int s = rec().state.load(std::memory_order_acquire);
    if (s == int(detail::status::on))
        return true;
    if (s == int(detail::status::off))
        return false;
    return detail::resolve();
}

// ---- the builder ----

namespace {
// Bytes kept free at the end of the line for what emit() closes it with: "}},\n".
constexpr size_t k_reserve = 8;

// The length of the valid UTF-8 sequence at s[0] (1..4), or 0 if it is not one.
size_t utf8_length(const unsigned char *s, size_t n) noexcept
{
    const unsigned char c = s[0];
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80; // no overlong forms
        hi = c == 0xED ? 0x9F : 0xBF; // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; ++i)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}
} // namespace

event::event(char ph, const char *cat, std::string_view name, std::string_view id) noexcept
{
    live_ = on();
    if (!live_)
        return;
    const uint64_t ns = softcomch::now_ns();
    const int n = std::snprintf(
        buf_, sizeof buf_, "{\"ph\":\"%c\",\"ts\":%llu.%03u,\"pid\":%d,\"tid\":%d,\"cat\":", ph,
        (unsigned long long)(ns / 1000), unsigned(ns % 1000),
        rec().pid.load(std::memory_order_relaxed), detail::current_tid());
    len_ = n > 0 ? size_t(n) : 0;
    meta_ = ph == 'M';
    str(cat);
    raw(",\"name\":");
    str(name);
    if (!id.empty()) {
        raw(",\"id\":");
        str(id);
    }
    if (ph == 'i')
        raw(",\"s\":\"t\"");
}

void event::raw(std::string_view s) noexcept
{
    if (overflow_ || len_ + s.size() + k_reserve > sizeof buf_) {
        overflow_ = true;
        return;
    }
    std::memcpy(buf_ + len_, s.data(), s.size());
    len_ += s.size();
}

void event::str(std::string_view s) noexcept
{
    // Room for the quotes and the reserve; the text is cut where it no longer fits.
    if (overflow_ || len_ + 2 + k_reserve > sizeof buf_) {
        overflow_ = true;
        return;
    }
    const size_t limit = sizeof buf_ - k_reserve - 1; // the closing quote's place
    buf_[len_++] = '"';
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = p[i];
        char esc[2] = {'\\', 0};
        size_t take = 1;
        const char *out = reinterpret_cast<const char *>(p + i);
        size_t out_len = 1;
        if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r') {
            esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : char(c);
            out = esc;
            out_len = 2;
        } else if (c < 0x20 || c == 0x7F) {
            out = "?";
        } else if (c >= 0x80) {
            take = out_len = utf8_length(p + i, s.size() - i);
            if (take == 0) {
                take = out_len = 1;
                out = "?";
            }
        }
        if (len_ + out_len > limit)
            break;
        std::memcpy(buf_ + len_, out, out_len);
        len_ += out_len;
        i += take;
    }
    buf_[len_++] = '"';
}

void event::key(const char *k) noexcept
{
    raw(in_args_ ? "," : ",\"args\":{");
    str(k);
    raw(":");
}

event &event::put(const char *k, std::string_view v, bool quoted) noexcept
{
    if (!live_)
        return *this;
    const size_t mark = len_;
    key(k);
    if (quoted)
        str(v);
    else
        raw(v);
    if (overflow_) { // the whole argument goes, the line stays valid
        len_ = mark;
        overflow_ = false;
        return *this;
    }
    in_args_ = true;
    return *this;
}

event &event::arg(const char *k, int64_t v) noexcept
{
    char num[24];
    const int n = std::snprintf(num, sizeof num, "%lld", (long long)v);
    return put(k, std::string_view(num, size_t(n)), false);
}

event &event::arg(const char *k, uint64_t v) noexcept
{
    char num[24];
    const int n = std::snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    return put(k, std::string_view(num, size_t(n)), false);
}

event &event::arg(const char *k, bool v) noexcept
{
    return put(k, v ? "true" : "false", false);
}

event &event::arg(const char *k, std::string_view v) noexcept
{
    return put(k, v, true);
}

void event::emit() noexcept
{
    if (!live_)
        return;
    live_ = false;
    // The reserve always leaves room for this.
    if (in_args_)
        buf_[len_++] = '}';
    std::memcpy(buf_ + len_, "},\n", 3);
    len_ += 3;
    if (!meta_)
        detail::ensure_metadata();
    detail::write_line(buf_, len_);
}

namespace testing {

void reset() noexcept
{
    std::lock_guard<std::mutex> g(detail::resolve_mu);
    detail::recorder &r = rec();
    if (r.fd >= 0)
        ::close(r.fd);
    r.fd = -1;
    r.path.clear();
    {
        std::lock_guard<std::mutex> m(r.mu);
        r.ctxs.clear();
        r.tasks.clear();
        r.role_named = false;
    }
    r.open_tasks.store(0);
    r.budget_window.store(0);
    r.budget_used.store(0);
    r.budget_dropped.store(0);
    for (auto *a : {&r.tx_messages, &r.tx_bytes, &r.rx_messages, &r.rx_bytes})
        a->store(0);
    r.next_sample_ns.store(0);
    {
        std::lock_guard<std::mutex> m(r.sample_mu);
        for (uint64_t &s : r.shown)
            s = 0;
    }
    r.generation.fetch_add(1);
    r.state.store(int(detail::status::unresolved));
    detail::g_armed.store(true);
}

std::string path()
{
    return on() ? rec().path : std::string();
}

} // namespace testing

} // namespace softcomch::trace
