// SPDX-License-Identifier: Apache-2.0
//
// Names and one-line descriptions of the DOCA error codes. Shared by doca_error_get_name /
// doca_error_get_descr (src/capi/common/error.cpp) and the `softcomch explain` tool.
#pragma once

#include <doca_error.h>

#include <cstdint>

#include "common/visibility.hpp"

namespace softcomch {

// The enumerator's identifier, e.g. "DOCA_ERROR_INVALID_VALUE"; "unrecognized error code" for
// values outside the enum. Static storage, never NULL.
SOFTCOMCH_API const char *error_name(doca_error_t err) noexcept;

// A short human-readable phrase, e.g. "Invalid input"; "unrecognized error code" for values
// outside the enum. Static storage, never NULL.
const char *error_descr(doca_error_t err) noexcept;

// The same for a raw value, as a C caller may pass any int (used by the C thunks: a C++ enum
// outside its range must not even be loaded, or UBSan's enum check fires).
SOFTCOMCH_API const char *error_name(int32_t code) noexcept;
SOFTCOMCH_API const char *error_descr(int32_t code) noexcept;

// Number of codes the table knows (DOCA_SUCCESS .. DOCA_ERROR_SKIPPED).
inline constexpr int error_count = 31;

} // namespace softcomch
