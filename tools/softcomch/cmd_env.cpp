// SPDX-License-Identifier: Apache-2.0
//
// softcomch env: the doca-env report (env/env.hpp says what it holds and where each part lives).
// Installed also as bin/doca-env (= env --json).
#include <array>
#include <cstdio>

#include "command.hpp"
#include "env/env.hpp"
#include "options.hpp"

namespace softcomch::tools {

namespace {

constexpr std::array env_options{
    option_spec{"json", 0, "",
                "print the doca-env JSON object of DOCA's structured-tools contract"},
    option_spec{"doca-root", 0, "DIR",
                "the DOCA install tree to report beside the emulated machine (default "
                "/opt/mellanox/doca)"},
};

constexpr command_usage env_usage{
    "env",
    "[--json] [--doca-root DIR]",
    "Reports the DOCA environment a program started here has, in the doca-env schema: versions "
    "(pkg-config's doca-common, the install's applications/VERSION, doca_caps) and whether they "
    "agree, the emulated devices and representors, the DOCA libraries pkg-config finds, the "
    "sample trees, drivers, huge pages, host kind and BlueField mode. Beside that (the "
    "\"softcomch\" member of the JSON) it reports this SoftComch install, a real DOCA install "
    "when one is present, and the hazards that make builds pick the wrong library: two "
    "doca-comch.pc on pkg-config's search path, a legacy doca-comm-channel.pc, a libdoca_comch.so "
    "the loader resolves to another file than pkg-config names, versions that disagree. Nothing "
    "is changed.",
    env_options,
    "Exit status:\n"
    "  0  reported (hazards included)\n"
    "  1  reported, but the emulated devices could not be listed (invalid topology or side)\n"
    "  2  bad command line\n",
};

} // namespace

int cmd_env(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, env_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(env_usage, "unexpected argument '" + opts.positional().front() + "'");
    const env::report r = env::gather(opts.get("doca-root").value_or(inventory::default_doca_root));
    if (opts.has("json"))
        std::printf("%s\n", softcomch::json::dump(env::to_json(r), 2).c_str());
    else
        env::print_text(r);
    return r.inv.status == DOCA_SUCCESS ? exit_ok : exit_failure;
}

} // namespace softcomch::tools
