# SPDX-License-Identifier: Apache-2.0
#
# Include rules between the layers of src/ (docs/design.md, docs/testing.md).
#
#   cmake -DSRC_DIR=<src/> -P layering.cmake
#
# Layer of a file = its first directory under src/. An #include "..." (or <...>) is resolved
# relative to the including file, then to src/; the layer of the included file is its first
# directory under src/ (an unresolved path counts by its first component). Rules:
#
#   common     includes nothing from core, transport, comch, capi, argp
#   transport  nothing from core, comch, capi, argp; of the public headers only doca_error.h
#              (and what it is made of: doca_compat.h, doca_config.h, doca_build_config.h):
#              the transport never sees DOCA object types
#   core       nothing from transport, comch, capi, argp
#   comch      nothing from capi, argp, dma
#   dma        nothing from transport, comch, capi, argp, memory, sync_event, mmap_advise (DOCA DMA sits on
#              DOCA Core)
#   sync_event nothing from transport, comch, capi, argp, memory, dma, mmap_advise (DOCA Core's sync events:
#              their shared counter comes through core's exporter interface)
#   mmap_advise nothing from transport, comch, capi, argp, memory, dma, sync_event (DOCA Core's
#              mmap advise context)
#   compress, sha  nothing from transport, comch, capi, argp, memory, nor any other DOCA library's
#              layer (DOCA Compress and DOCA SHA sit on DOCA Core)
#   every layer but compress and sha: nothing from compress or sha
#   memory     nothing from comch, dma, sync_event, mmap_advise, capi, argp (exports over the
#              transports)
#   common, core, transport, comch: nothing from dma, sync_event, mmap_advise or memory either
#   any layer  nothing from capi, except capi itself and argp (the C API implementation stays
#              on top)
#   compat     nothing of src/ but compat itself: an older API generation is thunks over the
#              public API (docs/generations.md); and no other layer includes compat
#   comch      reaches a transport through its boundary only (docs/transport_boundary.md):
#              nothing in a transport's folder (transport/<name>/...), nor transport/wire.hpp
#              or transport/unix_socket.hpp
#
# The introspection API and the tools (the block below marked so):
#
#   cmake -DSRC_DIR=<src/> [-DTOOLS_DIR=<tools/>] -P layering.cmake
#
#   introspect nothing from comch, capi, argp (it sits on common, core and transport)
#   any layer  of src/ nothing from introspect: only the tools use it
#   tools/     of src/ only introspect and common (a tool's own files and the public headers
#              are free)
#
# Every offending line is printed as file:line: text.

cmake_minimum_required(VERSION 3.20)

if(NOT DEFINED SRC_DIR OR NOT IS_DIRECTORY "${SRC_DIR}")
  message(FATAL_ERROR "layering.cmake: -DSRC_DIR=<src directory> is required")
endif()
get_filename_component(SRC_DIR "${SRC_DIR}" ABSOLUTE)

set(forbidden_common core transport comch capi argp dma sync_event mmap_advise memory compress sha)
set(forbidden_transport core comch capi argp dma sync_event mmap_advise memory compress sha)
set(forbidden_core transport comch capi argp dma sync_event mmap_advise memory compress sha)
set(forbidden_comch capi argp dma sync_event mmap_advise memory compress sha)
set(forbidden_dma transport comch capi argp memory sync_event mmap_advise compress sha)
set(forbidden_sync_event transport comch capi argp memory dma mmap_advise compress sha)
set(forbidden_mmap_advise transport comch capi argp memory dma sync_event compress sha)
set(forbidden_compress transport comch capi argp memory dma sync_event mmap_advise sha)
set(forbidden_sha transport comch capi argp memory dma sync_event mmap_advise compress)
set(forbidden_memory comch dma sync_event mmap_advise capi argp compress sha)
set(forbidden_capi)
set(forbidden_argp)
set(forbidden_other capi)
set(known_layers common transport core comch dma sync_event mmap_advise compress sha memory capi argp compat)
set(forbidden_compat common transport core comch dma sync_event mmap_advise compress sha memory capi argp)
foreach(l common transport core comch dma sync_event mmap_advise compress sha memory capi argp other)
  list(APPEND forbidden_${l} compat)
endforeach()
set(transport_public_allowed doca_error.h doca_compat.h doca_config.h doca_build_config.h)

