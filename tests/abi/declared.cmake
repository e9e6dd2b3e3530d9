# SPDX-License-Identifier: Apache-2.0
#
# Every function a public header declares is exported by exactly one DOCA library.
#
#   cmake -DCC=<C compiler> -DNM=<nm> -DHEADER_DIR=<include/> -DINCLUDE_DIRS=<a|b|c>
#         -DLIB_FILES=<lib1|lib2|lib3> -DWORK_DIR=<scratch dir> -P declared.cmake
#
# A function declared but exported by no library only fails when a program calls it, at link
# time; one exported by two libraries resolves to whichever the loader finds first. Both are
# caught here.
#
# How declarations are found: every doca_*.h of HEADER_DIR (plus the generated doca_version.h)
# is run through the C preprocessor with a prelude that replaces doca_compat.h and defines
# DOCA_STABLE / DOCA_EXPERIMENTAL / DOCA_DEPRECATED as marker words. A declaration is then
# "<marker> <return type> name(" in the output. Using the preprocessor keeps #if branches
# (e.g. #ifdef __linux__) exactly as a program on this system sees them. Exported doca_*
# symbols that no header declares are reported as well: no program can call them legally, so
# they are either a leak or a missing declaration.

cmake_minimum_required(VERSION 3.20)

foreach(v CC NM HEADER_DIR INCLUDE_DIRS LIB_FILES WORK_DIR)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "declared.cmake: -D${v}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" include_dirs "${INCLUDE_DIRS}")
string(REPLACE "|" ";" lib_files "${LIB_FILES}")

# ---- declarations ----
file(GLOB headers RELATIVE ${HEADER_DIR} ${HEADER_DIR}/doca_*.h)
list(APPEND headers doca_version.h)
list(REMOVE_DUPLICATES headers)
list(SORT headers)

file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/prelude.h
"/* Replaces doca_compat.h: the lifecycle tags become marker words. */
#define DOCA_COMPAT_H_
#include <doca_config.h>
#define DOCA_USED
#define DOCA_STABLE SOFTCOMCH_ABI_TAG_STABLE
#define DOCA_EXPERIMENTAL SOFTCOMCH_ABI_TAG_EXPERIMENTAL
#define DOCA_DEPRECATED SOFTCOMCH_ABI_TAG_DEPRECATED
")
set(tu "")
foreach(h IN LISTS headers)
  string(APPEND tu "#include <${h}>\n")
endforeach()
file(WRITE ${WORK_DIR}/all_headers.c "${tu}")

set(inc_args)
foreach(d IN LISTS include_dirs)
  list(APPEND inc_args "-I${d}")
endforeach()
execute_process(COMMAND ${CC} -E -P -std=c11 -include ${WORK_DIR}/prelude.h ${inc_args}
                        ${WORK_DIR}/all_headers.c
  OUTPUT_VARIABLE pre ERROR_VARIABLE pre_err RESULT_VARIABLE pre_rc)
if(NOT pre_rc EQUAL 0)
  message(FATAL_ERROR "preprocessing the public headers failed (${pre_rc}):\n${pre_err}")
endif()

string(REGEX MATCHALL "SOFTCOMCH_ABI_TAG_(STABLE|EXPERIMENTAL|DEPRECATED)[^;{}()]*\\(" decls "${pre}")
set(declared)
set(problems "")
set(n_stable 0)
set(n_experimental 0)
set(n_deprecated 0)
foreach(d IN LISTS decls)
  string(REGEX MATCH "^SOFTCOMCH_ABI_TAG_([A-Z]+)" m "${d}")
  set(tag "${CMAKE_MATCH_1}")
  if(NOT d MATCHES "([A-Za-z_][A-Za-z0-9_]*)[ \t\r\n]*\\($")
    string(APPEND problems "  cannot find the function name in: ${d}\n")
    continue()
  endif()
  set(name "${CMAKE_MATCH_1}")
  if(name STREQUAL "__attribute__" OR NOT name MATCHES "^doca_")
    string(APPEND problems "  DOCA_${tag} declaration whose name is not a doca_ function: '${d}'\n")
    continue()
  endif()
  if(name IN_LIST declared)
    continue()
  endif()
  list(APPEND declared "${name}")
  if(tag STREQUAL "STABLE")
    math(EXPR n_stable "${n_stable} + 1")
  elseif(tag STREQUAL "EXPERIMENTAL")
    math(EXPR n_experimental "${n_experimental} + 1")
  else()
    math(EXPR n_deprecated "${n_deprecated} + 1")
  endif()
endforeach()
list(LENGTH declared n_declared)
if(n_declared EQUAL 0)
  message(FATAL_ERROR "no DOCA_STABLE/EXPERIMENTAL/DEPRECATED declaration found in ${HEADER_DIR}: "
                      "did the markers of doca_compat.h change?")
endif()

# ---- exports ----
set(exported_all)
foreach(lib IN LISTS lib_files)
  get_filename_component(lib_name ${lib} NAME)
  execute_process(COMMAND ${NM} -D --defined-only ${lib}
    OUTPUT_VARIABLE nm_out ERROR_VARIABLE nm_err RESULT_VARIABLE nm_rc)
  if(NOT nm_rc EQUAL 0)
    message(FATAL_ERROR "${NM} -D --defined-only ${lib} failed (${nm_rc}):\n${nm_err}")
  endif()
  string(REPLACE "\n" ";" nm_lines "${nm_out}")
  foreach(line IN LISTS nm_lines)
    if(line MATCHES "^[0-9A-Fa-f]* *([A-Za-z]) (doca_[A-Za-z0-9_]*)")
      if(NOT CMAKE_MATCH_1 STREQUAL "A")
        set(sym "${CMAKE_MATCH_2}")
        list(APPEND libs_of_${sym} ${lib_name})
        list(APPEND exported_all ${sym})
      endif()
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES exported_all)

# Which header declares a name (for the messages).
function(header_of name out)
  foreach(h IN LISTS headers)
    foreach(dir IN LISTS include_dirs)
      if(EXISTS ${dir}/${h})
        file(READ ${dir}/${h} text)
        string(REGEX MATCH "[^A-Za-z0-9_]${name}[ \t\r\n]*\\(" hit "${text}")
        if(hit)
          set(${out} ${h} PARENT_SCOPE)
          return()
        endif()
        break()
      endif()
    endforeach()
  endforeach()
  set(${out} "?" PARENT_SCOPE)
endfunction()

foreach(name IN LISTS declared)
  list(LENGTH libs_of_${name} n)
  if(n EQUAL 0)
    header_of(${name} h)
    string(APPEND problems "  ${name} (${h}): declared but exported by no DOCA library; a program calling it fails to link\n")
  elseif(n GREATER 1)
    string(JOIN ", " where ${libs_of_${name}})
    string(APPEND problems "  ${name}: exported by ${n} libraries (${where}); it must live in exactly one\n")
  endif()
endforeach()

foreach(sym IN LISTS exported_all)
  if(NOT sym IN_LIST declared)
    string(JOIN ", " where ${libs_of_${sym}})
    string(APPEND problems "  ${sym} (${where}): exported but declared in no public header\n")
  endif()
endforeach()

if(NOT problems STREQUAL "")
  message(FATAL_ERROR "public declarations vs exported symbols:\n${problems}")
endif()
message(STATUS "${n_declared} functions declared in ${HEADER_DIR} (${n_stable} stable, "
               "${n_experimental} experimental, ${n_deprecated} deprecated), each exported by "
               "exactly one of the DOCA libraries")
