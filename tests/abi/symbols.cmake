# SPDX-License-Identifier: Apache-2.0
#
# Exported symbols of one DOCA library, compared with its checked-in list.
#
#   cmake -DMODE=check|update -DNM=<nm> -DLIB=<name> -DLIB_FILE=<path> -DLIST=<list file>
#         -P symbols.cmake
#
# check   (i)   every symbol the library exports (nm -D --defined-only) starts with "doca_";
#               the only exception are the version nodes of cmake/exports.map (absolute symbols
#               named like DOCA_3.0), which are listed too;
#         (ii)  when nm shows symbol versions, every doca_ symbol is the default version
#               (name@@NODE) of a node the library defines;
#         (iii) the set of names equals LIST; otherwise the names added and removed are printed.
# update  writes LIST from the library (target update_abi_symbols).

cmake_minimum_required(VERSION 3.20)

foreach(v MODE NM LIB LIB_FILE LIST)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "symbols.cmake: -D${v}=... is required")
  endif()
endforeach()

execute_process(COMMAND ${NM} -D --defined-only ${LIB_FILE}
  OUTPUT_VARIABLE nm_out ERROR_VARIABLE nm_err RESULT_VARIABLE nm_rc)
if(NOT nm_rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIB_FILE} failed (${nm_rc}):\n${nm_err}")
endif()

set(exported)
set(nodes)
set(versioned)
set(not_doca)
string(REPLACE "\n" ";" nm_lines "${nm_out}")
foreach(line IN LISTS nm_lines)
  if(NOT line MATCHES "^[0-9A-Fa-f]* *([A-Za-z]) ([^ ]+)$")
    continue()
  endif()
  set(type "${CMAKE_MATCH_1}")
  set(sym "${CMAKE_MATCH_2}")
  set(ver "")
  if(sym MATCHES "^([^@]+)(@.*)$")
    set(sym "${CMAKE_MATCH_1}")
    set(ver "${CMAKE_MATCH_2}")
  endif()
  if(type STREQUAL "A" AND sym MATCHES "^DOCA_[0-9]+\\.[0-9]+$")
    list(APPEND nodes "${sym}")
  elseif(NOT sym MATCHES "^doca_")
    list(APPEND not_doca "${sym} (nm type ${type})")
  elseif(NOT ver STREQUAL "")
    list(APPEND versioned "${sym}${ver}")
  endif()
  list(APPEND exported "${sym}")
endforeach()
list(REMOVE_DUPLICATES exported)
list(SORT exported)

if(MODE STREQUAL "update")
  get_filename_component(lib_name ${LIB_FILE} NAME)
  string(JOIN "\n" body ${exported})
  file(WRITE ${LIST}
"# Exported dynamic symbols of lib${LIB}.so (nm -D --defined-only), one per line, sorted.
# Checked by the abi_symbols_${LIB} test. Regenerate with `ninja update_abi_symbols` and review
# the diff: an added name is new ABI; a removed name breaks programs linked against the old
# library. DOCA_x.y lines are the version nodes of cmake/exports.map.
${body}
")
  list(LENGTH exported n)
  message(STATUS "wrote ${LIST} (${n} names)")
  return()
elseif(NOT MODE STREQUAL "check")
  message(FATAL_ERROR "symbols.cmake: MODE must be check or update, not '${MODE}'")
endif()

set(problems "")

# (i) nothing but doca_* leaves the library.
if(not_doca)
  string(JOIN "\n    " s ${not_doca})
  string(APPEND problems "  exported symbols not starting with doca_ (cmake/exports.map must hide them):\n    ${s}\n")
endif()

# (ii) every doca_ symbol is the default version of a node the library defines.
foreach(entry IN LISTS versioned)
  string(REGEX MATCH "^([^@]+)(@@?)(.*)$" m "${entry}")
  set(sym "${CMAKE_MATCH_1}")
  set(at "${CMAKE_MATCH_2}")
  set(node "${CMAKE_MATCH_3}")
  if(NOT at STREQUAL "@@" OR NOT node IN_LIST nodes)
    string(APPEND problems "  ${entry}: not the default version of a node of cmake/exports.map (${nodes})\n")
  endif()
endforeach()

# (iii) the set equals the checked-in list.
if(NOT EXISTS ${LIST})
  string(APPEND problems "  ${LIST} does not exist: run `ninja update_abi_symbols` and review it\n")
  set(expected)
else()
  file(STRINGS ${LIST} list_lines)
  set(expected)
  foreach(l IN LISTS list_lines)
    string(STRIP "${l}" l)
    if(l STREQUAL "" OR l MATCHES "^#")
      continue()
    endif()
    list(APPEND expected "${l}")
  endforeach()
  list(REMOVE_DUPLICATES expected)
endif()

set(removed ${expected})
if(exported)
  list(REMOVE_ITEM removed ${exported})
endif()
set(added ${exported})
if(expected)
  list(REMOVE_ITEM added ${expected})
endif()
list(SORT removed)
list(SORT added)
if(removed OR added)
  string(APPEND problems "  lib${LIB}.so does not match ${LIST}:\n")
  foreach(s IN LISTS removed)
    string(APPEND problems "    removed (in the list, not exported): ${s}\n")
  endforeach()
  foreach(s IN LISTS added)
    string(APPEND problems "    added (exported, not in the list): ${s}\n")
  endforeach()
  string(APPEND problems "  If the change is intended, run `ninja update_abi_symbols` and commit the new list.\n")
endif()

list(LENGTH exported n)
if(NOT problems STREQUAL "")
  message(FATAL_ERROR "ABI check of lib${LIB}.so (${n} exported symbols) failed:\n${problems}")
endif()
message(STATUS "lib${LIB}.so: ${n} exported symbols, all doca_*, equal to ${LIST}")
