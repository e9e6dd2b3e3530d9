// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_log.h: argument checks and delegation to the registry in common/log.cpp.
#include <doca_log.h>
#include <fcntl.h>

#include <cstdarg>

#include "common/guard.hpp"
#include "common/log_backend.hpp"

namespace sl = softcomch::log;
using softcomch::guard;
using softcomch::guard_value;

// Inside the guard's lambda __func__ names the lambda, so every thunk captures its own name as
// `fn` first and the checks below report that.
#define SC_LOG_REQUIRE(cond, ...)                                                                  \
    do {                                                                                           \
        if (!(cond))                                                                               \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, __VA_ARGS__);                                      \
    } while (0)

#define SC_LOG_CHECK_PTR(ptr) SC_LOG_REQUIRE((ptr) != nullptr, "%s: " #ptr " is NULL", fn)

#define SC_LOG_CHECK_BACKEND(b)                                                                    \
    SC_LOG_REQUIRE(sl::is_backend(b), "%s: %s log backend", fn,                                    \
                   (b) ? "unknown (not created by doca_log_backend_create_*)" : "NULL")

#define SC_LOG_CHECK_LIMIT(level)                                                                  \
    SC_LOG_REQUIRE(sl::valid_limit(level),                                                         \
                   "%s: level %u is not a DOCA log level (expected 10..70)", fn, unsigned(level))

namespace {

doca_error_t create_file(const char *fn, sl::family fam, FILE *fptr, doca_log_backend **backend)
{
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_PTR(fptr);
        SC_LOG_CHECK_PTR(backend);
        return sl::create_file_backend(fam, fptr, backend);
    });
}

doca_error_t create_fd(const char *fn, sl::family fam, int fd, doca_log_backend **backend)
{
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_REQUIRE(fd >= 0 && fcntl(fd, F_GETFD) != -1, "%s: %d is not an open file descriptor",
                       fn, fd);
        SC_LOG_CHECK_PTR(backend);
        return sl::create_fd_backend(fam, fd, backend);
    });
}

doca_error_t create_buf(const char *fn, sl::family fam, char *buf, size_t capacity,
                        log_flush_callback handler, doca_log_backend **backend)
{
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_PTR(buf);
        SC_LOG_REQUIRE(capacity > 0, "%s: capacity is 0", fn);
        SC_LOG_CHECK_PTR(handler);
        SC_LOG_CHECK_PTR(backend);
        return sl::create_buf_backend(fam, buf, capacity, handler, backend);
    });
}

doca_error_t create_syslog(const char *fn, sl::family fam, const char *name,
                           doca_log_backend **backend)
{
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_PTR(name);
        SC_LOG_CHECK_PTR(backend);
        return sl::create_syslog_backend(fam, name, backend);
    });
}

} // namespace

extern "C" {

doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend,
                                                    uint32_t level)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_BACKEND(backend);
        SC_LOG_CHECK_LIMIT(level);
        sl::set_backend_lower_limit(backend, level);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
                                                    uint32_t upper_limit)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_BACKEND(backend);
        SC_LOG_CHECK_LIMIT(upper_limit);
        sl::set_backend_upper_limit(backend, upper_limit);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_BACKEND(backend);
        sl::pin_backend_lower_limit(backend);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_BACKEND(backend);
        sl::pin_backend_upper_limit(backend);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_level_set_global_lower_limit(uint32_t level)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_LIMIT(level);
        sl::set_global_lower_limit(level);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_LIMIT(upper_limit);
        sl::set_global_upper_limit(upper_limit);
        return DOCA_SUCCESS;
    });
}

uint32_t doca_log_level_get_global_lower_limit(void)
{
    return guard_value(__func__, uint32_t(DOCA_LOG_LEVEL_INFO),
                       [] { return sl::global_lower_limit(); });
}

uint32_t doca_log_level_get_global_upper_limit(void)
{
    return guard_value(__func__, uint32_t(DOCA_LOG_LEVEL_CRIT),
                       [] { return sl::global_upper_limit(); });
}

doca_error_t doca_log_register_source(const char *source_name, int *source)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_PTR(source_name);
        SC_LOG_CHECK_PTR(source);
        return sl::register_source(source_name, source);
    });
}

doca_error_t doca_log_unregister_source(int source)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_REQUIRE(sl::unregister_source(source), "%s: log source %d is not registered", fn,
                       source);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend)
{
    return create_file(__func__, sl::family::application, fptr, backend);
}

doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend)
{
    return create_fd(__func__, sl::family::application, fd, backend);
}

doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity,
                                              log_flush_callback handler,
                                              struct doca_log_backend **backend)
{
    return create_buf(__func__, sl::family::application, buf, capacity, handler, backend);
}

doca_error_t doca_log_backend_create_with_syslog(const char *name,
                                                 struct doca_log_backend **backend)
{
    return create_syslog(__func__, sl::family::application, name, backend);
}

doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_BACKEND(backend);
        SC_LOG_REQUIRE(sl::backend_family(backend) == sl::family::sdk,
                       "%s: backend %p is an application backend; use "
                       "doca_log_backend_set_level_lower_limit",
                       fn, static_cast<void *>(backend));
        SC_LOG_CHECK_LIMIT(level);
        sl::set_backend_lower_limit(backend, level);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
    return create_file(__func__, sl::family::sdk, fptr, backend);
}

doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend)
{
    return create_fd(__func__, sl::family::sdk, fd, backend);
}

doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity,
                                                  log_flush_callback handler,
                                                  struct doca_log_backend **backend)
{
    return create_buf(__func__, sl::family::sdk, buf, capacity, handler, backend);
}

doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
                                                     struct doca_log_backend **backend)
{
    return create_syslog(__func__, sl::family::sdk, name, backend);
}

doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_LIMIT(level);
        sl::set_global_sdk_limit(level);
        return DOCA_SUCCESS;
    });
}

uint32_t doca_log_level_get_global_sdk_limit(void)
{
    return guard_value(__func__, uint32_t(DOCA_LOG_LEVEL_INFO),
                       [] { return sl::global_sdk_limit(); });
}

doca_error_t doca_log_backend_create_standard(void)
{
    return guard(__func__, [] { return sl::create_standard_backends(); });
}

doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
                      const char *format, ...)
{
    const char *const fn = __func__;
    va_list ap;
    va_start(ap, format); // the arguments must be reached from this frame; the lambda borrows ap
    const doca_error_t rc = guard(fn, [&]() -> doca_error_t {
        SC_LOG_CHECK_PTR(format);
        SC_LOG_REQUIRE(sl::valid_line_level(level),
                       "%s: level %u is not a message level (expected 20..70)", fn,
                       unsigned(level));
        if (!sl::app_enabled(level))
            return DOCA_SUCCESS; // filtered out: cheap, no lock
        SC_LOG_REQUIRE(sl::source_name(source) != nullptr,
                       "%s: log source %d is not registered (missing DOCA_LOG_REGISTER?)", fn,
                       source);
        sl::vapp(level, fname, line, func, format, ap);
        return DOCA_SUCCESS;
    });
    va_end(ap);
    return rc;
}

} // extern "C"
