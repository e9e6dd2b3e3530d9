// SPDX-License-Identifier: Apache-2.0
//
// softcomch: the SoftComch command-line tool. Dispatches to one subcommand (command.hpp). Started
// under one of the alias names (a symlink to this executable, see command.hpp), it runs that
// alias's subcommand with the arguments given.
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"

using namespace softcomch::tools;

namespace {

int run_command(const command_info &cmd, std::string_view shown, arg_list args)
{
    try {
        return cmd.run(args);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "softcomch %.*s: %s\n", int(shown.size()), shown.data(), e.what());
        return exit_failure;
    }
}

} // namespace

int main(int argc, char **argv)
{
    const std::string_view invoked = argc > 0 ? argv[0] : "softcomch";
    const std::string_view base = invoked.substr(invoked.rfind('/') + 1);
    if (const command_alias *alias = find_alias(base)) {
        const command_info *cmd = find_command(alias->command);
        std::vector<char *> args;
        std::vector<std::string> fixed(alias->args.begin(), alias->args.end());
        for (auto &a : fixed)
            args.push_back(a.data());
        for (int i = 1; i < argc; ++i)
            args.push_back(argv[i]);
        return run_command(*cmd, alias->command, arg_list(args.data(), args.size()));
    }

    if (argc < 2) {
        print_main_usage(true);
        return exit_usage;
    }
    std::string_view name = argv[1];
    if (name == "-h" || name == "--help") {
        print_main_usage(false);
        return exit_ok;
    }
    if (name == "-V" || name == "--version")
        name = "version";

    const command_info *cmd = find_command(name);
    if (cmd == nullptr) {
        std::fprintf(stderr, "softcomch: unknown command '%s'\n\n", argv[1]);
        print_main_usage(true);
        return exit_usage;
    }
    return run_command(*cmd, argv[1], arg_list(argv + 2, size_t(argc - 2)));
}
