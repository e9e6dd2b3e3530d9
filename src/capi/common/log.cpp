// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_log.h: argument checks and delegation to the registry in common/log.cpp.
#include <doca_log.h>
#include <fcntl.h>

#include <cstdarg>

#include "capi/handle.hpp"
#include "common/guard.hpp"
#include "common/log_backend.hpp"

namespace sl = softcomch::log;
using namespace softcomch::capi;

namespace {

// A level limit outside DOCA's range: logged, naming the exported function.
bool bad_limit(uint32_t level) noexcept
{
    if (sl::valid_limit(level))
        return false;
    SC_LOG_ERR("%s: level %u is not a DOCA log level (expected 10..70)", api_function(),
               unsigned(level));
    return true;
}

doca_error_t create_file(const char *func, sl::family fam, FILE *fptr, doca_log_backend **backend)
{
    return guard(func, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(fptr);
        SC_CHECK_NOT_NULL(backend);
        return sl::create_file_backend(fam, fptr, backend);
    });
}

doca_error_t create_fd(const char *func, sl::family fam, int fd, doca_log_backend **backend)
{
    return guard(func, [&]() -> doca_error_t {
        if (fd < 0 || fcntl(fd, F_GETFD) == -1)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: %d is not an open file descriptor",
                      api_function(), fd);
        SC_CHECK_NOT_NULL(backend);
        return sl::create_fd_backend(fam, fd, backend);
    });
}

doca_error_t create_buf(const char *func, sl::family fam, char *buf, size_t capacity,
                        log_flush_callback handler, doca_log_backend **backend)
{
    return guard(func, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(buf);
        if (capacity == 0)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: capacity is 0", api_function());
        SC_CHECK_NOT_NULL(handler);
        SC_CHECK_NOT_NULL(backend);
        return sl::create_buf_backend(fam, buf, capacity, handler, backend);
    });
}

doca_error_t create_syslog(const char *func, sl::family fam, const char *name,
                           doca_log_backend **backend)
{
    return guard(func, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(name);
        SC_CHECK_NOT_NULL(backend);
        return sl::create_syslog_backend(fam, name, backend);
    });
}

} // namespace

extern "C" {

doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend,
                                                    uint32_t level)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(backend);
        if (bad_limit(level))
            return DOCA_ERROR_INVALID_VALUE;
        sl::set_backend_lower_limit(backend, level);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
                                                    uint32_t upper_limit)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(backend);
        if (bad_limit(upper_limit))
            return DOCA_ERROR_INVALID_VALUE;
        sl::set_backend_upper_limit(backend, upper_limit);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(backend);
        sl::pin_backend_lower_limit(backend);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(backend);
        sl::pin_backend_upper_limit(backend);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_level_set_global_lower_limit(uint32_t level)
{
    return guard(__func__, [&]() -> doca_error_t {
        if (bad_limit(level))
            return DOCA_ERROR_INVALID_VALUE;
        sl::set_global_lower_limit(level);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit)
{
    return guard(__func__, [&]() -> doca_error_t {
        if (bad_limit(upper_limit))
            return DOCA_ERROR_INVALID_VALUE;
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
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(source_name);
        SC_CHECK_NOT_NULL(source);
        return sl::register_source(source_name, source);
    });
}

doca_error_t doca_log_unregister_source(int source)
{
    return guard(__func__, [&]() -> doca_error_t {
        if (!sl::unregister_source(source))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: log source %d is not registered",
                      api_function(), source);
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
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(backend);
        if (sl::backend_family(backend) != sl::family::sdk)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                      "%s: backend %p is an application backend; use "
                      "doca_log_backend_set_level_lower_limit",
                      api_function(), static_cast<void *>(backend));
        if (bad_limit(level))
            return DOCA_ERROR_INVALID_VALUE;
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
    return guard(__func__, [&]() -> doca_error_t {
        if (bad_limit(level))
            return DOCA_ERROR_INVALID_VALUE;
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
    va_list ap;
    va_start(ap, format); // the arguments must be reached from this frame; the lambda borrows ap
    const doca_error_t rc = guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(format);
        if (!sl::valid_line_level(level))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                      "%s: level %u is not a message level (expected 20..70)", api_function(),
                      unsigned(level));
        if (!sl::app_enabled(level))
            return DOCA_SUCCESS; // filtered out: cheap, no lock
        if (sl::source_name(source) == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                      "%s: log source %d is not registered (missing DOCA_LOG_REGISTER?)",
                      api_function(), source);
        sl::vapp(level, fname, line, func, format, ap);
        return DOCA_SUCCESS;
    });
    va_end(ap);
    return rc;
}

} // extern "C"
