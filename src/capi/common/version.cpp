// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_version.h: the version of the library the program actually runs with.
#include <doca_version.h>

#include "common/guard.hpp"

extern "C" const char *doca_version_runtime(void)
{
    return softcomch::guard_value(__func__, DOCA_VERSION_STRING,
                                  [] { return DOCA_VERSION_STRING; });
}
