// SPDX-License-Identifier: Apache-2.0
#include <doca_version.h>

#include <array>
#include <cstdio>

#include "command.hpp"
#include "options.hpp"

namespace softcomch::tools {

namespace {

constexpr std::array<option_spec, 0> version_options{};

constexpr command_usage version_usage{
    "version",
    "",
    "Prints the SoftComch version and the DOCA API version it implements (DOCA_VERSION_STRING "
    "of the installed doca_version.h).",
    version_options,
    "",
};

} // namespace

int cmd_version(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, version_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(version_usage,
                           "unexpected argument '" + opts.positional().front() + "'");
    std::printf("softcomch %s\n", SOFTCOMCH_VERSION_STRING);
    std::printf("DOCA API %s (DOCA %d.%d)\n", DOCA_VERSION_STRING, DOCA_VERSION_MAJOR,
                DOCA_VERSION_MINOR);
    return exit_ok;
}

} // namespace softcomch::tools
