// SPDX-License-Identifier: Apache-2.0
#include <doca_version.h>

#include <array>
#include <cstdio>
#include <string>

#include "command.hpp"

namespace softcomch::tools {

namespace {

constexpr std::array command_table{
    command_info{"run", "Run a DPU-side and a host-side program connected by a private fabric",
                 cmd_run},
    command_info{"demo",
                 "Show SoftComch at work: control-path samples, ping-pong, fast-path streaming",
                 cmd_demo},
    command_info{"doctor", "Check this machine, the environment and the install for SoftComch",
                 cmd_doctor},
    command_info{"caps", "List the emulated devices and their capabilities (doca_caps look-alike)",
                 cmd_caps},
    command_info{"env", "Report the DOCA environment: versions, devices, libraries, build hazards",
                 cmd_env},
    command_info{"collect-state", "Report one side's state (host or DPU) for diffing the two",
                 cmd_collect_state},
    command_info{"version-matrix", "Show which DOCA releases have each Comch symbol and capability",
                 cmd_version_matrix},
    command_info{"explain", "Explain a DOCA error code, optionally for one DOCA call", cmd_explain},
    command_info{"top", "Live view of the fabric's servers, clients and connections", cmd_top},
    command_info{"trace", "Check a SOFTCOMCH_TRACE recording and write it as strict JSON",
                 cmd_trace},
    command_info{"bench",
                 "Run the benchmarks and the peers in one run: tables, JSON, plots, a report",
                 cmd_bench},
    command_info{"version", "Print the SoftComch version and the DOCA API version it implements",
                 cmd_version},
    command_info{"help", "Show the help of a command", cmd_help},
};

constexpr std::array<std::string_view, 1> json_only{"--json"};
constexpr std::array<std::string_view, 3> host_state{"--side", "host", "--json"};
constexpr std::array<std::string_view, 3> dpu_state{"--side", "dpu", "--json"};

constexpr std::array alias_table{
    command_alias{"doca-env", "env", json_only, "bin"},
    command_alias{"doca-capability-snapshot", "caps", json_only, "bin"},
    command_alias{"doca-collect-host-state", "collect-state", host_state, "bin"},
    command_alias{"doca-collect-dpu-state", "collect-state", dpu_state, "bin"},
    command_alias{"doca_caps", "caps", {}, "tools"},
};

} // namespace

std::span<const command_alias> aliases() noexcept
{
    return alias_table;
}

const command_alias *find_alias(std::string_view name) noexcept
{
    for (const auto &a : alias_table)
        if (a.name == name)
            return &a;
    return nullptr;
}

std::span<const command_info> commands() noexcept
{
    return command_table;
}

const command_info *find_command(std::string_view name) noexcept
{
    for (const auto &c : command_table)
        if (c.name == name)
            return &c;
    return nullptr;
}

void print_main_usage(bool to_stderr)
{
    FILE *out = to_stderr ? stderr : stdout;
    std::fprintf(out,
                 "Usage: softcomch <command> [options]\n"
                 "\n"
                 "SoftComch %s: NVIDIA DOCA Comch (DOCA API %s) emulated by ordinary processes.\n"
                 "\n"
                 "Commands:\n",
                 SOFTCOMCH_VERSION_STRING, DOCA_VERSION_STRING);
    for (const auto &c : command_table)
        std::fprintf(out, "  %-15.*s %.*s\n", int(c.name.size()), c.name.data(),
                     int(c.summary.size()), c.summary.data());
    std::fprintf(out, "\nInstalled aliases (DOCA's structured-tools entry points):\n");
    for (const auto &a : alias_table) {
        std::string line = "softcomch " + std::string(a.command);
        for (const auto &arg : a.args)
            line.append(" ").append(arg); // not " " + std::string (GCC bug 105651)
        std::fprintf(out, "  %-27.*s = %s   (%.*s/)\n", int(a.name.size()), a.name.data(),
                     line.c_str(), int(a.dir.size()), a.dir.data());
    }
    std::fprintf(out, "\nRun 'softcomch <command> --help' for the options of a command.\n");
}

} // namespace softcomch::tools
