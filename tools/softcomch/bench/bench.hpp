// SPDX-License-Identifier: Apache-2.0
//
// softcomch bench: run the benchmark programs one at a time, collect their records (the format of
// bench/bench_report.hpp: one JSON object per line), fill in the baselines measured by other
// programs of the run, and report them as tables, one JSON document, SVG plots and a Markdown
// performance report (docs/cli.md, "softcomch bench").
//   runner.cpp   finding and running the programs, reading their lines, the machine
//   report.cpp   baselines, peers, the JSON document (both ways) and the text tables
//   svg.cpp      the plots
//   targets.cpp  the issue-11 targets and their verdicts
//   doc.cpp      the Markdown report
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"

namespace softcomch::tools::bench {

namespace json = softcomch::json;

// One measurement (or one that could not be made).
struct record {
    std::string metric;
    std::string program;     // which program printed it ("" when softcomch bench made it up)
    std::string unavailable; // non-empty: no value, and why
    double value = 0;
    std::string unit;
    std::string better = "lower";
    std::string subject = "softcomch";
    std::string group;
    uint64_t size = 0;
    std::string mode;
    std::string baseline; // "" none
    std::optional<double> baseline_value;
    std::optional<double> ratio;

    bool available() const noexcept { return unavailable.empty(); }
};

// One program of the run and how it went.
struct program_run {
    std::string name;
    std::string path;
    std::vector<std::string> args;
    std::string status; // "ok", "failed", "timeout", "missing", "skipped"
    std::string reason; // why, when not ok
    double seconds = 0;
    int records = 0;
    int bad_lines = 0;  // lines that are neither empty, a '#' comment, a record nor a context
    int duplicates = 0; // records whose metric an earlier one had (dropped)
};

struct noise_verdict {
    std::optional<bool> noisy; // nullopt: the probe said nothing
    std::string reason;
};

struct run {
    json::value machine = json::value::object();
    std::string command;
    std::string started;
    std::string mode; // "smoke", "quick", "full"
    std::string programs_dir;
    std::vector<program_run> programs;
    std::vector<json::value> contexts; // the programs' context lines, each with "program"
    std::vector<record> records;
    noise_verdict noise;
};

// ---- runner.cpp ----

// The programs in the order they run: the noise probe first. A new benchmark program is added
// here (and built into ${CMAKE_BINARY_DIR}/libexec/softcomch by bench/CMakeLists.txt).
const std::vector<std::string_view> &program_order();
inline constexpr std::string_view probe_program = "spin_baseline";

// <dir of softcomch>/<bindir -> libexecdir>/softcomch, build tree and install tree alike.
std::string default_programs_dir();
// bench/metrics.list of the source tree softcomch was built from, if it is still there; "".
std::string metrics_list_path();
// The names of a metrics.list (comments and blanks dropped).
std::vector<std::string> read_metrics_list(const std::string &path);

struct run_options {
    std::string dir;
    std::string mode = "full";     // the programs get --smoke, --quick or nothing
    double timeout_s = 0;          // per program; 0: the mode's default
    std::vector<std::string> only; // globs of program names (the probe always runs); empty: all
    bool progress = true;          // one line per program on stderr
};
double default_timeout(std::string_view mode);

// Runs the programs. Never throws; a program that fails, times out or is missing is recorded in
// run::programs and the others still run.
run execute(const run_options &o);

// Adds one output line of `program` to `r` (records and context lines; anything else ignored).
// Returns false for a line that starts with '{' but is not a valid record or context.
bool add_line(run &r, program_run &p, std::string_view line);

// CPU model, cores, kernel, host name, SoftComch version.
json::value machine_info();

// ---- report.cpp ----

bool is_baseline_subject(std::string_view subject);
bool is_peer(const record &r);
// The statistic at the end of a metric name ("p50", "p99", "p999", "mean", ...), or "".
std::string stat_of(std::string_view metric);
// 64B, 1KiB, 4080B, 4KiB, 1MiB (as bench_report.hpp names sizes).
std::string size_name(uint64_t bytes);
// "0.381", "14.2", "1250": three significant digits.
std::string format_value(double v);

// Fills in baseline_value and ratio of every record whose baseline another record of the run
// measured (a value the program measured itself is kept), the noise verdict from the probe's
// context line, and unavailable records for the metrics of `expected` that no program reported
// when a program of the run failed.
void complete(run &r, const std::vector<std::string> &expected);

const record *find_metric(const run &r, std::string_view metric);
// The best peer of a softcomch record: same group, size and statistic (the same mode preferred
// when a peer has it), best by `better`; nullptr if none.
const record *best_peer(const run &r, const record &rec);
// value / peer value (lower is better for "lower" metrics), and whether softcomch is ahead.
double peer_ratio(const record &rec, const record &peer);
bool ahead_of(const record &rec, const record &peer);

// The groups in report order (known ones first, the rest sorted).
std::vector<std::string> groups_of(const run &r);

json::value to_json(const run &r);
// A document of to_json(); false and *error on a document of another shape.
bool from_json(const json::value &doc, run &out, std::string *error);

// The human tables.
void print_text(std::FILE *out, const run &r);
std::string noise_line(const run &r); // "" when the probe did not say noisy

// ---- svg.cpp ----

struct plot_file {
    std::string name;  // "latency.svg"
    std::string title; // for the report
};
// The SVG documents: latency.svg, throughput.svg, rate.svg (a plot with no data says so).
std::vector<std::pair<plot_file, std::string>> plots(const run &r);
// Writes them into `dir` (created); false and *error on failure.
bool write_plots(const run &r, const std::string &dir, std::vector<plot_file> &written,
                 std::string *error);

// ---- targets.cpp ----

struct target_result {
    std::string target;   // "polled 64 B RTT p50 <= 2.5x spin"
    std::string measured; // "2.10x (ctrl_rtt_polled_64B_p50 0.42 us / spin 0.20 us)"
    std::string verdict;  // "met", "not met", "unavailable"
    double ratio = 0;     // the measured ratio (0 when unavailable)
};
std::vector<target_result> evaluate_targets(const run &r);

// ---- doc.cpp ----

// The Markdown report; `plot_dir` is the plots' directory relative to the report ("" none).
std::string markdown(const run &r, const std::string &plot_dir,
                     const std::vector<plot_file> &plot_files);

} // namespace softcomch::tools::bench