file(GLOB_RECURSE files RELATIVE ${SRC_DIR} ${SRC_DIR}/*)
list(SORT files)

# ---- the introspection API and the tools ----
set(forbidden_introspect comch capi argp)
foreach(l common transport core comch dma sync_event mmap_advise compress sha memory capi argp compat other)
  list(APPEND forbidden_${l} introspect)
endforeach()
set(forbidden_tools core transport comch dma sync_event mmap_advise memory capi argp compress sha)
list(APPEND known_layers introspect tools)
set(tools_prefix "") # TOOLS_DIR relative to SRC_DIR, with a trailing '/': its files' layer is tools
if(DEFINED TOOLS_DIR)
  if(NOT IS_DIRECTORY "${TOOLS_DIR}")
    message(FATAL_ERROR "layering.cmake: TOOLS_DIR=${TOOLS_DIR} is not a directory")
  endif()
  get_filename_component(TOOLS_DIR "${TOOLS_DIR}" ABSOLUTE)
  file(RELATIVE_PATH tools_prefix ${SRC_DIR} ${TOOLS_DIR})
  set(tools_prefix "${tools_prefix}/")
  file(GLOB_RECURSE tool_files RELATIVE ${SRC_DIR} ${TOOLS_DIR}/*)
  list(SORT tool_files)
  list(APPEND files ${tool_files})
endif()
# ---- end of the introspection API and the tools ----

set(report "")
set(violations 0)
set(scanned 0)
foreach(rel IN LISTS files)
  if(NOT rel MATCHES "\\.(c|cc|cpp|cxx|h|hh|hpp|hxx|inl|ipp|tpp)$")
    continue()
  endif()
  math(EXPR scanned "${scanned} + 1")
  if(rel MATCHES "^([^/]+)/")
    set(layer "${CMAKE_MATCH_1}")
  else()
    set(layer "")
  endif()
  string(FIND "${rel}" "${tools_prefix}" tools_at)
  if(NOT tools_prefix STREQUAL "" AND tools_at EQUAL 0)
    set(layer tools)
  endif()
  if(layer IN_LIST known_layers)
    set(forbidden ${forbidden_${layer}})
  else()
    set(forbidden ${forbidden_other})
  endif()
  get_filename_component(file_dir ${SRC_DIR}/${rel} DIRECTORY)

  # Split into lines. Characters that CMake's list syntax interprets are masked first so that
  # one list element is exactly one line (line numbers stay right).
  file(READ ${SRC_DIR}/${rel} text)
  string(REPLACE "\\" "<sc-bs>" text "${text}")
  string(REPLACE ";" "<sc-semi>" text "${text}")
  string(REPLACE "[" "<sc-lb>" text "${text}")
  string(REPLACE "]" "<sc-rb>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(lineno 0)
  foreach(line IN LISTS lines)
    math(EXPR lineno "${lineno} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")
      continue()
    endif()
    set(quote "${CMAKE_MATCH_1}")
    set(path "${CMAKE_MATCH_2}")
    get_filename_component(base "${path}" NAME)

    # Resolve the include.
    set(target_layer "")
    set(public_header "")
    set(candidate "")
    if(quote STREQUAL "\"" AND EXISTS "${file_dir}/${path}")
      get_filename_component(candidate "${file_dir}/${path}" ABSOLUTE)
    elseif(EXISTS "${SRC_DIR}/${path}")
      get_filename_component(candidate "${SRC_DIR}/${path}" ABSOLUTE)
    endif()
    if(candidate)
      file(RELATIVE_PATH crel ${SRC_DIR} ${candidate})
      if(crel MATCHES "^\\.\\./")
        if(base MATCHES "^doca_[A-Za-z0-9_]*\\.h$")
          set(public_header "${base}")
        endif()
      elseif(crel MATCHES "^([^/]+)/")
        set(target_layer "${CMAKE_MATCH_1}")
      endif()
    elseif(base MATCHES "^doca_[A-Za-z0-9_]*\\.h$")
      set(public_header "${base}")
    elseif(path MATCHES "^([^/]+)/" AND CMAKE_MATCH_1 IN_LIST known_layers)
      set(target_layer "${CMAKE_MATCH_1}")
    elseif(quote STREQUAL "\"" AND NOT path MATCHES "/")
      set(target_layer "${layer}")
    endif()

    set(reason "")
    if(NOT target_layer STREQUAL "" AND NOT target_layer STREQUAL layer
       AND target_layer IN_LIST forbidden)
      if(target_layer STREQUAL "capi")
        set(reason "only src/capi and src/argp may include the C API implementation")
      elseif(layer STREQUAL "tools")
        set(reason "tools/ may include from src/ only introspect/ and common/")
      elseif(target_layer STREQUAL "introspect")
        set(reason "only tools/ may include the introspection API (src/introspect)")
      else()
        set(reason "${layer} must not include ${target_layer}")
      endif()
    elseif(layer STREQUAL "transport" AND NOT public_header STREQUAL ""
           AND NOT public_header IN_LIST transport_public_allowed)
      set(reason "transport must not see DOCA object types (of the public headers only doca_error.h)")
    endif()

    # ---- comch and the transport boundary ----
    if(reason STREQUAL "" AND layer STREQUAL "comch")
      set(tpath "${path}")
      if(candidate)
        set(tpath "${crel}")
      endif()
      if(tpath MATCHES "^transport/([^/]+/|wire\\.hpp$|unix_socket\\.hpp$)")
        set(reason "comch reaches a transport through transport/transport.hpp and registry.hpp only")
      endif()
    endif()
    if(NOT reason STREQUAL "")
      string(REPLACE "<sc-bs>" "\\" shown "${line}")
      string(REPLACE "<sc-semi>" ";" shown "${shown}")
      string(REPLACE "<sc-lb>" "[" shown "${shown}")
      string(REPLACE "<sc-rb>" "]" shown "${shown}")
      string(STRIP "${shown}" shown)
      string(APPEND report "  ${rel}:${lineno}: ${shown}    <- ${reason}\n")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()

if(scanned EQUAL 0)
  message(FATAL_ERROR "layering.cmake: no source file found under ${SRC_DIR}")
endif()
if(violations GREATER 0)
  message(FATAL_ERROR "layering rules broken under ${SRC_DIR}:\n${report}${violations} violation(s) "
                      "(rules: tests/abi/layering.cmake, docs/testing.md)")
endif()
message(STATUS "layering: ${scanned} files under ${SRC_DIR} ${TOOLS_DIR} follow the include rules")
