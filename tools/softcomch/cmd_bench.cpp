// SPDX-License-Identifier: Apache-2.0
//
// softcomch bench: its command line; the work is in bench/ (bench/bench.hpp).
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/bench.hpp"
#include "command.hpp"
#include "options.hpp"

namespace softcomch::tools {

namespace {

namespace fs = std::filesystem;
namespace b = bench;

constexpr std::array bench_options{
    option_spec{"quick", 0, "", "shorter runs (the programs get --quick): under a minute"},
    option_spec{"smoke", 0, "",
                "tiny iteration counts (the programs get --smoke): checks that every metric is "
                "reported; the figures mean nothing"},
    option_spec{"json", 0, "", "print the run as one JSON document (schema softcomch-bench 1)"},
    option_spec{"plot", 0, "DIR", "write latency.svg, throughput.svg and rate.svg into DIR"},
    option_spec{"doc", 0, "FILE",
                "write the Markdown performance report to FILE (with --plot: embedding the plots)"},
    option_spec{"only", 0, "PATTERN",
                "run only the programs whose name matches PATTERN (a glob; several separated by "
                "commas); the noise probe always runs"},
    option_spec{"from", 0, "FILE", "read a saved --json document instead of running"},
    option_spec{
        "programs", 0, "DIR",
        "where the benchmark programs are (default: ../libexec/softcomch beside softcomch)"},
    option_spec{"timeout", 0, "SECONDS",
                "per program (default 60 with --smoke, 120 with --quick, 1800 otherwise)"},
};

constexpr command_usage bench_usage{
    "bench",
    "[--quick|--smoke] [--json] [--plot DIR] [--doc FILE] [--only PATTERN] [--from FILE] "
    "[--programs DIR] [--timeout SECONDS]",
    "Runs the benchmark programs one at a time (they pin CPUs), the noise probe spin_baseline "
    "first, then the Comch benchmarks and the peers (UCX, ZeroMQ, iceoryx, Unix socket, pipe, "
    "TCP), each with a timeout, and collects their records: one JSON object per line "
    "(bench/bench_report.hpp). A program that fails or times out is reported and the rest still "
    "run. Ratios to baselines measured by another program of the run are filled in. Prints one "
    "table per group: value, unit, ratio to its baseline and, for SoftComch's figures, the best "
    "peer of the same group, size and statistic with SoftComch's ratio to it; then the metrics "
    "that could not be measured and why. A noisy machine (the probe's verdict) is flagged at the "
    "top and the bottom.",
    bench_options,
    "JSON (--json), schema \"softcomch-bench\" version 1:\n"
    "  {schema, schema_version, machine: {cpu, cores, kernel, arch, host, softcomch},\n"
    "   command, started, mode (smoke|quick|full), programs_dir, noise: {noisy, reason},\n"
    "   programs: [{name, path, args, status (ok|failed|timeout|missing|skipped), reason,\n"
    "               seconds, records, bad_lines, duplicates}],\n"
    "   contexts: [the programs' context lines, each with program],\n"
    "   records: [{metric, value (null: unavailable), unit, baseline, baseline_value, ratio,\n"
    "              subject, group, size, mode, better, program, unavailable (when so),\n"
    "              best_peer: {metric, subject, value, ratio, ahead} (softcomch records)}]}\n"
    "\n"
    "Examples:\n"
    "  softcomch bench --quick\n"
    "  softcomch bench --json > run.json\n"
    "  softcomch bench --from run.json --doc docs/PERFORMANCE.md --plot docs/perf\n"
    "\n"
    "Exit status:\n"
    "  0  every program ran to its end (metrics they could not measure are not failures)\n"
    "  1  a program failed, timed out or is missing, no programs were found, or a file could\n"
    "     not be read or written\n"
    "  2  bad command line\n",
};

std::vector<std::string> split_commas(const std::string &s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ',');)
        if (!part.empty())
            out.push_back(part);
    return out;
}

bool any_program_in(const std::string &dir)
{
    for (const auto name : b::program_order())
        if (::access((fs::path(dir) / std::string(name)).c_str(), X_OK) == 0)
            return true;
    return false;
}

bool write_text(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    return bool(out);
}

