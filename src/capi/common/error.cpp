// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_error.h: the table lives in common/error_names.cpp (shared with the tools).
// A C caller may pass any int, so the value is read as raw bits, never as the C++ enum.
#include <doca_error.h>

#include <cstdint>
#include <cstring>

#include "common/error_names.hpp"
#include "common/guard.hpp"

namespace {

int32_t raw_code(const doca_error_t *error) noexcept
{
    int32_t v = 0;
    std::memcpy(&v, error, sizeof(v));
    return v;
}

} // namespace

extern "C" {

const char *doca_error_get_name(doca_error_t error)
{
    const int32_t code = raw_code(&error);
    return softcomch::guard_value(__func__, "unrecognized error code",
                                  [code] { return softcomch::error_name(code); });
}

const char *doca_error_get_descr(doca_error_t error)
{
    const int32_t code = raw_code(&error);
    return softcomch::guard_value(__func__, "unrecognized error code",
                                  [code] { return softcomch::error_descr(code); });
}

} // extern "C"
