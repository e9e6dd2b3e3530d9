// SPDX-License-Identifier: Apache-2.0
//
// Checking a trace file (SOFTCOMCH_TRACE) and writing its strict JSON form: `softcomch trace` and
// `softcomch run --trace` (docs/trace.md). The reading and the checks are the library's
// (common/trace_file.hpp), so the tool and the tests judge a trace the same way.
#pragma once

#include <cstdio>
#include <string>

#include "common/trace_file.hpp"

namespace softcomch::tools {

struct trace_outcome {
    std::string error; // the file could not be read or the output written
    softcomch::trace_file::report report;
    std::string output; // the file written, empty if none
    bool ok() const noexcept { return error.empty() && report.ok(); }
};

// Reads and checks `file`; unless `check_only`, writes the valid events as strict JSON to `out`
// (`file` itself when empty), atomically (a temporary file renamed over it).
trace_outcome finish_trace(const std::string &file, const std::string &out, bool check_only);

// "FILE: N events from P processes over T ms" and one line per process; the problems (at most
// 20) as "FILE:LINE: problem". Every line starts with `prefix`.
void print_trace_report(FILE *out, FILE *err, const std::string &prefix, const std::string &file,
                        const trace_outcome &t);

} // namespace softcomch::tools
