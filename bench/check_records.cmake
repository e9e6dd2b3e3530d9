# SPDX-License-Identifier: Apache-2.0
#
# Smoke check of one benchmark program's output (bench/bench_report.hpp), shared by every smoke
# test of bench/ and bench/peers/. Run as a CMake script:
#
#   cmake -DPROGRAM=<path> [-DARGS=--smoke[,more,args]] -DPREFIXES=<p1>[,<p2>...]
#         -DMETRICS_LIST=<bench/metrics.list> -P check_records.cmake
#
# ARGS and PREFIXES are comma-separated (CTest would split a ';' list into separate arguments).
# Fails when
#   - the program exits non-zero (or does not start);
#   - a non-empty stdout line is neither a '#' comment nor a JSON object with "metric" (and then a
#     numeric "value" or an "unavailable" reason) or "context";
#   - a metric of METRICS_LIST that starts with one of PREFIXES is not reported.
# It never looks at a timing.

foreach(var PROGRAM PREFIXES METRICS_LIST)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "check_records.cmake: -D${var}=... is required")
    endif()
endforeach()

set(args "")
if(DEFINED ARGS AND NOT ARGS STREQUAL "")
    string(REPLACE "," ";" args "${ARGS}")
endif()
string(REPLACE "," ";" prefixes "${PREFIXES}")

execute_process(COMMAND "${PROGRAM}" ${args}
                RESULT_VARIABLE rc
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${PROGRAM} ${args} exited with '${rc}'\nstderr:\n${err}\nstdout:\n${out}")
endif()

# One element per line (a ';' inside a line would split it: escape them first).
string(REPLACE ";" "\\;" out_escaped "${out}")
string(REPLACE "\n" ";" lines "${out_escaped}")
set(seen "")
set(count 0)
foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line MATCHES "^#")
        continue()
    endif()
    if(NOT line MATCHES "^{")
        message(FATAL_ERROR "${PROGRAM}: a line that is neither '#' nor a record:\n${line}")
    endif()
    string(JSON metric ERROR_VARIABLE jerr GET "${line}" metric)
    if(jerr)
        string(JSON context ERROR_VARIABLE cerr GET "${line}" context)
        if(cerr)
            message(FATAL_ERROR "${PROGRAM}: neither a record nor a context line (${jerr}):\n"
                                "${line}")
        endif()
        continue()
    endif()
    string(JSON why ERROR_VARIABLE uerr GET "${line}" unavailable)
    if(uerr)
        string(JSON value ERROR_VARIABLE verr GET "${line}" value)
        string(JSON vtype ERROR_VARIABLE terr TYPE "${line}" value)
        if(verr OR terr OR NOT vtype STREQUAL "NUMBER")
            message(FATAL_ERROR "${PROGRAM}: record '${metric}' has no numeric value:\n${line}")
        endif()
        foreach(field unit better subject group)
            string(JSON f ERROR_VARIABLE ferr GET "${line}" ${field})
            if(ferr)
                message(FATAL_ERROR "${PROGRAM}: record '${metric}' lacks '${field}':\n${line}")
            endif()
        endforeach()
    elseif(why STREQUAL "")
        message(FATAL_ERROR "${PROGRAM}: '${metric}' is unavailable without a reason")
    endif()
    list(APPEND seen "${metric}")
    math(EXPR count "${count} + 1")
endforeach()

file(STRINGS "${METRICS_LIST}" wanted_lines)
set(missing "")
set(checked 0)
foreach(name IN LISTS wanted_lines)
    string(REGEX REPLACE "#.*" "" name "${name}")
    string(STRIP "${name}" name)
    if(name STREQUAL "")
        continue()
    endif()
    set(ours FALSE)
    foreach(p IN LISTS prefixes)
        string(FIND "${name}" "${p}" at)
        if(at EQUAL 0)
            set(ours TRUE)
        endif()
    endforeach()
    if(NOT ours)
        continue()
    endif()
    math(EXPR checked "${checked} + 1")
    list(FIND seen "${name}" found)
    if(found EQUAL -1)
        list(APPEND missing "${name}")
    endif()
endforeach()
if(checked EQUAL 0)
    message(FATAL_ERROR "${METRICS_LIST} names no metric with the prefixes ${prefixes}")
endif()
if(missing)
    string(REPLACE ";" "\n  " missing_text "${missing}")
    message(FATAL_ERROR "${PROGRAM}: metrics of ${METRICS_LIST} not reported:\n  ${missing_text}")
endif()
message(STATUS "${PROGRAM}: ${count} records, all ${checked} listed metrics (${prefixes}) reported")
