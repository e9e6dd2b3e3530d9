// SPDX-License-Identifier: Apache-2.0
//
// softcomch run --dpu CMD --host CMD: the two sides of a Comch program, started in the right
// order in a fabric of their own.
#include <array>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "command.hpp"
#include "common/trace.hpp"
#include "options.hpp"
#include "pair_runner.hpp"
#include "trace_finish.hpp"

namespace softcomch::tools {

namespace {

constexpr std::array run_options{
    option_spec{"dpu", 0, "CMD", "DPU-side command, run with /bin/sh -c (required)"},
    option_spec{"host", 0, "CMD", "host-side command, run with /bin/sh -c (required)"},
    option_spec{"timeout", 0, "SEC", "end the run after SEC seconds (default 60)"},
    option_spec{"ready-timeout", 0, "SEC",
                "wait at most SEC seconds for the DPU side's Comch server to listen (default 10)"},
    option_spec{"fabric", 0, "NAME",
                "use fabric NAME instead of a private one; it is not removed at the end"},
    option_spec{"trace", 0, "FILE",
                "record both sides in FILE (SOFTCOMCH_TRACE, replaced if it exists) and write it "
                "as strict JSON at the end, for Perfetto or chrome://tracing"},
    option_spec{"verbose", 'v', "", "also say what happens: fabric, readiness, host start"},
};

constexpr command_usage run_usage{
    "run",
    "--dpu CMD --host CMD [options]",
    "Starts the DPU-side command in a private fabric (SOFTCOMCH_FABRIC=run-<pid>-<random>, "
    "SOFTCOMCH_SIDE=dpu), waits until it has a Comch server listening, then starts the host-side "
    "command (SOFTCOMCH_SIDE=host). Every line the two print is relayed with a '[dpu] ' or "
    "'[host] ' prefix: their stdout to stdout, their stderr to stderr. SIGINT and SIGTERM are "
    "passed on to both. At the end the private fabric is removed and a summary line is printed "
    "to stderr. With --trace FILE both sides record what they do in FILE (docs/trace.md), which is "
    "checked and made strict JSON once both have ended.",
    run_options,
    "Exit status:\n"
    "  0    both commands exited 0\n"
    "  1    a command failed (non-zero exit or killed), or the run could not be set up\n"
    "  2    bad command line\n"
    "  3    the DPU side exited, or --ready-timeout passed, before a server was listening\n"
    "  124  --timeout expired (both sides get SIGTERM, then SIGKILL 2 s later)\n"
    "  128+N  interrupted by signal N (130 for SIGINT)\n"
    "\n"
    "Example:\n"
    "  softcomch run --dpu 'comch_ctrl_path_server' --host 'comch_ctrl_path_client -t hello'\n"
    "  softcomch run --trace pair.json --dpu comch_ctrl_path_server --host "
    "comch_ctrl_path_client\n",
};

} // namespace

int cmd_run(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, run_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(run_usage, "unexpected argument '" + opts.positional().front() +
                                          "' (quote each command as one argument of --dpu/--host)");
    auto dpu = opts.get("dpu");
    auto host = opts.get("host");
    if (!dpu || dpu->empty())
        return usage_error(run_usage, "--dpu CMD is required");
    if (!host || host->empty())
        return usage_error(run_usage, "--host CMD is required");

    pair_config cfg;
    cfg.dpu_argv = shell_command(*dpu);
    cfg.host_argv = shell_command(*host);
    if (auto v = opts.get("timeout")) {
        auto s = parse_seconds(*v);
        if (!s)
            return usage_error(run_usage,
                               "--timeout needs a positive number of seconds, not '" + *v + "'");
        cfg.timeout_s = *s;
    }
    if (auto v = opts.get("ready-timeout")) {
        auto s = parse_seconds(*v);
        if (!s)
            return usage_error(
                run_usage, "--ready-timeout needs a positive number of seconds, not '" + *v + "'");
        cfg.ready_timeout_s = *s;
    }
    if (auto v = opts.get("fabric"))
        cfg.fabric = *v;
    cfg.verbose = opts.has("verbose");
    std::string trace;
    if (auto v = opts.get("trace")) {
        std::error_code ec;
        trace = std::filesystem::absolute(*v, ec).string(); // the children may change directory
        if (v->empty() || ec || std::filesystem::is_directory(trace, ec))
            return usage_error(run_usage, "--trace needs a file name, not '" + *v + "'");
        std::filesystem::remove(trace, ec); // a new recording, not appended to an old one
        if (ec) {
            std::fprintf(stderr, "softcomch run: cannot replace %s: %s\n", trace.c_str(),
                         ec.message().c_str());
            return exit_failure;
        }
        cfg.set_env.push_back(std::string(softcomch::trace::k_env) + "=" + trace);
    }

    pair_result r = run_pair(cfg);
    if (r.outcome == pair_outcome::setup_failed && !r.dpu.started) {
        std::fprintf(stderr, "softcomch run: %s\n", r.detail.c_str());
        return r.exit_code();
    }
    std::fprintf(stderr, "softcomch run: %s\n", r.summary().c_str());
    int status = r.exit_code();
    if (!trace.empty()) {
        std::error_code ec;
        if (!std::filesystem::exists(trace, ec)) {
            std::fprintf(stderr, "softcomch run: trace: nothing was recorded (neither side "
                                 "started a Comch context)\n");
            return status;
        }
        const trace_outcome t = finish_trace(trace, "", false);
        print_trace_report(stderr, stderr, "softcomch run: trace: ", trace, t);
        if (!t.ok() && status == exit_ok)
            status = exit_failure;
    }
    return status;
}

} // namespace softcomch::tools
