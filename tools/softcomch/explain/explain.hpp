// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain (cmd_explain.cpp): what a doca_error_t means to a Comch program, in general
// (codes.cpp: every value of include/doca_error.h) and for one call (calls_*.cpp: every function
// of include/doca_comch*.h, the DOCA Core calls Comch programs get Comch errors from, and the
// calls of DMA, memory exports, sync events, graphs, Compress and SHA that programs pair with
// Comch). The per-call rows follow DOCA's documentation (shared spec, doca-api.md section 4.6,
// and the headers) and SoftComch's own code paths (src/capi, src/comch, src/core and the
// engines); each row says which.
#pragma once

#include <doca_error.h>

#include <string>
#include <string_view>
#include <vector>

namespace softcomch::tools::explain {

// Which layer a code comes from.
enum class layer {
    none,        // DOCA_SUCCESS
    lifecycle,   // the object is in the wrong state, or an asynchronous step is under way
    argument,    // the caller passed something invalid
    permission,  // this process or user may not do it
    capability,  // the device or this build cannot do it
    resource,    // a pool, a slot or memory ran out
    transient,   // back-pressure: retry once the condition clears
    connection,  // the peer or the connection is gone
    environment, // the machine or the configuration (topology, variables, system calls)
    internal,    // a bug, or a code Comch does not use
};
const char *layer_name(layer l) noexcept;

struct code_entry {
    doca_error_t code;
    explain::layer layer;
    std::string meaning; // what it means for a Comch call
    std::vector<std::string> causes;
    std::vector<std::string> actions;
};

// Every doca_error_t, in value order.
const std::vector<code_entry> &codes();
const code_entry *find_code(doca_error_t code);

// Who says a call returns a code.
enum class origin { doca, softcomch, both };
const char *origin_name(origin o) noexcept; // "DOCA", "SoftComch", "DOCA and SoftComch"

struct call_row {
    doca_error_t code;
    std::string cause;
    std::string action;
    explain::origin origin = origin::both;
};

struct call_entry {
    std::string name;
    std::string returns; // "doca_error_t", or the type a call without status returns
    std::string summary;
    std::vector<call_row> rows; // empty for calls that return no doca_error_t
};

// Every call, in header order.
const std::vector<call_entry> &calls();
const call_entry *find_call(std::string_view name);

// ---- for the call tables ----
void add_comch_calls(std::vector<call_entry> &out);    // calls_comch.cpp
void add_fastpath_calls(std::vector<call_entry> &out); // calls_fastpath.cpp
void add_core_calls(std::vector<call_entry> &out);     // calls_core.cpp
void add_engine_calls(std::vector<call_entry> &out);   // calls_engines.cpp
// The older generations' names of calls already in `out` (calls_generations.cpp): last.
void add_generation_calls(std::vector<call_entry> &out);

// Rows many calls share.
call_row bad_handle();                       // INVALID_VALUE: NULL / destroyed / foreign
call_row not_idle();                         // BAD_STATE: configuration after start
call_row not_running(std::string_view what); // BAD_STATE: allocation before RUNNING
call_row out_of_range(std::string_view what, std::string_view cap_query);
call_row destroy_not_idle(std::string_view what); // IN_USE: destroy outside IDLE
call_row no_dpa();                                // NOT_SUPPORTED: DPA / MsgQ
// A call that returns no doca_error_t.
call_entry no_status(std::string name, std::string returns, std::string summary);

} // namespace softcomch::tools::explain
