// SPDX-License-Identifier: Apache-2.0
//
// Reading a trace file (SOFTCOMCH_TRACE, common/trace.hpp; docs/trace.md): every event checked
// against what Perfetto and chrome://tracing need, and the strict JSON `softcomch trace` writes.
// Used by the tool (tools/softcomch/cmd_trace.cpp) and by the tests.
//
// Accepted input: the recorder's array format ("[" then one event per line, each followed by a
// comma, no closing bracket needed), a JSON array, or the strict form {"traceEvents":[...]}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "common/visibility.hpp"

namespace softcomch::trace_file {

struct problem {
    size_t line = 0; // from 1; 0: the file as a whole
    std::string what;
};

struct process {
    int64_t pid = 0;
    std::string name;  // the last process_name, empty if none
    size_t events = 0; // its events, metadata excluded
};

struct report {
    bool strict_input = false;        // the input was {"traceEvents":[...]} already
    size_t events = 0;                // valid events, metadata excluded
    size_t metadata = 0;              // valid metadata events
    std::vector<process> processes;   // in the order they first appear
    double first_ts = 0, last_ts = 0; // microseconds, over the events with a timestamp
    std::vector<problem> problems;    // lines (or elements) that are not valid events
    bool ok() const noexcept { return problems.empty(); }
};

// Why `e` is not an event Perfetto and chrome://tracing both read, or "" when it is: an object
// with a one-letter "ph" of the format, a "name" string, integer "pid" and "tid", a number "ts"
// (metadata may omit it), "args" an object, no array at its top level (Perfetto's tokenizer
// refuses one), and what its phase needs (an id for async events, "dur" for 'X', numeric args
// for 'C', the metadata's argument).
SOFTCOMCH_API std::string check_event(const json::value &e);

// Reads `text`; the valid events are appended to *events when it is not nullptr.
SOFTCOMCH_API report read(std::string_view text, std::vector<json::value> *events);

// The strict JSON form of `events`: {"traceEvents":[...]} with one event per line, metadata
// first (the last process_name, thread_name and sort index of each process or thread only, as
// the viewers would keep), then the events in timestamp order (stable).
SOFTCOMCH_API std::string strict(const std::vector<json::value> &events);

} // namespace softcomch::trace_file
