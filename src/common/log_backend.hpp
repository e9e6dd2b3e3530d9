// SPDX-License-Identifier: Apache-2.0
//
// The backend registry behind doca_log.h and log.hpp. The C thunks in src/capi/common/log.cpp,
// libdoca_argp and the tools call these; library code that only wants to log uses log.hpp.
//
// Model (docs/logging_and_argp.md):
// - Two families, application and SDK. Each backend belongs to one and sees only its lines.
// - A backend writes a line of level L when upper <= L <= lower (DOCA's naming: the lower limit
//   is the most verbose level shown). Non-pinned ("non-strict") limits follow the global ones.
// - Backends are never destroyed while the process runs (DOCA has no destroy call); handles
//   stay valid until reset_for_testing().
// - With no SDK backend at all, SDK lines of WARNING and more severe go to stderr (a fallback
//   sink) so library errors are never silent; application lines with no backend go nowhere.
// - SOFTCOMCH_LOG_LEVEL (SoftComch only) sets the SDK level at start-up and holds it against
//   the program's own SDK level calls; an explicit --sdk-log-level (argp) overrides it.
//
// Thread safety: every function is thread-safe. One mutex guards the registry; sdk_enabled()
// and app_enabled() are single relaxed atomic loads.
#pragma once

#include <doca_log.h>

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "common/visibility.hpp"

namespace softcomch::log {

enum class family : uint8_t { application, sdk };

// True for DOCA_LOG_LEVEL_DISABLE..DOCA_LOG_LEVEL_TRACE (10..70), the values a limit may take.
SOFTCOMCH_API bool valid_limit(uint32_t level) noexcept;

// True for CRIT..TRACE (20..70), the levels a line may have.
SOFTCOMCH_API bool valid_line_level(uint32_t level) noexcept;

// "CRT" "ERR" "WRN" "INF" "DBG" "TRC" for the six line levels, "DIS" for DISABLE; the nearest
// more severe token for values in between.
SOFTCOMCH_API const char *level_token(uint32_t level) noexcept;

// Parses "10".."70" or a name (disable, crit/critical, err/error, warn/warning, info,
// dbg/debug, trc/trace; case-insensitive). Returns false for anything else.
SOFTCOMCH_API bool parse_level(std::string_view text, uint32_t *level) noexcept;

// ---- backends (output pointer written only on success) ----
SOFTCOMCH_API doca_error_t create_file_backend(family fam, FILE *fp, doca_log_backend **out);
SOFTCOMCH_API doca_error_t create_fd_backend(family fam, int fd, doca_log_backend **out);
SOFTCOMCH_API doca_error_t create_buf_backend(family fam, char *buf, size_t capacity,
                                              log_flush_callback handler, doca_log_backend **out);
SOFTCOMCH_API doca_error_t create_syslog_backend(family fam, const char *ident,
                                                 doca_log_backend **out);
// The stdout/stderr application pair; idempotent.
SOFTCOMCH_API doca_error_t create_standard_backends();

// True when `b` is a live backend of this registry (compares addresses before touching `b`).
SOFTCOMCH_API bool is_backend(const doca_log_backend *b) noexcept;
// Precondition: is_backend(b).
SOFTCOMCH_API family backend_family(const doca_log_backend *b) noexcept;

// Preconditions: is_backend(b), valid_limit(level). Thread-safe.
SOFTCOMCH_API void set_backend_lower_limit(doca_log_backend *b, uint32_t level) noexcept;
SOFTCOMCH_API void set_backend_upper_limit(doca_log_backend *b, uint32_t level) noexcept;
SOFTCOMCH_API void pin_backend_lower_limit(doca_log_backend *b) noexcept;
SOFTCOMCH_API void pin_backend_upper_limit(doca_log_backend *b) noexcept;

// ---- global limits (preconditions: valid_limit(level)) ----
SOFTCOMCH_API void set_global_lower_limit(uint32_t level) noexcept; // application
SOFTCOMCH_API void set_global_upper_limit(uint32_t level) noexcept; // application
SOFTCOMCH_API uint32_t global_lower_limit() noexcept;
SOFTCOMCH_API uint32_t global_upper_limit() noexcept;
// `from_user_cli` = the end user asked for it (argp --sdk-log-level): this also releases the
// SOFTCOMCH_LOG_LEVEL hold. Program API calls pass false.
SOFTCOMCH_API void set_global_sdk_limit(uint32_t level, bool from_user_cli = false) noexcept;
SOFTCOMCH_API uint32_t global_sdk_limit() noexcept;

// ---- sources ----
// Returns DOCA_SUCCESS and the id, or DOCA_ERROR_NO_MEMORY.
SOFTCOMCH_API doca_error_t register_source(const char *name, int *id) noexcept;
SOFTCOMCH_API bool unregister_source(int id) noexcept;
// The registered name, or nullptr. The pointer stays valid until the source is unregistered.
SOFTCOMCH_API const char *source_name(int id) noexcept;

// ---- writing ----
// True when an application line at `lvl` would reach at least one backend (one relaxed load).
SOFTCOMCH_API bool app_enabled(uint32_t lvl) noexcept;
// Formats and writes one application line ([func] included). `file` may be a full path; only
// its last component is printed. Never throws; drops the line if memory is short.
SOFTCOMCH_API void vapp(uint32_t lvl, const char *file, int line, const char *func, const char *fmt,
                        va_list ap) noexcept;
// The va_list form of sdk() from log.hpp.
SOFTCOMCH_API void vsdk(uint32_t lvl, const char *file, int line, const char *fmt,
                        va_list ap) noexcept;

// Drops every backend and source and restores the start-up state, reading SOFTCOMCH_LOG_LEVEL
// again. For tests only: handles created before become invalid.
void reset_for_testing() noexcept;

} // namespace softcomch::log
