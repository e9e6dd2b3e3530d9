// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_error.h: the table lives in common/error_names.cpp (shared with the tools).
#include <doca_error.h>

#include "common/error_names.hpp"
#include "common/guard.hpp"

extern "C" {

const char *doca_error_get_name(doca_error_t error)
{
    return softcomch::guard_value(__func__, "unrecognized error code",
                                  [&] { return softcomch::error_name(error); });
}

const char *doca_error_get_descr(doca_error_t error)
{
    return softcomch::guard_value(__func__, "unrecognized error code",
                                  [&] { return softcomch::error_descr(error); });
}

} // extern "C"
