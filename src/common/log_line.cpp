// SPDX-License-Identifier: Apache-2.0
//
// One log line: formatting it in DOCA's layout (log.hpp) and writing it to one backend's sink.
#include "common/log_internal.hpp"

#include <sys/syscall.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string_view>

#include "common/posix.hpp"

namespace softcomch::log::detail {

line_buffer::~line_buffer()
{
    if (data_ != stack_)
        std::free(data_);
}

void line_buffer::appendf(const char *fmt, ...) noexcept
{
    va_list ap;
    va_start(ap, fmt);
    vappendf(fmt, ap);
    va_end(ap);
}

void line_buffer::vappendf(const char *fmt, va_list ap) noexcept
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

void line_buffer::finish() noexcept
{
    if (cap_ - len_ < 2 && !grow(len_ + 2))
        len_ = cap_ - 2;
    data_[len_++] = '\n';
    data_[len_] = '\0';
}

bool line_buffer::grow(size_t need) noexcept
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

namespace {

const char *base_name(const char *path) noexcept
{
    if (path == nullptr)
        return "?";
    const char *slash = std::strrchr(path, '/');
    return slash ? slash + 1 : path;
}

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

} // namespace

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

} // namespace softcomch::log::detail
