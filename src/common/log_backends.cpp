// SPDX-License-Identifier: Apache-2.0
//
// The backend API of log_backend.hpp: creating the file, descriptor, buffer, syslog and standard
// backends, recognising a handle, and each backend's own limits. The registry they join is in
// log.cpp.
#include "common/log_internal.hpp"

#include <syslog.h>

namespace softcomch::log {

using namespace detail;

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
    return locked([&](const registry &r) {
        for (const auto &own : r.backends)
            if (own.get() == b)
                return b->tag_.is(object_kind::log_backend);
        return false;
    });
}

family backend_family(const doca_log_backend *b) noexcept
{
    return b->family_;
}

void set_backend_lower_limit(doca_log_backend *b, uint32_t level) noexcept
{
    locked([&](registry &r) {
        b->lower_ = level;
        recompute(r);
    });
}

void set_backend_upper_limit(doca_log_backend *b, uint32_t level) noexcept
{
    locked([&](registry &r) {
        b->upper_ = level;
        recompute(r);
    });
}

void pin_backend_lower_limit(doca_log_backend *b) noexcept
{
    locked([&](registry &) { b->lower_pinned_ = true; });
}

void pin_backend_upper_limit(doca_log_backend *b) noexcept
{
    locked([&](registry &) { b->upper_pinned_ = true; });
}

} // namespace softcomch::log
