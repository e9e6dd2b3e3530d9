// SPDX-License-Identifier: Apache-2.0
#include <cstdio>
#include <string>

#include "command.hpp"

namespace softcomch::tools {

// softcomch help [COMMAND]: the same as `softcomch COMMAND --help`.
int cmd_help(arg_list args)
{
    if (args.empty()) {
        print_main_usage(false);
        return exit_ok;
    }
    std::string name = args[0];
    if (name == "-h" || name == "--help" || name == "help") {
        std::printf("Usage: softcomch help [COMMAND]\n\nShows the help of COMMAND, or the list of "
                    "commands.\n");
        return exit_ok;
    }
    const command_info *cmd = find_command(name);
    if (cmd == nullptr || args.size() > 1) {
        if (cmd == nullptr)
            std::fprintf(stderr, "softcomch help: unknown command '%s'\n\n", name.c_str());
        else
            std::fprintf(stderr, "softcomch help: takes at most one command name\n\n");
        print_main_usage(true);
        return exit_usage;
    }
    char help_flag[] = "--help";
    char *const forwarded[] = {help_flag};
    return cmd->run(arg_list(forwarded, 1));
}

} // namespace softcomch::tools
