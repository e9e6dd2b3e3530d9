// SPDX-License-Identifier: Apache-2.0
//
// For the benchmarks that go through the public DOCA API: open the emulated devices of the
// default topology by PCI address, and stop at the first failing call.
#pragma once

#include <doca_dev.h>
#include <doca_error.h>

#include <cstdio>
#include <cstdlib>

#include "device_lookup.hpp"

namespace softcomch::bench {

[[noreturn]] inline void die(const char *prog, const char *what, doca_error_t rc)
{
    std::fprintf(stderr, "%s: %s: %s\n", prog, what, doca_error_get_name(rc));
    std::exit(1);
}

using sc_devices::open_dev;
using sc_devices::open_rep;

} // namespace softcomch::bench