// The plots' directory as the report refers to it: relative to the report's directory.
std::string plot_dir_from_doc(const std::string &doc, const std::string &plot)
{
    std::error_code ec;
    const fs::path doc_dir = fs::weakly_canonical(fs::absolute(doc, ec), ec).parent_path();
    const fs::path plot_abs = fs::weakly_canonical(fs::absolute(plot, ec), ec);
    const fs::path rel = plot_abs.lexically_relative(doc_dir);
    return rel.empty() ? plot : rel.generic_string();
}

} // namespace

int cmd_bench(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, bench_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(bench_usage, "unexpected argument '" + opts.positional().front() + "'");
    if (opts.has("quick") && opts.has("smoke"))
        return usage_error(bench_usage, "--quick or --smoke, not both");
    const bool from = opts.has("from");
    if (from)
        for (const char *o : {"quick", "smoke", "only", "programs", "timeout"})
            if (opts.has(o))
                return usage_error(bench_usage,
                                   std::string("--from runs nothing: no --") + o + " with it");
    double timeout = 0;
    if (auto t = opts.get("timeout")) {
        const auto v = parse_seconds(*t);
        if (!v || *v > 86400)
            return usage_error(bench_usage, "--timeout takes a number of seconds up to 86400");
        timeout = *v;
    }

    b::run r;
    int status = exit_ok;
    if (from) {
        const std::string file = *opts.get("from");
        std::ifstream in(file, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        if (!in) {
            std::fprintf(stderr, "softcomch bench: cannot read %s\n", file.c_str());
            return exit_failure;
        }
        std::string err;
        const json::value doc = json::parse(text.str(), &err);
        if (!err.empty() || !b::from_json(doc, r, &err)) {
            std::fprintf(stderr, "softcomch bench: %s: %s\n", file.c_str(), err.c_str());
            return exit_failure;
        }
    } else {
        b::run_options o;
        o.dir = opts.get("programs").value_or(b::default_programs_dir());
        o.mode = opts.has("quick") ? "quick" : opts.has("smoke") ? "smoke" : "full";
        o.timeout_s = timeout;
        if (auto only = opts.get("only"))
            o.only = split_commas(*only);
        if (o.dir.empty() || !any_program_in(o.dir)) {
            std::fprintf(stderr,
                         "softcomch bench: no benchmark programs in %s (was SoftComch built with "
                         "SOFTCOMCH_BUILD_BENCH=OFF? --programs DIR points elsewhere)\n",
                         o.dir.empty() ? "(unknown directory)" : o.dir.c_str());
            return exit_failure;
        }
        r = b::execute(o);
        r.command = "softcomch bench";
        if (o.mode != "full")
            r.command += " --" + o.mode;
        if (auto only = opts.get("only"))
            r.command += " --only '" + *only + "'";
        if (timeout > 0)
            r.command += " --timeout " + *opts.get("timeout");
        r.command += " --json";
        const std::string list = b::metrics_list_path();
        b::complete(r, list.empty() ? std::vector<std::string>{} : b::read_metrics_list(list));
        for (const auto &p : r.programs)
            if (p.status != "ok" && p.status != "skipped")
                status = exit_failure;
    }

    if (opts.has("json"))
        std::printf("%s\n", json::dump(b::to_json(r)).c_str());
    else
        b::print_text(stdout, r);
    if (const std::string noisy = b::noise_line(r); !noisy.empty() && opts.has("json"))
        std::fprintf(stderr, "softcomch bench: %s\n", noisy.c_str());

    std::vector<b::plot_file> written;
    if (auto dir = opts.get("plot")) {
        std::string err;
        if (!b::write_plots(r, *dir, written, &err)) {
            std::fprintf(stderr, "softcomch bench: %s\n", err.c_str());
            status = exit_failure;
        }
    }
    if (auto doc = opts.get("doc")) {
        const std::string rel = opts.has("plot") ? plot_dir_from_doc(*doc, *opts.get("plot")) : "";
        if (!write_text(*doc, b::markdown(r, rel, written))) {
            std::fprintf(stderr, "softcomch bench: cannot write %s\n", doc->c_str());
            status = exit_failure;
        }
    }
    return status;
}

} // namespace softcomch::tools
