# SPDX-License-Identifier: Apache-2.0
#
# What the private implementation library exports (docs/design.md, "What libsoftcomch exports").
#
#   cmake -DNM=<nm> -DLIB_FILE=<libsoftcomch.so> -DNODE=<version node> -DMAX=<n>
#         -DREQUIRED=<regex>|... -DFORBIDDEN=<regex>|... -P private_exports.cmake
#
#   (i)   every exported symbol (nm -D --defined-only) is the default version (name@@NODE) of the
#         one node of cmake/softcomch.map, which the library defines;
#   (ii)  there are at most MAX of them (the layers are compiled with -fvisibility=hidden and
#         only SOFTCOMCH_API declarations leave: without it, every symbol would);
#   (iii) each REQUIRED regex matches an exported (mangled) name: what the DOCA libraries and the
#         tools need, so that a broken reading of nm's output cannot pass;
#   (iv)  no FORBIDDEN regex matches an exported name, and each matches a name of the library's
#         own symbol table (nm --defined-only), so that the names still exist and the check
#         still means something; skipped for a library without a symbol table (stripped).
# Regexes are matched against mangled names; `|` separates them (CMake lists cannot hold `;`).

cmake_minimum_required(VERSION 3.20)

foreach(v NM LIB_FILE NODE MAX REQUIRED FORBIDDEN)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "private_exports.cmake: -D${v}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" REQUIRED "${REQUIRED}")
string(REPLACE "|" ";" FORBIDDEN "${FORBIDDEN}")

# Mangled names (name@version for the dynamic table) of `nm [args] LIB_FILE`, one per element.
function(nm_names out)
  execute_process(COMMAND ${NM} ${ARGN} --defined-only ${LIB_FILE}
    OUTPUT_VARIABLE nm_out ERROR_VARIABLE nm_err RESULT_VARIABLE nm_rc)
  if(NOT nm_rc EQUAL 0)
    set(${out} "NM-FAILED" PARENT_SCOPE)
    set(${out}_error "${NM} ${ARGN} --defined-only ${LIB_FILE} failed (${nm_rc}):\n${nm_err}" PARENT_SCOPE)
    return()
  endif()
  set(names)
  string(REPLACE "\n" ";" lines "${nm_out}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9A-Fa-f]* *([A-Za-z]) ([^ ]+)$")
      list(APPEND names "${CMAKE_MATCH_1} ${CMAKE_MATCH_2}")
    endif()
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

nm_names(dynamic -D)
if(dynamic STREQUAL "NM-FAILED")
  message(FATAL_ERROR "${dynamic_error}")
endif()

set(problems "")
set(exported)
set(node_defined FALSE)
foreach(entry IN LISTS dynamic)
  string(REGEX MATCH "^([A-Za-z]) ([^@]+)(@@?[^@]*)?$" m "${entry}")
  set(type "${CMAKE_MATCH_1}")
  set(sym "${CMAKE_MATCH_2}")
  set(ver "${CMAKE_MATCH_3}")
  if(type STREQUAL "A" AND sym STREQUAL NODE)
    set(node_defined TRUE)
    continue()
  endif()
  list(APPEND exported "${sym}")
  # (i)
  if(NOT ver STREQUAL "@@${NODE}")
    string(APPEND problems "  ${sym}${ver}: not the default version of ${NODE}\n")
  endif()
endforeach()
if(NOT node_defined)
  string(APPEND problems "  the library does not define the version node ${NODE} (cmake/softcomch.map)\n")
endif()

# (ii)
list(LENGTH exported n)
if(n GREATER MAX)
  string(APPEND problems "  ${n} exported symbols, more than ${MAX}: is the library still compiled with -fvisibility=hidden (src/CMakeLists.txt)? If the new ones are meant (SOFTCOMCH_API), raise the limit in tests/abi/CMakeLists.txt\n")
endif()

# (iii)
foreach(re IN LISTS REQUIRED)
  set(hits ${exported})
  list(FILTER hits INCLUDE REGEX "${re}")
  if(NOT hits)
    string(APPEND problems "  nothing exported matches ${re}, which the DOCA libraries or the tools need\n")
  endif()
endforeach()

# (iv)
nm_names(own)
if(own STREQUAL "NM-FAILED" OR NOT own)
  set(own)
  message(STATUS "no symbol table in ${LIB_FILE}: the forbidden names are not checked for existence")
endif()
string(REGEX REPLACE "(^|;)[A-Za-z] " "\\1" own "${own}")
foreach(re IN LISTS FORBIDDEN)
  set(hits ${exported})
  list(FILTER hits INCLUDE REGEX "${re}")
  foreach(h IN LISTS hits)
    string(APPEND problems "  exported, but internal (matches ${re}): ${h}\n")
  endforeach()
  if(own)
    set(hits ${own})
    list(FILTER hits INCLUDE REGEX "${re}")
    if(NOT hits)
      string(APPEND problems "  ${re} matches no symbol of the library at all: update the test (tests/abi/CMakeLists.txt)\n")
    endif()
  endif()
endforeach()

get_filename_component(lib_name ${LIB_FILE} NAME)
if(NOT problems STREQUAL "")
  message(FATAL_ERROR "export check of ${lib_name} (${n} exported symbols) failed:\n${problems}")
endif()
message(STATUS "${lib_name}: ${n} exported symbols (at most ${MAX}), all ${NODE}, none internal")
