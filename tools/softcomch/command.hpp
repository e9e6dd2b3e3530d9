// SPDX-License-Identifier: Apache-2.0
//
// The softcomch subcommands. Adding one: write cmd_<name>.cpp with an `int cmd_<name>(args)`,
// declare it below and add a line to the table in commands.cpp. Each command parses its own
// options (options.hpp) and returns the process exit status.
#pragma once

#include <span>
#include <string_view>

namespace softcomch::tools {

// Exit statuses shared by all subcommands.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;   // the thing the command checked or ran failed
inline constexpr int exit_usage = 2;     // bad command line
inline constexpr int exit_not_ready = 3; // `run`: the DPU side never had a server listening
inline constexpr int exit_timeout = 124; // `run`: --timeout expired (as timeout(1))
// `run` interrupted by signal N exits with 128 + N.

// The arguments after the subcommand name.
using arg_list = std::span<char *const>;

struct command_info {
    std::string_view name;
    std::string_view summary; // one line, shown by `softcomch --help`
    int (*run)(arg_list args);
};

// The table, in the order `softcomch --help` lists it.
std::span<const command_info> commands() noexcept;
const command_info *find_command(std::string_view name) noexcept;

// The entry points of DOCA's structured-tools contract (docs/cli.md, "Aliases"): installed as
// symlinks to softcomch, which runs `softcomch <command> <args...>` plus the arguments given when
// started under that name.
struct command_alias {
    std::string_view name;                  // "doca-env"
    std::string_view command;               // "env"
    std::span<const std::string_view> args; // {"--json"}
    std::string_view dir; // where it is installed: "bin" or "tools" (DOCA's tools/)
};
std::span<const command_alias> aliases() noexcept;
const command_alias *find_alias(std::string_view name) noexcept;

// Top-level usage (all commands).
void print_main_usage(bool to_stderr);

int cmd_run(arg_list args);
int cmd_demo(arg_list args);
int cmd_doctor(arg_list args);
int cmd_caps(arg_list args);
int cmd_env(arg_list args);
int cmd_collect_state(arg_list args);
int cmd_version_matrix(arg_list args);
int cmd_explain(arg_list args);
int cmd_trace(arg_list args);
int cmd_top(arg_list args);
int cmd_bench(arg_list args);
int cmd_version(arg_list args);
int cmd_help(arg_list args);

} // namespace softcomch::tools
