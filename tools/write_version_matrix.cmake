# SPDX-License-Identifier: Apache-2.0
#
# Writes the version matrix the tool knows (softcomch version-matrix --json) to a file, for the
# install's share/version-matrix.json.
#   cmake -DTOOL=<softcomch> -DOUT=<file> -P write_version_matrix.cmake
cmake_minimum_required(VERSION 3.20)
get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")
# In a sanitizer build the tool runs instrumented: its leak report at exit is the tests' business,
# not the build's.
set(ENV{ASAN_OPTIONS} "$ENV{ASAN_OPTIONS}:detect_leaks=0")
execute_process(COMMAND "${TOOL}" version-matrix --json
  OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}.tmp")
  message(FATAL_ERROR "softcomch version-matrix --json failed (${rc}): ${err}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
