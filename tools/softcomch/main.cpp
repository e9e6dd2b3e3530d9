// SPDX-License-Identifier: Apache-2.0
//
// softcomch: the SoftComch command-line tool. Dispatches to one subcommand (command.hpp).
#include <cstdio>
#include <exception>
#include <string_view>

#include "command.hpp"

using namespace softcomch::tools;

int main(int argc, char **argv)
{
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
    try {
        return cmd->run(arg_list(argv + 2, size_t(argc - 2)));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "softcomch %s: %s\n", argv[1], e.what());
        return exit_failure;
    }
}
