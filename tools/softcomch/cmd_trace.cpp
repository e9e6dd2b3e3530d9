// SPDX-License-Identifier: Apache-2.0
//
// softcomch trace FILE [--out OUT] [--check] [--json]: checks a trace that SOFTCOMCH_TRACE
// recorded (every line an event Perfetto and chrome://tracing read) and writes it as strict JSON
// ({"traceEvents":[...]}), which any JSON tool reads too (docs/trace.md).
#include <array>
#include <cstdio>
#include <string>

#include "command.hpp"
#include "common/json.hpp"
#include "options.hpp"
#include "trace_finish.hpp"

namespace softcomch::tools {

namespace {

namespace json = softcomch::json;

constexpr std::array trace_options{
    option_spec{"out", 'o', "OUT", "write the strict JSON to OUT instead of replacing FILE"},
    option_spec{"check", 0, "", "only check FILE; write nothing"},
    option_spec{"json", 0, "", "print the report as one JSON object"},
};

constexpr command_usage trace_usage{
    "trace",
    "FILE [--out OUT] [--check] [--json]",
    "Checks a trace recorded with SOFTCOMCH_TRACE=FILE (or softcomch run --trace FILE): every "
    "line must be an event that Perfetto and chrome://tracing read, with a name, a phase, a "
    "process and thread id and a timestamp. Then writes the events as strict JSON, "
    "{\"traceEvents\":[...]}, one event per line, the processes' and threads' names first and "
    "the events in time order: over FILE itself (atomically), or to OUT. A file that is strict "
    "JSON already is accepted too. Prints the processes found and how many events each has.",
    trace_options,
    "Examples:\n"
    "  SOFTCOMCH_TRACE=/tmp/pair.json ./server & SOFTCOMCH_TRACE=/tmp/pair.json ./client\n"
    "  softcomch trace /tmp/pair.json          # then open it in https://ui.perfetto.dev\n"
    "  softcomch trace --check --json /tmp/pair.json\n"
    "\n"
    "Exit status:\n"
    "  0  every event is valid (and the output was written)\n"
    "  1  invalid lines (the valid events are still written), or FILE unreadable, OUT "
    "unwritable\n"
    "  2  bad command line\n",
};

json::value report_json(const std::string &file, const trace_outcome &t)
{
    const auto &r = t.report;
    json::value procs = json::value::array();
    for (const auto &p : r.processes)
        procs.push_back(json::value::object()
                            .set("pid", p.pid)
                            .set("name", p.name)
                            .set("events", uint64_t(p.events)));
    json::value problems = json::value::array();
    for (const auto &p : r.problems)
        problems.push_back(
            json::value::object().set("line", uint64_t(p.line)).set("problem", p.what));
    json::value v = json::value::object();
    v.set("file", file)
        .set("valid", t.ok())
        .set("strict_input", r.strict_input)
        .set("events", uint64_t(r.events))
        .set("metadata", uint64_t(r.metadata))
        .set("first_ts_us", r.first_ts)
        .set("last_ts_us", r.last_ts)
        .set("processes", std::move(procs))
        .set("problems", std::move(problems))
        .set("output", t.output.empty() ? json::value() : json::value(t.output));
    if (!t.error.empty())
        v.set("error", t.error);
    return v;
}

} // namespace

int cmd_trace(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, trace_usage, opts))
        return *status;
    if (opts.positional().size() != 1)
        return usage_error(trace_usage, opts.positional().empty()
                                            ? "FILE is required"
                                            : "one FILE only, not '" + opts.positional()[1] + "'");
    const std::string file = opts.positional().front();
    const bool check = opts.has("check");
    const std::string out = opts.get("out").value_or("");
    if (check && !out.empty())
        return usage_error(trace_usage, "--check writes nothing: no --out with it");
    const trace_outcome t = finish_trace(file, out, check);
    if (opts.has("json"))
        std::printf("%s\n", json::dump(report_json(file, t)).c_str());
    else
        print_trace_report(stdout, stderr, "", file, t);
    return t.ok() ? exit_ok : exit_failure;
}

} // namespace softcomch::tools
